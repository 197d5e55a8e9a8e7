package setup

import (
	"fmt"
	"math"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/devices/record"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/internal/safefile"
	"github.com/haptex/haptex/internal/vec3"
)

// KinematicsBuiltin names the kinematic model haptex ships: the geometry
// of its own exoskeleton (devices/twin, the emulator).
const KinematicsBuiltin = "builtin"

// LoadKinematics reads the [kinematics] table of a device description
// file (the exo.toml format of devices/twin; other tables are ignored).
func LoadKinematics(path string) (exo.Params, error) {
	data, err := readTOML(path)
	if err != nil {
		return exo.Params{}, err
	}
	var desc struct {
		Kinematics exo.Params `toml:"kinematics"`
	}
	md, err := toml.Decode(string(data), &desc)
	if err != nil {
		return exo.Params{}, fmt.Errorf("setup: %s: %w", path, safefile.OneLineError(err))
	}
	if !md.IsDefined("kinematics") {
		return exo.Params{}, fmt.Errorf("setup: %s has no [kinematics] table", path)
	}
	for _, k := range md.Undecoded() {
		if len(k) > 1 && k[0] == "kinematics" {
			return exo.Params{}, fmt.Errorf("setup: %s: unknown key %s", path, k)
		}
	}
	if _, err := exo.New(desc.Kinematics); err != nil {
		return exo.Params{}, fmt.Errorf("setup: %s: %w", path, err)
	}
	return desc.Kinematics, nil
}

// checkPose returns what is wrong with an exoskeleton's base pose keys.
func checkPose(d *Device) string {
	set := 0
	for _, v := range []*[3]float64{d.BaseOrigin, d.BaseX, d.BaseZ} {
		if v != nil {
			set++
			for _, x := range v {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return fmt.Sprintf("base pose %v is not finite", *v)
				}
			}
		}
	}
	switch {
	case set == 0:
		return ""
	case set != 3:
		return "give all of base_origin_m, base_x and base_z, or none"
	}
	x, z := *d.BaseX, *d.BaseZ
	if math.Abs(vec3.Norm(x)-1) > 1e-6 || math.Abs(vec3.Norm(z)-1) > 1e-6 || math.Abs(vec3.Dot(x, z)) > 1e-6 {
		return fmt.Sprintf("base_x %v and base_z %v must be orthonormal", x, z)
	}
	return ""
}

// kinematics resolves finger fi's exoskeleton model and base pose, with
// the kinematic calibration applied.
func (d *Device) kinematics(fi int) (record.Kinematics, error) {
	k, err := d.nominalKinematics(fi)
	if err != nil || d.cal == nil || d.cal.kin == nil {
		return k, err
	}
	if k.Params, err = d.cal.kin.Apply(k.Params); err != nil {
		return k, fmt.Errorf("setup: %w", err)
	}
	return k, nil
}

// nominalKinematics resolves finger fi's exoskeleton model, as the
// devices file names it, and base pose.
func (d *Device) nominalKinematics(fi int) (record.Kinematics, error) {
	var k record.Kinematics
	switch d.Kinematics {
	case KinematicsBuiltin:
		k.Params = twin.DefaultExoParams().Kinematics
	case "":
		return k, fmt.Errorf(`setup: no kinematics: set kinematics = "builtin" (haptex's own geometry) or a device description file`)
	default:
		p, err := LoadKinematics(d.Kinematics)
		if err != nil {
			return k, err
		}
		k.Params = p
	}
	k.Base = twin.DefaultBase(fi)
	if d.BaseOrigin != nil {
		k.Base = exo.PoseFromAxes(*d.BaseX, *d.BaseZ, *d.BaseOrigin)
	}
	return k, nil
}

// Exo is an opened exoskeleton with what the servo needs besides the
// device: its kinematic model and base pose. It passes Advance on when the
// device is devices.Clocked.
type Exo struct {
	devices.Exoskeleton
	kin   *exo.Model
	base  exo.Pose
	clock devices.Clocked
}

var (
	_ devices.Exoskeleton = (*Exo)(nil)
	_ devices.Clocked     = (*Exo)(nil)
	_ devices.Kinematic   = (*Exo)(nil)
)

func newExo(x devices.Exoskeleton, k record.Kinematics) (*Exo, error) {
	m, err := exo.New(k.Params)
	if err != nil {
		return nil, fmt.Errorf("setup: %w", err)
	}
	c, _ := x.(devices.Clocked)
	return &Exo{Exoskeleton: x, kin: m, base: k.Base, clock: c}, nil
}

// Kinematics returns the exoskeleton's kinematic model.
func (x *Exo) Kinematics() *exo.Model { return x.kin }

// Base returns the pose of the exoskeleton's base in the world.
func (x *Exo) Base() exo.Pose { return x.base }

// Advance advances a clocked device (and stamps recorded events with the
// run time).
func (x *Exo) Advance(t time.Duration) {
	if x.clock != nil {
		x.clock.Advance(t)
	}
}

package setup

import (
	"fmt"
	"sync"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/devices/link"
)

// DeviceCheck is what probing one configured device found.
type DeviceCheck struct {
	Finger string     `json:"finger"`
	Role   string     `json:"role"`
	Device Device     `json:"device"`
	Info   *link.Info `json:"found,omitempty"`
	// Err is why a run would refuse the device (unreachable, no haptex
	// device, the wrong kind, a CAPS outside the host's limits or the
	// kinematics); empty when a run would use it.
	Err string `json:"error,omitempty"`
}

// Probe opens every serial and HID device of f, runs the handshake and
// the checks Open makes (the kind of device, the host's limits in
// opt.Limits, an exoskeleton's CAPS against its kinematics) and closes it
// again: with Load, it finds what a run would refuse before the run. A
// device's output is off afterwards (a HELLO switches it off), so do not
// probe devices a run is using. Simulated devices are not listed.
func Probe(f *File, opt link.Options) []DeviceCheck {
	var out []DeviceCheck
	for fi, fg := range f.Fingers {
		for _, rd := range []struct {
			role string
			d    Device
		}{{RoleExo, fg.Exoskeleton}, {RoleTactile, fg.Tactile}} {
			if rd.d.Kind != KindSim {
				out = append(out, DeviceCheck{Finger: Fingers[fi], Role: rd.role, Device: rd.d})
			}
		}
	}
	var wg sync.WaitGroup
	for i := range out {
		wg.Add(1)
		go func(c *DeviceCheck) {
			defer wg.Done()
			c.Err = probeOne(c, fingerIndex(c.Finger), opt)
		}(&out[i])
	}
	wg.Wait()
	return out
}

func probeOne(c *DeviceCheck, fi int, opt link.Options) string {
	opt.Transport = devices.Transport(c.Device.Kind)
	if c.Role == RoleExo {
		if c.Device.cal == nil {
			if err := c.Device.loadCalibrations(fi, ""); err != nil {
				return err.Error()
			}
		}
		k, err := c.Device.kinematics(fi)
		if err != nil {
			return err.Error()
		}
		if opt.Kinematics, err = exo.New(k.Params); err != nil {
			return err.Error()
		}
	}
	conn, err := openConn(c.Device)
	if err != nil {
		return err.Error()
	}
	info, err := link.Probe(conn, opt)
	if err != nil {
		return err.Error()
	}
	c.Info = &info
	names := map[string]string{"exoskeleton": "an exoskeleton", "tactile": "a tactile array"}
	want := "exoskeleton"
	if c.Role == RoleTactile {
		want = "tactile"
	}
	switch {
	case info.Kind != want:
		return fmt.Sprintf("%s is %s, not %s", info.Port, names[info.Kind], names[want])
	case info.Refused != "":
		return "refused: " + info.Refused
	case info.Exo != nil:
		if err := c.Device.cal.checkDevice(*info.Exo); err != nil {
			return err.Error()
		}
	}
	return ""
}

package emu

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/haptex/haptex/calib/device"
	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/internal/vec3"
)

// The calibration stands of the emulated devices, and their errors.
//
// With Config.Errors an emulated exoskeleton is built as haptex's
// calibration twin is (calib/device): its force sensor has the gains and
// biases of device.TwinSensorError and its kinematics the encoder zeros
// and link lengths of device.TwinKinematics, while the host's "builtin"
// kinematics stay nominal, as a real device differs from its drawing.
//
// With Config.Stand each exoskeleton sits on its calibration stand instead
// of on a hand: a jig (device.Jig) whose locating cone holds the pad, and
// a clamp that locks the joints so that a load hung from the pad is all
// the force sensor carries. StandLoad and StandJig operate them, as the
// operator of a real stand would; every tactile array has a laser
// vibrometer (Vibrometer), stand or not. haptex calib ... -devices finds
// an announced emulator's stand socket and lets it carry out each step.

// ErrNoStand is returned for a stand operation on a device that is not on
// one.
var ErrNoStand = errors.New("emu: the emulated exoskeleton is on the hand, not on a calibration stand (haptex devices emulate -stand)")

// jig travel, and the jig's locating cone, as calib/device's twin stand.
const (
	standTravel = 200 * time.Millisecond
	standSettle = 40 * time.Millisecond
	standFinger = 2e6 // N/m, finger and pulp stiffness of the locating cone
)

// exoParams returns the emulated exoskeleton's description: the physical
// twin's, with the calibration twin's errors when errors is set, and with
// the jig's locating cone for the finger on a stand.
func exoParams(dc DeviceConfig, errs, stand bool) twin.ExoParams {
	p := twin.DefaultExoParams()
	p.Transport = twin.TransportParams{}
	if dc.Serial != "" {
		p.Serial = dc.Serial
	}
	if errs {
		p.Sensor.Gain, p.Sensor.Bias = device.TwinSensorError()
		p.Kinematics = device.TwinKinematics()
	}
	if stand {
		p.Finger = twin.FingerParams{Mass: 0.1, Stiffness: standFinger, Damping: 800}
		p.Pulp = twin.PulpParams{Stiffness: standFinger, Damping: 500}
		p.Substeps = 50
	}
	return p
}

// standExo is an exoskeleton on its calibration stand.
type standExo struct {
	*twin.Exo
	jig *device.Jig
}

// newStandExo builds the device on its stand, the jig holding the pad
// where the nominal kinematics put it at the home posture.
func newStandExo(dc DeviceConfig, errs bool) (*standExo, error) {
	f, err := fingerOf(dc.Name)
	if err != nil {
		return nil, err
	}
	nominal := exo.DefaultParams()
	nom, err := exo.New(nominal)
	if err != nil {
		return nil, err
	}
	base := twin.DefaultBase(f)
	jig := device.NewJig(base, nom.Forward(nominal.Home))
	x, err := twin.NewExo(exoParams(dc, errs, true), base, jig, f)
	if err != nil {
		return nil, err
	}
	return &standExo{Exo: x, jig: jig}, nil
}

// load clamps the joints where they are and hangs a load that puts loadN
// (sensor frame [N], the force devices.ExoState.Force reports) on the
// sensor.
func (s *standExo) load(loadN [3]float64) {
	var k exo.Kin
	s.Kinematics().Eval(&k, s.Truth().Q)
	s.Clamp(true)
	// The plate holds the load with −load (see calib/device's twin stand).
	base := s.Base()
	s.SetPadLoad(vec3.Scale(-1, base.Vec(k.R.MulVec(loadN))))
}

// moveJig unclamps the joints, takes any load off and carries the pad to
// point (device base frame [m]) from now on.
func (s *standExo) moveJig(now time.Duration, point [3]float64) {
	s.Clamp(false)
	s.SetPadLoad([3]float64{})
	s.jig.MoveTo(now, point, standTravel)
}

// StandLoad hangs a calibration load on the named exoskeleton's pad: its
// joints are clamped where they are and its force sensor carries loadN
// (sensor frame [N]) and nothing else.
func (e *Emulator) StandLoad(name string, loadN [3]float64) error {
	if !finite3(loadN) || vec3.Norm(loadN) > 50 {
		return fmt.Errorf("emu: stand load %v N: want a finite load of at most 50 N", loadN)
	}
	return e.onStand(name, func(_ time.Duration, s *standExo) { s.load(loadN) })
}

// StandJig has the named exoskeleton's jig carry its pad to point (device
// base frame [m]), which takes 200 ms; the clamp is released and any load
// taken off first.
func (e *Emulator) StandJig(name string, point [3]float64) error {
	if !finite3(point) || vec3.Norm(point) > 0.5 {
		return fmt.Errorf("emu: jig point %v m: want a finite point within 0.5 m of the base", point)
	}
	return e.onStand(name, func(now time.Duration, s *standExo) { s.moveJig(now, point) })
}

func (e *Emulator) onStand(name string, fn func(now time.Duration, s *standExo)) error {
	p := e.Plug(name)
	if p == nil {
		return fmt.Errorf("emu: no device %q", name)
	}
	return p.dev.withBackend(func(now time.Duration) error {
		s, ok := p.dev.exo.(*standExo)
		if !ok {
			if p.dev.exo == nil {
				return fmt.Errorf("emu: %s is not an exoskeleton", name)
			}
			return ErrNoStand
		}
		fn(now, s)
		return nil
	})
}

// Vibrometer measures the named tactile array's pin at freqHz (40 or
// 320): the peak amplitude [µm] its contactor delivers now, as a laser
// vibrometer aimed at it reads it.
func (e *Emulator) Vibrometer(name string, pin, freqHz int) (float64, error) {
	p := e.Plug(name)
	if p == nil {
		return 0, fmt.Errorf("emu: no device %q", name)
	}
	var a float64
	err := p.dev.withBackend(func(time.Duration) error {
		d, ok := p.dev.tac.(interface {
			Delivered(dst *devices.TactileFrame)
		})
		if !ok {
			return fmt.Errorf("emu: %s is not an emulated pin array with contactors to measure", name)
		}
		var err error
		a, err = device.DeliveredVibrometer{Array: d}.Measure(pin, freqHz)
		return err
	})
	return a, err
}

func finite3(v [3]float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

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
// of on a hand: its joints clamped, no finger in it. A jig holds the pad
// at a point (the joints where the device's true kinematics put the pad
// there) and a load hung from the pad is all the force sensor carries.
// StandJig and StandLoad operate them, as the operator of a real stand
// would; every tactile array has a laser vibrometer (Vibrometer), stand
// or not. haptex calib ... -devices finds an announced emulator's stand
// socket and lets it carry out each step.

// ErrNoStand is returned for a stand operation on a device that is not on
// one.
var ErrNoStand = errors.New("emu: the emulated exoskeleton is on the hand, not on a calibration stand (haptex devices emulate -stand)")

// exoParams returns the emulated exoskeleton's description: the physical
// twin's, with the calibration twin's errors when errs is set.
func exoParams(dc DeviceConfig, errs bool) twin.ExoParams {
	p := twin.DefaultExoParams()
	p.Transport = twin.TransportParams{}
	if dc.Serial != "" {
		p.Serial = dc.Serial
	}
	if errs {
		p.Sensor.Gain, p.Sensor.Bias = device.TwinSensorError()
		p.Kinematics = device.TwinKinematics()
	}
	return p
}

// standExo is an exoskeleton on its calibration stand.
type standExo struct{ *twin.Exo }

// newStandExo builds the device on its stand, the pad where the nominal
// kinematics put it at the home posture.
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
	x, err := twin.NewExo(exoParams(dc, errs), base, fixedIntent(base.Point(nom.Forward(nominal.Home))), f)
	if err != nil {
		return nil, err
	}
	x.Clamp(true)
	return &standExo{x}, nil
}

// fixedIntent holds a finger still at a point (world [m]).
type fixedIntent [3]float64

func (p fixedIntent) At(time.Duration, int) (pos, vel [3]float64) { return p, [3]float64{} }

// load hangs a load that puts loadN (sensor frame [N], the force
// devices.ExoState.Force reports) on the sensor.
func (s *standExo) load(loadN [3]float64) {
	var k exo.Kin
	s.Kinematics().Eval(&k, s.Truth().Q)
	// The plate holds the load with −load (see calib/device's twin stand).
	base := s.Base()
	s.SetPadLoad(vec3.Scale(-1, base.Vec(k.R.MulVec(loadN))))
}

// moveJig takes any load off and has the jig hold the pad at point
// (device base frame [m]).
func (s *standExo) moveJig(point [3]float64) error {
	q, err := s.Kinematics().Inverse(point, s.Truth().Q, 1e-10)
	if err != nil {
		return fmt.Errorf("emu: jig point %v m out of the device's reach: %w", point, err)
	}
	s.SetPadLoad([3]float64{})
	return s.PlaceJoints(q)
}

// StandLoad hangs a calibration load on the named exoskeleton's pad: its
// joints are clamped where they are and its force sensor carries loadN
// (sensor frame [N]) and nothing else.
func (e *Emulator) StandLoad(name string, loadN [3]float64) error {
	if !finite3(loadN) || vec3.Norm(loadN) > 50 {
		return fmt.Errorf("emu: stand load %v N: want a finite load of at most 50 N", loadN)
	}
	return e.onStand(name, func(s *standExo) error { s.load(loadN); return nil })
}

// StandJig has the named exoskeleton's jig hold its pad at point (device
// base frame [m]); any load is taken off first.
func (e *Emulator) StandJig(name string, point [3]float64) error {
	if !finite3(point) || vec3.Norm(point) > 0.5 {
		return fmt.Errorf("emu: jig point %v m: want a finite point within 0.5 m of the base", point)
	}
	return e.onStand(name, func(s *standExo) error { return s.moveJig(point) })
}

func (e *Emulator) onStand(name string, fn func(s *standExo) error) error {
	p := e.Plug(name)
	if p == nil {
		return fmt.Errorf("emu: no device %q", name)
	}
	return p.dev.withBackend(func(time.Duration) error {
		s, ok := p.dev.exo.(*standExo)
		if !ok {
			if p.dev.exo == nil {
				return fmt.Errorf("emu: %s is not an exoskeleton", name)
			}
			return ErrNoStand
		}
		return fn(s)
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
		d, ok := p.dev.tac.(devices.DeliveryReader)
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

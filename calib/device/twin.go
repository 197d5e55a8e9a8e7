package device

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/internal/vec3"
)

// The calibration twin: the simulated devices of devices/twin built with
// known errors and set on their calibration stands, so that every
// calibration runs unattended on a virtual clock and what it recovers can
// be held against the truth.

// TwinSensorError returns the force-sensor errors the calibration twin is
// built with, per sensor axis: gains 3 % to 4 % off nominal and biases of
// tens of millinewtons [N].
func TwinSensorError() (gain, bias [3]float64) {
	return [3]float64{1.03, 0.96, 1.02}, [3]float64{0.05, -0.04, 0.03}
}

// TwinKinematics returns the calibration twin's true kinematics: encoder
// zeros 1.8° to 3.1° and two links 0.45 to 0.5 mm off exo.DefaultParams.
func TwinKinematics() exo.Params {
	const deg = math.Pi / 180
	p := exo.DefaultParams()
	p.Links[0].Offset += 2.5 * deg
	p.Links[1].Offset -= 1.8 * deg
	p.Links[2].Offset += 3.1 * deg
	p.Links[1].A += 0.5e-3
	p.Links[2].A -= 0.45e-3
	return p
}

// StandLoadsKg are the masses a force stand hangs on the pad [kg]: the
// plan of the calibration twin's stand and of the emulator's.
var StandLoadsKg = []float64{0.05, 0.1, 0.2}

// JigPoints is the number of jig points of a kinematics calibration.
const JigPoints = 15

// How long the twin's jig takes to carry the pad to a point and to let it
// settle there.
const (
	twinJigTravel = 200 * time.Millisecond
	twinJigSettle = 40 * time.Millisecond
)

// TwinStand calibrates the devices of one finger's calibration twin, each
// on its stand with an automatic operator. A calibration file it returns is
// stamped with the current time.
type TwinStand struct {
	Finger string // "thumb" or "index"
	// Announce, when set, is told each step as the stand begins it.
	Announce func(Step)
}

// finger returns the twin's finger index (devices/twin numbering).
func (s TwinStand) finger() (int, error) {
	switch s.Finger {
	case "thumb":
		return 0, nil
	case "index":
		return 1, nil
	}
	return 0, fmt.Errorf("device: calibration finger %q (want thumb or index)", s.Finger)
}

func (s TwinStand) announce(st Step) {
	if s.Announce != nil {
		s.Announce(st)
	}
}

// Force calibrates the twin's force sensor (errors: TwinSensorError) on
// its stand: joints clamped at the home posture, finger out, the stand
// hanging each load of the plan (50, 100 and 200 g along each sensor axis)
// on the pad, 200 samples a reading.
func (s TwinStand) Force(ctx context.Context) (*ForceCalibration, error) {
	f, err := s.finger()
	if err != nil {
		return nil, err
	}
	base := twin.DefaultBase(f)
	p := twin.DefaultExoParams()
	p.Sensor.Gain, p.Sensor.Bias = TwinSensorError()
	kin, err := exo.New(p.Kinematics)
	if err != nil {
		return nil, err
	}
	q := p.Kinematics.Home
	var k exo.Kin
	kin.Eval(&k, q)
	dev, err := twin.NewExo(p, base, fixedIntent(base.Point(kin.Forward(q))), f)
	if err != nil {
		return nil, err
	}
	dev.Clamp(true)
	plan, err := LoadPlan(StandLoadsKg)
	if err != nil {
		return nil, err
	}
	clock := NewVirtualClock(dev)
	sess := Session{Finger: s.Finger, Clock: clock, Samples: 200, Prompt: func(st Step) error {
		s.announce(st)
		// The plate holds the load that makes the sensor's true force
		// LoadN (sensor frame) with −load.
		dev.SetPadLoad(vec3.Scale(-1, base.Vec(k.R.MulVec(plan[st.Index].LoadN))))
		return nil
	}}
	return RunForce(ctx, dev, sess, plan, PerAxis)
}

// Kinematics calibrates the twin's kinematics (truth: TwinKinematics)
// against the nominal exo.DefaultParams, the pad carried by a Jig to the
// 15 points of PlanPoses for DefaultKinParams, 20 samples a reading.
func (s TwinStand) Kinematics(ctx context.Context) (*KinematicCalibration, error) {
	f, err := s.finger()
	if err != nil {
		return nil, err
	}
	base := twin.DefaultBase(f)
	p := twin.DefaultExoParams()
	p.Kinematics = TwinKinematics()
	// The jig's locating cone holds the pad (see Jig).
	p.Finger = twin.FingerParams{Mass: 0.1, Stiffness: 2e6, Damping: 800}
	p.Pulp = twin.PulpParams{Stiffness: 2e6, Damping: 500}
	// The kinematic model maps rotor (encoder) angles to the pad; the
	// cable's stretch under the rotors' friction (up to Coulomb/stiffness,
	// 0.18 mrad) is not part of it, so the stand's device is rigid.
	p.Drive.TransmissionStiffness = [3]float64{}
	p.Substeps = 50
	nominal := exo.DefaultParams()
	nom, err := exo.New(nominal)
	if err != nil {
		return nil, err
	}
	jig := NewJig(base, nom.Forward(nominal.Home))
	dev, err := twin.NewExo(p, base, jig, f)
	if err != nil {
		return nil, err
	}
	plan, err := PlanPoses(nominal, DefaultKinParams(), JigPoints)
	if err != nil {
		return nil, err
	}
	clock := NewVirtualClock(dev)
	op := jig.Operator(clock, plan.Points, twinJigTravel, twinJigSettle)
	sess := Session{Finger: s.Finger, Clock: clock, Samples: 20, Prompt: func(st Step) error {
		s.announce(st)
		return op(st)
	}}
	return RunKinematics(ctx, dev, sess, nominal, plan)
}

// Tactile calibrates the pins of the twin's tactile array, whose
// sensitivities spread about nominal as twin.DefaultTactileParams says
// (PinSpreadDB), measured with a DeliveredVibrometer over
// DefaultTactilePlan.
func (s TwinStand) Tactile(ctx context.Context) (*TactileCalibration, error) {
	f, err := s.finger()
	if err != nil {
		return nil, err
	}
	arr, err := twin.NewTactile(twin.DefaultTactileParams(), f)
	if err != nil {
		return nil, err
	}
	clock := NewVirtualClock(arr)
	sess := Session{Finger: s.Finger, Clock: clock, Prompt: func(st Step) error { s.announce(st); return nil }}
	return RunTactile(ctx, arr, DeliveredVibrometer{Array: arr}, sess, DefaultTactilePlan(arr.Spec()))
}

// fixedIntent holds the twin's finger still at one point (world [m]).
type fixedIntent [3]float64

func (p fixedIntent) At(time.Duration, int) (pos, vel [3]float64) { return p, [3]float64{} }

package device

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/exo"
)

// Step is one instruction of a calibration routine to its operator.
type Step struct {
	Index       int // 0-based
	Total       int
	Instruction string
}

// Prompt asks the operator to carry out one step and returns once it is
// done, or with an error that aborts the calibration. On the rig it prints
// the instruction and waits for the operator's key; for a simulated twin
// it does the step itself (Jig.Operator).
type Prompt func(s Step) error

// Clock lets a calibration wait for its device.
type Clock interface {
	// Sleep returns after d has passed on the device's clock.
	Sleep(d time.Duration)
}

// RealClock waits in real time, for hardware.
type RealClock struct{}

// Sleep calls time.Sleep.
func (RealClock) Sleep(d time.Duration) { time.Sleep(d) }

// VirtualClock is the clock of simulated twins: Sleep advances its time
// and every device on it (devices.Clocked), faster than real time. It is
// used from one goroutine.
type VirtualClock struct {
	now  time.Duration
	devs []devices.Clocked
}

// NewVirtualClock returns a clock at time zero driving devs, each advanced
// to zero so that it starts there.
func NewVirtualClock(devs ...devices.Clocked) *VirtualClock {
	for _, d := range devs {
		d.Advance(0)
	}
	return &VirtualClock{devs: devs}
}

// Now returns the clock's time.
func (c *VirtualClock) Now() time.Duration { return c.now }

// Sleep advances the clock and its devices by d.
func (c *VirtualClock) Sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	c.now += d
	for _, dev := range c.devs {
		dev.Advance(c.now)
	}
}

// Session is what every calibration run needs besides its device.
type Session struct {
	Finger  string           // "thumb" or "index"
	Prompt  Prompt           // required
	Clock   Clock            // nil: RealClock
	Samples int              // device samples averaged per reading (0: 100)
	Now     func() time.Time // stamps the file's Created (nil: time.Now)
	// Settle is how long a force calibration waits after the operator
	// confirms a load before it starts averaging, so a hung mass stops
	// swinging and the samples in flight from before the change are gone
	// (0: 500 ms; negative: no wait).
	Settle time.Duration
}

func (s *Session) check() error {
	if s.Finger != "thumb" && s.Finger != "index" {
		return fmt.Errorf("device: calibration finger %q (want thumb or index)", s.Finger)
	}
	if s.Prompt == nil {
		return errors.New("device: calibration needs an operator prompt")
	}
	if s.Samples < 0 {
		return fmt.Errorf("device: %d samples per reading", s.Samples)
	}
	if s.Clock == nil {
		s.Clock = RealClock{}
	}
	if s.Samples == 0 {
		s.Samples = 100
	}
	if s.Now == nil {
		s.Now = time.Now
	}
	if s.Settle == 0 {
		s.Settle = 500 * time.Millisecond
	}
	return nil
}

// exoReading is the average of fresh device samples.
type exoReading struct {
	joints, force [3]float64
	spread        [3]float64 // max − min of each joint [rad]
}

// samplePeriod is how long the calibration waits before each Read: the
// device's sample period, 1 ms when it does not say.
func samplePeriod(dev devices.Exoskeleton) time.Duration {
	if p := dev.Spec().SamplePeriod; p > 0 {
		return p
	}
	return time.Millisecond
}

// offWait is how many fresh samples motorsOff reads for the device to
// report its motors off: those already on their way when it asked may
// report them on.
const offWait = 100

// motorsOff switches the device's motors off and waits for a fresh sample
// that reports them off, before anyone puts a hand or a load on it.
func motorsOff(ctx context.Context, dev devices.Exoskeleton, s *Session) error {
	if err := dev.Enable(false); err != nil {
		return fmt.Errorf("device: switch the motors off: %w", err)
	}
	period := samplePeriod(dev)
	var st devices.ExoState
	for fresh, silent := 0, 0; ; {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("device: calibration: %w", err)
		}
		if fresh == offWait {
			return fmt.Errorf("device: the device still reports its motors on %d samples after the host switched them off: a calibration needs them off", fresh)
		}
		if silent == 10*offWait {
			return fmt.Errorf("device: no fresh sample in %d sample periods after the host switched the motors off: is the device sampling?", silent)
		}
		s.Clock.Sleep(period)
		err := dev.Read(&st)
		switch {
		case errors.Is(err, devices.ErrTimeout), err == nil && st.Stale:
			silent++
			continue
		case err != nil:
			return fmt.Errorf("device: read: %w", err)
		case !st.Enabled:
			return nil
		}
		fresh++
	}
}

// readExo averages n fresh samples, waiting one sample period before each
// Read. Stale samples and timeouts are skipped; a fault, the motors
// reported on, non-finite data or a device that stays silent for 10n+100
// periods in a row is an error (a device that samples, however slowly a
// loaded host sees it, is not).
func readExo(ctx context.Context, dev devices.Exoskeleton, s *Session, n int) (exoReading, error) {
	period := samplePeriod(dev)
	var rd exoReading
	var st devices.ExoState
	lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	got, silent := 0, 0
	for got < n {
		if err := ctx.Err(); err != nil {
			return rd, fmt.Errorf("device: calibration: %w", err)
		}
		if silent == 10*n+100 {
			return rd, fmt.Errorf("device: no fresh sample in %d sample periods (%d of %d read): is the device sampling?", silent, got, n)
		}
		s.Clock.Sleep(period)
		err := dev.Read(&st)
		if errors.Is(err, devices.ErrTimeout) {
			silent++
			continue
		}
		if err != nil {
			return rd, fmt.Errorf("device: read: %w", err)
		}
		if st.Stale {
			silent++
			continue
		}
		silent = 0
		if st.Fault != 0 {
			return rd, fmt.Errorf("device: device reports fault bits %#x", st.Fault)
		}
		if st.Enabled {
			return rd, fmt.Errorf("device: sample %d reports the motors on, which the calibration switched off: stopped (its readings need them off)", st.Seq)
		}
		if !finite3(st.Joint) || !finite3(st.Force) {
			return rd, fmt.Errorf("device: sample %d: joints %v, force %v not finite", st.Seq, st.Joint, st.Force)
		}
		for k := range 3 {
			rd.joints[k] += st.Joint[k]
			rd.force[k] += st.Force[k]
			lo[k], hi[k] = math.Min(lo[k], st.Joint[k]), math.Max(hi[k], st.Joint[k])
		}
		got++
	}
	for k := range 3 {
		rd.joints[k] /= float64(n)
		rd.force[k] /= float64(n)
		rd.spread[k] = hi[k] - lo[k]
	}
	return rd, nil
}

func deviceName(model, serial string) string { return DeviceName(model, serial) }

// DeviceName is how a calibration file names its device (the Device
// field): the model and serial the device announces, "model serial".
func DeviceName(model, serial string) string {
	if serial == "" {
		return model
	}
	return model + " " + serial
}

// RunForce runs a force-sensor calibration: with the motors off, it asks
// the operator to apply each load of plan (LoadPlan), averages
// s.Samples force readings under it, and fits the sensor model. The raw
// reading is devices.ExoState.Force as the device reports it, so the fit
// corrects the device's own calibration.
func RunForce(ctx context.Context, dev devices.Exoskeleton, s Session, plan []PlannedLoad, model ForceModel) (*ForceCalibration, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	if len(plan) == 0 {
		return nil, errors.New("device: force calibration needs a load plan")
	}
	if err := motorsOff(ctx, dev, &s); err != nil {
		return nil, err
	}
	samples := make([]ForceSample, 0, len(plan))
	for i, pl := range plan {
		if err := s.Prompt(Step{Index: i, Total: len(plan), Instruction: pl.Instruction}); err != nil {
			return nil, fmt.Errorf("device: force calibration step %d of %d: %w", i+1, len(plan), err)
		}
		if s.Settle > 0 {
			s.Clock.Sleep(s.Settle)
		}
		rd, err := readExo(ctx, dev, &s, s.Samples)
		if err != nil {
			return nil, fmt.Errorf("device: force calibration step %d of %d: %w", i+1, len(plan), err)
		}
		samples = append(samples, ForceSample{LoadN: pl.LoadN, Raw: rd.force})
	}
	c, err := FitForce(samples, model)
	if err != nil {
		return nil, err
	}
	spec := dev.Spec()
	c.Device, c.Finger, c.Created = deviceName(spec.Model, spec.Serial), s.Finger, s.Now().UTC()
	return c, c.Validate()
}

// stillWindows is how many reading windows RunKinematics waits for the
// joints to come to rest at a jig point.
const stillWindows = 20

// RunKinematics runs a kinematic calibration: with the motors off, it asks
// the operator to hold the pad centre at each point of plan in turn, waits
// until the joints are still (no encoder moving more than 2 counts over
// s.Samples readings), records the averaged encoder readings, and fits
// plan.Params of nominal (FitKinematics), weighting the poses by the jig's
// placement error plan.JigSigmaM and the encoders' quantisation
// (resolution/√12).
func RunKinematics(ctx context.Context, dev devices.Exoskeleton, s Session, nominal exo.Params, plan *PosePlan) (*KinematicCalibration, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	if plan == nil || len(plan.Points) == 0 {
		return nil, errors.New("device: kinematic calibration needs a pose plan")
	}
	if err := motorsOff(ctx, dev, &s); err != nil {
		return nil, err
	}
	spec := dev.Spec()
	still := 2 * spec.EncoderRes
	if !(still > 0) {
		still = 1e-5
	}
	n := len(plan.Points)
	poses := make([]KinPose, 0, n)
	for i, pt := range plan.Points {
		instr := fmt.Sprintf("hold the pad centre in jig point %d of %d at (%.1f, %.1f, %.1f) mm, device base frame", i+1, n, 1e3*pt[0], 1e3*pt[1], 1e3*pt[2])
		if err := s.Prompt(Step{Index: i, Total: n, Instruction: instr}); err != nil {
			return nil, fmt.Errorf("device: kinematic calibration pose %d of %d: %w", i+1, n, err)
		}
		var rd exoReading
		for w := 0; ; w++ {
			var err error
			if rd, err = readExo(ctx, dev, &s, s.Samples); err != nil {
				return nil, fmt.Errorf("device: kinematic calibration pose %d of %d: %w", i+1, n, err)
			}
			if rd.spread[0] <= still && rd.spread[1] <= still && rd.spread[2] <= still {
				break
			}
			if w == stillWindows {
				return nil, fmt.Errorf("device: kinematic calibration pose %d of %d: joints still moving (spread %.3g rad over %d samples, want %.3g): hold the pad still in the jig",
					i+1, n, rd.spread, s.Samples, still)
			}
		}
		poses = append(poses, KinPose{Point: pt, Joints: rd.joints})
	}
	noise := KinNoise{JigM: plan.JigSigmaM, EncoderRad: spec.EncoderRes / math.Sqrt(12)}
	c, err := FitKinematics(nominal, plan.Params, poses, noise)
	if err != nil {
		return nil, err
	}
	c.Device, c.Finger, c.Created = deviceName(spec.Model, spec.Serial), s.Finger, s.Now().UTC()
	c.Report.EncoderResRad = spec.EncoderRes
	return c, c.Validate()
}

// Jig is the automatic operator of RunKinematics on a simulated
// exoskeleton: a calibration jig that carries the pad centre to each jig
// point. It is the simulated finger's intent (it has the At method of
// devices/twin.Intent): build the simulated device with the Jig as its
// intent and a finger as stiff as a locating cone, and use Jig.Operator
// as the session's Prompt. Finger and pulp stiffness of 2·10⁶ N/m each
// (1 N/µm in series), finger mass 0.1 kg and damping of 800 and
// 500 N·s/m hold the pad within about a micrometre of the jig point
// against the device's gravity and joint friction (about 1 N at the pad);
// the device's integration substeps must then be 20 µs or shorter. A Jig is used from one goroutine,
// the one that runs the calibration and advances the device's clock.
type Jig struct {
	base     exo.Pose
	from, to [3]float64 // world [m]
	t0, dur  time.Duration
}

// NewJig returns a jig resting at start (device base frame [m]) for a
// device whose base sits at base in the world.
func NewJig(base exo.Pose, start [3]float64) *Jig {
	w := base.Point(start)
	return &Jig{base: base, from: w, to: w}
}

// At returns the jig's position and velocity (world) at t: a minimum-jerk
// move from the previous point to the current one.
func (j *Jig) At(t time.Duration, _ int) (pos, vel [3]float64) {
	if t <= j.t0 || j.dur <= 0 {
		if t <= j.t0 {
			return j.from, vel
		}
		return j.to, vel
	}
	tau := float64(t-j.t0) / float64(j.dur)
	if tau >= 1 {
		return j.to, vel
	}
	s := tau * tau * tau * (10 - 15*tau + 6*tau*tau)
	ds := 30 * tau * tau * (1 - 2*tau + tau*tau) / j.dur.Seconds()
	for k := range 3 {
		d := j.to[k] - j.from[k]
		pos[k] = j.from[k] + s*d
		vel[k] = ds * d
	}
	return pos, vel
}

// MoveTo starts a move at t from where the jig is to point (device base
// frame [m]), taking dur.
func (j *Jig) MoveTo(t time.Duration, point [3]float64, dur time.Duration) {
	j.from, _ = j.At(t, 0)
	j.to = j.base.Point(point)
	j.t0, j.dur = t, dur
}

// Operator returns the Prompt that carries out step i of RunKinematics on
// the simulated twin: it moves the jig to points[i] in travel and lets
// settle pass on clock, which drives the device.
func (j *Jig) Operator(clock *VirtualClock, points [][3]float64, travel, settle time.Duration) Prompt {
	return func(s Step) error {
		if s.Index < 0 || s.Index >= len(points) {
			return fmt.Errorf("device: jig has no point %d (it has %d)", s.Index+1, len(points))
		}
		j.MoveTo(clock.Now(), points[s.Index], travel)
		clock.Sleep(travel + settle)
		return nil
	}
}

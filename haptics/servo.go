package haptics

import (
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/internal/vec3"
	"github.com/haptex/haptex/sim"
)

// Finger is one finger's hardware as the servo sees it.
type Finger struct {
	Device devices.Exoskeleton // nil: no device for this finger
	Kin    *exo.Model          // the device's kinematic model
	Base   exo.Pose            // the device's base in the world
}

// FingerStatus is a finger's place in the safety envelope.
type FingerStatus struct {
	State   State
	Reason  Reason
	Confirm Confirm       // in StateSafe: how the safe state is known to hold
	Since   time.Duration // when the state was entered
	Trips   int           // faults since the servo started
}

// Servo is the 1 kHz force-feedback servo of both fingers. Build it once
// with NewServo; call Tick once per period from one goroutine. Tick does
// no heap allocation and no I/O beyond the devices' Read, Write and
// Enable.
type Servo struct {
	cfg     Config
	scale   float64 // rendered force per cloth force (SetForceScale)
	period  time.Duration
	fingers [sim.NumFingers]fingerServo
	tPrev   time.Duration
	started bool
	streak  int
	tick    uint64
	stop    atomic.Bool // Stop was called
}

type fingerServo struct {
	idx  int
	cfg  *Config
	dt   float64 // the nominal period [s]
	dev  devices.Exoskeleton
	clk  devices.Clocked
	kin  *exo.Model
	base exo.Pose
	ctl  *controller

	maxForce, tripForce, maxStiff float64
	maxTorque                     [3]float64

	status       FingerStatus
	healthySince time.Duration
	healthy      bool
	// poweredOn: a sample has reported the power stage on since the
	// finger entered StateEnabling. Enable does not wait for the device,
	// and samples already on their way then still report it off.
	poweredOn bool
	fault     Reason // fault seen this tick

	st        devices.ExoState
	readOK    bool
	fresh     bool
	lastFresh time.Duration
	lastSeq   uint32
	lastDevT  time.Duration
	haveSeq   bool
	fPrev     [3]float64 // previous fresh force sample, sensor frame
	haveF     bool

	k       exo.Kin
	pos     [3]float64 // world
	vel     [3]float64
	fMeas   [3]float64 // world
	normal  [3]float64
	contact bool

	modelStep uint64
	modelOK   bool
	model     sim.LocalModel // the cloth's model as rendered: its stiffness limited
	fCloth    [3]float64     // the cloth's force at the measured pad as the simulation published it, scaled, within the force limit [N, world]
	offset    [3]float64     // blend between two sim steps [N, world]
	fDes      [3]float64     // rendered force after the envelope [N, world]
	fEnv      [3]float64     // the passivity observer's reference: the force the previous tick asked for, with a loop-gain test signal
	fStiff    [3]float64     // the part of this tick's cloth force that the pad's own displacement makes, K (x - X0 - V (t - T)), scaled [N, world]

	energy, damping float64
	kRender         float64 // stiffness of the contact rendered this tick [N/m]
	kAsked          float64 // stiffness the cloth's local model asked for this tick, scaled [N/m]
	limited         bool    // kRender is less than kAsked: the coupling limited the stiffness
	capped          bool    // the cloth's force exceeded maxForce this tick and was capped to it
	scale           float64 // copy of Servo.scale
	saturated       uint64  // ticks in which the force bound held the motors (limitTorque)

	cmd     devices.ExoCommand
	tauOut  [3]float64
	tauHold [3]float64

	guard   guard      // safety.go
	tauLink [3]float64 // torque the links carry, through a first-order low-pass of stretchTau [N·m]
}

// NewServo builds the servo. A finger with a nil Device is permanently in
// the safe state (ReasonNoDevice). Devices implementing devices.Clocked
// are advanced to each tick's time before they are read.
func NewServo(cfg Config, fingers [sim.NumFingers]Finger) (*Servo, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Servo{cfg: cfg, scale: 1, period: cfg.Period}
	for f := range fingers {
		fs := &s.fingers[f]
		fs.idx, fs.cfg, fs.scale, fs.dt = f, &s.cfg, 1, cfg.Period.Seconds()
		fs.status = FingerStatus{State: StateSafe, Reason: ReasonStartup, Confirm: ConfirmCommanded}
		in := fingers[f]
		if in.Device == nil {
			fs.status.Reason, fs.status.Confirm = ReasonNoDevice, ConfirmNone
			continue
		}
		if in.Kin == nil {
			return nil, fmt.Errorf("haptics: %s: no kinematic model", sim.FingerName(f))
		}
		if !in.Base.Orthonormal(1e-9) {
			return nil, fmt.Errorf("haptics: %s: base rotation is not a rotation: %v", sim.FingerName(f), in.Base.R)
		}
		ctl, err := newController(&s.cfg)
		if err != nil {
			return nil, err
		}
		spec := in.Device.Spec()
		if err := cfg.Limits.CheckSpec(&spec); err != nil {
			return nil, fmt.Errorf("haptics: %s: %w", sim.FingerName(f), err)
		}
		fs.guard.init(&spec, &s.cfg)
		fs.dev, fs.kin, fs.base, fs.ctl = in.Device, in.Kin, in.Base, ctl
		fs.clk, _ = in.Device.(devices.Clocked)
		fs.maxForce = cfg.Safety.ForceBound(spec.MaxForceCont)
		fs.tripForce = cfg.Safety.TripForce
		if fs.tripForce == 0 {
			fs.tripForce = 1.5 * spec.MaxForcePeak
		}
		if !(fs.maxForce > 0) || !(fs.tripForce > fs.maxForce) {
			return nil, fmt.Errorf("haptics: %s: force limit %g N and trip %g N (from config or device spec) must satisfy 0 < limit < trip",
				sim.FingerName(f), fs.maxForce, fs.tripForce)
		}
		fs.maxStiff = cfg.Model.MaxStiffness
		if fs.maxStiff == 0 {
			fs.maxStiff = 2 * cfg.Model.PhysicalDamping / fs.dt
		}
		for i := range 3 {
			fs.maxTorque[i] = spec.MaxTorque[i]
			if !(fs.maxTorque[i] > 0) {
				return nil, fmt.Errorf("haptics: %s: device reports max torque %g N·m on joint %d", sim.FingerName(f), spec.MaxTorque[i], i+1)
			}
		}
	}
	return s, nil
}

// Config returns the servo's configuration.
func (s *Servo) Config() Config { return s.cfg }

// Period returns the tick period the servo was built for (PeriodMs).
func (s *Servo) Period() time.Duration { return s.period }

// InjectForceError adds d [N, the finger's device base frame] to finger
// f's force error ahead of its filter, from the next Tick until changed:
// the test signal of a loop-gain measurement, zero in operation. It does
// nothing for a finger without a device.
func (s *Servo) InjectForceError(f int, d [3]float64) {
	if c := s.fingers[f].ctl; c != nil {
		c.inject = d
	}
}

// ForceError returns finger f's force error in its last control step:
// desired minus measured force, without the injected signal [N, the
// finger's device base frame].
func (s *Servo) ForceError(f int) [3]float64 {
	if c := s.fingers[f].ctl; c != nil {
		return c.lastErr
	}
	return [3]float64{}
}

// Saturated returns how many ticks finger f's motors have been held at
// the torque bound that keeps the fingertip force within its limit (the
// integrators then hold): a loop measured while it saturates is measured
// with less gain than it has.
func (s *Servo) Saturated(f int) uint64 { return s.fingers[f].saturated }

// SetForceScale makes the servo render k times the cloth's force (and
// stiffness) from the next tick on: a psychophysical stimulus dimension,
// and a way to feel a fabric's weight magnified. k must be finite and in
// [0, 10]; otherwise the scale is left as it was and an error returned.
// Call it from the goroutine that calls Tick.
func (s *Servo) SetForceScale(k float64) error {
	if !(k >= 0 && k <= 10) {
		return fmt.Errorf("haptics: force scale %g outside [0, 10]", k)
	}
	s.scale = k
	for f := range s.fingers {
		s.fingers[f].scale = k
	}
	return nil
}

// ForceScale returns the force scale in use.
func (s *Servo) ForceScale() float64 { return s.scale }

// Status returns finger f's place in the safety envelope.
func (s *Servo) Status(f int) FingerStatus { return s.fingers[f].status }

// Stop ends the servo's session, from any goroutine: from the next Tick
// on, every finger that renders stops as on a fault (reason stopped, not
// counted as a trip): its torque ramps to zero over safety.stop_ramp_ms,
// its power stage is switched off and confirmed as after any trip
// (FingerStatus.Confirm), and no finger is enabled again. A device left
// enabled when its loop stops would hold its newest command, with no
// envelope watching it, for as long as its link keeps its watchdog fed.
func (s *Servo) Stop() { s.stop.Store(true) }

// Tick runs one servo period at time t: advance and read both devices,
// forward kinematics, local-model evaluation, force control, safety
// envelope, passivity, commands. It fills out (when not nil) and rec (when
// not nil). in may be nil before the simulation's first step.
func (s *Servo) Tick(t time.Duration, in *sim.Output, out *sim.FingerState, rec *TickRecord) {
	overrun, back := false, false
	if s.started {
		gap := t - s.tPrev
		back = gap < 0
		if float64(gap) > s.cfg.Safety.OverrunFactor*float64(s.period) {
			overrun = true
			s.streak++
			// A single stall longer than the silence watchdog trips at once.
			if gap > s.cfg.Safety.Silent {
				s.streak = max(s.streak, s.cfg.Safety.OverrunStreak)
			}
		} else {
			s.streak = 0
		}
		// Silence is judged over the time the loop listened: a stall of
		// the loop itself is the overrun check's, and the samples the
		// device sent meanwhile are still on their way to the reader.
		if gap > s.period {
			for f := range s.fingers {
				s.fingers[f].lastFresh += gap - s.period
			}
		}
	}
	s.started, s.tPrev = true, t
	for f := range s.fingers {
		if c := s.fingers[f].clk; c != nil {
			c.Advance(t)
		}
	}
	for f := range s.fingers {
		s.fingers[f].read(t, &s.cfg)
	}
	stop := s.stop.Load()
	for f := range s.fingers {
		fs := &s.fingers[f]
		if fs.dev == nil {
			continue
		}
		if back {
			fs.flag(ReasonHostClock)
		}
		if stop {
			fs.flag(ReasonStopped)
		}
		if s.streak >= s.cfg.Safety.OverrunStreak {
			fs.flag(ReasonOverrun)
		}
		var lm *sim.LocalModel
		if in != nil {
			lm = &in.Local[f]
		}
		fs.control(t, lm, &s.cfg)
		fs.write(t)
	}
	if out != nil {
		out.T = t
		out.Tick = s.tick
		for f := range s.fingers {
			fs := &s.fingers[f]
			o := &out.Fingers[f]
			o.Pos, o.Vel, o.Normal, o.Force = fs.pos, fs.vel, fs.normal, fs.fMeas
			o.Valid = fs.readOK && fs.status.State != StateSafe
		}
	}
	if rec != nil {
		rec.T = t.Seconds()
		rec.Tick = s.tick
		rec.Overrun = overrun
		for f := range s.fingers {
			fs := &s.fingers[f]
			rec.Fingers[f] = FingerRecord{
				Pos: fs.pos, Vel: fs.vel, ForceDes: fs.fCloth, ForceCmd: fs.fDes, ForceMeas: fs.fMeas, Torque: fs.tauOut,
				Energy: fs.energy, Damping: fs.damping, Contact: fs.contact,
				Stiffness: fs.kAsked, Limited: fs.limited, Capped: fs.capped,
				State: fs.status.State, Reason: fs.status.Reason, Confirm: fs.status.Confirm,
			}
		}
	}
	s.tick++
}

// stretchTau is the time constant of the link torque the cable's stretch
// is estimated from [s].
const stretchTau = 0.01

// flag records a fault seen this tick (the first one wins).
func (fs *fingerServo) flag(r Reason) {
	if fs.fault == ReasonNone {
		fs.fault = r
	}
}

func finite3(v *[3]float64) bool { return !math.IsNaN(v[0] - v[0] + v[1] - v[1] + v[2] - v[2]) }

// read takes the newest sample and checks it.
func (fs *fingerServo) read(t time.Duration, cfg *Config) {
	fs.fault = ReasonNone
	fs.fresh = false
	if fs.dev == nil {
		return
	}
	err := fs.dev.Read(&fs.st)
	switch {
	case err == nil:
	case errors.Is(err, devices.ErrTimeout):
		fs.st.Stale = true
	case errors.Is(err, devices.ErrDisconnected):
		fs.readOK = false
		fs.flag(ReasonDisconnected)
		fs.lost()
		return
	default:
		fs.readOK = false
		fs.flag(ReasonDeviceError)
		return
	}
	fs.readOK = true
	if !fs.haveSeq || (!fs.st.Stale && fs.st.Seq != fs.lastSeq) {
		fs.fresh = true
		fs.lastFresh = t
	}
	if t-fs.lastFresh > cfg.Safety.Silent {
		fs.flag(ReasonSilent)
	}
	if !finite3(&fs.st.Joint) || !finite3(&fs.st.Force) {
		// The power stage's report and the device's clock still count: a
		// broken sensor must not keep the safe state from being confirmed,
		// nor hide a stage that stays on.
		fs.flag(ReasonSensorNaN)
		fs.checkSample(t, cfg)
		return
	}
	fs.checkSample(t, cfg)
	if fs.st.Fault != 0 {
		fs.flag(ReasonDeviceFault)
	}
	switch st := fs.status.State; {
	case st == StateEnabling && fs.st.Enabled:
		fs.poweredOn = true
	case st == StateActive && !fs.st.Enabled,
		st == StateEnabling && fs.poweredOn:
		fs.flag(ReasonDeviceDisabled)
	case st == StateEnabling && t-fs.status.Since > cfg.Safety.EnableWait:
		fs.flag(ReasonEnableTimeout)
	}
	if vec3.Norm(fs.st.Force) > fs.tripForce {
		fs.flag(ReasonForceTrip)
	}
	if fs.fresh {
		if fs.haveF && vec3.Norm(vec3.Sub(fs.st.Force, fs.fPrev)) > cfg.Safety.MaxForceJump {
			fs.flag(ReasonSensorSpike)
		}
		fs.fPrev, fs.haveF = fs.st.Force, true
	}
}

// control runs one finger's period after read: the measured pad, the
// cloth's force there, the state machine, then, while the finger renders,
// the desired force through the envelope and the passivity controller, and
// the force controller's torque.
func (fs *fingerServo) control(t time.Duration, lm *sim.LocalModel, cfg *Config) {
	sampleOK := fs.readOK && fs.fault != ReasonSensorNaN
	if sampleOK {
		fs.measure(cfg)
		fs.checkPlausible(t, cfg)
	}
	fModel := fs.clothForce(t, lm, cfg)
	fs.advanceState(t, cfg)
	if st := fs.status.State; st == StateSafe || st == StateStopping || !sampleOK {
		fs.renderNothing(t, cfg)
		return
	}
	ramp := fs.enableRamp(t, cfg)
	cloth, model := vec3.Scale(ramp, fs.fCloth), vec3.Scale(ramp, fModel)
	fs.fCloth = fs.clampForce(cloth)
	fd := fs.clampForce(model)
	fs.capped = fs.fCloth != cloth || fd != model
	fs.passivity(fd, cfg)
	fs.fDes = fs.limitRate(fd, cfg)
	if !fs.fresh {
		// No new sample: hold the last command (zero-order hold) rather
		// than integrate a stale error.
		return
	}
	fs.command(t, ramp, cfg)
}

// measure turns the sample into the pad's position, velocity, normal and
// force in the world, updates the joint-speed estimate with a fresh
// sample, and checks the pad's speed.
func (fs *fingerServo) measure(cfg *Config) {
	fs.kin.Eval(&fs.k, fs.st.Joint)
	if kt := &cfg.Drive.TransmissionStiffness; kt[0] > 0 || kt[1] > 0 || kt[2] > 0 {
		// The encoders read the motors: each link lags its motor by the
		// cable's stretch under the torque the link carries, which is
		// the torque of the force the plate exerts on the finger (the
		// sensor's reading; the motor torque would be wrong by the rotor's
		// friction while it sticks), taken slowly: the quasi-static
		// stretch. It is milliradians, so the pad moves by J times it.
		tl := fs.k.J.MulTransVec(fs.k.R.MulVec(fs.st.Force))
		a := math.Min(1, fs.dt/stretchTau)
		if vec3.Norm(fs.st.Force) > fs.tripForce {
			// A reading that trips is no load the cables carry: fed to
			// the filter it would move the pad estimate for many periods.
			a = 0
		}
		var dq [3]float64
		for i := range 3 {
			fs.tauLink[i] += a * (tl[i] - fs.tauLink[i])
			if kt[i] > 0 {
				dq[i] = fs.tauLink[i] / kt[i]
			}
		}
		fs.k.Pad = vec3.Sub(fs.k.Pad, fs.k.J.MulVec(dq))
	}
	if fs.fresh {
		dt := fs.dt
		if fs.haveSeq && fs.st.DeviceTime > fs.lastDevT {
			dt = (fs.st.DeviceTime - fs.lastDevT).Seconds()
		}
		fs.ctl.observe(fs.st.Joint, dt)
		fs.lastSeq, fs.lastDevT, fs.haveSeq = fs.st.Seq, fs.st.DeviceTime, true
	}
	fs.pos = fs.base.Point(fs.k.Pad)
	fs.vel = fs.base.Vec(fs.k.J.MulVec(fs.ctl.qd))
	fs.normal = fs.base.Vec(fs.k.Normal)
	fs.fMeas = fs.base.Vec(fs.k.R.MulVec(fs.st.Force))
	if vec3.Norm(fs.vel) > cfg.Safety.MaxSpeed {
		fs.flag(ReasonOverspeed)
	}
}

// clothForce returns the cloth's force as rendered at the measured pad
// (stiffness limited, scaled, continuous across sim steps), and sets the
// contact, the stiffness rendered with it and fCloth: the force of the
// model as the simulation published it, the finger's desired force in the
// record. Both are zero before the first sim step or with a model that is
// not finite (a fault).
func (fs *fingerServo) clothForce(t time.Duration, lm *sim.LocalModel, cfg *Config) [3]float64 {
	wasContact := fs.contact
	fs.contact = false
	fs.fCloth = [3]float64{}
	fs.kRender, fs.kAsked, fs.limited = 0, 0, false
	if lm == nil {
		fs.modelOK = false
		fs.offset = [3]float64{}
		return [3]float64{}
	}
	if r := localCheck(lm, cfg.Safety.MaxSpeed); r != ReasonNone {
		fs.flag(r)
		fs.modelOK = false
		fs.offset = [3]float64{}
		return [3]float64{}
	}
	// A stalled simulation's last model stops drifting (maxModelAge).
	t = min(t, lm.T+maxModelAge)
	// The model drifts with the cloth under the pad (sim.LocalModel
	// EvalAt): evaluate it at this tick's time, on a copy whose stiffness
	// is capped to what the device can render.
	next := *lm
	asked := capStiffness(&next, fs.maxStiff/math.Max(fs.scale, 1e-9))
	if fs.modelOK && (lm.Step != fs.modelStep || lm.Valid != fs.model.Valid) && cfg.Model.SlewNPerS > 0 {
		fOld := fs.model.EvalAt(t, fs.pos)
		fNew := next.EvalAt(t, fs.pos)
		fs.offset = vec3.Add(fs.offset, vec3.Sub(fOld, fNew))
	}
	fs.model, fs.modelStep, fs.modelOK = next, lm.Step, true
	fs.fCloth = vec3.Scale(fs.scale, lm.EvalAt(t, fs.pos))
	f := fs.model.EvalAt(t, fs.pos)
	fs.contact = fs.model.Touches(t, fs.pos)
	if fs.contact && !wasContact && cfg.Force.OnsetStop {
		share := 1.0
		if kr := cfg.Force.OnsetStopNpm; kr > 0 {
			m := exo.Mat3(fs.model.K)
			kn := -fs.scale * vec3.Dot(fs.model.Normal, m.MulVec(fs.model.Normal))
			share = max(0, kn) / (max(0, kn) + kr)
		}
		fs.ctl.stopInto(fs.base.InvVec(fs.model.Normal), vec3.Dot(fs.model.V, fs.model.Normal), share)
	}
	fs.fStiff = [3]float64{}
	if fs.contact {
		dt := (t - fs.model.T).Seconds()
		var d [3]float64
		for i := range 3 {
			d[i] = fs.pos[i] - fs.model.X0[i] - fs.model.V[i]*dt
		}
		if vec3.Norm(d) > maxModelGap && frobenius(&fs.model.K) > 0 {
			fs.flag(ReasonModelInvalid)
			fs.contact, fs.modelOK, fs.offset = false, false, [3]float64{}
			return [3]float64{}
		}
		k := &fs.model.K
		for i := range 3 {
			fs.fStiff[i] = fs.scale * (k[i][0]*d[0] + k[i][1]*d[1] + k[i][2]*d[2])
		}
		fs.fStiff = fs.clampForce(fs.fStiff)
		fs.kRender = frobenius(&fs.model.K) * fs.scale
		fs.kAsked = asked * fs.scale
		fs.limited = fs.kAsked > fs.kRender*(1+1e-9)
	}
	fs.slewOffset(cfg)
	f = vec3.Add(f, fs.offset)
	return vec3.Scale(fs.scale, f)
}

// slewOffset blends out the jump between two sim steps at
// model.slew_n_per_s.
func (fs *fingerServo) slewOffset(cfg *Config) {
	n := vec3.Norm(fs.offset)
	if !(n > 0) {
		return
	}
	if d := cfg.Model.SlewNPerS * fs.dt; n <= d {
		fs.offset = [3]float64{}
	} else {
		fs.offset = vec3.Scale(1-d/n, fs.offset)
	}
}

// renderNothing runs a period in which the finger renders no force: in
// the safe state the torque is zero, while stopping the torque held at the
// fault ramps to zero over safety.stop_ramp_ms, and a finger without a
// usable sample keeps its last torque.
func (fs *fingerServo) renderNothing(t time.Duration, cfg *Config) {
	fs.fDes, fs.fCloth, fs.damping, fs.capped = [3]float64{}, [3]float64{}, 0, false
	if fs.status.State == StateStopping {
		r := 1.0
		if ramp := cfg.Safety.StopRamp; ramp > 0 {
			r = 1 - float64(t-fs.status.Since)/float64(ramp)
		}
		if r <= 0 || t < fs.status.Since {
			// A clock that ran back before the stop began leaves no ramp
			// to follow: zero at once.
			fs.enterSafe(t)
		} else {
			fs.tauOut = vec3.Scale(r, fs.tauHold)
		}
	}
	if fs.status.State == StateSafe {
		fs.tauOut = [3]float64{}
	}
}

// enableRamp is the share of the force and torque limits a finger has
// while enabling, rising from 0 to 1 over safety.enable_ramp_ms; 1 once
// active.
func (fs *fingerServo) enableRamp(t time.Duration, cfg *Config) float64 {
	if fs.status.State != StateEnabling || cfg.Safety.EnableRamp <= 0 {
		return 1
	}
	return min(1, max(0, float64(t-fs.status.Since)/float64(cfg.Safety.EnableRamp)))
}

// clampForce caps the rendered force's magnitude at the finger's limit.
func (fs *fingerServo) clampForce(fd [3]float64) [3]float64 {
	if n := vec3.Norm(fd); n > fs.maxForce {
		return vec3.Scale(fs.maxForce/n, fd)
	}
	return fd
}

// passivity is the passivity observer on the device's port (Hannaford &
// Ryu 2002, the two-port form): the energy the device and its controller
// have taken from the user beyond what the cloth asked for,
// E = -Σ (F_meas - F_env)·v T, forgotten with passivity.leak_ms. A device
// that renders F_env exactly keeps E at zero; a control loop that feeds
// energy to the finger (a limit cycle) drives it negative. Below -bound
// the controller chooses the damping α that would return the excess
// within one period, capped, and adds it to the force loop's admittance
// (controller.step), not to the force the finger is asked to feel.
func (fs *fingerServo) passivity(fEnv [3]float64, cfg *Config) {
	fs.damping = 0
	if cfg.Passivity.Enabled {
		if l := cfg.Passivity.LeakMs; l > 0 {
			fs.energy *= 1 - math.Min(1, fs.dt*1e3/l)
		}
		fs.energy -= vec3.Dot(vec3.Sub(fs.fMeas, fs.fEnv), fs.vel) * fs.dt
		if fs.energy < -cfg.Passivity.Bound {
			if v2 := vec3.Dot(fs.vel, fs.vel); v2 > 1e-12 {
				a := (-cfg.Passivity.Bound - fs.energy) / (fs.dt * v2)
				fs.damping = math.Min(a, cfg.Passivity.MaxDamping)
			}
		}
	}
	fs.ctl.damping = fs.damping
	// The observer judges the loop against what it was asked to render:
	// a loop-gain measurement's injected force error is part of that, so
	// the test signal is not charged to the controller as energy it made.
	fs.fEnv = vec3.Add(fEnv, fs.base.Vec(fs.ctl.inject))
}

// limitRate limits the change of the rendered force from the previous
// period to safety.max_force_rate_n_per_s.
func (fs *fingerServo) limitRate(fd [3]float64, cfg *Config) [3]float64 {
	dmax := cfg.Safety.MaxForceRate * fs.dt
	if d := vec3.Sub(fd, fs.fDes); vec3.Norm(d) > dmax {
		return vec3.Add(fs.fDes, vec3.Scale(dmax/vec3.Norm(d), d))
	}
	return fd
}

// command runs the force controller on fDes with the torque limits
// scaled by the enable ramp; a torque that is not finite is a fault.
func (fs *fingerServo) command(t time.Duration, ramp float64, cfg *Config) {
	var lim [3]float64
	for i := range 3 {
		lim[i] = ramp * fs.maxTorque[i]
	}
	iF, iV := fs.ctl.iF, fs.ctl.iV
	var n [3]float64
	var vs float64
	if fs.contact {
		n, vs = fs.base.InvVec(fs.model.Normal), vec3.Dot(fs.model.V, fs.model.Normal)
	}
	tau := fs.ctl.step(&fs.k, fs.base.InvVec(fs.fDes), fs.base.InvVec(fs.fMeas), fs.base.InvVec(vec3.Scale(ramp, fs.fStiff)), lim, fs.kRender*ramp, n, vs)
	if !finite3(&tau) {
		// The stop ramps down from the last finite command, which this
		// tick holds (zeroed here, the ramp rose back to three quarters
		// of it in the next tick).
		fs.flag(ReasonControlNaN)
		fs.advanceState(t, cfg)
		fs.fDes = [3]float64{}
		return
	}
	tau, saturated := fs.limitTorque(tau, cfg)
	if saturated {
		// The force bound saturates the motors against the finger: the
		// integrators hold, as they do at the torque limits (conditional
		// integration).
		fs.ctl.iF, fs.ctl.iV = iF, iV
		fs.saturated++
	}
	fs.tauOut = tau
}

// advanceState applies this tick's fault (if any) and the recovery timer.
func (fs *fingerServo) advanceState(t time.Duration, cfg *Config) {
	s := &fs.status
	if fs.fault != ReasonNone {
		fs.healthy = false
		switch s.State {
		case StateActive, StateEnabling:
			if fs.fault != ReasonStopped {
				s.Trips++
			}
			s.Reason = fs.fault
			if fs.fault == ReasonDisconnected {
				fs.enterSafe(t)
				return
			}
			fs.tauHold = fs.tauOut
			s.State, s.Since = StateStopping, t
		case StateStopping:
			if fs.fault == ReasonDisconnected {
				fs.enterSafe(t)
			}
		case StateSafe:
			if s.Reason == ReasonStartup || s.Reason == ReasonNone {
				s.Reason = fs.fault
			}
		}
		return
	}
	switch s.State {
	case StateSafe:
		if !fs.healthy {
			fs.healthy, fs.healthySince = true, t
		}
		if t-fs.healthySince >= cfg.Safety.Recover {
			if err := fs.dev.Enable(true); err != nil {
				fs.healthy = false
				return
			}
			fs.ctl.reset(fs.st.Joint)
			fs.resetGuard(false)
			fs.energy, fs.fDes, fs.fEnv, fs.offset = 0, [3]float64{}, [3]float64{}, [3]float64{}
			s.State, s.Since = StateEnabling, t
			fs.poweredOn = false
		}
	case StateEnabling:
		// The ramp runs from the enable; the finger is active once the
		// ramp has ended and the device has said its stage is on.
		if fs.poweredOn && t-s.Since >= cfg.Safety.EnableRamp {
			s.State, s.Since, s.Reason = StateActive, t, ReasonNone
		}
	}
}

// enterSafe zeroes the torque and switches the power stage off.
func (fs *fingerServo) enterSafe(t time.Duration) {
	fs.status.State, fs.status.Since = StateSafe, t
	fs.tauOut, fs.fDes = [3]float64{}, [3]float64{}
	fs.healthy = false
	fs.switchOff(t)
}

// write sends the torque command while the finger is powered.
func (fs *fingerServo) write(t time.Duration) {
	st := fs.status.State
	if st == StateSafe || !fs.readOK {
		return
	}
	fs.cmd.Seq++
	fs.cmd.Torque = fs.tauOut
	err := fs.dev.Write(&fs.cmd)
	switch {
	case err == nil:
	case errors.Is(err, devices.ErrDisconnected):
		fs.fault = ReasonDisconnected
		fs.advanceState(t, fs.cfg)
	case errors.Is(err, devices.ErrDisabled) && st == StateStopping:
	default:
		fs.fault = ReasonDeviceError
		fs.advanceState(t, fs.cfg)
	}
}

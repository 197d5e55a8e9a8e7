package twin

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/internal/vec3"
)

// Intent is where the person wants a fingertip pad to be: the scripted
// handling trajectory (Script) or a test's own motion. World frame, pad
// centre [m] and its velocity [m/s].
type Intent interface {
	At(t time.Duration, finger int) (pos, vel [3]float64)
}

// Fault bits reported in devices.ExoState.Fault by the simulated device.
const (
	// FaultBadCommand: the last command held a NaN or Inf torque; the
	// device refused it and holds zero torque until a finite command.
	FaultBadCommand uint32 = 1 << 0
)

// Exo is the physical twin of a fingertip exoskeleton with a human finger
// strapped to its end plate. It integrates joint-space rigid-body dynamics
// (mass matrix, Coriolis and gravity of three links plus reflected rotor
// inertia), Coulomb and viscous joint friction, motor torque limits, the
// finger as a mass-spring-damper pulled towards its Intent, and the pulp
// between pad and plate. It reports what real hardware would: encoder
// counts quantised at the motor, a 3-axis force sensor with bias, Gaussian
// noise (seeded PRNG: runs are bit-identical) and quantisation, each
// sample and command delayed by the transport.
//
// Exo implements devices.Exoskeleton and devices.Clocked. Advance, Read,
// Write, Enable and the fault injectors are called from one goroutine (the
// haptics loop); Close may be called from any goroutine.
type Exo struct {
	p      ExoParams
	kin    *exo.Model
	base   exo.Pose
	intent Intent
	finger int
	rng    *rand.Rand

	periodNs int64
	dtNs     int64
	dt       float64
	gBase    [3]float64    // gravity in the base frame [m/s²]
	com      [3][3]float64 // link centres of mass, link frames
	rotorM   [3]float64    // reflected rotor inertia N² J_r
	encStep  [3]float64    // joint angle per encoder count [rad]

	now   int64      // plant time [ns]
	q, qd [3]float64 // link angles [rad] and speeds [rad/s]
	// Rotor angles and speeds, joint side [rad, rad/s]: equal to q and qd
	// on a rigid transmission.
	th, thd   [3]float64
	compliant [3]bool
	xf, vf    [3]float64  // finger pad centre, world
	torque    [3]float64  // torque acting now, after limits
	dm        [3]exo.Mat3 // ∂M/∂q_k, refreshed every sample period
	enabled   bool
	fault     uint32

	sample  uint64 // index of the current sample period
	newest  uint64 // index of the newest sample taken (older than sample while silent)
	samples [maxDelay + 1]devices.ExoState
	cmds    [maxDelay + 1]pendingCmd
	lastSeq uint32
	hasRead bool

	disconnected bool
	silent       bool
	spike        [3]float64
	faults       injected   // standing faults (SetSensorOffset and the others)
	clamped      bool       // on a calibration stand: joints locked, no finger
	padLoad      [3]float64 // force of a calibration load on the plate, world [N]
	closed       atomic.Bool
}

// injected holds the standing faults a test has set.
type injected struct {
	sensorOffset  [3]float64    // added to every force sample, sensor frame [N]
	encoderOffset [3]float64    // added to every joint reading [rad]
	clockOffset   time.Duration // added to every sample's device time
	ignoreDisable bool          // Enable(false) leaves the power stage on
}

type pendingCmd struct {
	tag    uint64 // sample index at which it was written
	valid  bool
	torque [3]float64
}

var (
	_ devices.Exoskeleton = (*Exo)(nil)
	_ devices.Clocked     = (*Exo)(nil)
	_ devices.Kinematic   = (*Exo)(nil)
)

// NewExo builds the simulated device for finger (sim.Thumb or sim.IndexFinger)
// with its base placed at base in the world. The device starts at time
// zero, disabled, with the pad on the intent's position at t = 0 (or at
// the home posture when that is out of reach) and the finger at rest.
func NewExo(p ExoParams, base exo.Pose, intent Intent, finger int) (*Exo, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if !base.Orthonormal(1e-9) {
		return nil, fmt.Errorf("devices/twin: base rotation is not a rotation: %v", base.R)
	}
	if intent == nil {
		return nil, fmt.Errorf("devices/twin: nil intent")
	}
	kin, err := exo.New(p.Kinematics)
	if err != nil {
		return nil, fmt.Errorf("devices/twin: %w", err)
	}
	e := &Exo{
		p: p, kin: kin, base: base, intent: intent, finger: finger,
		rng:      rand.New(rand.NewPCG(p.Seed, uint64(finger)+0x9e3779b97f4a7c15)),
		periodNs: int64(p.SamplePeriod),
	}
	e.dtNs = e.periodNs / int64(p.Substeps)
	e.periodNs = e.dtNs * int64(p.Substeps)
	e.dt = float64(e.dtNs) * 1e-9
	e.gBase = base.InvVec([3]float64{0, -9.81, 0})
	for i := range 3 {
		e.com[i] = p.Links[i].COM
		n := p.Drive.GearRatio[i]
		e.rotorM[i] = n * n * p.Drive.RotorInertia[i]
		e.encStep[i] = 2 * math.Pi / (p.Drive.EncoderCounts * n)
		e.compliant[i] = p.Drive.TransmissionStiffness[i] > 0
	}
	pos, _ := intent.At(0, finger)
	e.q = kin.Params().Home
	if q, err := kin.Inverse(base.InvPoint(pos), e.q, 1e-9); err == nil {
		e.q = q
	}
	e.th = e.q
	e.xf = base.Point(kin.Forward(e.q))
	e.takeSample()
	return e, nil
}

// Spec returns the device's capability record. MaxStiffness is Colgate's
// passivity bound 2b/T for the smallest fingertip viscous friction b over
// the workspace and the sample period T.
func (e *Exo) Spec() devices.ExoSpec {
	tf := e.TipFigures()
	var maxT [3]float64
	for i := range 3 {
		maxT[i] = e.p.Drive.MaxTorque[i]
	}
	period := time.Duration(e.periodNs)
	return devices.ExoSpec{
		Model:        e.p.Model,
		Serial:       e.p.Serial,
		Transport:    devices.TransportSim,
		DoF:          3,
		JointMin:     e.p.Kinematics.JointMin,
		JointMax:     e.p.Kinematics.JointMax,
		MaxTorque:    maxT,
		MaxForceCont: e.p.Rating.MaxForceCont,
		MaxForcePeak: e.p.Rating.MaxForcePeak,
		ForceRes:     e.p.Sensor.Resolution,
		EncoderRes:   math.Min(e.encStep[0], math.Min(e.encStep[1], e.encStep[2])),
		MaxStiffness: 2 * tf.ViscousNsm / period.Seconds(),
		SamplePeriod: period,
	}
}

// Kinematics returns the device's true kinematic model.
func (e *Exo) Kinematics() *exo.Model { return e.kin }

// Base returns the device's base pose in the world.
func (e *Exo) Base() exo.Pose { return e.base }

// Advance integrates the device and the finger up to time t (no effect
// when t is not later than the device's clock), taking a sample and
// latching the pending command at every sample period crossed. A clock
// that jumps by more than exoCatchUp (a host suspended, a clock stepped)
// is skipped (Skip) to exoCatchUp before t and integrated from there, so
// that one call costs at most that much simulated time.
func (e *Exo) Advance(t time.Duration) {
	if t-time.Duration(e.now) > exoCatchUp {
		e.Skip(t - exoCatchUp)
	}
	target := int64(t)
	for e.now+e.dtNs <= target {
		if e.now%e.periodNs == 0 {
			e.massDerivative(e.q)
		}
		e.substep()
		e.now += e.dtNs
		if e.now%e.periodNs == 0 {
			e.sample++
			e.latchCommand()
			e.takeSample()
		}
	}
}

// exoCatchUp is the longest span Advance integrates in one call.
const exoCatchUp = time.Second

// Skip moves the device's clock to the last sample period boundary at or
// before t without integrating: the links, the rotors and the finger
// stand still over the span, as if time had stopped for them, while the
// sample and command bookkeeping goes on at every boundary crossed (the
// last samples of the span are taken, the commands due in it latched),
// so that the device's clock and sequence stay on their grid. An
// emulator that was held longer than it can catch up skips so
// (devices/emu). No effect when no boundary lies between the device's
// clock and t.
func (e *Exo) Skip(t time.Duration) {
	next := (e.now/e.periodNs + 1) * e.periodNs // the first boundary after now
	if int64(t) < next {
		return
	}
	k := (int64(t)-next)/e.periodNs + 1 // boundaries crossed
	// Only the last ring's worth of samples and commands can still be
	// read or latched.
	first := max(k-int64(len(e.samples)), 0)
	e.now = next + (first-1)*e.periodNs
	e.sample += uint64(first)
	for range k - first {
		e.now += e.periodNs
		e.sample++
		e.latchCommand()
		e.takeSample()
	}
}

// Read fills dst with the newest sample that has crossed the transport.
func (e *Exo) Read(dst *devices.ExoState) error {
	if e.closed.Load() || e.disconnected {
		return devices.ErrDisconnected
	}
	d := uint64(e.p.Transport.SensorDelay)
	idx := uint64(0)
	if e.sample > d {
		idx = e.sample - d
	}
	idx = min(idx, e.newest)
	*dst = e.samples[idx%uint64(len(e.samples))]
	dst.Stale = e.hasRead && dst.Seq == e.lastSeq
	dst.Enabled = e.enabled
	dst.Confirm = devices.ConfirmNone
	if !e.enabled {
		dst.Confirm = devices.ConfirmDevice // the twin's stage follows Enable at once
	}
	dst.Fault = e.fault
	e.lastSeq, e.hasRead = dst.Seq, true
	return nil
}

// Write queues one torque command; it acts CommandDelay samples later and
// is held until the next one. Non-finite torques are refused.
func (e *Exo) Write(cmd *devices.ExoCommand) error {
	if e.closed.Load() || e.disconnected {
		return devices.ErrDisconnected
	}
	for i, v := range cmd.Torque {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			e.fault |= FaultBadCommand
			e.cmds[e.sample%uint64(len(e.cmds))] = pendingCmd{tag: e.sample, valid: true}
			if e.p.Transport.CommandDelay == 0 {
				e.torque = [3]float64{}
			}
			return fmt.Errorf("devices/twin: torque command %d is %g", i, v)
		}
	}
	e.fault &^= FaultBadCommand
	pc := pendingCmd{tag: e.sample, valid: true, torque: cmd.Torque}
	e.cmds[e.sample%uint64(len(e.cmds))] = pc
	if e.p.Transport.CommandDelay == 0 {
		e.applyCommand(&pc)
	}
	if !e.enabled {
		return devices.ErrDisabled
	}
	return nil
}

// Enable switches the motor power stage.
func (e *Exo) Enable(on bool) error {
	if e.closed.Load() || e.disconnected {
		return devices.ErrDisconnected
	}
	if !on && e.faults.ignoreDisable {
		return nil
	}
	e.enabled = on
	if !on {
		e.torque = [3]float64{}
	}
	return nil
}

// Close shuts the device; every later call returns ErrDisconnected.
func (e *Exo) Close() error {
	e.closed.Store(true)
	return nil
}

// Unplug simulates a pulled cable: Read, Write and Enable return
// devices.ErrDisconnected and the motors stop (the power stage drops out).
// The physics goes on.
func (e *Exo) Unplug() {
	e.disconnected = true
	e.enabled = false
	e.torque = [3]float64{}
}

// Replug brings the device back, disabled, as a reconnected device is.
func (e *Exo) Replug() { e.disconnected = false }

// Silence stops (true) or resumes (false) the device's sampling: Read then
// keeps returning the last sample, marked stale.
func (e *Exo) Silence(on bool) { e.silent = on }

// Clamp mounts the device on a calibration stand (on) or takes it off: the
// joints are locked where they are and the finger is taken out, so the
// force sensor carries only the load set with SetPadLoad. Taking it off
// puts the finger back on the pad, at rest.
func (e *Exo) Clamp(on bool) {
	if !on && e.clamped {
		var k exo.Kin
		e.kin.Eval(&k, e.q)
		e.xf, e.vf = e.base.Point(k.Pad), [3]float64{}
	}
	e.clamped = on
}

// SetPadLoad sets the force a calibration load exerts on the plate at the
// pad (world frame [N]; a hanging mass m gives (0, -m·9.81, 0)). It acts
// only while the device is clamped.
func (e *Exo) SetPadLoad(f [3]float64) { e.padLoad = f }

// InjectSpike adds f (sensor frame [N]) to the next force sample only.
func (e *Exo) InjectSpike(f [3]float64) { e.spike = f }

// SetSensorOffset adds f (sensor frame [N]) to every force sample from
// the next one on, until changed: a drifting or miscalibrated sensor.
func (e *Exo) SetSensorOffset(f [3]float64) { e.faults.sensorOffset = f }

// SetEncoderOffset adds d [rad] to every joint reading from the next
// sample on, until changed: a slipped encoder or a corrupt count. The
// joints themselves do not move.
func (e *Exo) SetEncoderOffset(d [3]float64) { e.faults.encoderOffset = d }

// SetClockOffset adds d to the device time of every sample from the next
// one on, until changed: a device clock that jumps.
func (e *Exo) SetClockOffset(d time.Duration) { e.faults.clockOffset = d }

// IgnoreDisable makes the device ignore Enable(false) (on) or obey it
// again (off): a power stage that stays on, applying the last command,
// whatever the host asks.
func (e *Exo) IgnoreDisable(on bool) { e.faults.ignoreDisable = on }

// latchCommand makes the command written CommandDelay samples ago act.
func (e *Exo) latchCommand() {
	d := uint64(e.p.Transport.CommandDelay)
	if d == 0 || e.sample < d {
		return
	}
	tag := e.sample - d
	pc := &e.cmds[tag%uint64(len(e.cmds))]
	if pc.valid && pc.tag == tag {
		e.applyCommand(pc)
	}
}

func (e *Exo) applyCommand(pc *pendingCmd) {
	if !e.enabled {
		e.torque = [3]float64{}
		return
	}
	for i := range 3 {
		m := e.p.Drive.MaxTorque[i]
		e.torque[i] = math.Max(-m, math.Min(m, pc.torque[i]))
	}
}

// takeSample records sample e.sample: encoders and force sensor now.
func (e *Exo) takeSample() {
	if e.silent && e.sample > 0 {
		return
	}
	var k exo.Kin
	e.kin.Eval(&k, e.q)
	f := e.pulpForce(&k)
	if e.clamped {
		// On the stand the sensor carries the load instead of a finger:
		// the plate holds the load with the opposite force.
		f = vec3.Scale(-1, e.padLoad)
	}
	fs := k.R.MulTransVec(e.base.InvVec(f))
	e.newest = e.sample
	s := &e.samples[e.sample%uint64(len(e.samples))]
	s.DeviceTime = time.Duration(e.now) + e.faults.clockOffset
	s.Seq = uint32(e.sample)
	for i := range 3 {
		// The encoders sit on the motors (HAPTEX tutorial §5.4), so a
		// compliant transmission's stretch is not in the joint reading.
		s.Joint[i] = math.Floor(e.th[i]/e.encStep[i])*e.encStep[i] + e.faults.encoderOffset[i]
		v := e.p.Sensor.Gain[i]*fs[i] + e.p.Sensor.Bias[i] + e.p.Sensor.NoiseRMS*e.rng.NormFloat64() + e.spike[i] + e.faults.sensorOffset[i]
		if r := e.p.Sensor.Resolution; r > 0 {
			v = math.Round(v/r) * r
		}
		s.Force[i] = v
	}
	e.spike = [3]float64{}
	s.Stale = false
}

// pulpForce returns the force of the plate on the finger pad (world [N]).
func (e *Exo) pulpForce(k *exo.Kin) [3]float64 {
	pw := e.base.Point(k.Pad)
	vw := e.base.Vec(k.J.MulVec(e.qd))
	kp, bp := e.p.Pulp.Stiffness, e.p.Pulp.Damping
	var f [3]float64
	for i := range 3 {
		f[i] = kp*(pw[i]-e.xf[i]) + bp*(vw[i]-e.vf[i])
	}
	return f
}

// massMatrix returns M(q), the links' and the rotors' inertia, and fills
// lk with the link kinematics.
func (e *Exo) massMatrix(q [3]float64, lk *exo.LinkKin) exo.Mat3 {
	e.kin.Links(lk, q, &e.com)
	m := e.linkMass(lk)
	for i := range 3 {
		if e.compliant[i] {
			m[i][i] += e.rotorM[i]
		}
	}
	return m
}

// linkMass returns the links' inertia alone, with the rotors of the
// rigid joints only (a compliant joint's rotor is a body of its own), at
// the configuration whose link kinematics lk holds.
func (e *Exo) linkMass(lk *exo.LinkKin) exo.Mat3 {
	var m exo.Mat3
	for i := range 3 {
		if !e.compliant[i] {
			m[i][i] = e.rotorM[i]
		}
	}
	for l := range 3 {
		lp := &e.p.Links[l]
		jv, jw, r := &lk.Jv[l], &lk.Jw[l], &lk.R[l]
		// Jwᵀ (R diag(I) Rᵀ) Jw + m Jvᵀ Jv. Link l moves with joints 0..l
		// alone: the Jacobians' other columns are zero, and so is what
		// they would add.
		var rtjw exo.Mat3 // Rᵀ Jw: joint axes in the link frame
		for a := range 3 {
			for b := 0; b <= l; b++ {
				rtjw[a][b] = r[0][a]*jw[0][b] + r[1][a]*jw[1][b] + r[2][a]*jw[2][b]
			}
		}
		for a := 0; a <= l; a++ {
			for b := a; b <= l; b++ {
				s := lp.Mass*(jv[0][a]*jv[0][b]+jv[1][a]*jv[1][b]+jv[2][a]*jv[2][b]) +
					lp.Inertia[0]*rtjw[0][a]*rtjw[0][b] + lp.Inertia[1]*rtjw[1][a]*rtjw[1][b] + lp.Inertia[2]*rtjw[2][a]*rtjw[2][b]
				m[a][b] += s
				if b != a {
					m[b][a] += s
				}
			}
		}
	}
	return m
}

// massDerivative fills e.dm with ∂M/∂q_k by central differences at q.
func (e *Exo) massDerivative(q [3]float64) {
	const h = 1e-6
	var lk exo.LinkKin
	for k := range 3 {
		qp, qm := q, q
		qp[k] += h
		qm[k] -= h
		mp := e.massMatrix(qp, &lk)
		mm := e.massMatrix(qm, &lk)
		for a := range 3 {
			for b := range 3 {
				e.dm[k][a][b] = (mp[a][b] - mm[a][b]) / (2 * h)
			}
		}
	}
}

// coriolis returns the Coriolis-centrifugal torques C(q,q̇)q̇ =
// Σ_jk (∂M_ij/∂q_k - ½ ∂M_jk/∂q_i) q̇_j q̇_k from e.dm, which Advance
// refreshes once per sample period (q moves by milliradians in that time).
func (e *Exo) coriolis(qd [3]float64) [3]float64 {
	var c [3]float64
	for i := range 3 {
		s := 0.0
		for j := range 3 {
			for k := range 3 {
				s += (e.dm[k][i][j] - 0.5*e.dm[i][j][k]) * qd[j] * qd[k]
			}
		}
		c[i] = s
	}
	return c
}

// substep advances the plant by one integration step (semi-implicit Euler;
// viscous and Coulomb friction implicit, so sticking is exact).
func (e *Exo) substep() {
	if e.clamped {
		e.qd, e.thd = [3]float64{}, [3]float64{}
		e.th = e.q
		return
	}
	t := time.Duration(e.now)
	xi, vi := e.intent.At(t, e.finger)
	var k exo.Kin
	var lk exo.LinkKin
	e.kin.EvalLinks(&k, &lk, e.q, &e.com)
	fp := e.pulpForce(&k) // plate on finger

	// Finger.
	fin := &e.p.Finger
	for i := range 3 {
		a := (fin.Stiffness*(xi[i]-e.xf[i]) + fin.Damping*(vi[i]-e.vf[i]) + fp[i]) / fin.Mass
		e.vf[i] += e.dt * a
		e.xf[i] += e.dt * e.vf[i]
	}

	// Exoskeleton: M q̈ = τ + Jᵀ f_finger→plate + τ_g - C q̇ - friction on
	// a rigid joint; on a compliant one the cable's torque τ_t acts on the
	// link and J_r θ̈ = τ - τ_t - friction on the rotor.
	m := e.linkMass(&lk)
	tauExt := k.J.MulTransVec(e.base.InvVec(vec3.Scale(-1, fp)))
	var tauG [3]float64
	for l := range 3 {
		g := lk.Jv[l].MulTransVec(vec3.Scale(e.p.Links[l].Mass, e.gBase))
		tauG = vec3.Add(tauG, g)
	}
	c := e.coriolis(e.qd)
	minv, ok := m.Inverse()
	if !ok {
		panic("devices/twin: singular mass matrix")
	}
	var rhs, tauT [3]float64
	for i := range 3 {
		drive := e.torque[i]
		if e.compliant[i] {
			tauT[i] = e.p.Drive.TransmissionStiffness[i]*(e.th[i]-e.q[i]) + e.p.Drive.TransmissionDamping[i]*(e.thd[i]-e.qd[i])
			drive = tauT[i]
		}
		rhs[i] = drive + tauExt[i] + tauG[i] - c[i]
	}
	acc := minv.MulVec(rhs)
	v := vec3.Add(e.qd, vec3.Scale(e.dt, acc))
	for i := range 3 {
		if e.compliant[i] {
			jr := e.rotorM[i]
			w := e.thd[i] + e.dt*(e.torque[i]-tauT[i])/jr
			e.thd[i] = friction(w, jr, e.p.Drive.Viscous[i], e.p.Drive.Coulomb[i], e.dt)
			e.th[i] += e.dt * e.thd[i]
			continue
		}
		v[i] = friction(v[i], 1/minv[i][i], e.p.Drive.Viscous[i], e.p.Drive.Coulomb[i], e.dt)
	}
	for i := range 3 {
		e.q[i] += e.dt * v[i]
		lo, hi := e.p.Kinematics.JointMin[i], e.p.Kinematics.JointMax[i]
		if e.q[i] < lo {
			e.q[i], v[i] = lo, math.Max(v[i], 0)
		} else if e.q[i] > hi {
			e.q[i], v[i] = hi, math.Min(v[i], 0)
		}
		if !e.compliant[i] {
			e.th[i], e.thd[i] = e.q[i], v[i]
		}
	}
	e.qd = v
}

// friction applies one step dt of viscous (b) and Coulomb (c) friction to
// the speed w of a body of inertia m, both implicitly, so that sticking
// is exact.
func friction(w, m, b, c, dt float64) float64 {
	w /= 1 + dt*b/m
	if imp := c * dt; math.Abs(w)*m <= imp {
		return 0
	} else {
		return w - math.Copysign(imp/m, w)
	}
}

// Truth is the plant's true state, for tests and benchmarks (a real
// device cannot report it).
type Truth struct {
	T         time.Duration
	Q, Qd     [3]float64 // joint (link) angles [rad] and speeds [rad/s]
	Rotor     [3]float64 // rotor angles, joint side [rad]: Q plus the transmission's stretch
	Pad       [3]float64 // pad centre on the plate, world [m]
	PadVel    [3]float64 // [m/s]
	Finger    [3]float64 // finger pad centre, world [m]
	FingerVel [3]float64
	Force     [3]float64 // force of the plate on the finger, world [N]
	Torque    [3]float64 // joint torque acting [N·m]
	Enabled   bool
}

// Truth returns the true state now.
func (e *Exo) Truth() Truth {
	var k exo.Kin
	e.kin.Eval(&k, e.q)
	return Truth{
		T: time.Duration(e.now), Q: e.q, Qd: e.qd, Rotor: e.th,
		Pad: e.base.Point(k.Pad), PadVel: e.base.Vec(k.J.MulVec(e.qd)),
		Finger: e.xf, FingerVel: e.vf,
		Force: e.pulpForce(&k), Torque: e.torque, Enabled: e.enabled,
	}
}

// TipFigures are the fingertip-equivalent inertia and friction of the
// device, the smallest over the directions of motion.
type TipFigures struct {
	MassKg     float64 `json:"mass_kg"`     // smallest eigenvalue of the Cartesian mass (J M⁻¹ Jᵀ)⁻¹
	CoulombN   float64 `json:"coulomb_n"`   // smallest breakaway force, min_i τc_i / |J column i|
	ViscousNsm float64 `json:"viscous_nsm"` // smallest eigenvalue of the Cartesian damping J⁻ᵀ B J⁻¹
}

// TipFigures returns the fingertip figures at the home posture; TipFiguresAt
// at any posture.
func (e *Exo) TipFigures() TipFigures { return e.TipFiguresAt(e.kin.Params().Home) }

// TipFiguresAt returns the fingertip figures at joint angles q.
func (e *Exo) TipFiguresAt(q [3]float64) TipFigures {
	var lk exo.LinkKin
	m := e.massMatrix(q, &lk)
	j := e.kin.Jacobian(q)
	minv, _ := m.Inverse()
	jt := j.T()
	a := minv.Mul(&jt)
	a = j.Mul(&a) // J M⁻¹ Jᵀ, the Cartesian mobility
	var binv exo.Mat3
	for i := range 3 {
		binv[i][i] = 1 / e.p.Drive.Viscous[i]
	}
	bb := binv.Mul(&jt)
	bb = j.Mul(&bb) // J B⁻¹ Jᵀ
	tf := TipFigures{
		MassKg:     1 / maxEig(&a),
		ViscousNsm: 1 / maxEig(&bb),
		CoulombN:   math.Inf(1),
	}
	for i := range 3 {
		col := [3]float64{j[0][i], j[1][i], j[2][i]}
		tf.CoulombN = math.Min(tf.CoulombN, e.p.Drive.Coulomb[i]/vec3.Norm(col))
	}
	return tf
}

// maxEig returns the largest eigenvalue of a symmetric positive matrix.
func maxEig(s *exo.Mat3) float64 {
	var neg exo.Mat3
	for i := range 3 {
		for j := range 3 {
			neg[i][j] = -s[i][j]
		}
	}
	return -exo.SymEigMin(&neg)
}

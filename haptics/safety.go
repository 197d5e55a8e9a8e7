package haptics

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/internal/vec3"
)

// The checks of a device against what the host knows independently of it:
// its own limits (CheckSpec, the joint range), the force the commanded
// torques imply through the kinematics (the torque bound and the sensor's
// plausibility), the host's clock and the power stage it asked for.
// docs/safety.md gives the timing of each.

// CheckSpec refuses a device that declares capabilities beyond the host's
// limits, or none it can be driven with, in one line naming the field.
func (l *LimitsConfig) CheckSpec(spec *devices.ExoSpec) error {
	bad := func(field string, v float64, want string) error {
		return fmt.Errorf("device %q declares %s = %g, want %s", spec.Model, field, v, want)
	}
	fin := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	if spec.DoF != 3 {
		return bad("DoF", float64(spec.DoF), "3 (the servo drives three joints)")
	}
	if !(spec.MaxForceCont > 0 && spec.MaxForceCont <= l.MaxForceCont) {
		return bad("MaxForceCont", spec.MaxForceCont, fmt.Sprintf("in (0, %g] N (limits.max_force_cont_n)", l.MaxForceCont))
	}
	if !(spec.MaxForcePeak >= spec.MaxForceCont && spec.MaxForcePeak <= l.MaxForcePeak) {
		return bad("MaxForcePeak", spec.MaxForcePeak, fmt.Sprintf("in [MaxForceCont, %g] N (limits.max_force_peak_n)", l.MaxForcePeak))
	}
	for i := range 3 {
		if !(spec.MaxTorque[i] > 0 && spec.MaxTorque[i] <= l.MaxTorque[i]) {
			return bad(fmt.Sprintf("MaxTorque[%d]", i), spec.MaxTorque[i], fmt.Sprintf("in (0, %g] N·m (limits.max_torque_nm)", l.MaxTorque[i]))
		}
		lo, hi := spec.JointMin[i], spec.JointMax[i]
		if !fin(lo) || !fin(hi) || !(lo < hi) || lo < -l.JointRange || hi > l.JointRange {
			return fmt.Errorf("device %q declares joint %d range [%g, %g] rad (JointMin, JointMax), want min < max within ±%g rad (limits.joint_range_rad)",
				spec.Model, i+1, lo, hi, l.JointRange)
		}
	}
	return nil
}

// guard is one finger's state for the checks in this file.
type guard struct {
	// Joint readings outside [jointLo, jointHi] (the declared range
	// widened by limits.joint_margin_rad) trip joint-range.
	jointLo, jointHi [3]float64
	// torques holds the last few commanded torques [N·m]: the sample the
	// servo reads was taken while one of them acted (the transport delays
	// each way).
	torques  [torqueHistory][3]float64
	nTorques int
	// offSince is when the sensor last began to disagree beyond
	// safety.plausible_force_n.
	offSince time.Duration
	off      bool
	// jInv is the inverse of the Jacobian at the newest sample (jInvOK: J
	// is regular there), for this tick's checks and torque bound.
	jInv   exo.Mat3
	jInvOK bool
	qdPrev [3]float64 // joint speed of the previous fresh sample [rad/s]

	// The previous fresh sample's device time and the host time it was read.
	devT, hostT time.Duration
	haveClock   bool

	// offDevT is the device's time when the host last switched the power
	// stage off (offKnown: there was a sample to tell it); confirmed: the
	// device has reported it off since; stuckOn: the device reports it on
	// anyway.
	offDevT   time.Duration
	offKnown  bool
	confirmed bool
	stuckOn   bool
	onCount   int // new samples in a row reporting the stage on past the wait
}

// stuckSamples is how many new samples in a row must report the power
// stage on, past the wait, for stays-enabled: one may have been taken
// just before the device read the command.
const stuckSamples = 3

// torqueHistory is how many commanded torques the plausibility check
// compares a sample with: a 2-sample round trip and one tick of slack.
const torqueHistory = 4

// init sets the finger's ranges from the device's declared ones.
func (g *guard) init(spec *devices.ExoSpec, cfg *Config) {
	for i := range 3 {
		g.jointLo[i] = spec.JointMin[i] - cfg.Limits.JointMargin
		g.jointHi[i] = spec.JointMax[i] + cfg.Limits.JointMargin
	}
}

// checkSample runs the checks of a sample that need nothing but the
// sample: the joint range, the device's clock, and, while the host wants
// the power stage off, whether the device says it is.
func (fs *fingerServo) checkSample(t time.Duration, cfg *Config) {
	g := &fs.guard
	for i, q := range fs.st.Joint {
		if q < g.jointLo[i] || q > g.jointHi[i] {
			fs.flag(ReasonJointRange)
		}
	}
	if fs.fresh {
		if g.haveClock {
			dDev, dHost := fs.st.DeviceTime-g.devT, t-g.hostT
			// Samples may reach the host late and bunched, so the device's
			// clock may lag the host's; it may not run backwards or ahead.
			if dDev < 0 || dDev-dHost > cfg.Safety.ClockJump {
				fs.flag(ReasonClockJump)
			}
		}
		g.devT, g.hostT, g.haveClock = fs.st.DeviceTime, t, true
	}
	fs.checkOff(t, cfg)
}

// confirmOf returns what a sample says of the safe state, from the link's
// account (devices.ExoState.Confirm) and the stage the device reports:
// ConfirmWatchdog when the link fell silent and the device then reported
// its stage off (its watchdog cut the motors), ConfirmDevice when the
// device reports the stage off, else ConfirmCommanded.
func confirmOf(st *devices.ExoState) Confirm {
	switch {
	case st.Confirm == devices.ConfirmWatchdog:
		return ConfirmWatchdog
	case !st.Enabled:
		return ConfirmDevice
	}
	return ConfirmCommanded
}

// checkOff confirms the safe state from a fresh sample (a stale one
// tells nothing new). A device whose samples still report its power stage
// on safety.disable_wait_ms of its own time after the host switched the
// stage off, or that switches the stage on again, in stuckSamples new
// samples in a row, trips stays-enabled for as long as it does: it is
// told again every safety.disable_wait_ms, and the finger is not
// re-enabled meanwhile. Measured in the device's time and samples, the
// wait does not run while the device is silent, so a sample taken before
// the command reached it, arriving late, does not trip it.
func (fs *fingerServo) checkOff(t time.Duration, cfg *Config) {
	s, g := &fs.status, &fs.guard
	if s.State != StateSafe {
		s.Confirm, g.stuckOn, g.onCount = ConfirmNone, false, 0
		return
	}
	if !fs.fresh {
		return
	}
	if !g.offKnown {
		g.offDevT, g.offKnown = fs.st.DeviceTime, true // devices start with the stage off
	}
	c := confirmOf(&fs.st)
	if c == ConfirmDevice {
		s.Confirm, g.stuckOn, g.onCount, g.confirmed = c, false, 0, true
		return
	}
	s.Confirm = c
	late := fs.st.DeviceTime-g.offDevT > cfg.Safety.DisableWait
	if g.confirmed || late {
		g.onCount++
	}
	if !g.stuckOn && g.onCount < stuckSamples {
		return
	}
	fs.flag(ReasonStaysEnabled)
	if !g.stuckOn || late {
		if !g.stuckOn {
			g.stuckOn = true
			s.Trips++
			s.Reason = ReasonStaysEnabled
		}
		fs.switchOff(t)
	}
}

// switchOff tells the device at t to switch its power stage off and
// records what is known of the result.
func (fs *fingerServo) switchOff(t time.Duration) {
	g := &fs.guard
	// The device's time now, from its newest sample and the host's clock
	// since: earlier than it is if that sample came late, so that the
	// wait is longer, never shorter.
	g.offDevT, g.offKnown = g.devT+(t-g.hostT), g.haveClock
	g.confirmed = false
	fs.status.Confirm = ConfirmCommanded
	if err := fs.dev.Enable(false); errors.Is(err, devices.ErrDisconnected) {
		fs.status.Confirm = ConfirmLost
	}
}

// lost handles a device found gone: its safe state cannot be confirmed,
// and a reconnected device starts a new clock.
func (fs *fingerServo) lost() {
	fs.resetGuard(true)
	if fs.status.State == StateSafe {
		fs.status.Confirm = ConfirmLost
	}
}

// impliedForce returns the fingertip force [N, base frame] that joint
// torques tau [N·m] hold in static balance, F = J⁻ᵀ τ, from J's inverse.
func impliedForce(jInv *exo.Mat3, tau [3]float64) [3]float64 {
	return jInv.MulTransVec(tau)
}

// driveFriction returns the drive's friction torque per joint at joint
// speeds qd [rad/s]: drive.coulomb_nm + drive.viscous_nms
// |q̇|. For the torque bound (moving) the Coulomb share grows linearly to
// its whole from zero speed to drive.slip_rps: a slower joint may
// be stuck, and its speed estimate is mostly noise.
func driveFriction(cfg *Config, qd *[3]float64, moving bool) [3]float64 {
	var f [3]float64
	for i := range 3 {
		v := math.Abs(qd[i])
		c := cfg.Drive.Coulomb[i]
		if moving && v < cfg.Drive.Slip {
			c *= v / cfg.Drive.Slip
		}
		f[i] = c + cfg.Drive.Viscous[i]*v
	}
	return f
}

// boundTorque returns tau with its share beyond the drive's friction
// scaled so that the fingertip force it implies is at most fLim [N]:
// whatever the force sensor says, the motors cannot push the finger
// harder than that. Friction takes a joint's torque before it reaches the
// finger only while the joint moves the way the torque drives it, so a
// joint's allowance is its friction at speed qd[i] then, and nothing
// otherwise (a joint held still, or braked). It takes J's inverse; where
// J is singular (ok false) only the friction share is left.
func boundTorque(tau [3]float64, jInv *exo.Mat3, ok bool, friction, qd [3]float64, fLim float64) [3]float64 {
	var allow [3]float64
	for i := range 3 {
		if tau[i]*qd[i] > 0 {
			allow[i] = friction[i]
		}
	}
	excess := beyond(tau, allow)
	n := vec3.Norm(impliedForce(jInv, excess))
	if ok && n <= fLim {
		return tau
	}
	s := 0.0
	if ok {
		s = fLim / n
	}
	for i := range 3 {
		tau[i] -= (1 - s) * excess[i]
	}
	return tau
}

// limitTorque applies boundTorque to a commanded torque at the finger's
// continuous force limit and records the torque for the plausibility
// check of the samples it will act on.
func (fs *fingerServo) limitTorque(tau [3]float64, cfg *Config) [3]float64 {
	qd := fs.ctl.qd
	g := &fs.guard
	tau = boundTorque(tau, &g.jInv, g.jInvOK, driveFriction(cfg, &qd, true), qd, fs.maxForce)
	g.torques[g.nTorques%torqueHistory] = tau
	g.nTorques++
	return tau
}

// checkPlausible compares a fresh force sample with the torques that
// acted on the device: while its power stage is on, the last few
// commanded torques; while it is confirmed off, none. The torque the
// sensor's force explains, Jᵀ F, differs from the torque that acted by
// the drive's friction (either way while a joint sticks) and what
// accelerates it; the rest, as a fingertip force, is the disagreement.
// Beyond safety.plausible_force_n with every torque the sample may have
// been taken under, for safety.plausible_ms, it trips sensor-implausible,
// and keeps a tripped finger from being re-enabled. It needs the
// sample's kinematics (measure).
func (fs *fingerServo) checkPlausible(t time.Duration, cfg *Config) {
	g := &fs.guard
	if !fs.fresh {
		return
	}
	// The torque bound of this tick's command uses the same inverse.
	g.jInv, g.jInvOK = fs.k.J.Inverse()
	qd := fs.ctl.qd
	band := driveFriction(cfg, &qd, false)
	for i := range 3 {
		band[i] += cfg.Drive.Inertia[i] * math.Abs(qd[i]-g.qdPrev[i]) / fs.dt
	}
	g.qdPrev = qd
	var acted [][3]float64
	switch st := fs.status.State; {
	case (st == StateActive || st == StateEnabling && fs.poweredOn) && g.nTorques >= torqueHistory:
		acted = g.torques[:]
	case st == StateSafe && fs.status.Confirm == ConfirmDevice:
		acted = noTorque[:]
	default:
		g.off = false
		return
	}
	if !g.jInvOK {
		g.off = false
		return
	}
	tauF := fs.k.J.MulTransVec(fs.k.R.MulVec(fs.st.Force))
	d := math.Inf(1)
	for i := range acted {
		d = math.Min(d, vec3.Norm(impliedForce(&g.jInv, beyond(vec3.Sub(acted[i], tauF), band))))
	}
	if !(d > cfg.Safety.PlausibleForce) {
		g.off = false
		return
	}
	if !g.off {
		g.off, g.offSince = true, t
	}
	if t-g.offSince >= cfg.Safety.PlausibleTime {
		fs.flag(ReasonSensorImplausible)
	}
}

// noTorque is what acts on a device whose power stage is off.
var noTorque [1][3]float64

// beyond returns each of tau's components beyond ±band, towards zero.
func beyond(tau, band [3]float64) [3]float64 {
	for i := range 3 {
		tau[i] = math.Copysign(math.Max(math.Abs(tau[i])-band[i], 0), tau[i])
	}
	return tau
}

// resetGuard forgets the history a device's samples and commands build:
// on enabling (no torque was commanded while safe) and when the device
// is lost (a reconnected device starts a new clock).
func (fs *fingerServo) resetGuard(lost bool) {
	g := &fs.guard
	g.nTorques, g.off = 0, false
	if !lost {
		fs.status.Confirm = ConfirmNone
	}
	if lost {
		g.haveClock = false
	}
}

package link

import (
	"fmt"
	"math"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/devices/wire"
)

// Limits are the host's own bounds on what a device may declare in its
// CAPS. A device is a source of numbers like any other input: a CAPS that
// claims more than the host will ever drive, or a device the host cannot
// drive (other joints, another frame rate, a watchdog too slow to catch a
// failed ENABLE 0), is refused at the handshake with one line that names
// the field. Every field's zero value is its default.
type Limits struct {
	MaxForceCont float64 // max_force_cont_mn at most this [N]; 0: 10 N
	MaxForcePeak float64 // max_force_peak_mn at most this [N]; 0: 20 N
	// MaxTorque caps max_torque_unm on every joint [N·m]; 0: 5 N·m. With
	// a kinematic model (Options.Kinematics) the bound per joint is
	// tighter: the torque MaxForcePeak needs at that joint's longest lever
	// arm over the declared joint range.
	MaxTorque    float64
	MaxStiffness float64 // max_stiffness_npm at most this [N/m]; 0: 10,000 N/m

	// MaxExoPeriod bounds an exoskeleton's period_us: haptex's servo runs
	// at 1 kHz and needs a sample every tick; 0: 1 ms.
	MaxExoPeriod time.Duration
	// MaxTactilePeriod bounds a tactile array's period_us; 0: 5 ms.
	MaxTactilePeriod time.Duration
	// MinWatchdog is the shortest watchdog_ms the host keeps fed (its
	// heartbeats go out every watchdog_ms/4); 0: 10 ms.
	MinWatchdog time.Duration
	// MaxExoWatchdog bounds an exoskeleton's watchdog_ms: when a device
	// does not confirm ENABLE 0 the host falls silent and relies on that
	// watchdog to cut the motors, so it must be short; 0: 100 ms.
	MaxExoWatchdog time.Duration
	// MaxTactileWatchdog bounds a tactile array's watchdog_ms; 0: 1 s.
	MaxTactileWatchdog time.Duration

	MaxA40  float64 // max_a40_nm at most this [µm]; 0: 1000 µm
	MaxA320 float64 // max_a320_nm at most this [µm]; 0: 200 µm

	// JointTolerance is how far a declared joint limit may lie outside the
	// kinematic model's range [rad] (the model is valid inside it only);
	// 0: 1 mrad.
	JointTolerance float64
}

func (l Limits) withDefaults() Limits {
	def := func(v *float64, d float64) {
		if *v <= 0 {
			*v = d
		}
	}
	defD := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.MaxForceCont, 10)
	def(&l.MaxForcePeak, 20)
	def(&l.MaxTorque, 5)
	def(&l.MaxStiffness, 10_000)
	defD(&l.MaxExoPeriod, time.Millisecond)
	defD(&l.MaxTactilePeriod, 5*time.Millisecond)
	defD(&l.MinWatchdog, 10*time.Millisecond)
	defD(&l.MaxExoWatchdog, 100*time.Millisecond)
	defD(&l.MaxTactileWatchdog, time.Second)
	def(&l.MaxA40, 1000)
	def(&l.MaxA320, 200)
	def(&l.JointTolerance, 1e-3)
	return l
}

// CapsError is a CAPS the host refuses: one field outside what the host
// will drive.
type CapsError struct {
	Field string // as docs/protocol.md names it, e.g. "max_torque_unm[1]"
	Value string // the declared value, in the field's unit
	Why   string
}

func (e *CapsError) Error() string { return fmt.Sprintf("CAPS %s = %s: %s", e.Field, e.Value, e.Why) }

func capsErr(field string, value any, format string, a ...any) *CapsError {
	return &CapsError{Field: field, Value: fmt.Sprint(value), Why: fmt.Sprintf(format, a...)}
}

// checkCommon checks what every CAPS shares: the version it speaks, its
// period and its watchdog, against the kind's bounds.
func (l *Limits) checkCommon(c *wire.Caps, maxPeriod, maxWatchdog time.Duration) error {
	if c.Major != wire.Major {
		return capsErr("major", c.Major, "the frame's own header says protocol %d; haptex speaks %d.%d and refuses a device that contradicts itself", wire.Major, wire.Major, wire.Minor)
	}
	if p := time.Duration(c.PeriodUs) * time.Microsecond; p > maxPeriod {
		return capsErr("period_us", c.PeriodUs, "above %d µs: haptex needs a frame from %s at least that often", maxPeriod.Microseconds(), articleKind(c.Kind))
	}
	w := time.Duration(c.WatchdogMs) * time.Millisecond
	if w < l.MinWatchdog {
		return capsErr("watchdog_ms", c.WatchdogMs, "below %d ms, shorter than the host can keep fed (a heartbeat every watchdog_ms/4)", l.MinWatchdog.Milliseconds())
	}
	if w > maxWatchdog {
		return capsErr("watchdog_ms", c.WatchdogMs, "above %d ms: the host relies on the device's watchdog to cut the output when the device does not confirm it off", maxWatchdog.Milliseconds())
	}
	return nil
}

func articleKind(k wire.Kind) string {
	if k == wire.KindExo {
		return "an exoskeleton"
	}
	return "a tactile array"
}

// CheckExo checks an exoskeleton's CAPS against the host's limits and, if
// kin is not nil, against the kinematic model the host will drive it with.
// It returns a *CapsError, or nil.
func (l Limits) CheckExo(c *wire.CapsExo, kin *exo.Model) error {
	l = l.withDefaults()
	if err := l.checkCommon(&c.Caps, l.MaxExoPeriod, l.MaxExoWatchdog); err != nil {
		return err
	}
	if c.DoF != 3 {
		return capsErr("dof", c.DoF, "haptex drives three joints (abduction and two flexions); it does not drive a device with %d", c.DoF)
	}
	if v := float64(c.MaxForceContMN) / 1e3; v > l.MaxForceCont {
		return capsErr("max_force_cont_mn", c.MaxForceContMN, "above the host's limit of %g N", l.MaxForceCont)
	}
	if v := float64(c.MaxForcePeakMN) / 1e3; v > l.MaxForcePeak {
		return capsErr("max_force_peak_mn", c.MaxForcePeakMN, "above the host's limit of %g N", l.MaxForcePeak)
	}
	if v := float64(c.MaxStiffnessNPerM); v > l.MaxStiffness {
		return capsErr("max_stiffness_npm", c.MaxStiffnessNPerM, "above the host's limit of %g N/m", l.MaxStiffness)
	}
	for i := range 3 {
		if v := float64(c.MaxTorqueUNm[i]) / 1e6; v > l.MaxTorque {
			return capsErr(fmt.Sprintf("max_torque_unm[%d]", i), c.MaxTorqueUNm[i], "above the host's limit of %g N·m", l.MaxTorque)
		}
	}
	if kin == nil {
		return nil
	}
	p := kin.Params()
	var lo, hi [3]float64
	for i := range 3 {
		lo[i], hi[i] = float64(c.JointMinURad[i])/1e6, float64(c.JointMaxURad[i])/1e6
		if lo[i] < p.JointMin[i]-l.JointTolerance {
			return capsErr(fmt.Sprintf("joint_min_urad[%d]", i), c.JointMinURad[i], "below the kinematic model's joint %d limit of %.4f rad, where the model does not hold", i+1, p.JointMin[i])
		}
		if hi[i] > p.JointMax[i]+l.JointTolerance {
			return capsErr(fmt.Sprintf("joint_max_urad[%d]", i), c.JointMaxURad[i], "above the kinematic model's joint %d limit of %.4f rad, where the model does not hold", i+1, p.JointMax[i])
		}
	}
	lever := LeverArms(kin, lo, hi)
	for i := range 3 {
		bound := l.MaxForcePeak * lever[i]
		if v := float64(c.MaxTorqueUNm[i]) / 1e6; v > bound*(1+1e-9) {
			return capsErr(fmt.Sprintf("max_torque_unm[%d]", i), c.MaxTorqueUNm[i],
				"above %.3f N·m, the torque the host's %g N force limit needs at joint %d's longest lever arm (%.1f mm) over the declared range; no fingertip force haptex renders needs more",
				bound, l.MaxForcePeak, i+1, 1e3*lever[i])
		}
	}
	return nil
}

// LeverArms returns, per joint, the longest lever arm from the joint to
// the pad over the joint box [lo, hi] [m]: the largest norm of the
// Jacobian's column, sampled on a 9 x 9 x 9 grid (the force F at the pad
// loads joint i with the torque J_i · F, at most |J_i| |F|).
func LeverArms(kin *exo.Model, lo, hi [3]float64) [3]float64 {
	const n = 9
	var arm [3]float64
	var k exo.Kin
	var q [3]float64
	for a := range n {
		for b := range n {
			for c := range n {
				for i, s := range [3]int{a, b, c} {
					q[i] = lo[i] + (hi[i]-lo[i])*float64(s)/(n-1)
				}
				kin.Eval(&k, q)
				for i := range 3 {
					col := [3]float64{k.J[0][i], k.J[1][i], k.J[2][i]}
					arm[i] = math.Max(arm[i], math.Sqrt(col[0]*col[0]+col[1]*col[1]+col[2]*col[2]))
				}
			}
		}
	}
	return arm
}

// CheckTactile checks a tactile array's CAPS against the host's limits.
// It returns a *CapsError, or nil.
func (l Limits) CheckTactile(c *wire.CapsTactile) error {
	l = l.withDefaults()
	if err := l.checkCommon(&c.Caps, l.MaxTactilePeriod, l.MaxTactileWatchdog); err != nil {
		return err
	}
	if c.Rows != devices.PinRows || c.Cols != devices.PinCols {
		return capsErr("rows", fmt.Sprintf("%d (cols %d)", c.Rows, c.Cols), "haptex drives %d x %d arrays (rows along the finger)", devices.PinRows, devices.PinCols)
	}
	if v := float64(c.MaxA40Nm) / 1e3; v > l.MaxA40 {
		return capsErr("max_a40_nm", c.MaxA40Nm, "above the host's limit of %g µm", l.MaxA40)
	}
	if v := float64(c.MaxA320Nm) / 1e3; v > l.MaxA320 {
		return capsErr("max_a320_nm", c.MaxA320Nm, "above the host's limit of %g µm", l.MaxA320)
	}
	return nil
}

package haptics

import (
	"math"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/internal/vec3"
	"github.com/haptex/haptex/sim"
)

// lyingSpec is a simulated device that declares other capabilities.
type lyingSpec struct {
	*twin.Exo
	spec devices.ExoSpec
}

func (d *lyingSpec) Spec() devices.ExoSpec { return d.spec }

// A device whose declared capabilities exceed the host's limits, or that
// declares none it can be driven with, is refused in one line naming the
// field; the simulated device's own declaration passes.
func TestCheckSpec(t *testing.T) {
	p := twin.DefaultExoParams()
	e, err := twin.NewExo(p, twin.DefaultBase(1), holdIntent{homePad(p, 1)}, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	good := e.Spec()
	if err := cfg.Limits.CheckSpec(&good); err != nil {
		t.Fatalf("the simulated device is refused: %v", err)
	}
	cases := []struct {
		field string
		edit  func(s *devices.ExoSpec)
	}{
		{"MaxForceCont", func(s *devices.ExoSpec) { s.MaxForceCont = 4e6 }},
		{"MaxForceCont", func(s *devices.ExoSpec) { s.MaxForceCont = math.NaN() }},
		{"MaxForcePeak", func(s *devices.ExoSpec) { s.MaxForcePeak = 4e6 }},
		{"MaxForcePeak", func(s *devices.ExoSpec) { s.MaxForcePeak = s.MaxForceCont / 2 }},
		{"MaxTorque[1]", func(s *devices.ExoSpec) { s.MaxTorque[1] = 4294 }},
		{"MaxTorque[2]", func(s *devices.ExoSpec) { s.MaxTorque[2] = 0 }},
		{"MaxTorque[0]", func(s *devices.ExoSpec) { s.MaxTorque[0] = math.Inf(1) }},
		{"joint 2 range", func(s *devices.ExoSpec) { s.JointMax[1] = 100 }},
		{"joint 3 range", func(s *devices.ExoSpec) { s.JointMin[2], s.JointMax[2] = 1, -1 }},
		{"joint 1 range", func(s *devices.ExoSpec) { s.JointMin[0] = math.NaN() }},
		{"DoF", func(s *devices.ExoSpec) { s.DoF = 2 }},
	}
	for _, tc := range cases {
		spec := good
		tc.edit(&spec)
		err := cfg.Limits.CheckSpec(&spec)
		if err == nil || !strings.Contains(err.Error(), tc.field) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line naming the field", tc.field, err)
			continue
		}
		_, err = NewServo(cfg, [sim.NumFingers]Finger{{}, {Device: &lyingSpec{e, spec}, Kin: e.Kinematics(), Base: e.Base()}})
		if err == nil || !strings.Contains(err.Error(), tc.field) || !strings.HasPrefix(err.Error(), "haptics: index: ") {
			t.Errorf("%s: NewServo: %v", tc.field, err)
		}
	}
}

// The torque bound leaves a torque whose share beyond the friction
// implies at most the limit alone, scales a larger share down to exactly
// the limit keeping its direction, never touches the friction share, and
// leaves only the friction share where the Jacobian is singular.
func TestBoundTorque(t *testing.T) {
	kin, err := exo.New(exo.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	j := kin.Jacobian(kin.Params().Home)
	jInv, ok := j.Inverse()
	if !ok {
		t.Fatal("the home posture is singular")
	}
	fric := [3]float64{0.05, 0.06, 0.03}
	moving := [3]float64{1, 1, 1} // every joint moving the way the torques drive it
	const lim = 5.0
	// |F| for Jᵀ F = the torque beyond the allowance, by gonum's LU.
	implied := func(tau, allow [3]float64) float64 {
		a := mat.NewDense(3, 3, nil)
		for r := range 3 {
			for c := range 3 {
				a.Set(r, c, j[c][r])
			}
		}
		b := beyond(tau, allow)
		var x mat.VecDense
		if err := x.SolveVec(a, mat.NewVecDense(3, b[:])); err != nil {
			t.Fatal(err)
		}
		return mat.Norm(&x, 2)
	}
	small := [3]float64{0.1, -0.05, 0.02}
	if got := boundTorque(small, &jInv, true, fric, moving, lim); got != small {
		t.Errorf("a torque within the bound changed: %v -> %v", small, got)
	}
	for _, tau := range [][3]float64{{1.5, -1.2, 0.6}, {-0.9, 1.4, -0.7}, {0, 0, 0.8}} {
		for _, qd := range [][3]float64{moving, {-1, -1, -1}, {}} {
			got := boundTorque(tau, &jInv, true, fric, qd, lim)
			var allow [3]float64
			for i := range 3 {
				if tau[i]*qd[i] > 0 {
					allow[i] = fric[i]
				}
			}
			if n := implied(got, allow); math.Abs(n-lim) > 1e-9 {
				t.Errorf("tau %v, qd %v: bounded to %v, implying %.6f N, want %.1f N", tau, qd, got, n, lim)
			}
			for i := range 3 {
				// The share beyond the allowance is scaled by one factor,
				// the allowance itself kept.
				ex, exGot := beyond(tau, allow)[i], beyond(got, allow)[i]
				if math.Signbit(ex) != math.Signbit(exGot) && exGot != 0 {
					t.Errorf("joint %d torque changed sign: %v -> %v", i, tau, got)
				}
				if math.Abs(got[i]-exGot) > math.Min(math.Abs(tau[i]), allow[i])+1e-12 {
					t.Errorf("joint %d: friction share of %v changed in %v", i, tau, got)
				}
			}
		}
	}
	var singular exo.Mat3
	singular[0] = [3]float64{0.1, 0, 0}
	sInv, ok := singular.Inverse()
	if ok {
		t.Fatal("a singular matrix inverted")
	}
	got := boundTorque([3]float64{1, 0.02, -1}, &sInv, ok, fric, moving, lim)
	// Joint 3 turns against its torque: no friction share there.
	if want := [3]float64{0.05, 0.02, 0}; vec3.Norm(vec3.Sub(got, want)) > 1e-12 {
		t.Errorf("singular J: %v, want the friction share %v", got, want)
	}
}

// The bound saturates the force loop only while the torque pushes the
// finger past the limit once the drive has taken its share: a torque the
// bound clips is not saturating while the rotors' acceleration the way
// it drives them takes the excess, and is saturating while they stand,
// slow down or move against it.
func TestPushesAtLimit(t *testing.T) {
	kin, err := exo.New(exo.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	j := kin.Jacobian(kin.Params().Home)
	jInv, ok := j.Inverse()
	if !ok {
		t.Fatal("the home posture is singular")
	}
	cfg := DefaultConfig()
	fric, inertia := cfg.Drive.Coulomb, cfg.Drive.Inertia
	const lim = 5.0
	// A torque whose share beyond the friction implies 6 N, by gonum's LU.
	a := mat.NewDense(3, 3, nil)
	for r := range 3 {
		for c := range 3 {
			a.Set(r, c, j[c][r])
		}
	}
	var x mat.VecDense
	ex0 := [3]float64{0.4, -0.3, 0.2}
	if err := x.SolveVec(a, mat.NewVecDense(3, ex0[:])); err != nil {
		t.Fatal(err)
	}
	var tau, excess, qd [3]float64
	for i := range 3 {
		excess[i] = ex0[i] * 6 / mat.Norm(&x, 2)
		tau[i] = excess[i] + math.Copysign(fric[i], excess[i])
		qd[i] = math.Copysign(1, tau[i]) // moving the way the torque drives
	}
	if got := boundTorque(tau, &jInv, true, fric, qd, lim); got == tau {
		t.Fatalf("the bound left %v implying 6 N beyond the friction", tau)
	}
	// qdd whose inertia torque takes share s of each joint's excess,
	// along (sign 1) or against (-1) the torque.
	accel := func(s, sign float64) (qdd [3]float64) {
		for i := range 3 {
			qdd[i] = sign * s * excess[i] / inertia[i]
		}
		return qdd
	}
	neg := func(v [3]float64) [3]float64 { return vec3.Scale(-1, v) }
	cases := []struct {
		name    string
		qd, qdd [3]float64
		want    bool
	}{
		{"rotors at constant speed", qd, [3]float64{}, true},
		{"rotors speeding up, taking the whole excess", qd, accel(1, 1), false},
		{"rotors speeding up, leaving 4.9 N", qd, accel(1-4.9/6, 1), false},
		{"rotors speeding up, leaving 5.1 N", qd, accel(1-5.1/6, 1), true},
		{"rotors slowing down", qd, accel(1, -1), true},
		{"rotors moving against the torque", neg(qd), accel(1, 1), true},
		{"rotors still", [3]float64{}, accel(1, 1), true},
	}
	for _, tc := range cases {
		if got := pushesAtLimit(tau, &jInv, fric, inertia, tc.qd, tc.qdd, lim); got != tc.want {
			t.Errorf("%s: pushes at the limit %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSafetyNames(t *testing.T) {
	for x := ReasonNone; x <= ReasonStopped; x++ {
		if strings.Contains(x.String(), "?") || x.String() == "" {
			t.Errorf("reason %d has no name", x)
		}
	}
	for c := ConfirmCommanded; c <= ConfirmLost; c++ {
		if strings.Contains(c.String(), "?") || c.String() == "" {
			t.Errorf("confirm %d has no name", c)
		}
	}
	if ConfirmNone.String() != "" {
		t.Errorf("ConfirmNone is %q, want an empty column", ConfirmNone)
	}
	rec := TickRecord{}
	rec.Fingers[1] = FingerRecord{State: StateSafe, Reason: ReasonStaysEnabled, Confirm: ConfirmCommanded}
	if row := string(rec.AppendCSV(nil)); !strings.HasSuffix(row, ",safe,stays-enabled,commanded") {
		t.Errorf("row %q", row)
	}
	if h := TickCSVHeader(); !strings.HasSuffix(h, "index_state,index_reason,index_safe_by") {
		t.Errorf("header %q", h)
	}
}

// frozen stops delivering samples while on: the last one stays, stale,
// power stage report included, as a silent link's does. Its power stage
// goes off four reads after Enable(false), as a command in flight does.
type frozen struct {
	*twin.Exo
	on   bool
	last devices.ExoState
	off  int // reads until a pending Enable(false) acts; 0: none pending
}

func (d *frozen) Enable(on bool) error {
	if !on {
		d.off = 4
		return nil
	}
	return d.Exo.Enable(on)
}

func (d *frozen) Read(st *devices.ExoState) error {
	if d.off > 0 {
		if d.off--; d.off == 0 {
			d.Exo.Enable(false)
		}
	}
	if d.on {
		*st = d.last
		st.Stale = true
		return nil
	}
	err := d.Exo.Read(st)
	d.last = *st
	return err
}

// frozenIndex is a servo whose index finger holds its pad on an
// exoskeleton twin behind a frozen link, and no thumb.
func frozenIndex(t *testing.T) (*twin.Exo, *frozen, *Servo) {
	t.Helper()
	p := twin.DefaultExoParams()
	e, err := twin.NewExo(p, twin.DefaultBase(1), holdIntent{homePad(p, 1)}, 1)
	if err != nil {
		t.Fatal(err)
	}
	d := &frozen{Exo: e}
	s, err := NewServo(DefaultConfig(), [sim.NumFingers]Finger{{}, {Device: d, Kin: e.Kinematics(), Base: e.Base()}})
	if err != nil {
		t.Fatal(err)
	}
	return e, d, s
}

// A device that falls silent, trips device-silent and speaks again just
// before the host's switch-off reaches it, its new sample still reporting
// the stage on, is not stays-enabled: the wait is counted in the device's
// time from when the host switched the stage off, not from the last
// sample it had.
func TestSilenceIsNotStaysEnabled(t *testing.T) {
	e, d, s := frozenIndex(t)
	var rec TickRecord
	var in sim.Output
	safe := time.Duration(-1)
	for k := time.Duration(0); k < time.Second; k += time.Millisecond {
		e.Advance(k)
		// Silent for 12 ms: device-silent after 5, the stop ramp's 4 and
		// the switch-off, then a sample taken before it acted.
		d.on = k >= 300*time.Millisecond && k < 312*time.Millisecond
		s.Tick(k, &in, nil, &rec)
		fr := &rec.Fingers[1]
		if fr.Reason == ReasonStaysEnabled {
			t.Fatalf("stays-enabled at %v", k)
		}
		if safe < 0 && fr.State == StateSafe && fr.Reason == ReasonSilent {
			safe = k
		}
	}
	if safe < 0 || safe > 312*time.Millisecond {
		t.Fatalf("safe at %v; the test wants the switch-off within the silence", safe)
	}
	if st := s.Status(1); st.State != StateActive {
		t.Errorf("%+v after the silence", st)
	}
}

// Silence is counted while the loop runs: samples held on the way during
// a stall of the loop itself (under the overrun check's bounds) are not a
// silent device, and a device that does fall silent is still flagged
// within safety.silent_ms of the loop's own time.
func TestSilenceCountsTheLoopsTime(t *testing.T) {
	const ms = time.Millisecond
	for _, tc := range []struct {
		name               string
		stallFrom, stallTo time.Duration // the loop runs no tick in [stallFrom, stallTo)
		quietFrom, quietTo time.Duration // the device's samples do not arrive
		tripBy             time.Duration // 0: no device-silent trip
	}{
		// The loop's tick after 299 ms comes at 303 ms, and its reads find
		// no new sample until 306 ms: 7 ms since the last, 4 of them
		// listened.
		{"held during a stall", 300 * ms, 303 * ms, 300 * ms, 306 * ms, 0},
		// Silent for good from 300 ms with the same kind of stall at
		// 302-305 ms: flagged at most the stall's 3 ms later than without.
		{"silent across a stall", 302 * ms, 305 * ms, 300 * ms, time.Second, 308 * ms},
		{"silent, no stall", 0, 0, 300 * ms, time.Second, 305 * ms},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, d, s := frozenIndex(t)
			var rec TickRecord
			var in sim.Output
			tripped := time.Duration(-1)
			for k := time.Duration(0); k < 400*ms; k += ms {
				if k >= tc.stallFrom && k < tc.stallTo {
					continue
				}
				e.Advance(k)
				d.on = k >= tc.quietFrom && k < tc.quietTo
				s.Tick(k, &in, nil, &rec)
				switch fr := &rec.Fingers[1]; fr.Reason {
				case ReasonSilent:
					if tripped < 0 {
						tripped = k
					}
				case ReasonOverrun:
					t.Fatalf("overrun at %v: the stall is meant to stay within the overrun check's bounds", k)
				}
			}
			switch {
			case tc.tripBy == 0 && tripped >= 0:
				t.Errorf("device-silent at %v: samples held during the loop's own stall counted as the device's silence", tripped)
			case tc.tripBy > 0 && (tripped < 0 || tripped > tc.tripBy):
				t.Errorf("device-silent at %v, want by %v", tripped, tc.tripBy)
			}
		})
	}
}

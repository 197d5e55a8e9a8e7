package haptics

import (
	"math"
	"testing"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/internal/vec3"
	"github.com/haptex/haptex/sim"
)

// The servo against inputs that lie: a host clock that runs back, local
// models that break their contract or stop coming, samples that trip or
// hold NaN. Each leaves the finger at no more torque than it had, in a
// safe state the device confirms, or rendering a bounded force.

// hostile is a servo whose index finger presses a cloth model on an
// exoskeleton twin held at home, and no thumb.
type hostile struct {
	e   *twin.Exo
	s   *Servo
	tm  time.Duration
	in  sim.Output
	out sim.FingerState
	rec TickRecord
	n   [3]float64 // the direction the pad presses
}

// newHostile builds it, the twin's samples read through wrap (when not
// nil), and ticks 300 ms without a model, so that the finger is active.
func newHostile(t *testing.T, wrap func(*twin.Exo) devices.Exoskeleton) *hostile {
	t.Helper()
	p := twin.DefaultExoParams()
	e, err := twin.NewExo(p, twin.DefaultBase(1), holdIntent{homePad(p, 1)}, 1)
	if err != nil {
		t.Fatal(err)
	}
	h := &hostile{e: e}
	var dev devices.Exoskeleton = e
	if wrap != nil {
		dev = wrap(e)
	}
	if h.s, err = NewServo(DefaultConfig(), [sim.NumFingers]Finger{{}, {Device: dev, Kin: e.Kinematics(), Base: e.Base()}}); err != nil {
		t.Fatal(err)
	}
	base := e.Base()
	h.n = base.Vec([3]float64{1, 0, 0})
	for ; h.tm < 300*time.Millisecond; h.tm += time.Millisecond {
		h.tick(h.tm, nil)
	}
	if st := h.rec.Fingers[1].State; st != StateActive {
		t.Fatalf("state %v after 300 ms", st)
	}
	return h
}

// press returns a model of a cloth pressing the pad with f0 [N] and
// stiffness k [N/m] along n, linearised at the pad now.
func (h *hostile) press(f0, k float64) sim.LocalModel {
	lm := sim.LocalModel{T: h.tm, Step: uint64(h.tm / time.Millisecond), X0: h.out.Fingers[1].Pos, F0: vec3.Scale(-f0, h.n),
		Normal: h.n, Depth: 0.01, InContact: true, Valid: true}
	for i := range 3 {
		for j := range 3 {
			lm.K[i][j] = -k * h.n[i] * h.n[j]
		}
	}
	return lm
}

// tick runs the servo at tm with lm as the index finger's model (none when
// nil).
func (h *hostile) tick(tm time.Duration, lm *sim.LocalModel) {
	in := &h.in
	if lm == nil {
		in = nil
	} else {
		h.in.Local[1] = *lm
	}
	h.s.Tick(tm, in, &h.out, &h.rec)
}

// pressFor ticks d with the press model renewed every tick.
func (h *hostile) pressFor(d time.Duration, f0, k float64) {
	for end := h.tm + d; h.tm < end; h.tm += time.Millisecond {
		lm := h.press(f0, k)
		h.tick(h.tm, &lm)
	}
}

// within reports whether every joint's torque is at most that of ref.
func within(tau, ref [3]float64) bool {
	for i := range 3 {
		if math.Abs(tau[i]) > math.Abs(ref[i])*(1+1e-12) {
			return false
		}
	}
	return true
}

// A host clock that runs back while the finger renders trips host-clock:
// the torque held at the trip ramps to zero, never above it, and the
// finger is safe within the stop ramp of the clock's own time. Before, the
// ramp was computed from a start in the future: torque 1.25 times the
// held torque for a millisecond back, 24 N·m for a second, and a finger
// that never reached the safe state for an hour.
func TestHostClockRunsBack(t *testing.T) {
	for _, back := range []time.Duration{time.Millisecond, time.Second, time.Hour} {
		t.Run(back.String(), func(t *testing.T) {
			h := newHostile(t, nil)
			h.pressFor(300*time.Millisecond, 3, 500)
			held := h.rec.Fingers[1].Torque
			last := h.tm - time.Millisecond
			safe := false
			for k := range 10 {
				tm := last - back + time.Duration(k)*time.Millisecond
				lm := h.press(3, 500)
				lm.T = tm
				h.tick(tm, &lm)
				fr := h.rec.Fingers[1]
				if !within(fr.Torque, held) {
					t.Fatalf("%d ms after the clock ran back: torque %v, held %v", k, fr.Torque, held)
				}
				if k == 0 && (fr.State != StateStopping || fr.Reason != ReasonHostClock) {
					t.Fatalf("state %v, reason %v; want stopping, host-clock", fr.State, fr.Reason)
				}
				if fr.State == StateSafe {
					safe = fr.Torque == [3]float64{}
					break
				}
			}
			if !safe {
				t.Errorf("not safe with zero torque 10 ms after the clock ran back")
			}
		})
	}
}

// A clock that runs back while the finger is already stopping leaves no
// ramp to follow: the torque is zero at once.
func TestHostClockRunsBackWhileStopping(t *testing.T) {
	h := newHostile(t, nil)
	h.pressFor(300*time.Millisecond, 3, 500)
	lm := h.press(3, 500)
	lm.F0[0] = math.NaN()
	h.tick(h.tm, &lm)
	if fr := h.rec.Fingers[1]; fr.State != StateStopping || fr.Reason != ReasonModelNaN {
		t.Fatalf("state %v, reason %v; want stopping, model-nan", fr.State, fr.Reason)
	}
	h.tick(h.tm-time.Second, nil)
	if fr := h.rec.Fingers[1]; fr.State != StateSafe || fr.Torque != ([3]float64{}) {
		t.Errorf("state %v, torque %v; want safe, zero", fr.State, fr.Torque)
	}
}

// A clock that runs back while the finger is enabling never turns the
// rendered force round: the limits stay within their ramp (they went
// negative before, and the finger was pushed the other way).
func TestHostClockRunsBackWhileEnabling(t *testing.T) {
	h := newHostile(t, nil)
	lm := h.press(3, 500)
	lm.F0[0] = math.NaN()
	h.tick(h.tm, &lm)
	h.tm += time.Millisecond
	for ; h.rec.Fingers[1].State != StateEnabling; h.tm += time.Millisecond {
		if h.tm > time.Second {
			t.Fatal("never enabled again")
		}
		h.tick(h.tm, nil)
	}
	h.pressFor(10*time.Millisecond, 0.5, 500)
	before := h.rec.Fingers[1].ForceCmd
	lm = h.press(0.5, 500)
	h.tick(h.tm-20*time.Millisecond, &lm)
	fr := h.rec.Fingers[1]
	if vec3.Dot(fr.ForceCmd, before) < 0 || vec3.Norm(fr.ForceCmd) > vec3.Norm(before) {
		t.Errorf("force commanded %v after the clock ran back, %v before", fr.ForceCmd, before)
	}
	if fr.Reason != ReasonHostClock {
		t.Errorf("reason %v, want host-clock", fr.Reason)
	}
}

// A local model that breaks its contract trips the finger in the tick it
// arrives, and the torque only falls from what it was.
func TestMalformedModelTrips(t *testing.T) {
	for _, c := range []struct {
		name string
		bad  func(h *hostile, lm *sim.LocalModel)
		want Reason
	}{
		// Before: read as no contact, rendered as 0 N with the finger active.
		{"NaN drift", func(_ *hostile, lm *sim.LocalModel) { lm.V[0] = math.NaN() }, ReasonModelNaN},
		// Before: the force integrator wound up beyond its clamp, and the
		// device pushed the finger with 6-7 N while asking 0 N.
		{"normal of length 3", func(_ *hostile, lm *sim.LocalModel) { lm.Normal = vec3.Scale(3, lm.Normal) }, ReasonModelInvalid},
		// Before: the finger was driven round in circles at 5 N.
		{"antisymmetric stiffness", func(h *hostile, lm *sim.LocalModel) {
			base := h.e.Base()
			u := base.Vec([3]float64{0, 1, 0})
			for i := range 3 {
				for j := range 3 {
					lm.K[i][j] += 1200 * (h.n[i]*u[j] - u[i]*h.n[j])
				}
			}
		}, ReasonModelInvalid},
		{"stiffness pushing out", func(_ *hostile, lm *sim.LocalModel) {
			for i := range 3 {
				lm.K[i][i] += 1000
			}
		}, ReasonModelInvalid},
		// Before: a fresh model every tick drifting at 10 m/s pushed the
		// finger with 8 N (the blend between steps extrapolated the last
		// one by a centimetre a tick).
		{"drift at 10 m/s", func(h *hostile, lm *sim.LocalModel) { lm.V = vec3.Scale(-10, h.n) }, ReasonModelInvalid},
		// Before: a model asking 0 N at the pad, its point 1 m back towards
		// the finger and F0 cancelling its stiffness, pushed the finger
		// with 7.6 N.
		{"linearised a metre away", func(h *hostile, lm *sim.LocalModel) {
			lm.X0 = vec3.Sub(lm.X0, h.n)
			lm.F0 = vec3.Add(lm.F0, vec3.Scale(500, h.n))
		}, ReasonModelInvalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHostile(t, nil)
			h.pressFor(100*time.Millisecond, 0.5, 500)
			held := h.rec.Fingers[1].Torque
			for k := range 10 {
				lm := h.press(0.5, 500)
				c.bad(h, &lm)
				h.tick(h.tm, &lm)
				h.tm += time.Millisecond
				fr := h.rec.Fingers[1]
				if k == 0 && (fr.State != StateStopping || fr.Reason != c.want) {
					t.Fatalf("state %v, reason %v; want stopping, %v", fr.State, fr.Reason, c.want)
				}
				if !within(fr.Torque, held) {
					t.Fatalf("%d ms after: torque %v, held %v", k, fr.Torque, held)
				}
			}
			if fr := h.rec.Fingers[1]; fr.State != StateSafe {
				t.Errorf("state %v 10 ms after, want safe", fr.State)
			}
		})
	}
}

// A simulation that stalls leaves its last model standing: its drift stops
// after maxModelAge, so the force the finger is asked to feel stops
// growing: at most the model's 0.3 N and its stiffness over 50 ms of
// drift at 5 cm/s, 2.8 N. Before, the model drifting into the finger
// asked the 5 N force limit after 0.5 s, and its stiffness part reached
// 132 N by 3 s.
func TestStalledModelStopsDrifting(t *testing.T) {
	h := newHostile(t, nil)
	lm := h.press(0.3, 1000)
	lm.V = vec3.Scale(-0.05, h.n)
	var most float64
	for end := h.tm + 3*time.Second; h.tm < end; h.tm += time.Millisecond {
		h.tick(h.tm, &lm)
		fr := h.rec.Fingers[1]
		if fr.State != StateActive {
			t.Fatalf("%v after the model: state %v, reason %v", h.tm-lm.T, fr.State, fr.Reason)
		}
		most = max(most, vec3.Norm(fr.ForceDes))
	}
	if most > 0.3+1000*0.05*maxModelAge.Seconds() {
		t.Errorf("desired force up to %g N", most)
	}
}

// tripOnce reports a force of 1e30 N in one sample.
type tripOnce struct {
	*twin.Exo
	at, n int
}

func (d *tripOnce) Read(st *devices.ExoState) error {
	err := d.Exo.Read(st)
	if d.n++; d.n == d.at {
		st.Force[2] = 1e30
	}
	return err
}

// A sample that trips the force check does not reach the cable-stretch
// estimate: the pad the servo publishes stays where the finger is. Before,
// the one sample moved it by 4·10²⁴ m for the stop and by 3·10¹⁵ m for
// 0.4 s after the finger was enabled again.
func TestTrippingSampleLeavesThePad(t *testing.T) {
	var d *tripOnce
	h := newHostile(t, func(e *twin.Exo) devices.Exoskeleton { d = &tripOnce{Exo: e, at: 1 << 30}; return d })
	d.at = d.n + 1
	var tripped bool
	for end := h.tm + time.Second; h.tm < end; h.tm += time.Millisecond {
		h.tick(h.tm, nil)
		fr := h.rec.Fingers[1]
		tripped = tripped || fr.Reason == ReasonForceTrip
		pad := h.e.Truth().Pad
		if h.out.Fingers[1].Valid && vec3.Norm(vec3.Sub(h.out.Fingers[1].Pos, pad)) > 1e-3 {
			t.Fatalf("%v: published pad %v, the device's %v", h.tm, h.out.Fingers[1].Pos, pad)
		}
	}
	if !tripped {
		t.Error("the sample did not trip")
	}
}

// nanForce reports a NaN force in every sample, as a broken sensor does.
type nanForce struct{ *twin.Exo }

func (d *nanForce) Read(st *devices.ExoState) error {
	err := d.Exo.Read(st)
	st.Force[0] = math.NaN()
	return err
}

// A finger whose force sensor reads NaN is still confirmed safe by the
// power stage the device reports, and a stage that stays on is still
// found. Before, neither: the samples were dropped before the checks.
func TestNaNSensorStillConfirms(t *testing.T) {
	for _, ignore := range []bool{false, true} {
		h := newHostile(t, nil)
		h.s.fingers[1].dev = &nanForce{h.e}
		h.e.IgnoreDisable(ignore)
		var confirm Confirm
		var stuck bool
		for end := h.tm + 100*time.Millisecond; h.tm < end; h.tm += time.Millisecond {
			h.tick(h.tm, nil)
			fr := h.rec.Fingers[1]
			confirm = fr.Confirm
			stuck = stuck || fr.Reason == ReasonStaysEnabled
		}
		switch {
		case !ignore && confirm != ConfirmDevice:
			t.Errorf("a device that obeys: safe by %q, want device", confirm)
		case ignore && !stuck:
			t.Errorf("a stage that stays on: not found (safe by %q)", confirm)
		}
	}
}

// A controller that computes a NaN torque stops the finger from the last
// finite torque down, never back up: before, the tick of the fault sent
// zero and the ramp then rose to three quarters of the held torque.
func TestControlNaNRampsDown(t *testing.T) {
	h := newHostile(t, nil)
	h.pressFor(300*time.Millisecond, 3, 500)
	prev := h.rec.Fingers[1].Torque
	h.s.fingers[1].ctl.iF[0] = math.NaN()
	for k := range 10 {
		lm := h.press(3, 500)
		h.tick(h.tm, &lm)
		h.tm += time.Millisecond
		fr := h.rec.Fingers[1]
		if k == 0 && fr.Reason != ReasonControlNaN {
			t.Fatalf("reason %v, want control-nan", fr.Reason)
		}
		if !within(fr.Torque, prev) {
			t.Fatalf("%d ms after: torque %v, the tick before %v", k, fr.Torque, prev)
		}
		prev = fr.Torque
	}
	if fr := h.rec.Fingers[1]; fr.State != StateSafe || fr.Torque != ([3]float64{}) {
		t.Errorf("state %v, torque %v 10 ms after; want safe, zero", fr.State, fr.Torque)
	}
}

// Stop ends the session: the finger pressing the cloth ramps its torque to
// zero (never above what it held) with reason stopped, not counted as a
// trip; it is safe within the stop ramp, its device confirms the power
// stage off, and it is not enabled again.
func TestStopEndsTheSession(t *testing.T) {
	h := newHostile(t, nil)
	h.pressFor(300*time.Millisecond, 3, 500)
	held, trips := h.rec.Fingers[1].Torque, h.s.Status(1).Trips
	if held == ([3]float64{}) {
		t.Fatal("no torque to stop")
	}
	h.s.Stop()
	var safeAt, confirmedAt time.Duration = -1, -1
	for end := h.tm + time.Second; h.tm < end; h.tm += time.Millisecond {
		lm := h.press(3, 500)
		h.tick(h.tm, &lm)
		fr := h.rec.Fingers[1]
		if fr.Reason != ReasonStopped || !within(fr.Torque, held) {
			t.Fatalf("at %v: %v (%v), torque %v after %v held", h.tm, fr.State, fr.Reason, fr.Torque, held)
		}
		switch {
		case fr.State == StateSafe && safeAt < 0:
			safeAt = h.tm
		case fr.State != StateSafe && safeAt >= 0:
			t.Fatalf("at %v: %v again after the stop", h.tm, fr.State)
		}
		if fr.Confirm == ConfirmDevice && confirmedAt < 0 {
			confirmedAt = h.tm
		}
	}
	start := h.tm - time.Second
	if safeAt < 0 || safeAt-start > DefaultConfig().Safety.StopRamp+time.Millisecond || confirmedAt < 0 || confirmedAt-safeAt > 2*time.Millisecond {
		t.Errorf("stopped at %v: safe at %v, confirmed by the device at %v", start, safeAt, confirmedAt)
	}
	var st devices.ExoState
	if err := h.e.Read(&st); err != nil || st.Enabled || h.s.Status(1).Trips != trips {
		t.Errorf("trips %d (%d before the stop); the twin reports its stage on: %v (%v)", h.s.Status(1).Trips, trips, st.Enabled, err)
	}
}

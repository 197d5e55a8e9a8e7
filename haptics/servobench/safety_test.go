package servobench

import (
	"math"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/haptics"
	"github.com/haptex/haptex/internal/vec3"
	"github.com/haptex/haptex/sim"
)

// The safety checks of package haptics against faults injected into the
// simulated device, in virtual time: a drifting force sensor, an encoder
// out of range, a clock that jumps, a power stage that stays on.

// tipForce is what the test measures at the index fingertip each tick,
// from the device's true state, independently of the servo: the force the
// commanded torques imply in static balance through the true Jacobian,
// with (implied) and without (static) the drive's declared friction, and
// the true force on the finger.
type tipForce struct {
	implied, static, truth float64
}

func measureTip(r *simRig, f int, cfg *haptics.Config) tipForce {
	e := r.exos[f]
	tr := e.Truth()
	tau := r.rec.Fingers[f].Torque
	j := e.Kinematics().Jacobian(tr.Q)
	var allowed [3]float64
	for i := range 3 {
		// Friction takes a joint's torque only while the joint moves the
		// way the torque drives it.
		if tau[i]*tr.Qd[i] > 0 {
			c := cfg.Drive.Coulomb[i] + cfg.Drive.Viscous[i]*math.Abs(tr.Qd[i])
			allowed[i] = math.Copysign(math.Max(math.Abs(tau[i])-c, 0), tau[i])
		} else {
			allowed[i] = tau[i]
		}
	}
	return tipForce{implied: solveJT(&j, allowed), static: solveJT(&j, tau), truth: vec3.Norm(tr.Force)}
}

// solveJT returns |F| for Jᵀ F = tau (gonum's LU solve).
func solveJT(j *exo.Mat3, tau [3]float64) float64 {
	a := mat.NewDense(3, 3, nil)
	for r := range 3 {
		for c := range 3 {
			a.Set(r, c, j[c][r])
		}
	}
	var x mat.VecDense
	if err := x.SolveVec(a, mat.NewVecDense(3, tau[:])); err != nil {
		return math.Inf(1)
	}
	return mat.Norm(&x, 2)
}

// frictionAtTip returns the largest fingertip force the drive's Coulomb
// friction holds in static balance at finger f's posture: max |J⁻ᵀ (±c)|.
func frictionAtTip(r *simRig, f int, cfg *haptics.Config) float64 {
	j := r.exos[f].Kinematics().Jacobian(r.exos[f].Truth().Q)
	c := cfg.Drive.Coulomb
	worst := 0.0
	for signs := range 8 {
		var tau [3]float64
		for i := range 3 {
			tau[i] = c[i]
			if signs&(1<<i) != 0 {
				tau[i] = -c[i]
			}
		}
		worst = math.Max(worst, solveJT(&j, tau))
	}
	return worst
}

// sensorDir returns the unit vector, in finger f's sensor frame, of the
// world direction w at the device's present posture.
func sensorDir(r *simRig, f int, w [3]float64) [3]float64 {
	e := r.exos[f]
	var k exo.Kin
	e.Kinematics().Eval(&k, e.Truth().Q)
	b := e.Base()
	s := k.R.MulTransVec(b.InvVec(w))
	return vec3.Scale(1/vec3.Norm(s), s)
}

// A force-sensor offset ramped under every trip limit (each step under
// the spike limit, the total under the force trip, slowly through the
// plausibility bound, or held just under it) never lets the commanded
// torques push the finger past the continuous force limit by more than
// 10 %, and every offset beyond the plausibility bound trips
// sensor-implausible within 20 ms of crossing it. The finger is not
// re-enabled while the offset persists.
func TestSensorOffsetRamp(t *testing.T) {
	cfg := haptics.DefaultConfig()
	const f = sim.IndexFinger
	spike := cfg.Safety.MaxForceJump - 0.1
	cases := []struct {
		name  string
		press float64    // force the cloth asks for against the pad [N]
		dir   [3]float64 // world direction of the offset, relative to the press direction (1, 0, 0) = the press
		step  float64    // offset added per sample [N]
		total float64    // offset reached [N]
		trips bool
	}{
		// The sensor reads less than the finger feels: the servo pushes.
		{"steps under the spike limit to under the force trip", 1, [3]float64{-1, 0, 0}, spike, 14, true},
		{"slow ramp through the plausibility bound", 1, [3]float64{-1, 0, 0}, 0.05, 14, true},
		{"held under the plausibility bound while pressing 4 N", 4, [3]float64{-1, 0, 0}, 0.01, cfg.Safety.PlausibleForce - 0.3, false},
		// Across the press, and reading more than there is.
		{"lateral steps", 1, [3]float64{0, 1, 0}, spike, 14, true},
		{"reads more", 1, [3]float64{1, 0, 0}, spike, 12, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newHoldRig(t, cfg)
			press := vec3.Scale(-1, pressDir(f)) // the cloth's force on the finger
			for g := range sim.NumFingers {
				forceModel(&r.in.Local[g], vec3.Scale(tc.press, vec3.Scale(-1, pressDir(g))), 1)
			}
			for end := r.t + 300*time.Millisecond; r.t < end; {
				r.tick()
			}
			// The offset's world direction: along the press, or across it
			// (the cross product with world y).
			w := vec3.Scale(tc.dir[0], press)
			if tc.dir[1] != 0 {
				w = vec3.Cross(press, [3]float64{0, 1, 0})
			}
			u := sensorDir(r, f, vec3.Scale(1/vec3.Norm(w), w))
			maxF := r.exos[f].Spec().MaxForceCont
			// The check counts the disagreement beyond the drive's
			// friction: the offset it sees exceeds the bound once it is
			// larger than the bound plus the friction's largest fingertip
			// equivalent at this posture.
			bound := cfg.Safety.PlausibleForce + frictionAtTip(r, f, &cfg)
			var worst tipForce
			onset, crossed, tripped, safe := r.t, time.Duration(-1), time.Duration(-1), time.Duration(-1)
			off := 0.0
			for r.t < onset+600*time.Millisecond {
				off = math.Min(off+tc.step, tc.total)
				if crossed < 0 && off > bound {
					crossed = r.t
				}
				r.exos[f].SetSensorOffset(vec3.Scale(off, u))
				now := r.t
				r.tick()
				m := measureTip(r, f, &cfg)
				worst.implied = math.Max(worst.implied, m.implied)
				worst.static = math.Max(worst.static, m.static)
				worst.truth = math.Max(worst.truth, m.truth)
				fr := &r.rec.Fingers[f]
				if tripped < 0 && fr.State != haptics.StateActive {
					if fr.Reason != haptics.ReasonSensorImplausible {
						t.Fatalf("left active with reason %v, want sensor-implausible", fr.Reason)
					}
					tripped = now
				}
				if safe < 0 && fr.State == haptics.StateSafe {
					safe = now
				}
				if safe >= 0 && fr.State != haptics.StateSafe {
					t.Fatalf("re-enabled at %v with the offset still there: %v %v", now-onset, fr.State, fr.Reason)
				}
			}
			t.Logf("largest fingertip force: implied by the torques %.2f N (without the friction allowance %.2f N), true %.2f N; limit %.1f N",
				worst.implied, worst.static, worst.truth, maxF)
			if worst.implied > 1.1*maxF {
				t.Errorf("the commanded torques imply %.2f N at the fingertip, more than 1.1 x %.1f N", worst.implied, maxF)
			}
			if worst.truth > 1.1*maxF {
				t.Errorf("the finger felt %.2f N, more than 1.1 x %.1f N", worst.truth, maxF)
			}
			if !tc.trips {
				if tripped >= 0 {
					t.Errorf("tripped %v after the onset with an offset under every limit", tripped-onset)
				}
				return
			}
			if tripped < 0 || safe < 0 {
				t.Fatalf("no trip: tripped %v, safe %v", tripped, safe)
			}
			t.Logf("offset beyond the plausibility bound (%.2f N here) %v after the onset; tripped %v later, safe (zero torque) %v later",
				bound, crossed-onset, tripped-crossed, safe-crossed)
			if tripped-crossed > 20*time.Millisecond {
				t.Errorf("tripped %v after the offset crossed the plausibility bound, want <= 20 ms", tripped-crossed)
			}
		})
	}
}

// An encoder reading outside the declared joint range (plus the margin)
// trips joint-range within 5 ms; the finger stays safe while the reading
// persists and comes back once it is gone. A reading just inside the
// margin does not trip.
func TestEncoderOutOfRange(t *testing.T) {
	cfg := haptics.DefaultConfig()
	const f = sim.IndexFinger
	spec := twin.DefaultExoParams().Kinematics
	margin := cfg.Limits.JointMargin
	cases := []struct {
		name    string
		joint   int
		reading float64 // [rad]
	}{
		{"100.5 rad on joint 2", 1, 100.5},
		{"-100 rad on joint 3", 2, -100},
		{"just past the margin on joint 1", 0, spec.JointMax[0] + margin + 0.01},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newHoldRig(t, cfg)
			pressBoth(r)
			var d [3]float64
			d[tc.joint] = tc.reading - r.exos[f].Truth().Q[tc.joint]
			r.exos[f].SetEncoderOffset(d)
			onset := r.t
			tripped, safe := time.Duration(-1), time.Duration(-1)
			for r.t < onset+600*time.Millisecond {
				now := r.t
				r.tick()
				fr := &r.rec.Fingers[f]
				if tripped < 0 && fr.State != haptics.StateActive {
					if fr.Reason != haptics.ReasonJointRange {
						t.Fatalf("left active with reason %v, want joint-range", fr.Reason)
					}
					tripped = now
				}
				if safe < 0 && fr.State == haptics.StateSafe {
					safe = now
				}
				if safe >= 0 && fr.State != haptics.StateSafe {
					t.Fatalf("re-enabled %v after the onset with the reading still out of range", now-onset)
				}
			}
			t.Logf("tripped %v after the onset, safe (zero torque) %v after", tripped-onset, safe-onset)
			if tripped < 0 || tripped-onset > 5*time.Millisecond {
				t.Fatalf("tripped %v after the onset, want within 5 ms", tripped-onset)
			}
			if st := r.servo.Status(f); st.Reason != haptics.ReasonJointRange {
				t.Errorf("safe with reason %v, want joint-range", st.Reason)
			}
			r.exos[f].SetEncoderOffset([3]float64{})
			back := r.t
			for r.t < back+time.Second && r.servo.Status(f).State != haptics.StateActive {
				r.tick()
			}
			if st := r.servo.Status(f); st.State != haptics.StateActive {
				t.Errorf("not active again a second after the reading came back: %v %v", st.State, st.Reason)
			}
		})
	}
	// A reading inside the margin (a device that reads from the start a
	// little past its declared limit) is used.
	p := twin.DefaultExoParams()
	r, err := newSimRig(cfg, p, [sim.NumFingers]twin.Intent{nil, holdIntent{homePad(p, f)}})
	if err != nil {
		t.Fatal(err)
	}
	r.exos[f].SetEncoderOffset([3]float64{0, spec.JointMin[1] - margin + 0.01 - r.exos[f].Truth().Q[1], 0})
	if err := r.waitActive(time.Second); err != nil {
		t.Fatal(err)
	}
	for range 300 {
		r.tick()
		if st := r.servo.Status(f); st.State != haptics.StateActive {
			t.Fatalf("%v %v with a reading inside the margin", st.State, st.Reason)
		}
	}
}

// A device clock that jumps an hour ahead, or runs backwards, trips
// clock-jump at the first sample that shows it.
func TestClockJump(t *testing.T) {
	cfg := haptics.DefaultConfig()
	const f = sim.IndexFinger
	for _, jump := range []time.Duration{time.Hour, -20 * time.Millisecond, cfg.Safety.ClockJump + 5*time.Millisecond} {
		t.Run(jump.String(), func(t *testing.T) {
			r := newHoldRig(t, cfg)
			r.exos[f].SetClockOffset(jump)
			onset := r.t
			for r.t < onset+5*time.Millisecond && r.rec.Fingers[f].State == haptics.StateActive {
				r.tick()
			}
			if fr := r.rec.Fingers[f]; fr.State == haptics.StateActive || fr.Reason != haptics.ReasonClockJump {
				t.Fatalf("%v %v 5 ms after the jump, want a clock-jump trip", fr.State, fr.Reason)
			}
			if err := r.waitActive(r.t + time.Second); err != nil {
				t.Errorf("after one jump the clock runs on: %v", err)
			}
		})
	}
	// A device clock that runs 2 % fast and steps ahead by less than the
	// bound does not trip.
	r := newHoldRig(t, cfg)
	off := time.Duration(0)
	for k := range 300 {
		off += 20 * time.Microsecond
		if k == 150 {
			off += cfg.Safety.ClockJump - 10*time.Millisecond
		}
		r.exos[f].SetClockOffset(off)
		r.tick()
		if st := r.servo.Status(f); st.State != haptics.StateActive {
			t.Fatalf("tick %d: %v %v with a clock 2 %% fast that stepped %v ahead", k, st.State, st.Reason, cfg.Safety.ClockJump-10*time.Millisecond)
		}
	}
}

// The safe state is recorded as confirmed by the device once a sample
// reports the power stage off. A device that keeps it on after the host
// switched it off, or switches it on again by itself, is flagged
// stays-enabled within safety.disable_wait_ms, told again, and not
// re-enabled while it persists.
func TestStaysEnabled(t *testing.T) {
	cfg := haptics.DefaultConfig()
	const f = sim.IndexFinger
	trip := func(r *simRig) time.Duration {
		r.exos[f].InjectSpike([3]float64{0, 0, 9})
		for end := r.t + 30*time.Millisecond; r.t < end && r.rec.Fingers[f].State != haptics.StateSafe; {
			r.tick()
		}
		if r.rec.Fingers[f].State != haptics.StateSafe {
			t.Fatalf("no trip: %v %v", r.rec.Fingers[f].State, r.rec.Fingers[f].Reason)
		}
		return r.t - r.period
	}

	t.Run("confirmed", func(t *testing.T) {
		r := newHoldRig(t, cfg)
		pressBoth(r)
		at := trip(r)
		if fr := r.rec.Fingers[f]; fr.Confirm != haptics.ConfirmCommanded {
			t.Errorf("safe_by %q on entering the safe state, want commanded", fr.Confirm)
		}
		for r.t < at+5*time.Millisecond && r.rec.Fingers[f].Confirm != haptics.ConfirmDevice {
			r.tick()
		}
		if fr := r.rec.Fingers[f]; fr.Confirm != haptics.ConfirmDevice || fr.Reason != haptics.ReasonSensorSpike {
			t.Errorf("%v %v safe_by %q 5 ms after the trip, want sensor-spike confirmed by the device", fr.State, fr.Reason, fr.Confirm)
		}
		t.Logf("confirmed by the device %v after the host switched it off", r.t-r.period-at)
	})

	t.Run("ignores disable", func(t *testing.T) {
		r := newHoldRig(t, cfg)
		pressBoth(r)
		r.exos[f].IgnoreDisable(true)
		at := trip(r)
		flagged := time.Duration(-1)
		for r.t < at+time.Second {
			r.tick()
			fr := &r.rec.Fingers[f]
			if fr.State != haptics.StateSafe {
				t.Fatalf("re-enabled %v after the trip while the device ignores disable", r.t-at)
			}
			if flagged < 0 && fr.Reason == haptics.ReasonStaysEnabled {
				flagged = r.t - r.period
			}
			if fr.Confirm == haptics.ConfirmDevice {
				t.Fatalf("recorded as confirmed by a device that never switched off")
			}
		}
		if !r.exos[f].Truth().Enabled {
			t.Fatal("the injected fault did not hold: the device switched off")
		}
		t.Logf("flagged stays-enabled %v after the host switched it off", flagged-at)
		// The wait, then three samples in a row (one may have been taken
		// before the device read the command), a millisecond each.
		if want := cfg.Safety.DisableWait + 4*time.Millisecond; flagged < 0 || flagged-at > want {
			t.Errorf("flagged %v after the disable, want within %v", flagged-at, want)
		}
		if st := r.servo.Status(f); st.Trips != 2 || st.Confirm != haptics.ConfirmCommanded {
			t.Errorf("status %+v, want 2 trips (the spike, the stage left on), safe_by commanded", st)
		}
		r.exos[f].IgnoreDisable(false)
		if err := r.waitActive(r.t + time.Second); err != nil {
			t.Errorf("once the device obeys: %v", err)
		}
	})

	t.Run("switches itself on", func(t *testing.T) {
		r := newHoldRig(t, cfg)
		pressBoth(r)
		at := trip(r)
		for r.t < at+3*time.Millisecond {
			r.tick()
		}
		if err := r.exos[f].Enable(true); err != nil { // behind the servo's back
			t.Fatal(err)
		}
		on := r.t
		for r.t < on+5*time.Millisecond && r.rec.Fingers[f].Reason != haptics.ReasonStaysEnabled {
			r.tick()
		}
		if fr := r.rec.Fingers[f]; fr.Reason != haptics.ReasonStaysEnabled || fr.State != haptics.StateSafe {
			t.Fatalf("%v %v 5 ms after the device switched itself on", fr.State, fr.Reason)
		}
		r.tick()
		if r.exos[f].Truth().Enabled {
			t.Error("the servo did not switch the device off again")
		}
	})
}

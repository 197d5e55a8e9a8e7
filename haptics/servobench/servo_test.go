package servobench

import (
	"math"
	"testing"
	"time"

	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/haptics"
	"github.com/haptex/haptex/internal/vec3"
	"github.com/haptex/haptex/sim"
)

// The servo's tests in closed loop with the simulated devices; its unit
// tests are package haptics' own.

// newHoldRig returns a rig with both fingers resting at home, active.
func newHoldRig(t testing.TB, cfg haptics.Config) *simRig {
	t.Helper()
	p := twin.DefaultExoParams()
	r, err := newSimRig(cfg, p, [sim.NumFingers]twin.Intent{holdIntent{homePad(p, 0)}, holdIntent{homePad(p, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.waitActive(time.Second); err != nil {
		t.Fatal(err)
	}
	return r
}

// pressBoth asks both devices for 1 N against the pads and settles.
func pressBoth(r *simRig) {
	for f := range sim.NumFingers {
		forceModel(&r.in.Local[f], vec3.Scale(-1, pressDir(f)), 1)
	}
	for end := r.t + 200*time.Millisecond; r.t < end; {
		r.tick()
	}
}

// stopTime ticks until finger f is safe with zero torque and returns when
// that happened; it fails if the record ever shows a torque larger than
// the one before the fault, or if it takes longer than limit.
func stopTime(t *testing.T, r *simRig, f int, limit time.Duration, want haptics.Reason) time.Duration {
	t.Helper()
	t0 := r.t
	before := vec3.Norm(r.rec.Fingers[f].Torque)
	for r.t < t0+limit {
		r.tick()
		fr := &r.rec.Fingers[f]
		n := vec3.Norm(fr.Torque)
		if fr.State == haptics.StateActive {
			before = n // not yet a fault (a silence is one only after silent_ms)
		} else if n > before*1.001+1e-9 {
			t.Fatalf("torque rose to %.4g N·m during the stop (was %.4g)", n, before)
		}
		if fr.State == haptics.StateSafe && fr.Torque == [3]float64{} {
			if fr.Reason != want {
				t.Fatalf("safe with reason %v, want %v", fr.Reason, want)
			}
			return r.t - r.period - t0
		}
	}
	t.Fatalf("finger %d not safe %v after the fault: %v %v", f, limit, r.rec.Fingers[f].State, r.rec.Fingers[f].Reason)
	return 0
}

func TestStartupRamp(t *testing.T) {
	cfg := haptics.DefaultConfig()
	p := twin.DefaultExoParams()
	r, err := newSimRig(cfg, p, [sim.NumFingers]twin.Intent{nil, holdIntent{homePad(p, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	forceModel(&r.in.Local[sim.IndexFinger], vec3.Scale(-1, pressDir(sim.IndexFinger)), 1)
	seen := map[haptics.State]bool{}
	for r.t < 400*time.Millisecond {
		r.tick()
		fr := &r.rec.Fingers[sim.IndexFinger]
		seen[fr.State] = true
		if fr.State == haptics.StateSafe && fr.Torque != [3]float64{} {
			t.Fatalf("torque %v in the safe state", fr.Torque)
		}
		if fr.State == haptics.StateEnabling {
			since := r.servo.Status(sim.IndexFinger).Since
			ramp := float64(r.t-r.period-since) / float64(cfg.Safety.EnableRamp)
			if n := vec3.Norm(fr.ForceDes); n > ramp+1e-9 {
				t.Fatalf("enabling at ramp %.3f renders %.3f N of a 1 N request", ramp, n)
			}
		}
		if r.rec.Fingers[sim.Thumb].State != haptics.StateSafe || r.rec.Fingers[sim.Thumb].Reason != haptics.ReasonNoDevice {
			t.Fatalf("thumb without device: %v %v", r.rec.Fingers[sim.Thumb].State, r.rec.Fingers[sim.Thumb].Reason)
		}
	}
	for _, s := range []haptics.State{haptics.StateSafe, haptics.StateEnabling, haptics.StateActive} {
		if !seen[s] {
			t.Errorf("never %v during startup", s)
		}
	}
}

// TestFaults injects each fault the safety envelope handles into one
// finger pressing with 1 N and checks that it ends in the safe state
// within 10 ms with its reason in the record, that the other finger goes
// on (except overruns, which stop both), and that the finger comes back
// with the enable ramp.
func TestFaults(t *testing.T) {
	cases := []struct {
		name   string
		reason haptics.Reason
		inject func(r *simRig)
		heal   func(r *simRig)
		both   bool
	}{
		{
			name: "unplug", reason: haptics.ReasonDisconnected,
			inject: func(r *simRig) { r.exos[sim.IndexFinger].Unplug() },
			heal:   func(r *simRig) { r.exos[sim.IndexFinger].Replug() },
		},
		{
			name: "sensor spike", reason: haptics.ReasonSensorSpike,
			inject: func(r *simRig) { r.exos[sim.IndexFinger].InjectSpike([3]float64{0, 0, 9}) },
			heal:   func(*simRig) {},
		},
		{
			name: "model NaN", reason: haptics.ReasonModelNaN,
			inject: func(r *simRig) { r.in.Local[sim.IndexFinger].F0[1] = math.NaN() },
			heal: func(r *simRig) {
				forceModel(&r.in.Local[sim.IndexFinger], vec3.Scale(-1, pressDir(sim.IndexFinger)), 7)
			},
		},
		{
			name: "model Inf stiffness", reason: haptics.ReasonModelNaN,
			inject: func(r *simRig) { r.in.Local[sim.IndexFinger].K[2][0] = math.Inf(-1) },
			heal: func(r *simRig) {
				forceModel(&r.in.Local[sim.IndexFinger], vec3.Scale(-1, pressDir(sim.IndexFinger)), 8)
			},
		},
		{
			name: "overrun burst", reason: haptics.ReasonOverrun, both: true,
			inject: func(r *simRig) {
				for range 3 {
					r.t += 2 * r.period // each tick 3 ms after the previous
					r.tick()
				}
			},
			heal: func(*simRig) {},
		},
		{
			name: "silent device", reason: haptics.ReasonSilent,
			inject: func(r *simRig) { r.exos[sim.IndexFinger].Silence(true) },
			heal:   func(r *simRig) { r.exos[sim.IndexFinger].Silence(false) },
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := haptics.DefaultConfig()
			r := newHoldRig(t, cfg)
			pressBoth(r)
			onset := r.t
			tc.inject(r)
			d := stopTime(t, r, sim.IndexFinger, 30*time.Millisecond, tc.reason)
			total := r.t - r.period - onset
			limit := 10 * time.Millisecond
			if tc.reason == haptics.ReasonSilent {
				// Silence is only a fault once it lasted silent_ms.
				limit += cfg.Safety.Silent
			}
			t.Logf("safe %v after the fault's detection, %v after its onset", d, total)
			if tc.reason == haptics.ReasonOverrun {
				// The burst is the fault: it exists once the streak is
				// complete, 3 late ticks 3 ms apart.
				total = d
			}
			if total > limit {
				t.Errorf("safe %v after the onset, want <= %v", total, limit)
			}
			if tc.both {
				if st := r.servo.Status(sim.Thumb); st.State != haptics.StateSafe || st.Reason != tc.reason {
					t.Errorf("thumb %v %v, want safe %v", st.State, st.Reason, tc.reason)
				}
			} else if st := r.servo.Status(sim.Thumb); st.State != haptics.StateActive {
				t.Errorf("thumb %v (%v): a fault of the index stopped it", st.State, st.Reason)
			}
			tc.heal(r)
			back := r.t
			for r.t < back+time.Second && r.servo.Status(sim.IndexFinger).State != haptics.StateActive {
				r.tick()
				if r.rec.Fingers[sim.IndexFinger].State == haptics.StateEnabling && r.rec.Fingers[sim.IndexFinger].Reason != tc.reason {
					t.Fatalf("enabling with reason %v, want the fault's reason %v until active", r.rec.Fingers[sim.IndexFinger].Reason, tc.reason)
				}
			}
			if st := r.servo.Status(sim.IndexFinger); st.State != haptics.StateActive || st.Trips != 1 {
				t.Errorf("after healing: %+v, want active after one trip", st)
			}
		})
	}
}

// TestNaNNeverSpikes: a NaN anywhere in the model never reaches the
// device: commands stay finite and never grow.
func TestNaNNeverSpikes(t *testing.T) {
	r := newHoldRig(t, haptics.DefaultConfig())
	pressBoth(r)
	r.in.Local[sim.IndexFinger] = sim.LocalModel{Valid: true, InContact: true, Depth: math.NaN()}
	before := vec3.Norm(r.rec.Fingers[sim.IndexFinger].Torque)
	for range 50 {
		r.tick()
		tau := r.rec.Fingers[sim.IndexFinger].Torque
		if !finite(tau) || vec3.Norm(tau) > before+1e-9 || vec3.Norm(r.rec.Fingers[sim.IndexFinger].ForceDes) != 0 {
			t.Fatalf("torque %v, force %v after a NaN model", tau, r.rec.Fingers[sim.IndexFinger].ForceDes)
		}
	}
}

func finite(v [3]float64) bool {
	return !math.IsNaN(v[0]) && !math.IsInf(v[0], 0) && !math.IsNaN(v[1]) && !math.IsInf(v[1], 0) && !math.IsNaN(v[2]) && !math.IsInf(v[2], 0)
}

func TestForceEnvelope(t *testing.T) {
	cfg := haptics.DefaultConfig()
	r := newHoldRig(t, cfg)
	dir := vec3.Scale(-1, pressDir(sim.IndexFinger))
	forceModel(&r.in.Local[sim.IndexFinger], vec3.Scale(50, dir), 1) // far beyond the device
	// The limit is safety.max_force_n or, when that is 0 (the default),
	// the device's continuous rating.
	maxF := cfg.Safety.MaxForce
	if maxF == 0 {
		maxF = r.exos[sim.IndexFinger].Spec().MaxForceCont
	}
	var prev [3]float64
	for range 100 {
		r.tick()
		fd := r.rec.Fingers[sim.IndexFinger].ForceCmd
		if n := vec3.Norm(fd); n > maxF+1e-9 {
			t.Fatalf("rendered %.3f N, limit %.3f N", n, maxF)
		}
		if d := vec3.Norm(vec3.Sub(fd, prev)); d > cfg.Safety.MaxForceRate*cfg.Period.Seconds()+1e-9 {
			t.Fatalf("force stepped by %.3f N in one tick", d)
		}
		prev = fd
	}
	if n := vec3.Norm(prev); math.Abs(n-maxF) > 1e-6 {
		t.Errorf("rendered %.3f N, want the %.3f N limit", n, maxF)
	}
}

// TestSlewAcrossSimSteps: a new sim step whose model disagrees with the
// previous one at the finger is blended in at the slew rate.
func TestSlewAcrossSimSteps(t *testing.T) {
	cfg := haptics.DefaultConfig()
	r := newHoldRig(t, cfg)
	dir := vec3.Scale(-1, pressDir(sim.IndexFinger))
	forceModel(&r.in.Local[sim.IndexFinger], vec3.Scale(0.5, dir), 1)
	for range 100 {
		r.tick()
	}
	forceModel(&r.in.Local[sim.IndexFinger], vec3.Scale(1.5, dir), 2) // a 1 N jump
	slew := cfg.Model.SlewNPerS * cfg.Period.Seconds()
	prev := vec3.Dot(r.rec.Fingers[sim.IndexFinger].ForceCmd, dir)
	for k := range 40 {
		r.tick()
		f := vec3.Dot(r.rec.Fingers[sim.IndexFinger].ForceCmd, dir)
		if f-prev > slew+1e-9 {
			t.Fatalf("tick %d: force rose %.4f N, slew limit %.4f N per tick", k, f-prev, slew)
		}
		prev = f
	}
	if math.Abs(prev-1.5) > 1e-9 {
		t.Errorf("after 40 ms the force is %.4f N, want 1.5 N", prev)
	}
}

func TestTickAllocs(t *testing.T) {
	r := newHoldRig(t, haptics.DefaultConfig())
	pressBoth(r)
	if n := testing.AllocsPerRun(500, r.tick); n != 0 {
		t.Errorf("Tick allocates %v times per call", n)
	}
}

// TestDeterministic: two runs give bit-identical records.
func TestDeterministic(t *testing.T) {
	run := func() []haptics.TickRecord {
		r := newHoldRig(t, haptics.DefaultConfig())
		pressBoth(r)
		var out []haptics.TickRecord
		for range 200 {
			r.tick()
			out = append(out, r.rec)
		}
		return out
	}
	a, b := run(), run()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("tick %d differs", i)
		}
	}
}

func BenchmarkTick(b *testing.B) {
	p := twin.DefaultExoParams()
	var exos [sim.NumFingers]*twin.Exo
	var fingers [sim.NumFingers]haptics.Finger
	for f := range sim.NumFingers {
		e, err := twin.NewExo(p, twin.DefaultBase(f), holdIntent{homePad(p, f)}, f)
		if err != nil {
			b.Fatal(err)
		}
		exos[f] = e
		fingers[f] = haptics.Finger{Device: unclocked{e}, Kin: e.Kinematics(), Base: e.Base()}
	}
	s, err := haptics.NewServo(haptics.DefaultConfig(), fingers)
	if err != nil {
		b.Fatal(err)
	}
	var in sim.Output
	var out sim.FingerState
	var rec haptics.TickRecord
	tt := time.Duration(0)
	for tt < 300*time.Millisecond {
		for _, e := range exos {
			e.Advance(tt)
		}
		s.Tick(tt, &in, &out, &rec)
		tt += time.Millisecond
	}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		for _, e := range exos {
			e.Advance(tt)
		}
		b.StartTimer()
		s.Tick(tt, &in, &out, &rec)
		tt += time.Millisecond
	}
}

// SetForceScale scales the rendered force: with a constant-force cloth
// model the desired force and the force measured at the fingertip follow
// the scale (package haptics tests that bad scales are refused).
func TestForceScale(t *testing.T) {
	p := twin.DefaultExoParams()
	measure := func(k float64) (des, meas float64) {
		r, err := newSimRig(haptics.DefaultConfig(), p, [sim.NumFingers]twin.Intent{nil, holdIntent{homePad(p, sim.IndexFinger)}})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.servo.SetForceScale(k); err != nil {
			t.Fatal(err)
		}
		if err := r.waitActive(time.Second); err != nil {
			t.Fatal(err)
		}
		forceModel(&r.in.Local[sim.IndexFinger], [3]float64{0, 0, 0.5}, 1)
		var n int
		for end := r.t + time.Second; r.t < end; n++ {
			r.tick()
			if end-r.t < 200*time.Millisecond {
				des += r.rec.Fingers[sim.IndexFinger].ForceDes[2]
				meas += r.rec.Fingers[sim.IndexFinger].ForceMeas[2]
			}
		}
		return des / 200, meas / 200
	}
	d1, m1 := measure(1)
	d2, m2 := measure(2)
	if math.Abs(d1-0.5) > 1e-9 || math.Abs(d2-1) > 1e-9 {
		t.Fatalf("desired force %.4f N at scale 1, %.4f N at scale 2; want 0.5 and 1", d1, d2)
	}
	if math.Abs(m2/m1-2) > 0.05 {
		t.Fatalf("measured force %.4f N at scale 1, %.4f N at scale 2: ratio %.3f, want 2", m1, m2, m2/m1)
	}
}

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

// The closed-loop tests run the default servo against the default
// simulated exoskeleton and finger (devices/twin exo.toml: >= 80 g apparent
// mass, >= 0.3 N Coulomb and >= 2 N·s/m viscous friction at the fingertip,
// 6 mN sensor noise, 2-sample round trip) in virtual time.

// TestTransparency: free motion at 50, 100 and 200 mm/s, zero desired
// force: the finger feels <= 0.05 N while the speed is constant and
// <= 0.1 N including starts, stops and reversals (HAPTEX: about 0.1 N).
func TestTransparency(t *testing.T) {
	for _, v := range TransparencySpeeds {
		tr, err := runTransparency(haptics.DefaultConfig(), twin.DefaultExoParams(), v)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%3.0f mm/s: constant-speed max %.4f N (RMS %.4f N), overall max %.4f N", v*1e3, tr.ConstMaxN, tr.ConstRMSN, tr.AllMaxN)
		if tr.ConstMaxN > 0.05 || tr.AllMaxN > 0.1 {
			t.Errorf("%.0f mm/s: residual %.4f N at constant speed (limit 0.05), %.4f N overall (limit 0.1)", v*1e3, tr.ConstMaxN, tr.AllMaxN)
		}
	}
}

// TestForceStep: a 1 N step against the still finger rises in <= 20 ms,
// overshoots <= 10 % and settles within 2 %.
func TestForceStep(t *testing.T) {
	st, err := runStep(haptics.DefaultConfig(), twin.DefaultExoParams(), 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", st)
	if st.RiseMs > 20 || st.OvershootPct > 10 || st.SteadyErrPct > 2 {
		t.Errorf("step: rise %.0f ms (<= 20), overshoot %.1f %% (<= 10), steady error %.2f %% (<= 2)", st.RiseMs, st.OvershootPct, st.SteadyErrPct)
	}
}

// TestPhaseMargin measures the force loop's gain by a sine sweep injected
// into the force error and requires a phase margin of 45 degrees.
func TestPhaseMargin(t *testing.T) {
	sw, err := runSweep(haptics.DefaultConfig(), twin.DefaultExoParams(), []float64{2, 3, 5, 7, 10, 14, 20, 28, 40, 56}, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range sw.Points {
		t.Logf("%5.1f Hz  %6.2f dB  %7.1f°", p.Hz, p.GainDB, p.PhaseDeg)
	}
	t.Logf("crossover %.1f Hz, phase margin %.1f°, gain margin %.1f dB", sw.CrossoverHz, sw.PhaseMarginDeg, sw.GainMarginDB)
	if !(sw.PhaseMarginDeg >= 45) {
		t.Errorf("phase margin %.1f°, want >= 45°", sw.PhaseMarginDeg)
	}
	if !(sw.GainMarginDB > 3) {
		t.Errorf("gain margin %.1f dB, want > 3 dB", sw.GainMarginDB)
	}
	// The margins are the linear loop's only while no tick saturates.
	if sw.SaturatedShare != 0 {
		t.Errorf("the 0.1 N sweep saturated the motors in %.3f of its ticks", sw.SaturatedShare)
	}
}

// TestSweepSaturation: a 1 N sweep drives the motors into the torque
// bound that keeps the fingertip force within its limit, from 10 Hz up,
// and says so: the loop gain it reads there is the saturated loop's (up
// to 10 dB under the 0.1 N sweep's at 20-56 Hz), so its gain margin is
// not the linear loop's.
func TestSweepSaturation(t *testing.T) {
	sw, err := runSweep(haptics.DefaultConfig(), twin.DefaultExoParams(), []float64{5, 20}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range sw.Points {
		t.Logf("%5.1f Hz  %6.2f dB  saturated %.3f", p.Hz, p.GainDB, p.SaturatedShare)
	}
	if sw.Points[0].SaturatedShare != 0 || !(sw.Points[1].SaturatedShare > 0.3) {
		t.Errorf("saturated share %.3f at 5 Hz (want 0), %.3f at 20 Hz (want > 0.3)", sw.Points[0].SaturatedShare, sw.Points[1].SaturatedShare)
	}
	ticks := func(hz float64) float64 { n, skip := sweepTicks(hz); return float64(n - skip) }
	want := (sw.Points[0].SaturatedShare*ticks(5) + sw.Points[1].SaturatedShare*ticks(20)) / (ticks(5) + ticks(20))
	if math.Abs(sw.SaturatedShare-want) > 1e-12 {
		t.Errorf("the sweep's saturated share %.6f, its points' weighted by their ticks %.6f", sw.SaturatedShare, want)
	}
}

// TestSweepMeasuresKnownLoop checks the loop-gain measurement itself:
// scaling both force-loop gains by 1.25 must raise the measured loop gain
// by 1.94 dB and leave its phase. It is checked near crossover, where the
// returned and injected signals are of similar size (far below it the loop
// gain is large and U = E + D a small difference of noisy signals).
func TestSweepMeasuresKnownLoop(t *testing.T) {
	// Coulomb friction makes the loop gain depend on amplitude; without it
	// (and without its compensation) the loop is linear enough to check
	// the measurement.
	cfg := haptics.DefaultConfig()
	cfg.Velocity.Friction = [3]float64{}
	p := twin.DefaultExoParams()
	p.Drive.Coulomb = [3]float64{}
	a, err := runSweep(cfg, p, []float64{10, 20}, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	// Scale by 1.25, not 2: the gain margin is about 5.5 dB, and a
	// doubled loop would oscillate.
	cfg.Force.Kf *= 1.25
	cfg.Force.Ki *= 1.25
	b, err := runSweep(cfg, p, []float64{10, 20}, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	// Scaling both force gains by 1.25 scales the loop gain: +1.94 dB.
	for i := range a.Points {
		d := b.Points[i].GainDB - a.Points[i].GainDB
		dp := math.Abs(b.Points[i].PhaseDeg - a.Points[i].PhaseDeg)
		t.Logf("%.0f Hz: %+.2f dB, phase moved %.1f°", a.Points[i].Hz, d, dp)
		if math.Abs(d-1.94) > 0.6 || dp > 8 {
			t.Errorf("%.0f Hz: scaling the gains by 1.25 changed the measured loop gain by %.2f dB and %.1f°, want 1.94 dB and 0°", a.Points[i].Hz, d, dp)
		}
	}
}

// TestSteadyPinch closes both fingers on a stiff nonlinear cloth-like
// contact updated as the simulation does (5 ms staircase, one step late)
// and holds 10 s: no limit cycle (device position above 20 Hz < 0.1 mm
// RMS) and the passivity observer never below its bound.
func TestSteadyPinch(t *testing.T) {
	cfg := haptics.DefaultConfig()
	pr, err := runPinch(cfg, twin.DefaultExoParams(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", pr)
	for f := range sim.NumFingers {
		if pr.MeanForceN[f] < 0.5 || pr.StiffNpm[f] < 1000 {
			t.Fatalf("%s: the pinch is too soft to test anything: %.2f N, %.0f N/m", sim.FingerName(f), pr.MeanForceN[f], pr.StiffNpm[f])
		}
		if pr.HFRMSMm[f] >= 0.1 {
			t.Errorf("%s: %.4f mm RMS above 20 Hz: a limit cycle", sim.FingerName(f), pr.HFRMSMm[f])
		}
		if pr.MinEnergyJ[f] < -cfg.Passivity.Bound {
			t.Errorf("%s: passivity observer reached %.4g J, bound %.4g J", sim.FingerName(f), pr.MinEnergyJ[f], -cfg.Passivity.Bound)
		}
	}
	if pr.Trips != 0 {
		t.Errorf("%d safety trips during a steady pinch", pr.Trips)
	}
}

// TestPinchWithoutSchedulingOscillates shows that the pinch test can fail:
// without the stiffness gain scheduling the same pinch limit-cycles.
func TestPinchWithoutSchedulingOscillates(t *testing.T) {
	cfg := haptics.DefaultConfig()
	cfg.Force.StiffBandwidth = 0
	cfg.Passivity.Enabled = false
	pr, err := runPinch(cfg, twin.DefaultExoParams(), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if pr.HFRMSMm[sim.IndexFinger] < 0.1 {
		t.Errorf("unscheduled pinch: %.4f mm RMS above 20 Hz; the test would not see a limit cycle", pr.HFRMSMm[sim.IndexFinger])
	}
}

// TestPassivityDampsUnscheduledPinch: the unscheduled pinch's limit
// cycle (TestPinchWithoutSchedulingOscillates) feeds the passivity
// observer until its controller acts, and the controller brings the
// pad's motion above 20 Hz under the steady pinch's 0.1 mm; the same
// pinch without it keeps limit-cycling.
func TestPassivityDampsUnscheduledPinch(t *testing.T) {
	p := twin.DefaultExoParams()
	var hf [2]float64
	for i, on := range []bool{true, false} {
		cfg := haptics.DefaultConfig()
		cfg.Force.StiffBandwidth = 0
		cfg.Passivity.Enabled = on
		pr, err := runPinch(cfg, p, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("passivity %v: %.4f / %.4f mm RMS above 20 Hz, lowest energy %.3g / %.3g J, damping up to %.3g N·s/m, %d trips",
			on, pr.HFRMSMm[0], pr.HFRMSMm[1], pr.MinEnergyJ[0], pr.MinEnergyJ[1], pr.MaxDamping[1], pr.Trips)
		hf[i] = max(pr.HFRMSMm[0], pr.HFRMSMm[1])
		if on && (pr.MaxDamping[0] == 0 || pr.MaxDamping[1] == 0) {
			t.Errorf("the passivity controller never acted on a finger: damping %v N·s/m", pr.MaxDamping)
		}
		if pr.Trips != 0 {
			t.Errorf("passivity %v: %d safety trips", on, pr.Trips)
		}
	}
	if hf[0] >= 0.1 || hf[1] < 0.2 {
		t.Errorf("unscheduled pinch: %.4f mm RMS above 20 Hz with the passivity controller, %.4f mm without; want < 0.1 and >= 0.2", hf[0], hf[1])
	}
}

// TestSweepLeavesPassivityOff: a loop-gain sweep of 0.1 or 0.3 N is a
// bounded forced response, not a limit cycle; the passivity controller
// must not act, or it would measure its own damping instead of the loop.
func TestSweepLeavesPassivityOff(t *testing.T) {
	cfg := haptics.DefaultConfig()
	for _, amp := range []float64{0.1, 0.3} {
		sw, err := runSweep(cfg, twin.DefaultExoParams(), []float64{2, 5, 10, 14, 20, 28, 40, 56}, amp)
		if err != nil {
			t.Fatal(err)
		}
		if sw.DampedTicks != 0 {
			t.Errorf("%.1f N sweep: the passivity controller acted in %d ticks", amp, sw.DampedTicks)
		}
	}
}

func TestHighPassRMS(t *testing.T) {
	// A 50 Hz sine of 1 mm amplitude on x plus a 2 Hz one of 5 mm on z:
	// only the first is above 20 Hz, RMS 1/√2 mm.
	n := 4000
	xyz := make([]float64, 3*n)
	for i := range n {
		ts := float64(i) / 1000
		xyz[3*i] = 1e-3 * sinDeg(360*50*ts)
		xyz[3*i+2] = 5e-3 * sinDeg(360*2*ts)
	}
	if got := highPassRMS(xyz, 1000, 20); got < 0.70e-3 || got > 0.715e-3 {
		t.Errorf("highPassRMS = %g m, want %g", got, 1e-3/1.41421356)
	}
}

func TestBenchControlTiming(t *testing.T) {
	res, err := Bench(Options{Ticks: 2000, SkipClosed: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.AllocsPerTick != 0 || res.TickUs.P50 <= 0 || res.TickUs.Max < res.TickUs.P99 {
		t.Errorf("bench %+v", res)
	}
}

// TestDefaultScriptFreeAir runs the showcase handling script with both
// fingers and no cloth: the servo stays active throughout and the fingers
// feel no more than the transparency bound.
func TestDefaultScriptFreeAir(t *testing.T) {
	script := twin.DefaultScript(twin.DefaultScene())
	p := twin.DefaultExoParams()
	r, err := newSimRig(haptics.DefaultConfig(), p, [sim.NumFingers]twin.Intent{script, script})
	if err != nil {
		t.Fatal(err)
	}
	var worst [sim.NumFingers]float64
	for r.t < script.Duration() {
		r.tick()
		if r.t < 300*time.Millisecond {
			continue
		}
		for f := range sim.NumFingers {
			if st := r.servo.Status(f); st.State != haptics.StateActive {
				t.Fatalf("%s %v (%v) at %v", sim.FingerName(f), st.State, st.Reason, r.t)
			}
			worst[f] = math.Max(worst[f], vec3.Norm(r.exos[f].Truth().Force))
		}
	}
	t.Logf("largest residual force: thumb %.4f N, index %.4f N", worst[0], worst[1])
	for f := range sim.NumFingers {
		if worst[f] > 0.1 {
			t.Errorf("%s felt %.3f N in free air", sim.FingerName(f), worst[f])
		}
	}
}

func sinDeg(d float64) float64 { return math.Sin(d * math.Pi / 180) }

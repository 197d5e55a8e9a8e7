package sim

import (
	"math"
	"testing"
	"time"
)

// hapticTrace runs the showcase pinch-and-pull with the cloth stepping
// every dt and a 1 kHz loop evaluating the latest local model at the
// scripted finger positions, as the haptics loop does. It returns the force
// on each finger at every millisecond tick.
func hapticTrace(t *testing.T, edit func(*Config), dt float64) [][NumFingers][3]float64 {
	t.Helper()
	c := newTestCloth(t, func(cfg *Config) {
		cfg.Dt = sec(dt)
		cfg.NodesU, cfg.NodesV = pick(32, 10), pick(32, 10)
		cfg.ProbeSpacing = pick(cfg.ProbeSpacing, 0.005)
		if edit != nil {
			edit(cfg)
		}
	})
	s := ShowcasePinch(c.cfg.Material.Thickness)
	const tick = time.Millisecond
	ticks := int(pick(s.Duration(), 2*time.Second) / tick) // under -race: up to mid-pull
	per := int(math.Round(dt / tick.Seconds()))
	var in, at FingerState
	var out Output
	trace := make([][NumFingers][3]float64, ticks)
	for n := range ticks {
		if n%per == 0 {
			tm := time.Duration(n) * tick
			s.Sample(tm, &in)
			c.Step(tm, &in)
			c.Output(&out)
		}
		tm := time.Duration(n+1) * tick
		s.Sample(tm, &at)
		for k := range NumFingers {
			trace[n][k] = out.Local[k].EvalAt(tm, at.Fingers[k].Pos)
		}
	}
	return trace
}

// TestLocalModelExtrapolation: with the cloth stepping every 5 ms, the
// force the 1 kHz loop extrapolates from LocalModel along the scripted
// pinch-and-pull stays within 10 % RMS of the force range of a reference
// that steps the cloth every 1 ms.
func TestLocalModelExtrapolation(t *testing.T) {
	ref := hapticTrace(t, nil, 0.001)
	got := hapticTrace(t, nil, 0.005)
	for k := range NumFingers {
		var sum, peak float64
		for n := range ref {
			d := sub3(got[n][k], ref[n][k])
			sum += dot3(d, d)
			peak = math.Max(peak, norm3(ref[n][k]))
		}
		rms := math.Sqrt(sum / float64(len(ref)))
		t.Logf("%s: RMS difference %.4f N over a force range of %.3f N: %.2f %%", FingerName(k), rms, peak, 100*rms/peak)
		if rms > 0.1*peak {
			t.Errorf("%s: RMS difference %.3g N is more than 10 %% of the force range %.3g N", FingerName(k), rms, peak)
		}
	}
}

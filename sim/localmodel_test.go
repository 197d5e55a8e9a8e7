package sim

import (
	"errors"
	"flag"
	"math"
	"strconv"
	"testing"
	"time"
)

var overFold = flag.Bool("sim.overfold", false, "run TestLocalModelOverFold, a goal not met yet")

// hapticTrace runs the showcase pinch-and-pull with the cloth stepping
// every dt and a 1 kHz loop evaluating the latest local model at the
// scripted finger positions, as the haptics loop does. It returns the force
// on each finger at every millisecond tick.
func hapticTrace(t *testing.T, edit func(*Config), dt float64) [][NumFingers][3]float64 {
	t.Helper()
	return scriptTrace(t, func(cfg *Config) {
		cfg.NodesU, cfg.NodesV = pick(32, 10), pick(32, 10)
		cfg.ProbeSpacing = pick(cfg.ProbeSpacing, 0.005)
		if edit != nil {
			edit(cfg)
		}
	}, dt, func(cfg Config) *Script { return ShowcasePinch(cfg.Material.Thickness) },
		pick(time.Duration(0), 2*time.Second)) // under -race: up to mid-pull
}

// scriptTrace is hapticTrace along the script script(cfg) of a cloth
// configured by edit, for its whole length or for until (if positive).
func scriptTrace(t *testing.T, edit func(*Config), dt float64, script func(Config) *Script, until time.Duration) [][NumFingers][3]float64 {
	t.Helper()
	c := newTestCloth(t, func(cfg *Config) {
		cfg.Dt = sec(dt)
		edit(cfg)
	})
	s := script(c.cfg)
	d := s.Duration()
	if until > 0 {
		d = until
	}
	return traceFrom(c, s, 0, d, nil)
}

// traceFrom steps c along s from from to to, at its own step (a whole
// number of milliseconds, or of steps a millisecond), with a 1 kHz loop
// evaluating the latest local model at the scripted finger positions, and
// returns the force on each finger at every millisecond tick. If oneLayer
// is not nil it counts the steps in which a pad held fewer than two
// layers.
func traceFrom(c *Cloth, s *Script, from, to time.Duration, oneLayer *int) [][NumFingers][3]float64 {
	const tick = time.Millisecond
	ticks := int((to - from) / tick)
	per := max(1, int(c.cfg.Dt/tick)) // ticks a step
	sub := max(1, int(tick/c.cfg.Dt)) // steps a tick
	var in, at FingerState
	var out Output
	c.Output(&out)
	trace := make([][NumFingers][3]float64, ticks)
	for n := range ticks {
		for h := range sub {
			if n%per != 0 {
				break
			}
			tm := from + time.Duration(n)*tick + time.Duration(h)*c.cfg.Dt
			s.Sample(tm, &in)
			c.Step(tm, &in)
			c.Output(&out)
			if oneLayer != nil && c.self != nil && min(c.self.layers[Thumb], c.self.layers[IndexFinger]) < 2 {
				*oneLayer++
			}
		}
		tm := from + time.Duration(n+1)*tick
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
	within10(t, ref, got)
}

// TestLocalModelOverFold: the same over the fold (24², the cloth every 5
// ms against every 1 ms), two ways. Along the whole fold scene, whose
// thumb rides the flap over before the pads pinch, press and slide the
// fold; there the 1 ms reference loses the flap before the pinch, so its
// pads hold one layer where the 5 ms cloth's hold two. And from the fold
// itself: two cloths step every 5 ms through the scene until the flap
// has landed, one goes on every 1 ms (SetStep), and the two are compared
// along the rest of the scene, the pinch of both layers, its press and
// slide and the release. With -sim.overfold only: neither meets the goal
// yet (docs/cloth-contact.md).
func TestLocalModelOverFold(t *testing.T) {
	if !*overFold {
		t.Skip("a goal not met yet (docs/cloth-contact.md); run with -sim.overfold")
	}
	edit := func(cfg *Config) { cfg.NodesU, cfg.NodesV = 24, 24 }
	t.Run("scene", func(t *testing.T) {
		ref := scriptTrace(t, edit, 0.001, FoldScript, 0)
		got := scriptTrace(t, edit, 0.005, FoldScript, 0)
		within10(t, ref, got)
	})
	t.Run("fold", func(t *testing.T) {
		ref, got := foldTraces(t, edit, time.Millisecond, 5*time.Millisecond, 0)
		within10(t, ref, got)
	})
}

// foldTraces steps two cloths configured by edit every 5 ms through the
// fold scene until FoldLanded. Then the first steps every refDt with its
// nodes moved by up to nudge along z, the second every gotDt, and it
// returns the 1 kHz loop's forces from then on (traceFrom) of the first
// (ref) and of the second (got). It fails the test unless both runs' pads
// hold two layers in at least 95 % of their steps from the pinch's closing
// (500 ms after the landing) to its opening (400 ms before the end).
func foldTraces(t *testing.T, edit func(*Config), refDt, gotDt time.Duration, nudge float64) (ref, got [][NumFingers][3]float64) {
	t.Helper()
	a, b := newTestCloth(t, edit), newTestCloth(t, edit)
	s := FoldScript(a.cfg)
	var in FingerState
	for tm := time.Duration(0); tm < FoldLanded; tm += a.cfg.Dt {
		s.Sample(tm, &in)
		a.Step(tm, &in)
		b.Step(tm, &in)
	}
	if err := errors.Join(a.SetStep(refDt), b.SetStep(gotDt)); err != nil {
		t.Fatal(err)
	}
	for i := 2; i < len(a.x); i += 3 {
		a.x[i] += nudge * float64(i%13-6) / 6
	}
	closed, open := FoldLanded+500*time.Millisecond, s.Duration()-400*time.Millisecond
	for _, r := range []struct {
		c   *Cloth
		dst *[][NumFingers][3]float64
	}{{a, &ref}, {b, &got}} {
		var one int
		tr := traceFrom(r.c, s, FoldLanded, closed, nil)
		tr = append(tr, traceFrom(r.c, s, closed, open, &one)...)
		*r.dst = append(tr, traceFrom(r.c, s, open, s.Duration(), nil)...)
		steps := int((open - closed) / r.c.cfg.Dt)
		t.Logf("every %v: the pads hold two layers in %d of %d steps of the pinch", r.c.cfg.Dt, steps-one, steps)
		if one > steps/20 {
			t.Fatalf("every %v: the pads hold two layers in only %d of %d steps of the pinch", r.c.cfg.Dt, steps-one, steps)
		}
	}
	return ref, got
}

// TestOverFoldNoiseFloor: how far the 1 ms reference of
// TestLocalModelOverFold's "fold" is from itself. "nudged": two 1 ms runs
// over the fold, one's nodes moved by up to 1 nm at the flap's landing
// (foldTraces): the stuck pinch's friction is sensitive to its history, so
// this is the least difference any cloth can expect. "half step": the 1 ms
// run against one at 0.5 ms, how far the reference is from converged in
// its step. Each must stay within the goal's 10 %, or the goal compares
// against noise. With -sim.overfold only.
func TestOverFoldNoiseFloor(t *testing.T) {
	if !*overFold {
		t.Skip("a measurement for TestLocalModelOverFold; run with -sim.overfold")
	}
	edit := func(cfg *Config) { cfg.NodesU, cfg.NodesV = 24, 24 }
	for _, c := range []struct {
		name         string
		refDt, gotDt time.Duration
		nudge        float64
	}{
		{"nudged", time.Millisecond, time.Millisecond, 1e-9},
		{"half step", 500 * time.Microsecond, time.Millisecond, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			ref, got := foldTraces(t, edit, c.refDt, c.gotDt, c.nudge)
			within10(t, ref, got)
		})
	}
}

// TestLocalModelFromOneState: the local models of the 5 ms fold,
// against 1 ms steps taken from the same state. Every branchEvery-th 5 ms
// step from the flap's landing, a second cloth replays the 5 ms run to
// that step's start (bit for bit), then takes the step's five ticks at
// 1 ms; the 5 ms step's local model, evaluated at each tick's finger
// positions as the haptics loop would, is compared with the 1 ms step's.
// TestLocalModelOverFold compares whole runs, whose stuck pinches carry
// the history of their own step length; this leaves that history out and
// measures the model. With -sim.overfold only (about 50 s on two cores).
func TestLocalModelFromOneState(t *testing.T) {
	if !*overFold {
		t.Skip("a measurement for TestLocalModelOverFold; run with -sim.overfold")
	}
	const branchEvery = 6
	edit := func(cfg *Config) { cfg.NodesU, cfg.NodesV = 24, 24 }
	a := newTestCloth(t, edit)
	s := FoldScript(a.cfg)
	dt := a.cfg.Dt
	per := int(dt / time.Millisecond)
	steps := int(s.Duration() / dt)
	outs := make([]Output, steps)
	var in FingerState
	for n := range steps {
		s.Sample(time.Duration(n)*dt, &in)
		a.Step(time.Duration(n)*dt, &in)
		a.Output(&outs[n])
	}
	var starts []int
	for n := int(FoldLanded / dt); n < steps; n += branchEvery {
		starts = append(starts, n)
	}
	ref := make([][NumFingers][3]float64, per*len(starts))
	got := make([][NumFingers][3]float64, per*len(starts))
	t.Run("group", func(t *testing.T) {
		for i, n0 := range starts {
			t.Run(strconv.Itoa(n0), func(t *testing.T) {
				t.Parallel()
				b := newTestCloth(t, edit)
				var in, at FingerState
				for n := range n0 {
					s.Sample(time.Duration(n)*dt, &in)
					b.Step(time.Duration(n)*dt, &in)
				}
				if err := b.SetStep(time.Millisecond); err != nil {
					t.Fatal(err)
				}
				var out Output
				for j := range per {
					tm := time.Duration(n0)*dt + time.Duration(j)*time.Millisecond
					s.Sample(tm, &in)
					b.Step(tm, &in)
					b.Output(&out)
					s.Sample(tm+time.Millisecond, &at)
					for k := range NumFingers {
						ref[per*i+j][k] = out.Local[k].EvalAt(tm+time.Millisecond, at.Fingers[k].Pos)
						got[per*i+j][k] = outs[n0].Local[k].EvalAt(tm+time.Millisecond, at.Fingers[k].Pos)
					}
				}
			})
		}
	})
	t.Logf("%d steps of %v, from %v to %v", len(starts), dt, FoldLanded, s.Duration())
	within10(t, ref, got)
}

// within10 fails unless each finger's force in got is within 10 % RMS of
// the force range of ref.
func within10(t *testing.T, ref, got [][NumFingers][3]float64) {
	t.Helper()
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

// TestReleaseWithoutPhantomForces: while the pads open and withdraw after
// the showcase pinch, the cloth springs back after them. A contact the
// step's solve did not include (the cloth ran into a pad that had moved
// on) never acted on the cloth, so it is not published: the local model's
// force never jumps up from one step to the next by more than 0.05 N, where
// the penetration of such unresolved contacts showed as 0.2-0.8 N spikes
// every few steps.
func TestReleaseWithoutPhantomForces(t *testing.T) {
	c := newTestCloth(t, func(cfg *Config) {
		cfg.NodesU, cfg.NodesV = pick(24, 12), pick(24, 12)
		cfg.ProbeSpacing = pick(cfg.ProbeSpacing, 0.005)
	})
	s := ShowcasePinch(c.cfg.Material.Thickness)
	const open = 3000 * time.Millisecond // the pads start to open
	var prev [NumFingers]float64
	var worst [NumFingers]float64
	var out Output
	runScript(c, s, s.Duration(), func(step int, tm time.Duration) {
		c.Output(&out)
		for k := range NumFingers {
			f := norm3(out.Local[k].F0)
			if tm > open {
				worst[k] = math.Max(worst[k], f-prev[k])
			}
			prev[k] = f
		}
	})
	for k := range NumFingers {
		t.Logf("%s: largest rise of the local model's force from one step to the next while releasing: %.3f N", FingerName(k), worst[k])
		if worst[k] > 0.05 {
			t.Errorf("%s: the local model's force rose by %.3f N in one step while the pads withdrew", FingerName(k), worst[k])
		}
	}
}

package sim

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"
)

// restStep is what the local model of one finger was at one step while
// the pads rested in the pinch, and why.
type restStep struct {
	t             time.Duration
	k             int
	contacts      int    // probes in the step's solve
	entered, left int    // probes that joined or left the solve since the last step
	slipping      int    // of them, slipping at the step's start
	refreshed     string // sensitivity directions renewed in the step ("-" for none)
	knn, fro      float64
	freshFro      float64 // |K| had all three sensitivities been solved at this step
	f0            [3]float64
}

func (r restStep) String() string {
	return fmt.Sprintf("%6.3f s %s: contacts %2d (+%d -%d), slipping %2d, refreshed %-3s  K_nn %6.0f  |K| %6.0f (all solved now %6.0f)  F0 (%7.4f %7.4f %7.4f) N",
		r.t.Seconds(), FingerName(r.k), r.contacts, r.entered, r.left, r.slipping, r.refreshed, r.knn, r.fro, r.freshFro, r.f0[0], r.f0[1], r.f0[2])
}

// restTrace runs the showcase pinch and records every step's local model
// while the scripted pads hold still: after the grip closes and after the
// pull (PinchAndPull's holds, 0.9-1.2 s and 2.7-3.0 s; under -race only
// the first).
func restTrace(t *testing.T) []restStep {
	t.Helper()
	c := newTestCloth(t, func(cfg *Config) {
		cfg.NodesU, cfg.NodesV = pick(32, 16), pick(32, 16)
		cfg.ProbeSpacing = pick(cfg.ProbeSpacing, 0.005)
	})
	s := ShowcasePinch(c.cfg.Material.Thickness)
	holds := [][2]time.Duration{{900 * time.Millisecond, 1200 * time.Millisecond}, {2700 * time.Millisecond, 3000 * time.Millisecond}}
	holds = holds[:pick(2, 1)]
	// Settle the grip for 50 ms before recording.
	inHold := func(tm time.Duration) bool {
		for _, h := range holds {
			if tm > h[0]+50*time.Millisecond && tm <= h[1] {
				return true
			}
		}
		return false
	}
	var before [NumFingers][3][]float64
	var probes [NumFingers][]int32
	for k := range before {
		for q := range before[k] {
			before[k][q] = make([]float64, 3*c.n)
		}
	}
	var out []restStep
	var in FingerState
	for tm := time.Duration(0); tm < holds[len(holds)-1][1]; tm += c.cfg.Dt {
		for k := range before {
			for q := range before[k] {
				copy(before[k][q], c.coupling.f[k].sens[q])
			}
		}
		s.Sample(tm, &in)
		c.Step(tm, &in)
		var o Output
		c.Output(&o)
		for k := range NumFingers {
			lin := c.pads.f[k].lin
			cur := make([]int32, 0, len(lin))
			r := restStep{t: o.T, k: k, contacts: len(lin), refreshed: "-"}
			for i := range lin {
				cur = append(cur, lin[i].probe)
				if lin[i].slipping {
					r.slipping++
				}
			}
			slices.Sort(cur)
			for _, p := range cur {
				if _, ok := slices.BinarySearch(probes[k], p); !ok {
					r.entered++
				}
			}
			for _, p := range probes[k] {
				if _, ok := slices.BinarySearch(cur, p); !ok {
					r.left++
				}
			}
			probes[k] = cur
			lm := &o.Local[k]
			if !inHold(o.T) || !lm.InContact {
				continue
			}
			dirs := ""
			for q := range 3 {
				if !slices.Equal(before[k][q], c.coupling.f[k].sens[q]) {
					dirs += string("xyz"[q])
				}
			}
			if dirs != "" {
				r.refreshed = dirs
			}
			r.knn = dot3(lm.Normal, mulVec33(&lm.K, lm.Normal))
			r.fro = frobenius33(&lm.K)
			r.freshFro = freshStiffness(c, k)
			r.f0 = lm.F0
			out = append(out, r)
		}
	}
	return out
}

// freshStiffness is finger k's stiffness with all three sensitivities
// solved at the current step, leaving the coupling as it was.
func freshStiffness(c *Cloth, k int) float64 {
	fs := &c.coupling.f[k]
	var keep [3][]float64
	for q := range keep {
		keep[q] = slices.Clone(fs.sens[q])
	}
	c.coupling.solve(k, c.coupling.iterations(k))
	kf := c.coupling.assemble(k)
	for q := range keep {
		copy(fs.sens[q], keep[q])
	}
	return frobenius33(&kf)
}

// TestLocalModelAtRest: while the pads hold still in the pinch, the local
// model's stiffness is that of the step's own state (as if all its
// sensitivities were solved at that step), neither assembled from solves
// of different ages nor lagging it: a K low-passed over 20 ms (10 ms
// alike) made the bending example's firm pinch oscillate until the pads
// lost the fabric (docs/rendering.md, "The local model at rest"). go test
// -run LocalModelAtRest -v prints every step.
func TestLocalModelAtRest(t *testing.T) {
	steps := restTrace(t)
	if len(steps) == 0 {
		t.Fatal("no step in contact while the pads rest")
	}
	var last [NumFingers]*restStep
	var jump, stale [NumFingers]float64
	for i := range steps {
		r := &steps[i]
		t.Log(r)
		if p := last[r.k]; p != nil && r.t-p.t <= 5*time.Millisecond {
			jump[r.k] = math.Max(jump[r.k], math.Abs(r.fro-p.fro)/p.fro)
		}
		stale[r.k] = math.Max(stale[r.k], math.Abs(r.fro-r.freshFro)/r.freshFro)
		last[r.k] = r
	}
	for k := range NumFingers {
		t.Logf("%s: largest step-to-step change of |K| %.1f %%, largest difference from all three solved now %.1f %%", FingerName(k), 100*jump[k], 100*stale[k])
		// Renewing one direction a step left K up to 9 % off after a
		// change of the slipping probes, the 20 ms low-pass up to 8.6 %;
		// the cloth's own drift between renewals moves it by less than
		// 0.1 %.
		if stale[k] > 0.02 {
			t.Errorf("%s: K differs by up to %.1f %% from the stiffness of the step's own state", FingerName(k), 100*stale[k])
		}
	}
}

// TestLocalModelStiffnessFD: in the grip's hold the published stiffness
// is the step's own: re-running the step from the same state with the
// thumb's pad moved by ±h along each axis changes the force on it by K·h.
// The step is re-run by replaying the same inputs from the start (the
// simulation is deterministic). Measured: 14 % of |K| apart with the
// default single V-cycle per direction, 3.5 % with converged solves
// (SensitivityIterations 50), so what is left is the V-cycle's, not the
// Schur complement's.
func TestLocalModelStiffnessFD(t *testing.T) {
	const (
		h  = 10e-6 // [m]
		tm = time.Second
	)
	edit := func(cfg *Config) { cfg.NodesU, cfg.NodesV = 16, 16 }
	s := ShowcasePinch(DefaultConfig().Material.Thickness)
	// run steps the cloth to tm with the thumb's pad moved by d in the
	// last step and returns that step's local model.
	run := func(d [3]float64) LocalModel {
		c := newTestCloth(t, edit)
		var in FingerState
		var out Output
		for now := time.Duration(0); now < tm; now += c.cfg.Dt {
			s.Sample(now, &in)
			if now+c.cfg.Dt >= tm {
				in.Fingers[Thumb].Pos = add3(in.Fingers[Thumb].Pos, d)
			}
			c.Step(now, &in)
		}
		c.Output(&out)
		return out.Local[Thumb]
	}
	lm := run([3]float64{})
	if !lm.InContact {
		t.Fatal("thumb not in contact in the hold")
	}
	// Under -race only the normal's column (z), three runs instead of seven.
	axes := []int{2, 0, 1}[:pick(3, 1)]
	var fd, diff [3][3]float64
	for _, q := range axes {
		var d [3]float64
		d[q] = h
		fp, fm := run(d).F0, run(scale3(-1, d)).F0
		for a := range 3 {
			fd[a][q] = (fp[a] - fm[a]) / (2 * h)
			diff[a][q] = fd[a][q] - lm.K[a][q]
		}
	}
	rel := frobenius33(&diff) / frobenius33(&fd)
	t.Logf("K %.0f, finite difference %.0f N/m: %.1f %% apart", lm.K, fd, 100*rel)
	if rel > 0.25 {
		t.Errorf("K is %.0f %% away from the finite-difference stiffness of the step", 100*rel)
	}
}

// TestStackSolvesOnePadAStep: while both pads hold the pinched fold, a
// step makes the iterated sensitivity solves of one pad at most (unless a
// contact begins), a pad whose renewal was put off renews in the next
// step, and the stiffness it publishes meanwhile (its new contacts with
// sensitivities a step old) stays close to that of all three solved at
// the step. The fold at 24² and 5 ms, from the flap's landing to the
// pinch's release.
func TestStackSolvesOnePadAStep(t *testing.T) {
	c := newTestCloth(t, func(cfg *Config) { cfg.NodesU, cfg.NodesV, cfg.Dt = 24, 24, 5*time.Millisecond })
	s := FoldScript(c.cfg)
	runScript(c, s, FoldLanded, nil)
	end := s.Duration() - 400*time.Millisecond
	var in FingerState
	var out Output
	var stacked int
	var wasDue [NumFingers]bool
	var off, renewed []float64 // |K| from all three solved at the step, relative
	for tm := FoldLanded; tm < end; tm += c.cfg.Dt {
		var ok [NumFingers]bool
		for k := range NumFingers {
			ok[k] = c.coupling.f[k].ok
		}
		s.Sample(tm, &in)
		c.Step(tm, &in)
		c.Output(&out)
		if c.self.layers[Thumb] < 2 || c.self.layers[IndexFinger] < 2 {
			continue
		}
		stacked++
		if si := c.Stats().SensIters; ok[Thumb] && ok[IndexFinger] && si > 3*stackSensitivityIterations {
			t.Errorf("%v: %d sensitivity iterations, more than one pad's %d", tm, si, 3*stackSensitivityIterations)
		}
		for k := range NumFingers {
			fs := &c.coupling.f[k]
			if fs.due && wasDue[k] {
				t.Errorf("%v: %s's renewal put off two steps in a row", tm, FingerName(k))
			}
			wasDue[k] = fs.due
			if !out.Local[k].InContact {
				continue
			}
			fresh := freshStiffness(c, k)
			d := math.Abs(frobenius33(&out.Local[k].K)-fresh) / fresh
			if fs.due {
				off = append(off, d)
			} else {
				renewed = append(renewed, d)
			}
		}
	}
	if len(off) == 0 || len(renewed) == 0 {
		t.Fatalf("%d steps with both pads on the stack: %d renewals put off, %d made", stacked, len(off), len(renewed))
	}
	mean := func(v []float64) float64 {
		var m float64
		for _, d := range v {
			m += d
		}
		return m / float64(len(v))
	}
	slices.Sort(off)
	t.Logf("%d steps with both pads on the stack; |K| from all three solved at the step: %d renewals put off %.2f %% on average (p90 %.2f %%, largest %.2f %%), %d made %.2f %%",
		stacked, len(off), 100*mean(off), 100*off[len(off)*9/10], 100*off[len(off)-1], len(renewed), 100*mean(renewed))
	// Put off, K is a step behind as the contacts change; at the pinch's
	// closing, where they change most, by up to half. Renewed, the two CG
	// iterations leave it 0.4 % off on average.
	if m := mean(off); m > 0.03 {
		t.Errorf("|K| of a pad whose renewal was put off is %.2f %% from all three solved at the step on average, more than 3 %%", 100*m)
	}
}

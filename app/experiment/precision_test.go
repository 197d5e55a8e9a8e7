package experiment

import (
	"fmt"
	"io"
	"math"
	"reflect"
	"sync"
	"testing"

	"github.com/haptex/haptex/calib/psych"
)

// How many trials an example's procedure needs for its fitted threshold
// to land within a factor of 1.5 of a cue observer's true one: each
// example's procedure, with 60, 100 and 150 trials, run by 100 cue
// observers (W = 0.15, λ = 0.01) on a modelled delivery (the stimulus
// check's power law with efficiency 0.8, or for the tone's detection cue
// 1 × threshold per 4 µm, that is the tone's cue) and fitted as a run
// fits them; the mean and the standard deviation of ln(threshold/truth),
// and how many land within 1.5×. The dry runs of TestDryRunMatchesCheck
// cost minutes per seed; this is what chooses their trial count. The
// figures are in docs/experiments.md; with -long only, as it fits 900
// staircases.
func TestStaircasePrecision(t *testing.T) {
	if !*long {
		t.Skip("fits 900 simulated staircases; run with -long")
	}
	const w, runs = 0.15, 100
	if s := loadExample(t, "stiffness-2afc.toml"); !reflect.DeepEqual(s.Procedure, loadExample(t, "force-2afc.toml").Procedure) {
		t.Fatal("the stiffness example's procedure is no longer the force example's: simulate both")
	}
	// The stiffness example's procedure is the force example's: one run
	// for both.
	for _, name := range []string{"force-2afc.toml", "tactile-level-2afc.toml", "tactile-tone-2afc.toml"} {
		t.Run(name, func(t *testing.T) { staircasePrecision(t, name, w, runs) })
	}
}

// staircasePrecision simulates one example's procedure (see
// TestStaircasePrecision).
func staircasePrecision(t *testing.T, name string, w float64, runs int) {
	e := loadExample(t, name)
	dim := dimensions[e.Stimulus.Kind]
	cue := func(x float64) float64 { return math.Pow(dim.gain(x), 0.8) }
	truth := 0.0
	if dim.cue.Absolute > 0 {
		cue = func(x float64) float64 { return x / 4 }
		truth = 4 * dim.cue.Absolute // the contrast test/floor reaches w at test = Absolute
	} else {
		truth = dim.gain.inverse(math.Pow(1+w, 1/0.8))
	}
	ref := cue(0)
	own := e.Procedure.Staircase.MaxTrials
	for _, n := range []int{60, 100, 150} {
		logs := make([]float64, runs)
		errs := make([]error, runs)
		var wg sync.WaitGroup
		next := make(chan int)
		for range 2 {
			wg.Go(func() {
				for i := range next {
					logs[i], errs[i] = simulatedThreshold(e, n, uint64(i+1), cue, ref)
				}
			})
		}
		for i := range runs {
			next <- i
		}
		close(next)
		wg.Wait()
		var m, ss float64
		in := 0
		for i, l := range logs {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			l -= math.Log(truth)
			logs[i] = l
			m += l / float64(runs)
			if math.Abs(l) <= math.Log(1.5) {
				in++
			}
		}
		for _, l := range logs {
			ss += (l - m) * (l - m)
		}
		sd := math.Sqrt(ss / float64(runs-1))
		p := float64(in) / float64(runs)
		t.Logf("%s, %d trials: ln(threshold/truth) mean %+.3f, SD %.3f; %d of %d within 1.5× (all of 5 seeds: %.2f)", name, n, m, sd, in, runs, p*p*p*p*p)
		if n == own && (sd > 0.25 || math.Abs(m) > 0.15) {
			t.Errorf("%s: at its own %d trials the fitted threshold's log scatters by %.3f about a bias of %+.3f: too wide for 1.5× in 5 seeds", name, n, sd, m)
		}
	}
}

// simulatedThreshold runs e's procedure, cut to n trials, with a cue
// observer of seed seed on the delivered cues ref and cue(x), fits it as
// a run does and returns the log of the threshold at F = 0.5.
func simulatedThreshold(e *Experiment, n int, seed uint64, cue func(float64) float64, ref float64) (float64, error) {
	cfg := e.Procedure
	sc := *cfg.Staircase
	sc.MaxTrials = n
	cfg.Staircase = &sc
	p, err := psych.New(cfg)
	if err != nil {
		return 0, err
	}
	o, err := psych.ParseCueObserver(fmt.Sprintf("cue:weber=0.15,lambda=0.01,seed=%d", seed), e.Task)
	if err != nil {
		return 0, err
	}
	o.SetDefaultFloor(dimensions[e.Stimulus.Kind].cue.Floor(o.Weber))
	for !p.Done() {
		tr, err := p.Next()
		if err != nil {
			return 0, err
		}
		r := psych.Incorrect
		if o.Choose([]float64{ref, cue(tr.X)}) == 1 {
			r = psych.Correct
		}
		if err := p.Update(tr, r); err != nil {
			return 0, err
		}
	}
	span := psych.SpanOf(e.Procedure)[0]
	a := &streamAnalysis{Estimate: psych.Estimate{TargetP: math.NaN()}}
	if err := fitStream(a, p.Records(), e, &span, "", io.Discard); err != nil {
		return 0, err
	}
	return math.Log(a.Posterior.Threshold.Median), nil
}

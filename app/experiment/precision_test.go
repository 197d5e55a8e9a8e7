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
// example's procedure, with 60, 150 and 300 trials, run by 100 cue
// observers (W = 0.15, λ = 0.01) on a modelled delivery (the stimulus
// check's power law with efficiency 0.8, or for the tone's detection cue
// 1 × threshold per 4 µm, that is the tone's cue) and fitted as a run
// fits them; the mean and the standard deviation of ln(threshold/truth),
// and how many land within 1.5×. The dry runs of TestDryRunMatchesCheck
// cost minutes per seed; this is what chooses their trial count: at
// its own count an example's fitted threshold must scatter little enough
// (log SD at most 0.15, bias at most 0.1) that all 5 seeds land within
// 1.5× with a probability of 0.9 or more. The force example's delivery
// is also run through the procedures that were weighed against more
// trials (Psi, QUEST, a 1-up/2-down staircase), logged for
// docs/experiments.md. With -long only, as it fits 1,300 simulated runs.
func TestStaircasePrecision(t *testing.T) {
	if !*long {
		t.Skip("fits 1,300 simulated runs; run with -long")
	}
	const w, runs = 0.15, 100
	if s := loadExample(t, "stiffness-2afc.toml"); !reflect.DeepEqual(s.Procedure, loadExample(t, "force-2afc.toml").Procedure) {
		t.Fatal("the stiffness example's procedure is no longer the force example's: simulate both")
	}
	// The stiffness example's procedure is the force example's: one run
	// for both.
	for _, name := range []string{"force-2afc.toml", "tactile-level-2afc.toml", "tactile-tone-2afc.toml"} {
		t.Run(name, func(t *testing.T) {
			e := loadExample(t, name)
			own := e.Procedure.Staircase.MaxTrials
			for _, n := range []int{60, 150, 300} {
				cfg := e.Procedure
				sc := *cfg.Staircase
				sc.MaxTrials = n
				cfg.Staircase = &sc
				m, sd := procedurePrecision(t, e, cfg, fmt.Sprintf("%d trials", n), w, runs)
				if n == own && (sd > 0.15 || math.Abs(m) > 0.1) {
					t.Errorf("%s: at its own %d trials the fitted threshold's log scatters by %.3f about a bias of %+.3f: too wide for 1.5× in 5 seeds", name, n, sd, m)
				}
			}
		})
	}
	t.Run("alternatives", func(t *testing.T) {
		e := loadExample(t, "force-2afc.toml")
		sp := psych.SpanOf(e.Procedure)[0]
		psi := func(obj psych.Objective) psych.Config {
			return psych.Config{Kind: psych.KindPsi, Psi: &psych.PsiConfig{Task: e.Task, Form: psych.Weibull, Scale: sp.Scale, Min: sp.Min, Max: sp.Max,
				Lambda: 0.01, BetaMin: 1, BetaMax: 4, MaxTrials: 150, Objective: obj}}
		}
		quest := psych.Config{Kind: psych.KindQuest, Quest: &psych.QuestConfig{Task: e.Task, Form: psych.Weibull, Beta: 1.5, Lambda: 0.01,
			Scale: sp.Scale, Min: sp.Min, Max: sp.Max, PriorThreshold: sp.Start, PriorSD: 0.5, MaxTrials: 150}}
		down2 := e.Procedure
		sc := *down2.Staircase
		sc.Down, sc.MaxTrials = 2, 300
		down2.Staircase = &sc
		for _, d := range []struct {
			name string
			cfg  psych.Config
		}{{"Psi (variance), 150 trials", psi(psych.ObjectiveVariance)}, {"Psi (threshold), 150 trials", psi(psych.ObjectiveThreshold)},
			{"QUEST (β 1.5), 150 trials", quest}, {"1-up/2-down, 300 trials", down2}} {
			procedurePrecision(t, e, d.cfg, d.name, w, runs)
		}
	})
}

// procedurePrecision runs the procedure cfg with runs cue observers of
// Weber fraction w on e's modelled delivery (see TestStaircasePrecision),
// logs and returns the mean and SD of ln(threshold/truth).
func procedurePrecision(t *testing.T, e *Experiment, cfg psych.Config, label string, w float64, runs int) (mean, sd float64) {
	t.Helper()
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
	logs := make([]float64, runs)
	errs := make([]error, runs)
	var wg sync.WaitGroup
	next := make(chan int)
	for range 2 {
		wg.Go(func() {
			for i := range next {
				logs[i], errs[i] = simulatedThreshold(e, cfg, uint64(i+1), cue, ref)
			}
		})
	}
	for i := range runs {
		next <- i
	}
	close(next)
	wg.Wait()
	in := 0
	for i, l := range logs {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		l -= math.Log(truth)
		logs[i] = l
		mean += l / float64(runs)
		if math.Abs(l) <= math.Log(1.5) {
			in++
		}
	}
	var ss float64
	for _, l := range logs {
		ss += (l - mean) * (l - mean)
	}
	sd = math.Sqrt(ss / float64(runs-1))
	p := float64(in) / float64(runs)
	t.Logf("%s, %s: ln(threshold/truth) mean %+.3f, SD %.3f; %d of %d within 1.5× (all of 5 seeds: %.2f)", e.Name, label, mean, sd, in, runs, p*p*p*p*p)
	return mean, sd
}

// simulatedThreshold runs the procedure cfg with a cue observer of seed
// seed on the delivered cues ref and cue(x), fits it as a run of e does
// and returns the log of the threshold at F = 0.5.
func simulatedThreshold(e *Experiment, cfg psych.Config, seed uint64, cue func(float64) float64, ref float64) (float64, error) {
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
	span := psych.SpanOf(cfg)[0]
	a := &streamAnalysis{Estimate: psych.Estimate{TargetP: math.NaN()}}
	if err := fitStream(a, p.Records(), e, &span, "", io.Discard); err != nil {
		return 0, err
	}
	return math.Log(a.Posterior.Threshold.Median), nil
}

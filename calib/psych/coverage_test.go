package psych

import (
	"flag"
	"fmt"
	"math"
	"runtime"
	"sync"
	"testing"
)

var coverageN = flag.Int("psych.coverage", 0, "run the interval-coverage study with this many simulated observers per design (200 for the README's figures)")

// coverageDesign is a procedure whose data FitPosterior's intervals are
// checked on.
type coverageDesign struct {
	name string
	cfg  Config
	rng  [2]float64
}

// coverageDesigns are the designs of the coverage study: the stiffness
// example's staircase with 60 trials (1-up/2-down on a log scale), QUEST
// (told β = 3, 60 trials) and constant stimuli (7 levels, 10 each).
func coverageDesigns() []coverageDesign {
	return []coverageDesign{
		{"staircase-1u2d-log-60", Config{Kind: KindStaircase, Staircase: &StaircaseConfig{
			Task: TwoAFC, Scale: Log10, Start: 40, Min: 2.5, Max: 160, Up: 1, Down: 2, Steps: []float64{0.2, 0.1}, MaxTrials: 60}}, [2]float64{2.5, 160}},
		// The shipped examples' procedure since they went to 300 trials
		// (examples/stiffness-2afc.toml).
		{"staircase-1u3d-log-300", Config{Kind: KindStaircase, Staircase: &StaircaseConfig{
			Task: TwoAFC, Scale: Log10, Start: 40, Min: 2.5, Max: 160, Up: 1, Down: 3, Steps: []float64{0.2, 0.1}, MaxTrials: 300}}, [2]float64{2.5, 160}},
		{"quest-60", Config{Kind: KindQuest, Quest: &QuestConfig{
			Task: TwoAFC, Form: Weibull, Beta: 3, Lambda: 0.01, Scale: Log10, Min: 2.5, Max: 160, PriorThreshold: 20, PriorSD: 0.5, MaxTrials: 60}}, [2]float64{2.5, 160}},
		{"constant-7x10", Config{Kind: KindConstant, Constant: &ConstantConfig{
			Task: TwoAFC, Levels: []float64{5, 7, 9, 11, 13, 16, 20}, Repeats: 10, Fit: FitOptions{Form: Weibull}}}, [2]float64{5, 20}},
	}
}

// coverageObserver is the simulated observer: Weibull, threshold
// 12 at F = 0.5, β = 3, λ = 0.01, 2AFC.
func coverageObserver(seed uint64) *Observer {
	o, err := NewObserver(must(NewPF(Weibull, 12, 0.5, 3, 0.5, 0.01)), TwoAFC, seed)
	if err != nil {
		panic(err)
	}
	return o
}

// runCoverage runs n observers through design d and counts the 95 %
// threshold intervals that contain the true threshold (12), and the fits
// that carried a warning. Observers run in parallel; each is seeded by
// its index, so the counts do not depend on the scheduling.
func runCoverage(t *testing.T, d coverageDesign, n int) (covered int, warned int) {
	t.Helper()
	type result struct {
		covered, warned bool
		err             error
	}
	res := make([]result, n)
	one := func(i int) result {
		p, err := New(withSeed(d.cfg, uint64(1000+i)))
		if err != nil {
			return result{err: err}
		}
		o := coverageObserver(uint64(i + 1))
		for !p.Done() {
			tr, err := p.Next()
			if err != nil {
				return result{err: err}
			}
			if err := p.Update(tr, o.Respond(tr.X)); err != nil {
				return result{err: err}
			}
		}
		post, err := FitPosterior(Tally(p.Records()), PosteriorOptions{Form: Weibull, Gamma: 0.5, StimulusRange: d.rng})
		if err != nil {
			return result{err: fmt.Errorf("%s observer %d: %w", d.name, i, err)}
		}
		return result{covered: post.Threshold.Lo <= 12 && 12 <= post.Threshold.Hi, warned: len(post.Warnings) > 0}
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				res[i] = one(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, r := range res {
		if r.err != nil {
			t.Fatal(r.err)
		}
		if r.covered {
			covered++
		}
		if r.warned {
			warned++
		}
	}
	return covered, warned
}

// binomialCDF returns P(X <= k) for X ~ Binomial(n, p).
func binomialCDF(k, n int, p float64) float64 {
	var s float64
	for j := 0; j <= k; j++ {
		lc, _ := math.Lgamma(float64(n + 1))
		a, _ := math.Lgamma(float64(j + 1))
		b, _ := math.Lgamma(float64(n - j + 1))
		s += math.Exp(lc - a - b + float64(j)*math.Log(p) + float64(n-j)*math.Log1p(-p))
	}
	return s
}

// TestIntervalCoverage checks that the 95 % credible interval of the
// threshold contains the true threshold in 90-98 % of runs, on 40
// simulated observers per design (the full study, -psych.coverage=200,
// has its figures in the README). With 40 runs the count is only a rough
// measure, so the test fails when it is improbable (p < 0.005) under any
// coverage in [0.90, 0.98].
func TestIntervalCoverage(t *testing.T) {
	n := 40
	if *coverageN > 0 {
		n = *coverageN
	}
	for _, d := range coverageDesigns() {
		t.Run(d.name, func(t *testing.T) {
			c, w := runCoverage(t, d, n)
			t.Logf("%s: %d of %d intervals contain the threshold (%.1f %%); %d fits with warnings", d.name, c, n, 100*float64(c)/float64(n), w)
			low := binomialCDF(c, n, 0.90)        // P(X <= c) at the lowest coverage allowed
			high := 1 - binomialCDF(c-1, n, 0.98) // P(X >= c) at the highest
			if low < 0.005 || high < 0.005 {
				t.Errorf("%d of %d covered: improbable for a coverage in [0.90, 0.98] (P = %.3g below, %.3g above)", c, n, low, high)
			}
			if *coverageN > 0 {
				fmt.Printf("coverage %s: %d/%d = %.1f %%, %d with warnings\n", d.name, c, n, 100*float64(c)/float64(n), w)
			}
		})
	}
}

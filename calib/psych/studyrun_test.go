package psych

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
)

// The simulated-observer studies that validate the procedures' accuracy
// (the README's threshold RMSE figures): RunStudy runs one.

// StudySpec describes a simulated-observer validation: Observers runs of
// Procedure, each against a fresh observer with the true function Truth.
type StudySpec struct {
	Name      string `json:"name"`
	Procedure Config `json:"procedure"`
	Truth     PF     `json:"truth"`
	Task      Task   `json:"task"`
	Observers int    `json:"observers"`
	Seed      uint64 `json:"seed"`
	// Checkpoints are trial counts at which the running estimate is
	// scored. A run that stopped earlier contributes its final estimate.
	Checkpoints []int `json:"checkpoints,omitempty"`
	// Workers is the number of goroutines; results do not depend on it.
	Workers int `json:"-"`
}

// StudyStat scores estimates against the truth, relative to it.
type StudyStat struct {
	Trials int     `json:"trials"`  // checkpoint (0 for the final estimate)
	N      int     `json:"n"`       // runs with a finite estimate
	Bias   float64 `json:"bias"`    // mean(est − truth) / truth
	BiasSE float64 `json:"bias_se"` // standard error of Bias
	RMSE   float64 `json:"rmse"`    // √mean((est − truth)²) / truth
	// RMSESE is the standard error of RMSE (delta method on the mean
	// squared error: sd of the squared errors / (2·RMSE·√N)).
	RMSESE float64 `json:"rmse_se"`
}

// StudyResult is the outcome of RunStudy.
type StudyResult struct {
	Name      string `json:"name"`
	Procedure Kind   `json:"procedure"`
	Observers int    `json:"observers"`
	// Truth is the true value of what the procedure estimates: the
	// observer's stimulus at the procedure's TargetP, or its threshold at
	// the procedure's Criterion.
	Truth         float64     `json:"truth"`
	MeanTrials    float64     `json:"mean_trials"`
	MeanReversals float64     `json:"mean_reversals"`
	Final         StudyStat   `json:"final"`
	Checkpoints   []StudyStat `json:"checkpoints"`
}

// withSeed returns c with its random seed replaced, for procedures that
// have one.
func withSeed(c Config, seed uint64) Config {
	switch c.Kind {
	case KindConstant:
		if c.Constant != nil {
			cc := *c.Constant
			cc.Seed = seed
			c.Constant = &cc
		}
	case KindInterleaved:
		if c.Interleaved != nil {
			ic := *c.Interleaved
			ic.Seed = seed
			c.Interleaved = &ic
		}
	}
	return c
}

// RunStudy runs the study. Run i uses procedure seed Seed·2³²+i (where the
// procedure has a seed) and observer seed Seed+i, so a study is
// reproducible whatever the number of workers.
func RunStudy(spec StudySpec) (*StudyResult, error) {
	if spec.Observers < 1 {
		return nil, fmt.Errorf("psych: study %q needs observers, has %d", spec.Name, spec.Observers)
	}
	checks := slices.Clone(spec.Checkpoints)
	slices.Sort(checks)
	nc := len(checks)
	final := make([]float64, spec.Observers)
	atCheck := make([]float64, spec.Observers*nc)
	trials := make([]int, spec.Observers)
	revs := make([]int, spec.Observers)
	truth := make([]float64, spec.Observers)
	errs := make([]error, spec.Observers)

	run := func(i int) {
		p, err := New(withSeed(spec.Procedure, spec.Seed<<32+uint64(i)))
		if err != nil {
			errs[i] = err
			return
		}
		obs, err := NewObserver(spec.Truth, spec.Task, spec.Seed+uint64(i))
		if err != nil {
			errs[i] = err
			return
		}
		c := 0
		for !p.Done() {
			t, err := p.Next()
			if err != nil {
				errs[i] = err
				return
			}
			if err := p.Update(t, obs.Respond(t.X)); err != nil {
				errs[i] = err
				return
			}
			n := len(p.Records())
			for c < nc && checks[c] == n {
				atCheck[i*nc+c] = p.Estimate().Threshold
				c++
			}
		}
		e := p.Estimate()
		for ; c < nc; c++ {
			atCheck[i*nc+c] = e.Threshold
		}
		final[i], trials[i], revs[i] = e.Threshold, e.Trials, e.Reversals
		truth[i], errs[i] = e.Truth(spec.Truth)
	}

	workers := max(spec.Workers, 1)
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Go(func() {
			for i := range next {
				run(i)
			}
		})
	}
	for i := range spec.Observers {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("psych: study %q: %w", spec.Name, err)
	}

	res := &StudyResult{Name: spec.Name, Procedure: spec.Procedure.Kind, Observers: spec.Observers, Truth: truth[0]}
	for i := range spec.Observers {
		res.MeanTrials += float64(trials[i]) / float64(spec.Observers)
		res.MeanReversals += float64(revs[i]) / float64(spec.Observers)
	}
	res.Final = score(final, res.Truth)
	col := make([]float64, spec.Observers)
	for c, k := range checks {
		for i := range col {
			col[i] = atCheck[i*nc+c]
		}
		s := score(col, res.Truth)
		s.Trials = k
		res.Checkpoints = append(res.Checkpoints, s)
	}
	return res, nil
}

// score returns the relative bias and RMSE of the finite estimates.
func score(est []float64, truth float64) StudyStat {
	var s StudyStat
	var sum, sum2, sum4 float64
	for _, e := range est {
		if !finite(e) {
			continue
		}
		d := (e - truth) / truth
		sum += d
		sum2 += d * d
		sum4 += d * d * d * d
		s.N++
	}
	if s.N == 0 {
		return StudyStat{Bias: nan, BiasSE: nan, RMSE: nan, RMSESE: nan}
	}
	n := float64(s.N)
	s.Bias = sum / n
	s.RMSE = math.Sqrt(sum2 / n)
	if s.N > 1 {
		s.BiasSE = math.Sqrt(math.Max(sum2/n-s.Bias*s.Bias, 0) * n / (n - 1) / n)
		mse := sum2 / n
		if s.RMSE > 0 {
			s.RMSESE = math.Sqrt(math.Max(sum4/n-mse*mse, 0)/(n-1)) / (2 * s.RMSE)
		}
	}
	return s
}

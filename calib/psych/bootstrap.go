package psych

import (
	"fmt"
	"math"
	"slices"
	"sync"
)

// BootstrapOptions configures a parametric bootstrap.
type BootstrapOptions struct {
	// Samples is the number of simulated data sets; 0 means 1000.
	Samples int `json:"samples"`
	// Level is the coverage of the intervals; 0 means 0.95.
	Level float64 `json:"level"`
	// Seed makes the bootstrap reproducible: replicate b draws from
	// PCG(Seed, b) whatever the number of workers.
	Seed uint64 `json:"seed"`
	// Workers is the number of goroutines; 0 means 1.
	Workers int `json:"-"`
}

// Interval is a bootstrap confidence interval.
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
	// Widened reports that the bias-corrected interval missed the point
	// estimate and was widened to include it. It happens only when more
	// than Level of the replicates fall on one side of the estimate, which
	// flags an estimate on a bound or a degenerate design; treat the
	// interval as a warning, not a result.
	Widened bool `json:"widened,omitempty"`
}

// Contains reports whether v lies in the closed interval.
func (i Interval) Contains(v float64) bool { return v >= i.Lo && v <= i.Hi }

// Bootstrap is the result of a parametric bootstrap of a Fit.
type Bootstrap struct {
	Samples int     `json:"samples"` // replicates whose fit succeeded
	Failed  int     `json:"failed"`  // replicates whose fit failed; excluded
	Level   float64 `json:"level"`
	// Intervals for Fit.Threshold, Fit.Slope and the parameters.
	Threshold Interval `json:"threshold"`
	Slope     Interval `json:"slope"`
	Alpha     Interval `json:"alpha"`
	Beta      Interval `json:"beta"`
	// ThresholdSE and SlopeSE are the replicates' standard deviations.
	ThresholdSE float64 `json:"threshold_se"`
	SlopeSE     float64 `json:"slope_se"`
	// DevianceP is the Monte Carlo goodness-of-fit p-value, (1 + #{D* ≥
	// D}) / (1 + Samples), where D* are the deviances of the replicates
	// refitted (Wichmann & Hill 2001; Davison & Hinkley 1997 §4.2).
	DevianceP float64 `json:"deviance_p"`
}

// Bootstrap draws data sets from the fitted function at the fit's stimuli
// and trial counts, refits each with the fit's options, and returns
// bias-corrected percentile intervals (Efron 1987, without acceleration)
// and the deviance p-value.
func (f *Fit) Bootstrap(opt BootstrapOptions) (*Bootstrap, error) {
	if opt.Samples == 0 {
		opt.Samples = 1000
	}
	if opt.Level == 0 {
		opt.Level = 0.95
	}
	if opt.Samples < 10 || opt.Samples > 1000000 {
		return nil, fmt.Errorf("psych: bootstrap with %d samples, want 10..1000000", opt.Samples)
	}
	if !(opt.Level > 0 && opt.Level < 1) {
		return nil, fmt.Errorf("psych: bootstrap level %g outside (0, 1)", opt.Level)
	}
	type rep struct {
		ok                                 bool
		threshold, slope, alpha, beta, dev float64
	}
	reps := make([]rep, opt.Samples)
	u0 := newFitProblem(f.Data, f.Options).coords(f.PF)
	one := func(b int) {
		r := newRNG(opt.Seed, uint64(b))
		data := make([]Point, len(f.Data))
		for i, d := range f.Data {
			p := f.PF.Prob(d.X)
			data[i] = Point{X: d.X, N: d.N}
			for range d.N {
				if r.float64() < p {
					data[i].K++
				}
			}
		}
		// Start from the point estimate, the usual place of a
		// replicate's maximum; fall back on the grid start when that fit
		// is doubtful, and keep the better of the two.
		prob := newFitProblem(data, f.Options)
		fit, err := prob.minimise(slices.Clone(u0))
		if err != nil || len(fit.Warnings) > 0 || len(fit.AtBound) > 0 {
			alt, altErr := prob.minimise(prob.start())
			if altErr == nil && (err != nil || alt.LogLik > fit.LogLik) {
				fit, err = alt, nil
			}
		}
		if err != nil {
			return
		}
		reps[b] = rep{true, fit.Threshold, fit.Slope, fit.PF.Alpha, fit.PF.Beta, fit.Deviance}
	}
	workers := max(opt.Workers, 1)
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Go(func() {
			for b := range next {
				one(b)
			}
		})
	}
	for b := range opt.Samples {
		next <- b
	}
	close(next)
	wg.Wait()

	var th, sl, al, be []float64
	exceed := 0
	for _, r := range reps {
		if !r.ok {
			continue
		}
		th, sl = append(th, r.threshold), append(sl, r.slope)
		al, be = append(al, r.alpha), append(be, r.beta)
		if r.dev >= f.Deviance {
			exceed++
		}
	}
	res := &Bootstrap{Samples: len(th), Failed: opt.Samples - len(th), Level: opt.Level}
	if res.Samples < opt.Samples/2 {
		return nil, fmt.Errorf("psych: bootstrap: %d of %d refits failed", res.Failed, opt.Samples)
	}
	res.Threshold = bcInterval(th, f.Threshold, opt.Level)
	res.Slope = bcInterval(sl, f.Slope, opt.Level)
	res.Alpha = bcInterval(al, f.PF.Alpha, opt.Level)
	res.Beta = bcInterval(be, f.PF.Beta, opt.Level)
	_, res.ThresholdSE = meanSD(th)
	_, res.SlopeSE = meanSD(sl)
	res.DevianceP = float64(1+exceed) / float64(1+res.Samples)
	return res, nil
}

// coords returns the unconstrained coordinates of pf in this problem.
func (f *fitProblem) coords(pf PF) []float64 {
	u := make([]float64, f.dim)
	u[0] = f.a.inverse(pf.Alpha)
	u[1] = f.b.inverse(pf.Beta)
	if f.iGamma >= 0 {
		u[f.iGamma] = f.g.inverse(pf.Gamma)
	}
	if f.iLambda >= 0 {
		u[f.iLambda] = f.l.inverse(pf.Lambda)
	}
	return u
}

// bcInterval returns the bias-corrected percentile interval of the
// replicates v around the estimate est, widened to contain est if needed.
func bcInterval(v []float64, est, level float64) Interval {
	s := slices.Clone(v)
	slices.Sort(s)
	n := float64(len(s))
	var below float64
	for _, x := range s {
		switch {
		case x < est:
			below++
		case x == est:
			below += 0.5
		}
	}
	frac := math.Min(math.Max(below/n, 0.5/n), 1-0.5/n)
	z0 := probit(frac)
	z := probit(0.5 + level/2)
	cdf := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	iv := Interval{Lo: quantileSorted(s, cdf(2*z0-z)), Hi: quantileSorted(s, cdf(2*z0+z))}
	if !(est >= iv.Lo) {
		iv.Lo, iv.Widened = est, true
	}
	if !(est <= iv.Hi) {
		iv.Hi, iv.Widened = est, true
	}
	return iv
}

// quantileSorted interpolates the p-quantile of sorted s (type 7).
func quantileSorted(s []float64, p float64) float64 {
	h := p * float64(len(s)-1)
	i := int(math.Floor(h))
	if i >= len(s)-1 {
		return s[len(s)-1]
	}
	if i < 0 {
		return s[0]
	}
	return s[i] + (h-float64(i))*(s[i+1]-s[i])
}

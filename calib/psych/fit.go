package psych

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/optimize"
)

// Point is the data at one stimulus level: K positive responses (correct,
// yes, rating >= criterion) out of N trials.
type Point struct {
	X float64 `json:"x"`
	K int     `json:"k"`
	N int     `json:"n"`
}

// Tally groups records by stimulus into points sorted by X. Records whose
// stimuli differ in the last bit are separate points; that does not bias a
// maximum-likelihood fit, though it makes the deviance meaningless (see
// Fit.Deviance).
func Tally(records []Record) []Point {
	return tally(records, func(r Record) bool { return r.Positive })
}

func tally(records []Record, positive func(Record) bool) []Point {
	idx := map[float64]int{}
	var pts []Point
	for _, r := range records {
		i, ok := idx[r.X]
		if !ok {
			i = len(pts)
			idx[r.X] = i
			pts = append(pts, Point{X: r.X})
		}
		pts[i].N++
		if positive(r) {
			pts[i].K++
		}
	}
	slices.SortFunc(pts, func(a, b Point) int {
		if a.X < b.X {
			return -1
		}
		if a.X > b.X {
			return 1
		}
		return 0
	})
	return pts
}

// FitOptions says which psychometric function to fit and which of its
// parameters are free. α and β are always free.
type FitOptions struct {
	Form Form `json:"form" toml:"form"`
	// Gamma is the guess rate: fixed (1/m for m-AFC, a known false-alarm
	// rate for yes/no), or the starting value when FreeGamma is set.
	Gamma     float64 `json:"gamma" toml:"gamma"`
	FreeGamma bool    `json:"free_gamma,omitempty" toml:"free_gamma"`
	// GammaMax bounds a free guess rate; 0 means 0.5.
	GammaMax float64 `json:"gamma_max,omitempty" toml:"gamma_max"`
	// Lambda is the lapse rate: fixed, or the start when FreeLambda.
	Lambda     float64 `json:"lambda" toml:"lambda"`
	FreeLambda bool    `json:"free_lambda,omitempty" toml:"free_lambda"`
	// LambdaMax bounds a free lapse rate; 0 means 0.06 (Wichmann & Hill
	// 2001).
	LambdaMax float64 `json:"lambda_max,omitempty" toml:"lambda_max"`
	// Criterion is the F level of the reported threshold; 0 means 0.5.
	Criterion float64 `json:"criterion,omitempty" toml:"criterion"`
	// AlphaMin..AlphaMax and BetaMin..BetaMax bound the search; zero
	// values are derived from the data (see FitPF). An estimate on a bound
	// is named in Fit.AtBound.
	AlphaMin float64 `json:"alpha_min,omitempty" toml:"alpha_min"`
	AlphaMax float64 `json:"alpha_max,omitempty" toml:"alpha_max"`
	BetaMin  float64 `json:"beta_min,omitempty" toml:"beta_min"`
	BetaMax  float64 `json:"beta_max,omitempty" toml:"beta_max"`
}

// Fit is a maximum-likelihood fit of a psychometric function.
type Fit struct {
	PF PF `json:"pf"`
	// Threshold is PF.Threshold(Criterion) and Slope is dψ/dx there.
	Threshold float64 `json:"threshold"`
	Slope     float64 `json:"slope"`
	Criterion float64 `json:"criterion"`
	// LogLik is Σ k ln ψ + (n − k) ln(1 − ψ), without the binomial
	// coefficients.
	LogLik float64 `json:"loglik"`
	// Deviance is twice the log-likelihood ratio of the saturated model to
	// the fit. Its χ² approximation needs several trials per level; use
	// Bootstrap's Monte Carlo p-value instead, and do not read it at all
	// for adaptive data with one trial per level.
	Deviance float64 `json:"deviance"`
	// DoF is the number of points minus the number of free parameters.
	DoF int `json:"dof"`
	// AtBound names parameters that ended on a search bound ("alpha",
	// "beta", "gamma", "lambda"): the data do not pin them down.
	AtBound []string `json:"at_bound,omitempty"`
	// Warnings say why the estimates should not be trusted: a threshold
	// outside the tested stimuli, or a likelihood that still rises toward
	// an infinitely steep function (the data are a step).
	Warnings []string `json:"warnings,omitempty"`
	// Status is the optimiser's termination status.
	Status  string     `json:"status"`
	Data    []Point    `json:"data"`
	Options FitOptions `json:"options"` // with defaults and bounds resolved
}

// bound maps an unconstrained u to (lo, hi), linearly or logarithmically,
// through a logistic so that no optimiser step can leave the interval.
type bound struct {
	lo, hi float64
	log    bool
}

func (b bound) value(u float64) (v, dv float64) {
	s := sigmoid(u)
	ds := s * (1 - s)
	if b.log {
		// lo and hi hold logarithms for a log bound (see newBound).
		v = math.Exp(b.lo + (b.hi-b.lo)*s)
		return v, v * (b.hi - b.lo) * ds
	}
	return b.lo + (b.hi-b.lo)*s, (b.hi - b.lo) * ds
}

func newBound(lo, hi float64, log bool) bound {
	if log {
		return bound{math.Log(lo), math.Log(hi), true}
	}
	return bound{lo, hi, false}
}

func (b bound) inverse(v float64) float64 {
	if b.log {
		v = math.Log(v)
	}
	s := (v - b.lo) / (b.hi - b.lo)
	s = math.Min(math.Max(s, 1e-9), 1-1e-9)
	return math.Log(s / (1 - s))
}

// onBound reports whether u sits within 1e-4 of a bound, as a fraction of
// the (linear or logarithmic) search interval.
func onBound(u float64) (low, high bool) {
	s := sigmoid(u)
	return s < 1e-4, s > 1-1e-4
}

// fitProblem is the negative log-likelihood in unconstrained coordinates
// u = (α, β[, γ][, λ]).
type fitProblem struct {
	data            []Point
	opt             FitOptions
	a, b, g, l      bound
	iGamma, iLambda int // index in u, or −1 when fixed
	dim             int
	// The last point evaluated and its gradient: the optimiser asks for
	// value and gradient at the same point in separate calls.
	lastU, lastGrad []float64
	lastV           float64
}

func (f *fitProblem) pf(u []float64) PF {
	p := PF{Form: f.opt.Form, Gamma: f.opt.Gamma, Lambda: f.opt.Lambda}
	p.Alpha, _ = f.a.value(u[0])
	p.Beta, _ = f.b.value(u[1])
	if f.iGamma >= 0 {
		p.Gamma, _ = f.g.value(u[f.iGamma])
	}
	if f.iLambda >= 0 {
		p.Lambda, _ = f.l.value(u[f.iLambda])
	}
	return p
}

// value returns the negative log-likelihood at u, and grad its gradient.
func (f *fitProblem) value(u []float64) float64 {
	if !slices.Equal(u, f.lastU) {
		f.lastV = f.nll(u, f.lastGrad)
		f.lastU = append(f.lastU[:0], u...)
	}
	return f.lastV
}

func (f *fitProblem) grad(g, u []float64) {
	f.value(u)
	copy(g, f.lastGrad)
}

// nll returns the negative log-likelihood at u and, when grad is not nil,
// writes its gradient with respect to u.
func (f *fitProblem) nll(u, grad []float64) float64 {
	alpha, da := f.a.value(u[0])
	beta, db := f.b.value(u[1])
	gamma, lambda, dg, dl := f.opt.Gamma, f.opt.Lambda, 0.0, 0.0
	if f.iGamma >= 0 {
		gamma, dg = f.g.value(u[f.iGamma])
	}
	if f.iLambda >= 0 {
		lambda, dl = f.l.value(u[f.iLambda])
	}
	var gA, gB, gG, gL float64
	s := 1 - gamma - lambda
	var v float64
	for _, d := range f.data {
		F, Fc, dA, dB := f.opt.Form.eval(d.X, alpha, beta)
		ps := math.Max(gamma+s*F, tiny)
		qs := math.Max(lambda+s*Fc, tiny)
		k, nk := float64(d.K), float64(d.N-d.K)
		v -= k*math.Log(ps) + nk*math.Log(qs)
		w := -(k/ps - nk/qs) // dNLL/dψ
		gA += w * s * dA
		gB += w * s * dB
		gG += w * (1 - F)
		gL -= w * F
	}
	if grad != nil {
		grad[0], grad[1] = gA*da, gB*db
		if f.iGamma >= 0 {
			grad[f.iGamma] = gG * dg
		}
		if f.iLambda >= 0 {
			grad[f.iLambda] = gL * dl
		}
	}
	return v
}

// resolveFit fills the defaults of opt for data and checks both.
func resolveFit(data []Point, opt FitOptions) (FitOptions, error) {
	if !opt.Form.valid() {
		return opt, fmt.Errorf("psych: fit: unknown form %d", int(opt.Form))
	}
	if len(data) < 2 {
		return opt, fmt.Errorf("psych: fit: %d stimulus levels, need at least 2", len(data))
	}
	lo, hi, loPos := math.Inf(1), math.Inf(-1), math.Inf(1)
	for i, d := range data {
		if !finite(d.X) || d.N < 1 || d.K < 0 || d.K > d.N {
			return opt, fmt.Errorf("psych: fit: point %d (x=%g, k=%d, n=%d) invalid", i, d.X, d.K, d.N)
		}
		lo, hi = math.Min(lo, d.X), math.Max(hi, d.X)
		if d.X > 0 {
			loPos = math.Min(loPos, d.X)
		}
	}
	if !(hi > lo) {
		return opt, fmt.Errorf("psych: fit: all stimuli equal (%g)", lo)
	}
	if opt.Criterion == 0 {
		opt.Criterion = 0.5
	}
	if !(opt.Criterion > 0 && opt.Criterion < 1) {
		return opt, fmt.Errorf("psych: fit: criterion %g outside (0, 1)", opt.Criterion)
	}
	if opt.GammaMax == 0 {
		opt.GammaMax = 0.5
	}
	if opt.LambdaMax == 0 {
		opt.LambdaMax = 0.06
	}
	if !(opt.GammaMax > 0 && opt.GammaMax < 1 && opt.LambdaMax > 0 && opt.LambdaMax < 1 && opt.GammaMax+opt.LambdaMax < 1) {
		return opt, fmt.Errorf("psych: fit: gamma max %g and lambda max %g invalid", opt.GammaMax, opt.LambdaMax)
	}
	if opt.FreeGamma {
		opt.Gamma = math.Min(math.Max(opt.Gamma, 1e-3*opt.GammaMax), 0.5*opt.GammaMax)
	}
	if opt.FreeLambda {
		opt.Lambda = math.Min(math.Max(opt.Lambda, 1e-3*opt.LambdaMax), 0.5*opt.LambdaMax)
	}
	if !(opt.Gamma >= 0 && opt.Lambda >= 0 && opt.Gamma+opt.Lambda < 1) {
		return opt, fmt.Errorf("psych: fit: gamma %g and lambda %g invalid", opt.Gamma, opt.Lambda)
	}
	r := hi - lo
	switch opt.Form {
	case Weibull:
		if math.IsInf(loPos, 1) {
			return opt, errors.New("psych: fit: a Weibull needs positive stimuli")
		}
		def(&opt.AlphaMin, loPos/10)
		def(&opt.AlphaMax, hi*10)
		def(&opt.BetaMin, 0.1)
		def(&opt.BetaMax, 100)
	default:
		def(&opt.AlphaMin, lo-2*r)
		def(&opt.AlphaMax, hi+2*r)
		def(&opt.BetaMin, 0.1/r)
		def(&opt.BetaMax, 1000/r)
	}
	if !(opt.AlphaMin < opt.AlphaMax && opt.BetaMin > 0 && opt.BetaMin < opt.BetaMax && finite(opt.AlphaMax) && finite(opt.BetaMax)) ||
		(opt.Form == Weibull && opt.AlphaMin <= 0) {
		return opt, fmt.Errorf("psych: fit: bounds alpha [%g, %g], beta [%g, %g] invalid", opt.AlphaMin, opt.AlphaMax, opt.BetaMin, opt.BetaMax)
	}
	return opt, nil
}

func def(v *float64, d float64) {
	if *v == 0 {
		*v = d
	}
}

func newFitProblem(data []Point, opt FitOptions) *fitProblem {
	f := &fitProblem{data: data, opt: opt, iGamma: -1, iLambda: -1, dim: 2,
		a: newBound(opt.AlphaMin, opt.AlphaMax, opt.Form == Weibull),
		b: newBound(opt.BetaMin, opt.BetaMax, true),
		g: newBound(0, opt.GammaMax, false),
		l: newBound(0, opt.LambdaMax, false),
	}
	if opt.FreeGamma {
		f.iGamma = f.dim
		f.dim++
	}
	if opt.FreeLambda {
		f.iLambda = f.dim
		f.dim++
	}
	f.lastGrad = make([]float64, f.dim)
	return f
}

// start returns the unconstrained starting point: the best of a 15 × 10
// grid over α (spanning the data) and β, with γ and λ at their starting
// values.
func (f *fitProblem) start() []float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, d := range f.data {
		if f.opt.Form == Weibull && d.X <= 0 {
			continue
		}
		lo, hi = math.Min(lo, d.X), math.Max(hi, d.X)
	}
	u := make([]float64, f.dim)
	if f.iGamma >= 0 {
		u[f.iGamma] = f.g.inverse(f.opt.Gamma)
	}
	if f.iLambda >= 0 {
		u[f.iLambda] = f.l.inverse(f.opt.Lambda)
	}
	var betaLo, betaHi float64
	if f.opt.Form == Weibull {
		betaLo, betaHi = 0.5, 20
	} else {
		betaLo, betaHi = 2/(hi-lo), 100/(hi-lo)
	}
	best, bestA, bestB := math.Inf(1), 0.0, 0.0
	const na, nb = 15, 10
	pf := f.pf(u)
	for i := range na {
		t := float64(i) / (na - 1)
		if f.opt.Form == Weibull {
			pf.Alpha = lo * math.Pow(hi/lo, t)
		} else {
			pf.Alpha = lo + (hi-lo)*t
		}
		for j := range nb {
			pf.Beta = betaLo * math.Pow(betaHi/betaLo, float64(j)/(nb-1))
			if ll, _ := logLik(pf, f.data); -ll < best {
				best, bestA, bestB = -ll, pf.Alpha, pf.Beta
			}
		}
	}
	u[0], u[1] = f.a.inverse(bestA), f.b.inverse(bestB)
	return u
}

// FitPF fits a psychometric function to data by maximum likelihood.
//
// α and β are searched within bounds, by default α within the stimulus
// range widened by twice its width on each side (for the Weibull, from a
// tenth of the lowest positive stimulus to ten times the highest) and β
// within [0.1, 1000]/range (Weibull: [0.1, 100]). The start is the best
// point of a 15 × 10 grid over the data's range; the optimiser is BFGS on
// the analytic gradient, in coordinates in which the bounds cannot be
// crossed.
func FitPF(data []Point, opt FitOptions) (*Fit, error) {
	opt, err := resolveFit(data, opt)
	if err != nil {
		return nil, err
	}
	pts := slices.Clone(data)
	f := newFitProblem(pts, opt)
	return f.minimise(f.start())
}

// minimise runs BFGS from u0 and packages the result.
func (f *fitProblem) minimise(u0 []float64) (*Fit, error) {
	prob := optimize.Problem{Func: f.value, Grad: f.grad}
	settings := &optimize.Settings{
		GradientThreshold: 1e-9,
		MajorIterations:   2000,
		Converger:         &optimize.FunctionConverge{Absolute: 1e-12, Relative: 1e-14, Iterations: 5},
	}
	res, err := optimize.Minimize(prob, u0, settings, &optimize.BFGS{})
	if res == nil || !finite(res.F) {
		return nil, fmt.Errorf("psych: fit: optimiser failed: %v", err)
	}
	u := res.X
	status := res.Status.String()
	if err != nil {
		// Typically a line search that cannot improve a converged point;
		// the best point is kept and the reason reported.
		status = err.Error()
	}
	pf := f.pf(u)
	if err := pf.Validate(); err != nil {
		return nil, fmt.Errorf("psych: fit: %w", err)
	}
	fit := &Fit{PF: pf, Criterion: f.opt.Criterion, Data: f.data, Options: f.opt,
		DoF: len(f.data) - f.dim, Status: status}
	fit.Threshold = pf.Threshold(f.opt.Criterion)
	fit.Slope = pf.Slope(fit.Threshold)
	fit.LogLik, fit.Deviance = logLik(pf, f.data)
	for i, name := range []string{"alpha", "beta"} {
		if lo, hi := onBound(u[i]); lo || hi {
			fit.AtBound = append(fit.AtBound, name)
		}
	}
	if f.iGamma >= 0 {
		if _, hi := onBound(u[f.iGamma]); hi {
			fit.AtBound = append(fit.AtBound, "gamma")
		}
	}
	if f.iLambda >= 0 {
		if _, hi := onBound(u[f.iLambda]); hi {
			fit.AtBound = append(fit.AtBound, "lambda")
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, d := range f.data {
		lo, hi = math.Min(lo, d.X), math.Max(hi, d.X)
	}
	if !(fit.Threshold >= lo && fit.Threshold <= hi) {
		fit.Warnings = append(fit.Warnings, fmt.Sprintf("threshold %.4g outside the tested stimuli [%.4g, %.4g]", fit.Threshold, lo, hi))
	}
	// Steepen to the β bound about the same threshold: if that fits at
	// least as well, the slope has no finite maximum-likelihood value.
	steep := pf
	steep.Beta = f.opt.BetaMax
	steep.Alpha = pf.Form.alphaFor(fit.Threshold, steep.Beta, f.opt.Criterion)
	if ll, _ := logLik(steep, f.data); ll >= fit.LogLik-1e-9*math.Abs(fit.LogLik) {
		fit.Warnings = append(fit.Warnings, "slope unbounded: the data are fitted as well by a step")
	}
	return fit, nil
}

// logLik returns the log-likelihood of data under pf and the deviance.
func logLik(pf PF, data []Point) (ll, dev float64) {
	for _, d := range data {
		p, q := pf.probs(d.X)
		p, q = math.Max(p, tiny), math.Max(q, tiny)
		k, nk, n := float64(d.K), float64(d.N-d.K), float64(d.N)
		ll += k*math.Log(p) + nk*math.Log(q)
		if d.K > 0 {
			dev += 2 * k * math.Log(k/(n*p))
		}
		if d.N > d.K {
			dev += 2 * nk * math.Log(nk/(n*q))
		}
	}
	return ll, dev
}

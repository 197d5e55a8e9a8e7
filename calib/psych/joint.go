package psych

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"gonum.org/v1/gonum/optimize"
	"gonum.org/v1/gonum/stat/distuv"
)

// Sharing says how a parameter of a joint fit varies across conditions,
// as Palamedes' PAL_PFML_FitMultiple names it: "separate" (one free value
// per condition; Palamedes' "unconstrained"), "shared" (one free value
// for all; "constrained") or "fixed" (the value given, not fitted).
type Sharing string

const (
	Separate Sharing = "separate"
	Shared   Sharing = "shared"
	Fixed    Sharing = "fixed"
)

// rank orders sharings from the most to the least constrained, for the
// nesting of models.
func (s Sharing) rank() int {
	switch s {
	case Fixed:
		return 0
	case Shared:
		return 1
	case Separate:
		return 2
	}
	return -1
}

// Condition is one condition's data in a joint fit.
type Condition struct {
	Name string  `json:"name"`
	Data []Point `json:"data"`
}

// JointOptions says which psychometric function a joint fit uses and how
// each parameter is shared. The zero value fits separate α and β per
// condition with γ and λ fixed at 0 (set Gamma to 0.5 for 2AFC).
type JointOptions struct {
	Form Form `json:"form" toml:"form"`
	// Alpha and Beta are Separate (when empty) or Shared.
	Alpha Sharing `json:"alpha,omitempty" toml:"alpha"`
	Beta  Sharing `json:"beta,omitempty" toml:"beta"`
	// GammaSharing and LambdaSharing are Fixed (when empty), Shared or
	// Separate; Gamma and Lambda are the fixed values or the starts.
	GammaSharing  Sharing `json:"gamma_sharing,omitempty" toml:"gamma_sharing"`
	Gamma         float64 `json:"gamma" toml:"gamma"`
	LambdaSharing Sharing `json:"lambda_sharing,omitempty" toml:"lambda_sharing"`
	Lambda        float64 `json:"lambda" toml:"lambda"`
	// GammaMax, LambdaMax, Criterion and the α and β bounds mean what they
	// mean in FitOptions; zero bounds are derived from all conditions'
	// stimuli together.
	GammaMax  float64 `json:"gamma_max,omitempty" toml:"gamma_max"`
	LambdaMax float64 `json:"lambda_max,omitempty" toml:"lambda_max"`
	Criterion float64 `json:"criterion,omitempty" toml:"criterion"`
	AlphaMin  float64 `json:"alpha_min,omitempty" toml:"alpha_min"`
	AlphaMax  float64 `json:"alpha_max,omitempty" toml:"alpha_max"`
	BetaMin   float64 `json:"beta_min,omitempty" toml:"beta_min"`
	BetaMax   float64 `json:"beta_max,omitempty" toml:"beta_max"`
}

// sharings returns the resolved sharing of α, β, γ, λ.
func (o JointOptions) sharings() [4]Sharing {
	s := [4]Sharing{o.Alpha, o.Beta, o.GammaSharing, o.LambdaSharing}
	for i, d := range [4]Sharing{Separate, Separate, Fixed, Fixed} {
		if s[i] == "" {
			s[i] = d
		}
	}
	return s
}

var paramNames = [4]string{"alpha", "beta", "gamma", "lambda"}

// JointFit is a maximum-likelihood fit of one psychometric function per
// condition, with parameters shared across conditions as the options say.
type JointFit struct {
	Conditions []string `json:"conditions"`
	// PF, Threshold (at Criterion) and Slope per condition.
	PF        []PF      `json:"pf"`
	Threshold []float64 `json:"threshold"`
	Slope     []float64 `json:"slope"`
	Criterion float64   `json:"criterion"`
	// LogLik is the summed binomial log-likelihood without the binomial
	// coefficients; Deviance is against the saturated model.
	LogLik   float64 `json:"loglik"`
	Deviance float64 `json:"deviance"`
	// Params is the number of free parameters, AIC = 2·Params − 2·LogLik
	// (Akaike 1974) and DoF the points minus Params.
	Params int     `json:"params"`
	AIC    float64 `json:"aic"`
	DoF    int     `json:"dof"`
	// AtBound names parameters that ended on a search bound, as
	// "lambda" (shared) or "lambda[name]" (separate).
	AtBound []string `json:"at_bound,omitempty"`
	// Warnings name conditions whose data are fitted as well by a step:
	// their separate β has no finite maximum-likelihood value (compare
	// their thresholds, not their slopes).
	Warnings []string     `json:"warnings,omitempty"`
	Status   string       `json:"status"`
	Options  JointOptions `json:"options"` // with defaults and bounds resolved
	Data     []Condition  `json:"data"`
}

// jointProblem is the joint negative log-likelihood in unconstrained
// coordinates. idx[c][p] is the index in u of parameter p (α, β, γ, λ) of
// condition c, or −1 when fixed.
type jointProblem struct {
	conds  []Condition
	opt    JointOptions
	bounds [4]bound
	idx    [][4]int
	dim    int
	lastU  []float64
	lastG  []float64
	lastV  float64
}

func resolveJoint(conds []Condition, opt JointOptions) (JointOptions, error) {
	if len(conds) < 1 {
		return opt, fmt.Errorf("psych: joint fit: no conditions")
	}
	sh := opt.sharings()
	for p, s := range sh {
		if s.rank() < 0 {
			return opt, fmt.Errorf("psych: joint fit: %s sharing %q, want separate, shared or fixed", paramNames[p], s)
		}
		if p < 2 && s == Fixed {
			return opt, fmt.Errorf("psych: joint fit: %s cannot be fixed (fit it with FitPF's bounds instead)", paramNames[p])
		}
	}
	opt.Alpha, opt.Beta, opt.GammaSharing, opt.LambdaSharing = sh[0], sh[1], sh[2], sh[3]
	var pooled []Point
	names := map[string]bool{}
	for i, c := range conds {
		if c.Name == "" || names[c.Name] {
			return opt, fmt.Errorf("psych: joint fit: condition %d name %q empty or repeated", i, c.Name)
		}
		names[c.Name] = true
		if len(c.Data) == 0 {
			return opt, fmt.Errorf("psych: joint fit: condition %q has no data", c.Name)
		}
		levels := map[float64]bool{}
		for _, d := range c.Data {
			levels[d.X] = true
		}
		if len(levels) < 2 && (sh[0] == Separate || sh[1] == Separate) {
			return opt, fmt.Errorf("psych: joint fit: condition %q has %d stimulus levels; separate thresholds or slopes need at least 2", c.Name, len(levels))
		}
		pooled = append(pooled, c.Data...)
	}
	fo, err := resolveFit(pooled, FitOptions{Form: opt.Form, Gamma: opt.Gamma, FreeGamma: sh[2] != Fixed, GammaMax: opt.GammaMax,
		Lambda: opt.Lambda, FreeLambda: sh[3] != Fixed, LambdaMax: opt.LambdaMax, Criterion: opt.Criterion,
		AlphaMin: opt.AlphaMin, AlphaMax: opt.AlphaMax, BetaMin: opt.BetaMin, BetaMax: opt.BetaMax})
	if err != nil {
		return opt, fmt.Errorf("psych: joint %s", strings.TrimPrefix(err.Error(), "psych: "))
	}
	opt.Gamma, opt.GammaMax, opt.Lambda, opt.LambdaMax, opt.Criterion = fo.Gamma, fo.GammaMax, fo.Lambda, fo.LambdaMax, fo.Criterion
	opt.AlphaMin, opt.AlphaMax, opt.BetaMin, opt.BetaMax = fo.AlphaMin, fo.AlphaMax, fo.BetaMin, fo.BetaMax
	return opt, nil
}

func newJointProblem(conds []Condition, opt JointOptions) *jointProblem {
	j := &jointProblem{conds: conds, opt: opt, idx: make([][4]int, len(conds))}
	j.bounds = [4]bound{
		newBound(opt.AlphaMin, opt.AlphaMax, opt.Form == Weibull),
		newBound(opt.BetaMin, opt.BetaMax, true),
		newBound(0, opt.GammaMax, false),
		newBound(0, opt.LambdaMax, false),
	}
	for p, s := range opt.sharings() {
		shared := -1
		for c := range conds {
			switch s {
			case Fixed:
				j.idx[c][p] = -1
			case Shared:
				if shared < 0 {
					shared = j.dim
					j.dim++
				}
				j.idx[c][p] = shared
			case Separate:
				j.idx[c][p] = j.dim
				j.dim++
			}
		}
	}
	j.lastG = make([]float64, j.dim)
	return j
}

// params returns condition c's α, β, γ, λ at u and their derivatives
// with respect to their coordinates.
func (j *jointProblem) params(u []float64, c int) (v, dv [4]float64) {
	fixed := [4]float64{nan, nan, j.opt.Gamma, j.opt.Lambda}
	for p := range 4 {
		if i := j.idx[c][p]; i >= 0 {
			v[p], dv[p] = j.bounds[p].value(u[i])
		} else {
			v[p] = fixed[p]
		}
	}
	return v, dv
}

func (j *jointProblem) pf(u []float64, c int) PF {
	v, _ := j.params(u, c)
	return PF{Form: j.opt.Form, Alpha: v[0], Beta: v[1], Gamma: v[2], Lambda: v[3]}
}

func (j *jointProblem) value(u []float64) float64 {
	if !slices.Equal(u, j.lastU) {
		j.lastV = j.nll(u, j.lastG)
		j.lastU = append(j.lastU[:0], u...)
	}
	return j.lastV
}

func (j *jointProblem) grad(g, u []float64) {
	j.value(u)
	copy(g, j.lastG)
}

func (j *jointProblem) nll(u, grad []float64) float64 {
	clear(grad)
	var v float64
	for c, cond := range j.conds {
		p, dp := j.params(u, c)
		alpha, beta, gamma, lambda := p[0], p[1], p[2], p[3]
		s := 1 - gamma - lambda
		var g [4]float64
		for _, d := range cond.Data {
			F, Fc, dA, dB := j.opt.Form.eval(d.X, alpha, beta)
			ps := math.Max(gamma+s*F, tiny)
			qs := math.Max(lambda+s*Fc, tiny)
			k, nk := float64(d.K), float64(d.N-d.K)
			v -= k*math.Log(ps) + nk*math.Log(qs)
			w := -(k/ps - nk/qs)
			g[0] += w * s * dA
			g[1] += w * s * dB
			g[2] += w * (1 - F)
			g[3] -= w * F
		}
		for q := range 4 {
			if i := j.idx[c][q]; i >= 0 && grad != nil {
				grad[i] += g[q] * dp[q]
			}
		}
	}
	return v
}

// starts returns starting coordinates: each condition fitted alone with
// γ and λ fixed, shared parameters at the mean of the conditions'
// coordinates. A free λ trades against β (a shallow function without
// lapses or a steep one with them), which gives the joint likelihood
// local maxima, so a free λ is started at its start and at 2, 25, 50, 75
// and 95 % of its bound. For a fixed λ the conditions separate and each
// one's start is FitPF's, from a grid over α and β.
func (j *jointProblem) starts() [][]float64 {
	lambdas := []float64{j.opt.Lambda}
	if j.opt.sharings()[3] != Fixed {
		for _, f := range []float64{0.02, 0.25, 0.5, 0.75, 0.95} {
			lambdas = append(lambdas, f*j.opt.LambdaMax)
		}
	}
	var us [][]float64
	for _, l0 := range lambdas {
		u := make([]float64, j.dim)
		n := make([]int, j.dim)
		for c, cond := range j.conds {
			v := [4]float64{0, 0, j.opt.Gamma, l0}
			f, err := FitPF(cond.Data, FitOptions{Form: j.opt.Form, Gamma: j.opt.Gamma, Lambda: l0, Criterion: j.opt.Criterion,
				AlphaMin: j.opt.AlphaMin, AlphaMax: j.opt.AlphaMax, BetaMin: j.opt.BetaMin, BetaMax: j.opt.BetaMax})
			if err == nil {
				v[0], v[1] = f.PF.Alpha, f.PF.Beta
			} else {
				// A condition with a single level (shared α and β) says
				// nothing alone: start from the middle of the bounds.
				v[0], _ = j.bounds[0].value(0)
				v[1], _ = j.bounds[1].value(0)
			}
			for p := range 4 {
				if i := j.idx[c][p]; i >= 0 {
					u[i] += j.bounds[p].inverse(v[p])
					n[i]++
				}
			}
		}
		for i := range u {
			u[i] /= float64(n[i])
		}
		us = append(us, u)
	}
	return us
}

// best minimises from every start and keeps the highest likelihood.
func (j *jointProblem) best(starts [][]float64) (*JointFit, error) {
	var fit *JointFit
	var err error
	for _, u := range starts {
		f, e := j.minimise(u)
		if e != nil {
			err = e
			continue
		}
		if fit == nil || f.LogLik > fit.LogLik {
			fit = f
		}
	}
	if fit == nil {
		return nil, err
	}
	return fit, nil
}

func (j *jointProblem) minimise(u0 []float64) (*JointFit, error) {
	prob := optimize.Problem{Func: j.value, Grad: j.grad}
	settings := &optimize.Settings{
		GradientThreshold: 1e-9,
		MajorIterations:   5000,
		Converger:         &optimize.FunctionConverge{Absolute: 1e-12, Relative: 1e-14, Iterations: 5},
	}
	res, err := optimize.Minimize(prob, u0, settings, &optimize.BFGS{})
	if res == nil || !finite(res.F) {
		return nil, fmt.Errorf("psych: joint fit: optimiser failed: %v", err)
	}
	status := res.Status.String()
	if err != nil {
		status = err.Error()
	}
	u := res.X
	fit := &JointFit{Criterion: j.opt.Criterion, Params: j.dim, Status: status, Options: j.opt, Data: j.conds}
	points := 0
	for c, cond := range j.conds {
		pf := j.pf(u, c)
		if err := pf.Validate(); err != nil {
			return nil, fmt.Errorf("psych: joint fit: condition %q: %w", cond.Name, err)
		}
		fit.Conditions = append(fit.Conditions, cond.Name)
		fit.PF = append(fit.PF, pf)
		t := pf.Threshold(j.opt.Criterion)
		fit.Threshold = append(fit.Threshold, t)
		fit.Slope = append(fit.Slope, pf.Slope(t))
		ll, dev := logLik(pf, cond.Data)
		fit.LogLik += ll
		fit.Deviance += dev
		points += len(cond.Data)
	}
	fit.AIC = 2*float64(fit.Params) - 2*fit.LogLik
	if j.opt.Beta == Separate {
		for c, cond := range j.conds {
			// Steepen to the β bound about the same threshold, as FitPF.
			steep := fit.PF[c]
			steep.Beta = j.opt.BetaMax
			steep.Alpha = steep.Form.alphaFor(fit.Threshold[c], steep.Beta, j.opt.Criterion)
			ll, _ := logLik(fit.PF[c], cond.Data)
			if sl, _ := logLik(steep, cond.Data); sl >= ll-1e-9*math.Abs(ll) {
				fit.Warnings = append(fit.Warnings, fmt.Sprintf("condition %q: slope unbounded: the data are fitted as well by a step", cond.Name))
			}
		}
	}
	fit.DoF = points - fit.Params
	sh := j.opt.sharings()
	for p := range 4 {
		for c := range j.conds {
			i := j.idx[c][p]
			if i < 0 || (sh[p] == Shared && c > 0) {
				continue
			}
			lo, hi := onBound(u[i])
			if p >= 2 {
				lo = false // γ and λ of 0 are ordinary values
			}
			if lo || hi {
				name := paramNames[p]
				if sh[p] == Separate {
					name += "[" + j.conds[c].Name + "]"
				}
				fit.AtBound = append(fit.AtBound, name)
			}
		}
	}
	return fit, nil
}

// coords returns fit's parameters as coordinates of this problem: a
// parameter shared here but separate in fit starts at the mean of fit's
// coordinates.
func (j *jointProblem) coords(fit *JointFit) []float64 {
	u := make([]float64, j.dim)
	n := make([]int, j.dim)
	for c := range j.conds {
		pf := fit.PF[c]
		v := [4]float64{pf.Alpha, pf.Beta, pf.Gamma, pf.Lambda}
		for p := range 4 {
			if i := j.idx[c][p]; i >= 0 {
				u[i] += j.bounds[p].inverse(v[p])
				n[i]++
			}
		}
	}
	for i := range u {
		u[i] /= float64(n[i])
	}
	return u
}

// FitJoint fits one psychometric function per condition by maximum
// likelihood, with α, β, γ and λ each separate, shared or fixed across
// conditions as opt says: the model of Palamedes' PAL_PFML_FitMultiple
// (Prins & Kingdom 2018). The optimiser is FitPF's (BFGS on the analytic
// gradient inside bounds), started from each condition fitted alone
// (six times when λ is free, see starts).
func FitJoint(conds []Condition, opt JointOptions) (*JointFit, error) {
	opt, err := resolveJoint(conds, opt)
	if err != nil {
		return nil, err
	}
	cs := make([]Condition, len(conds))
	for i, c := range conds {
		cs[i] = Condition{Name: c.Name, Data: slices.Clone(c.Data)}
	}
	j := newJointProblem(cs, opt)
	return j.best(j.starts())
}

// ModelComparison is a likelihood-ratio test of a lesser model nested in
// a fuller one, with both models' AIC.
type ModelComparison struct {
	Lesser *JointFit `json:"lesser"`
	Fuller *JointFit `json:"fuller"`
	// LR is 2·(LogLik fuller − LogLik lesser), the difference of the
	// deviances, and DF the difference of the parameter counts; P is the
	// χ²(DF) probability of an LR at least as large if the lesser model
	// is true (Wilks 1938).
	LR float64 `json:"lr"`
	DF int     `json:"df"`
	P  float64 `json:"p"`
	// MonteCarloP is (1 + #{LR* ≥ LR}) / (1 + Simulations), LR* the
	// ratios of data sets simulated from the lesser fit and refitted by
	// both models; NaN when Simulations is 0.
	MonteCarloP float64 `json:"monte_carlo_p"`
	Simulations int     `json:"simulations"`
	// Alpha is the test's level; PreferFuller says MonteCarloP < Alpha
	// when there were simulations, else P < Alpha.
	Alpha        float64 `json:"alpha"`
	PreferFuller bool    `json:"prefer_fuller"`
	// AICPrefersFuller says the fuller model's AIC is lower.
	AICPrefersFuller bool `json:"aic_prefers_fuller"`
}

// MarshalJSON writes MonteCarloP as null without simulations: JSON has
// no NaN.
func (m ModelComparison) MarshalJSON() ([]byte, error) {
	type plain ModelComparison
	p := struct {
		plain
		MonteCarloP *float64 `json:"monte_carlo_p"`
	}{plain: plain(m)}
	if finite(m.MonteCarloP) {
		p.MonteCarloP = &m.MonteCarloP
	}
	return json.Marshal(p)
}

// CompareOptions configures CompareModelsWith.
type CompareOptions struct {
	// Alpha is the test's level; 0 means 0.05.
	Alpha float64 `json:"alpha,omitempty" toml:"alpha"`
	// Simulations is the number of data sets for the Monte Carlo
	// p-value; 0 means none (the χ² approximation only).
	Simulations int    `json:"simulations,omitempty" toml:"simulations"`
	Seed        uint64 `json:"seed,omitempty" toml:"seed"`
	// Workers is the number of goroutines of the simulations; 0 means 1.
	// The result does not depend on it.
	Workers int `json:"-" toml:"-"`
}

// CompareModelsWith fits the lesser and the fuller model to the same
// conditions and tests the lesser against the fuller, as Palamedes'
// PAL_PFLR_ModelComparison does (Prins & Kingdom 2018). The lesser model
// must be nested in the fuller: same form and bounds, and every parameter
// at most as free (fixed < shared < separate), with a fixed value equal
// to the fuller's when both fix it. Each model is also started from the
// other's maximum, so that the fuller's likelihood is never below the
// lesser's.
//
// The χ² approximation of the ratio's distribution needs large samples;
// at 40 trials per level it rejects a true lesser model more often than
// its level says (see docs/analysis.md), which the Monte Carlo p-value
// does not.
func CompareModelsWith(conds []Condition, lesser, fuller JointOptions, opt CompareOptions) (*ModelComparison, error) {
	if opt.Alpha == 0 {
		opt.Alpha = 0.05
	}
	if !(opt.Alpha > 0 && opt.Alpha < 1) {
		return nil, fmt.Errorf("psych: model comparison: level %g outside (0, 1)", opt.Alpha)
	}
	if opt.Simulations < 0 || opt.Simulations > 100000 {
		return nil, fmt.Errorf("psych: model comparison: %d simulations, want 0..100000", opt.Simulations)
	}
	lf, err := FitJoint(conds, lesser)
	if err != nil {
		return nil, fmt.Errorf("psych: lesser model: %w", err)
	}
	fo, err := resolveJoint(conds, fuller)
	if err != nil {
		return nil, fmt.Errorf("psych: fuller model: %w", err)
	}
	if err := nested(lf.Options, fo); err != nil {
		return nil, err
	}
	ff, err := FitJoint(conds, fuller)
	if err != nil {
		return nil, fmt.Errorf("psych: fuller model: %w", err)
	}
	lf, ff = crossStart(lf, ff)
	m := &ModelComparison{Lesser: lf, Fuller: ff, DF: ff.Params - lf.Params, Alpha: opt.Alpha,
		MonteCarloP: nan, Simulations: opt.Simulations}
	if m.DF < 1 {
		return nil, fmt.Errorf("psych: model comparison: the fuller model has %d parameters, the lesser %d", ff.Params, lf.Params)
	}
	m.LR = math.Max(2*(ff.LogLik-lf.LogLik), 0)
	m.P = distuv.ChiSquared{K: float64(m.DF)}.Survival(m.LR)
	m.PreferFuller = m.P < opt.Alpha
	m.AICPrefersFuller = ff.AIC < lf.AIC
	if opt.Simulations > 0 {
		m.MonteCarloP = monteCarloP(lf, ff.Options, m.LR, opt)
		m.PreferFuller = m.MonteCarloP < opt.Alpha
	}
	return m, nil
}

// nested reports why the lesser model's options are not nested in the
// fuller's.
func nested(lo, fo JointOptions) error {
	ls, fs := lo.sharings(), fo.sharings()
	fixedL, fixedF := [4]float64{0, 0, lo.Gamma, lo.Lambda}, [4]float64{0, 0, fo.Gamma, fo.Lambda}
	for p := range 4 {
		if ls[p].rank() > fs[p].rank() {
			return fmt.Errorf("psych: model comparison: %s is %s in the lesser model but %s in the fuller: not nested", paramNames[p], ls[p], fs[p])
		}
		if ls[p] == Fixed && fs[p] == Fixed && fixedL[p] != fixedF[p] {
			return fmt.Errorf("psych: model comparison: %s fixed at %g in the lesser model and %g in the fuller: not nested", paramNames[p], fixedL[p], fixedF[p])
		}
	}
	if lo.Form != fo.Form || lo.AlphaMin != fo.AlphaMin || lo.AlphaMax != fo.AlphaMax || lo.BetaMin != fo.BetaMin || lo.BetaMax != fo.BetaMax ||
		lo.GammaMax != fo.GammaMax || lo.LambdaMax != fo.LambdaMax || lo.Criterion != fo.Criterion {
		return fmt.Errorf("psych: model comparison: the models differ in form, bounds or criterion: not nested")
	}
	return nil
}

// crossStart refits each model from the other's maximum and keeps the
// better of each pair.
func crossStart(lf, ff *JointFit) (*JointFit, *JointFit) {
	jf := newJointProblem(ff.Data, ff.Options)
	if alt, err := jf.minimise(jf.coords(lf)); err == nil && alt.LogLik > ff.LogLik {
		ff = alt
	}
	jl := newJointProblem(lf.Data, lf.Options)
	if alt, err := jl.minimise(jl.coords(ff)); err == nil && alt.LogLik > lf.LogLik {
		lf = alt
	}
	return lf, ff
}

// monteCarloP simulates data sets from the lesser fit at its stimuli and
// trial counts, fits both models to each as CompareModelsWith fits the
// data (the fuller from all its starts, the lesser from the generating
// parameters, then crossStart) and returns the fraction of ratios at
// least lr. A fuller model fitted from fewer starts than the data's
// would miss its maximum more often, shrink the simulated ratios and
// make the test liberal. Replicate b draws from PCG(Seed, b) whatever
// the number of workers.
func monteCarloP(lf *JointFit, fo JointOptions, lr float64, opt CompareOptions) float64 {
	exceed := make([]bool, opt.Simulations)
	one := func(b int) {
		r := newRNG(opt.Seed, uint64(b))
		conds := make([]Condition, len(lf.Data))
		for c, cond := range lf.Data {
			conds[c] = Condition{Name: cond.Name, Data: make([]Point, len(cond.Data))}
			for i, d := range cond.Data {
				p := lf.PF[c].Prob(d.X)
				conds[c].Data[i] = Point{X: d.X, N: d.N}
				for range d.N {
					if r.float64() < p {
						conds[c].Data[i].K++
					}
				}
			}
		}
		jl := newJointProblem(conds, lf.Options)
		l, err := jl.minimise(jl.coords(lf))
		if err != nil {
			exceed[b] = true // counted against the fuller model
			return
		}
		jf := newJointProblem(conds, fo)
		f, err := jf.best(append(jf.starts(), jf.coords(l)))
		if err != nil {
			return
		}
		l, f = crossStart(l, f)
		exceed[b] = 2*(f.LogLik-l.LogLik) >= lr
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range max(opt.Workers, 1) {
		wg.Go(func() {
			for b := range next {
				one(b)
			}
		})
	}
	for b := range opt.Simulations {
		next <- b
	}
	close(next)
	wg.Wait()
	n := 0
	for _, e := range exceed {
		if e {
			n++
		}
	}
	return float64(1+n) / float64(1+opt.Simulations)
}

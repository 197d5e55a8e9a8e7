package psych

import (
	"fmt"
	"math"
	"slices"

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
	AtBound []string     `json:"at_bound,omitempty"`
	Status  string       `json:"status"`
	Options JointOptions `json:"options"` // with defaults and bounds resolved
	Data    []Condition  `json:"data"`
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
		return opt, fmt.Errorf("psych: joint %w", err)
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
			if i := j.idx[c][q]; i >= 0 {
				grad[i] += g[q] * dp[q]
			}
		}
	}
	return v
}

// start returns starting coordinates: each condition fitted alone (γ and
// λ fixed at their starts), shared parameters at the mean of the
// conditions' coordinates.
func (j *jointProblem) start() []float64 {
	u := make([]float64, j.dim)
	n := make([]int, j.dim)
	for c, cond := range j.conds {
		v := [4]float64{0, 0, j.opt.Gamma, j.opt.Lambda}
		f, err := FitPF(cond.Data, FitOptions{Form: j.opt.Form, Gamma: j.opt.Gamma, Lambda: j.opt.Lambda, Criterion: j.opt.Criterion,
			AlphaMin: j.opt.AlphaMin, AlphaMax: j.opt.AlphaMax, BetaMin: j.opt.BetaMin, BetaMax: j.opt.BetaMax})
		if err == nil {
			v[0], v[1] = f.PF.Alpha, f.PF.Beta
		} else {
			// A condition with a single level (shared α and β) says
			// nothing alone: start from the middle of the bounds.
			a, _ := j.bounds[0].value(0)
			b, _ := j.bounds[1].value(0)
			v[0], v[1] = a, b
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
	return u
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

// coords returns fit's parameters as coordinates of this problem, whose
// sharing may be looser than fit's.
func (j *jointProblem) coords(fit *JointFit) []float64 {
	u := make([]float64, j.dim)
	for c := range j.conds {
		pf := fit.PF[c]
		v := [4]float64{pf.Alpha, pf.Beta, pf.Gamma, pf.Lambda}
		for p := range 4 {
			if i := j.idx[c][p]; i >= 0 {
				u[i] = j.bounds[p].inverse(v[p])
			}
		}
	}
	return u
}

// FitJoint fits one psychometric function per condition by maximum
// likelihood, with α, β, γ and λ each separate, shared or fixed across
// conditions as opt says: the model of Palamedes' PAL_PFML_FitMultiple
// (Prins & Kingdom 2018). The optimiser is FitPF's (BFGS on the analytic
// gradient inside bounds), started from each condition fitted alone.
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
	return j.minimise(j.start())
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
	// Alpha is the test's level; PreferFuller says P < Alpha.
	Alpha        float64 `json:"alpha"`
	PreferFuller bool    `json:"prefer_fuller"`
	// AICPrefersFuller says the fuller model's AIC is lower.
	AICPrefersFuller bool `json:"aic_prefers_fuller"`
}

// CompareModels fits the lesser and the fuller model to the same
// conditions and tests the lesser against the fuller, as Palamedes'
// PAL_PFLR_ModelComparison does with its χ² approximation. The lesser
// model must be nested in the fuller: same form and bounds, and every
// parameter at most as free (fixed < shared < separate), with a fixed
// value equal to the fuller's when both fix it. The fuller model is also
// started from the lesser's maximum, so that its likelihood is never
// below the lesser's. alpha is the test's level; 0 means 0.05.
func CompareModels(conds []Condition, lesser, fuller JointOptions, alpha float64) (*ModelComparison, error) {
	if alpha == 0 {
		alpha = 0.05
	}
	if !(alpha > 0 && alpha < 1) {
		return nil, fmt.Errorf("psych: model comparison: level %g outside (0, 1)", alpha)
	}
	lf, err := FitJoint(conds, lesser)
	if err != nil {
		return nil, fmt.Errorf("psych: lesser model: %w", err)
	}
	fo, err := resolveJoint(conds, fuller)
	if err != nil {
		return nil, fmt.Errorf("psych: fuller model: %w", err)
	}
	lo := lf.Options
	ls, fs := lo.sharings(), fo.sharings()
	fixedL, fixedF := [4]float64{0, 0, lo.Gamma, lo.Lambda}, [4]float64{0, 0, fo.Gamma, fo.Lambda}
	for p := range 4 {
		if ls[p].rank() > fs[p].rank() {
			return nil, fmt.Errorf("psych: model comparison: %s is %s in the lesser model but %s in the fuller: not nested", paramNames[p], ls[p], fs[p])
		}
		if ls[p] == Fixed && fs[p] == Fixed && fixedL[p] != fixedF[p] {
			return nil, fmt.Errorf("psych: model comparison: %s fixed at %g in the lesser model and %g in the fuller: not nested", paramNames[p], fixedL[p], fixedF[p])
		}
	}
	if lo.Form != fo.Form || lo.AlphaMin != fo.AlphaMin || lo.AlphaMax != fo.AlphaMax || lo.BetaMin != fo.BetaMin || lo.BetaMax != fo.BetaMax ||
		lo.GammaMax != fo.GammaMax || lo.LambdaMax != fo.LambdaMax || lo.Criterion != fo.Criterion {
		return nil, fmt.Errorf("psych: model comparison: the models differ in form, bounds or criterion: not nested")
	}
	ff, err := FitJoint(conds, fuller)
	if err != nil {
		return nil, fmt.Errorf("psych: fuller model: %w", err)
	}
	j := newJointProblem(ff.Data, fo)
	if alt, err := j.minimise(j.coords(lf)); err == nil && alt.LogLik > ff.LogLik {
		ff = alt
	}
	m := &ModelComparison{Lesser: lf, Fuller: ff, DF: ff.Params - lf.Params, Alpha: alpha}
	if m.DF < 1 {
		return nil, fmt.Errorf("psych: model comparison: the fuller model has %d parameters, the lesser %d", ff.Params, lf.Params)
	}
	m.LR = math.Max(2*(ff.LogLik-lf.LogLik), 0)
	m.P = distuv.ChiSquared{K: float64(m.DF)}.Survival(m.LR)
	m.PreferFuller = m.P < alpha
	m.AICPrefersFuller = ff.AIC < lf.AIC
	return m, nil
}

package psych

import (
	"fmt"
	"math"
)

var nan = math.NaN()

// Form is the shape F of a psychometric function. See the package
// documentation for the exact parameterisation of each form.
type Form int

const (
	// Logistic is F(x) = 1 / (1 + exp(−β(x − α))).
	Logistic Form = iota
	// CumNormal is F(x) = Φ(β(x − α)), the cumulative normal with mean α
	// and standard deviation σ = 1/β.
	CumNormal
	// Weibull is F(x) = 1 − exp(−(x/α)^β) for x > 0 and 0 otherwise. α is
	// the stimulus at F = 1 − 1/e ≈ 0.632, not at F = 0.5.
	Weibull
)

var formNames = [...]string{Logistic: "logistic", CumNormal: "cumnormal", Weibull: "weibull"}

func (f Form) String() string {
	if f < 0 || int(f) >= len(formNames) {
		return fmt.Sprintf("Form(%d)", int(f))
	}
	return formNames[f]
}

// MarshalText implements encoding.TextMarshaler.
func (f Form) MarshalText() ([]byte, error) {
	if f < 0 || int(f) >= len(formNames) {
		return nil, fmt.Errorf("psych: unknown form %d", int(f))
	}
	return []byte(formNames[f]), nil
}

// UnmarshalText implements encoding.TextUnmarshaler; "normal" and "probit"
// are accepted for "cumnormal".
func (f *Form) UnmarshalText(b []byte) error {
	switch string(b) {
	case "normal", "probit":
		*f = CumNormal
		return nil
	}
	for i, n := range formNames {
		if string(b) == n {
			*f = Form(i)
			return nil
		}
	}
	return fmt.Errorf("psych: unknown form %q (want logistic, cumnormal or weibull)", b)
}

func (f Form) valid() bool { return f >= Logistic && f <= Weibull }

// cdf returns F and 1 − F, each computed without cancellation.
func (f Form) cdf(x, alpha, beta float64) (F, Fc float64) {
	switch f {
	case Logistic:
		z := beta * (x - alpha)
		return sigmoid(z), sigmoid(-z)
	case CumNormal:
		z := beta * (x - alpha)
		return 0.5 * math.Erfc(-z/math.Sqrt2), 0.5 * math.Erfc(z/math.Sqrt2)
	case Weibull:
		if x <= 0 {
			return 0, 1
		}
		w := math.Pow(x/alpha, beta)
		return -math.Expm1(-w), math.Exp(-w)
	}
	return nan, nan
}

// pdf returns dF/dx.
func (f Form) pdf(x, alpha, beta float64) float64 {
	switch f {
	case Logistic:
		z := beta * (x - alpha)
		return beta * sigmoid(z) * sigmoid(-z)
	case CumNormal:
		z := beta * (x - alpha)
		return beta * math.Exp(-z*z/2) / math.Sqrt(2*math.Pi)
	case Weibull:
		if x <= 0 {
			return 0
		}
		w := math.Pow(x/alpha, beta)
		return beta / x * w * math.Exp(-w)
	}
	return nan
}

// eval returns F, 1 − F, ∂F/∂α and ∂F/∂β in one pass.
func (f Form) eval(x, alpha, beta float64) (F, Fc, dAlpha, dBeta float64) {
	switch f {
	case Logistic:
		z := beta * (x - alpha)
		F, Fc = sigmoid(z), sigmoid(-z)
		d := F * Fc
		return F, Fc, -beta * d, (x - alpha) * d
	case CumNormal:
		z := beta * (x - alpha)
		d := math.Exp(-z*z/2) / math.Sqrt(2*math.Pi)
		return 0.5 * math.Erfc(-z/math.Sqrt2), 0.5 * math.Erfc(z/math.Sqrt2), -beta * d, (x - alpha) * d
	case Weibull:
		if x <= 0 {
			return 0, 1, 0, 0
		}
		l := math.Log(x / alpha)
		w := math.Exp(beta * l)
		Fc = math.Exp(-w)
		d := w * Fc
		return -math.Expm1(-w), Fc, -beta / alpha * d, l * d
	}
	return nan, nan, nan, nan
}

// quantile returns the x at which F = c, 0 < c < 1.
func (f Form) quantile(c, alpha, beta float64) float64 {
	switch f {
	case Logistic:
		return alpha + math.Log(c/(1-c))/beta
	case CumNormal:
		return alpha + probit(c)/beta
	case Weibull:
		return alpha * math.Pow(-math.Log1p(-c), 1/beta)
	}
	return nan
}

// alphaFor returns the α that puts F = c at x = t for the given β.
func (f Form) alphaFor(t, beta, c float64) float64 {
	switch f {
	case Logistic:
		return t - math.Log(c/(1-c))/beta
	case CumNormal:
		return t - probit(c)/beta
	case Weibull:
		return t / math.Pow(-math.Log1p(-c), 1/beta)
	}
	return nan
}

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

// probit is Φ⁻¹, the standard normal quantile.
func probit(p float64) float64 { return -math.Sqrt2 * math.Erfcinv(2*p) }

// PF is a psychometric function
//
//	ψ(x) = γ + (1 − γ − λ)·F(x; α, β)
//
// with guess rate γ (1/m for m-AFC, the false-alarm rate for yes/no) and
// lapse rate λ. Alpha and Beta mean what the Form says; Threshold and
// Slope give form-independent quantities.
type PF struct {
	Form   Form    `json:"form" toml:"form"`
	Alpha  float64 `json:"alpha" toml:"alpha"`
	Beta   float64 `json:"beta" toml:"beta"`
	Gamma  float64 `json:"gamma" toml:"gamma"`
	Lambda float64 `json:"lambda" toml:"lambda"`
}

// NewPF returns the psychometric function of the given form whose
// threshold at criterion c (the x where F = c) is threshold. It is how an
// observer or a model-based procedure is specified without knowing where
// each form puts α.
func NewPF(form Form, threshold, c, beta, gamma, lambda float64) (PF, error) {
	if !(c > 0 && c < 1) {
		return PF{}, fmt.Errorf("psych: criterion %g outside (0, 1)", c)
	}
	p := PF{Form: form, Alpha: form.alphaFor(threshold, beta, c), Beta: beta, Gamma: gamma, Lambda: lambda}
	if err := p.Validate(); err != nil {
		return PF{}, err
	}
	return p, nil
}

// Validate reports whether the parameters describe a psychometric function.
func (p PF) Validate() error {
	if !p.Form.valid() {
		return fmt.Errorf("psych: unknown form %d", int(p.Form))
	}
	if !finite(p.Alpha) || (p.Form == Weibull && p.Alpha <= 0) {
		return fmt.Errorf("psych: %s alpha %g invalid", p.Form, p.Alpha)
	}
	if !finite(p.Beta) || p.Beta <= 0 {
		return fmt.Errorf("psych: %s beta %g must be positive", p.Form, p.Beta)
	}
	if !(p.Gamma >= 0 && p.Lambda >= 0 && p.Gamma+p.Lambda < 1) {
		return fmt.Errorf("psych: guess rate %g and lapse rate %g must be >= 0 with sum < 1", p.Gamma, p.Lambda)
	}
	return nil
}

// Prob returns ψ(x), the probability of a positive response at x.
func (p PF) Prob(x float64) float64 {
	F, _ := p.Form.cdf(x, p.Alpha, p.Beta)
	return p.Gamma + (1-p.Gamma-p.Lambda)*F
}

// probs returns ψ(x) and 1 − ψ(x), the latter without cancellation.
func (p PF) probs(x float64) (ps, qs float64) {
	F, Fc := p.Form.cdf(x, p.Alpha, p.Beta)
	s := 1 - p.Gamma - p.Lambda
	return p.Gamma + s*F, p.Lambda + s*Fc
}

// Threshold returns the stimulus at which F(x) = c, that is, the point a
// fraction c of the way from the guess rate to 1 − λ. With c = 0.5 this
// is 75% correct in 2AFC with λ = 0 and 50% yes in yes/no with γ = λ = 0.
func (p PF) Threshold(c float64) float64 {
	if !(c > 0 && c < 1) {
		return nan
	}
	return p.Form.quantile(c, p.Alpha, p.Beta)
}

// Inverse returns the stimulus at which ψ(x) = prob. It fails when prob is
// not strictly between γ and 1 − λ.
func (p PF) Inverse(prob float64) (float64, error) {
	c := (prob - p.Gamma) / (1 - p.Gamma - p.Lambda)
	if !(c > 0 && c < 1) {
		return nan, fmt.Errorf("psych: probability %g outside (γ, 1−λ) = (%g, %g)", prob, p.Gamma, 1-p.Lambda)
	}
	return p.Form.quantile(c, p.Alpha, p.Beta), nil
}

// Slope returns dψ/dx at x, in probability per stimulus unit.
func (p PF) Slope(x float64) float64 {
	return (1 - p.Gamma - p.Lambda) * p.Form.pdf(x, p.Alpha, p.Beta)
}

// SlopeAt returns dψ/dx at the threshold for criterion c. This is the
// "slope" every fit reports: unlike β, it means the same for every form.
func (p PF) SlopeAt(c float64) float64 { return p.Slope(p.Threshold(c)) }

// ThresholdSDBound returns the Cramér–Rao lower bound on the standard
// deviation of any unbiased estimate of the threshold at criterion c from
// n trials, in stimulus units, when form, β, γ and λ are known and every
// trial is placed at the single most informative stimulus. No procedure
// does better; it tells how many trials a target precision needs. For the
// Weibull the bound is computed on ln(threshold) and returned as
// threshold × SD(ln threshold).
func (p PF) ThresholdSDBound(c float64, n int) float64 {
	t := p.Threshold(c)
	best := 0.0
	for i := 1; i < 2000; i++ {
		x := p.Threshold(float64(i) / 2000)
		d := p.Slope(x) // |∂ψ/∂t| for a location family
		if p.Form == Weibull {
			d *= x / t // ψ depends on x/t only
		}
		ps, qs := p.probs(x)
		if info := d * d / (ps * qs); info > best {
			best = info
		}
	}
	return 1 / math.Sqrt(float64(n)*best)
}

// ThresholdSDBoundFreeSlope is ThresholdSDBound when β is unknown too
// (form, γ and λ known): the Cramér–Rao bound on the threshold with β as a
// nuisance parameter, under the best possible placement of the n trials.
// It is the floor for Psi, which must learn β, as ThresholdSDBound is for
// QUEST, which is told it.
//
// The best placement for one parameter of a two-parameter model follows
// from Elfving's theorem: with f(x) = ∇ψ(x)/√(ψ(1−ψ)) the per-trial score
// in (threshold, β), the least variance is 1/(n·ρ²), where ρ = min over v
// of max over x of |f_t(x) + v·f_β(x)|, the support function of the
// Elfving set in the threshold's direction. Where the sweet point is the
// threshold itself (yes/no with γ = λ) knowing β is worth nothing. In
// forced choice the sweet point lies above the threshold, where ψ depends
// on β; for the 2AFC Weibull the best design then puts every trial at the
// threshold, where it does not: 9.5% instead of 7.3% at 60 trials for
// β = 3.5.
func (p PF) ThresholdSDBoundFreeSlope(c float64, n int) float64 {
	t := p.Threshold(c)
	const m = 2000
	var a, b [m - 1]float64
	var amax, bmax float64
	for i := range a {
		x := p.Threshold(float64(i+1) / m)
		ps, qs := p.probs(x)
		s := p.Slope(x) / math.Sqrt(ps*qs)
		// ∂ψ/∂t and ∂ψ/∂β at fixed threshold t (so that α moves with β).
		switch p.Form {
		case Weibull:
			a[i], b[i] = -s*x/t, s*x*math.Log(x/t)/p.Beta
		default:
			a[i], b[i] = -s, s*(x-t)/p.Beta
		}
		amax, bmax = math.Max(amax, math.Abs(a[i])), math.Max(bmax, math.Abs(b[i]))
	}
	rho := func(v float64) float64 {
		var r float64
		for i := range a {
			r = math.Max(r, math.Abs(a[i]+v*b[i]))
		}
		return r
	}
	// ρ(v) is convex; beyond |v| = 2·amax/bmax it exceeds ρ(0) = amax.
	lo, hi := -2*amax/bmax, 2*amax/bmax
	for range 100 {
		m1, m2 := lo+(hi-lo)/3, hi-(hi-lo)/3
		if rho(m1) < rho(m2) {
			hi = m2
		} else {
			lo = m1
		}
	}
	return 1 / (math.Sqrt(float64(n)) * rho((lo+hi)/2))
}

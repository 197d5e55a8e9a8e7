package psych

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// PosteriorOptions configures FitPosterior. The zero value (with Form set)
// is psignifit 4's model with its default priors for a 2AFC task.
type PosteriorOptions struct {
	Form Form `json:"form" toml:"form"`
	// Gamma is the guess rate, fixed (1/m for m-AFC). FreeGamma makes it a
	// parameter with psignifit's prior, Beta(1, 10) on [0, 0.5] (yes/no).
	Gamma     float64 `json:"gamma" toml:"gamma"`
	FreeGamma bool    `json:"free_gamma,omitempty" toml:"free_gamma"`
	// Criterion is the F level of the threshold (0: 0.5, psignifit's).
	Criterion float64 `json:"criterion,omitempty" toml:"criterion"`
	// Level is the probability of the credible intervals (0: 0.95).
	Level float64 `json:"level,omitempty" toml:"level"`
	// Targets are the probabilities of a positive response (ψ) at which
	// the threshold is also reported, such as a staircase's 0.707.
	Targets []float64 `json:"targets,omitempty" toml:"-"`
	// StimulusRange is the range of stimuli the procedure could present;
	// the threshold prior's flanks reach towards it (see Posterior).
	// Zero: the tested stimuli's range, which suits the method of constant
	// stimuli but not an adaptive procedure that concentrates its trials
	// on one side of the threshold.
	StimulusRange [2]float64 `json:"stimulus_range,omitempty" toml:"-"`
	// Binomial fixes the overdispersion η at 0: every trial independent
	// with the same probability. By default η is a parameter (beta-
	// binomial, psignifit 4's prior Beta(1, 10)).
	Binomial bool `json:"binomial,omitempty" toml:"binomial"`
}

// Quantity is a posterior summary: the median of the marginal posterior
// and the central credible interval of PosteriorOptions.Level.
type Quantity struct {
	Median float64 `json:"median"`
	Lo     float64 `json:"lo"`
	Hi     float64 `json:"hi"`
}

// TargetThreshold is the threshold at a probability of a positive
// response.
type TargetThreshold struct {
	P         float64  `json:"p"`
	Threshold Quantity `json:"threshold"`
	// Unreached is the posterior probability that ψ never reaches P (a
	// lapse rate above 1 − P); those cells count as an infinite threshold.
	Unreached float64 `json:"unreached,omitempty"`
}

// Posterior is a Bayesian fit of a psychometric function after psignifit 4
// (Schütt, Harmeling, Macke & Wichmann, Vision Research 122:105–123,
// 2016): the posterior over threshold, width, lapse rate (and guess rate
// for yes/no) and overdispersion on a grid, with psignifit's default
// priors, summarised by marginal medians and central credible intervals.
//
// The model is ψ(x) = γ + (1 − γ − λ)·F(x), F = G(z_c + C·(s − t)/w) with s
// the stimulus (its logarithm for the Weibull, whose G is then the Gumbel),
// t the threshold at F = Criterion, w the width from F = 0.05 to 0.95, and
// C = G⁻¹(0.95) − G⁻¹(0.05). Each level's correct count is beta-binomial
// with the mean ψ and a variance inflated by η² (η = 0 is binomial).
//
// The priors, on the s axis, are psignifit 4's with three changes that
// the interval coverage on adaptive data needs (TestIntervalCoverage;
// docs/experiments.md gives the figures of each variant):
//
//   - t: flat over the tested stimuli, with cosine flanks falling to 0 at
//     half the tested range beyond each end (psignifit) or, where
//     StimulusRange reaches further, as far as it does, up to a whole
//     tested range;
//   - w: psignifit's shape (flat between twice the smallest distance
//     between two levels and the tested range, cosine flanks to 0 at the
//     smallest distance and at three times the range) but flat in ln w,
//     not in w;
//   - λ and η: Beta(1, 20) (psignifit: Beta(1, 10)); γ Beta(1, 10).
//
// They keep a step-like data set from giving an infinitely steep function
// with a falsely narrow interval: the width's posterior then spreads over
// the steep end the prior allows, and the threshold's interval with it.
type Posterior struct {
	Options PosteriorOptions `json:"options"` // with defaults resolved
	Data    []Point          `json:"data"`
	// Threshold is the threshold at Criterion (the x where F = Criterion).
	Threshold Quantity          `json:"threshold"`
	AtTargets []TargetThreshold `json:"at_targets,omitempty"`
	// Slope is dψ/dx at the threshold; Width the width parameter on the
	// fit's axis (ln x for the Weibull).
	Slope  Quantity `json:"slope"`
	Width  Quantity `json:"width"`
	Lambda Quantity `json:"lambda"`
	Gamma  Quantity `json:"gamma"`
	Eta    Quantity `json:"eta"`
	// PF is the function at the marginal medians of t, w, λ and γ (what a
	// plot draws); its Threshold(Criterion) is Threshold.Median.
	PF PF `json:"pf"`
	// Range is the tested stimulus range [min, max].
	Range [2]float64 `json:"range"`
	// Warnings say what of the result the data do not support.
	Warnings []string `json:"warnings,omitempty"`
}

// Width of the function is measured between these F levels (psignifit's
// width_alpha = 0.05).
const widthAlpha = 0.05

// core is a posterior model's G, on the fit's axis s.
type core struct {
	form Form
}

func (g core) cdf(z float64) float64 {
	switch g.form {
	case Logistic:
		return 1 / (1 + math.Exp(-z))
	case CumNormal:
		return 0.5 * math.Erfc(-z/math.Sqrt2)
	}
	return -math.Expm1(-math.Exp(z)) // Gumbel (minimum): the Weibull in ln x
}

func (g core) pdf(z float64) float64 {
	switch g.form {
	case Logistic:
		e := math.Exp(-math.Abs(z))
		return e / ((1 + e) * (1 + e))
	case CumNormal:
		return math.Exp(-z*z/2) / math.Sqrt(2*math.Pi)
	}
	e := math.Exp(z)
	return e * math.Exp(-e)
}

func (g core) inv(p float64) float64 {
	switch g.form {
	case Logistic:
		return math.Log(p / (1 - p))
	case CumNormal:
		return probit(p)
	}
	return math.Log(-math.Log1p(-p))
}

// axis maps a stimulus to the fit's axis s and back.
func (g core) axis(x float64) float64 {
	if g.form == Weibull {
		return math.Log(x)
	}
	return x
}

func (g core) stimulus(s float64) float64 {
	if g.form == Weibull {
		return math.Exp(s)
	}
	return s
}

// posteriorGrid is one pass of the grid: the parameter values per axis and
// their trapezoid weights.
type posteriorGrid struct {
	t, w, l, g, e      []float64
	tw, ww, lw, gw, ew []float64
}

// FitPosterior computes the posterior of a psychometric function's
// parameters given data (see Posterior).
//
// The posterior is evaluated twice on a grid: once over the prior's whole
// support, then over the region holding all but 1e-5 of each marginal,
// more finely. The intervals are percentiles of the marginals (the
// threshold's) or of the posterior distribution of a derived quantity
// (thresholds at targets, the slope), with the cells' masses as weights.
func FitPosterior(data []Point, opt PosteriorOptions) (*Posterior, error) {
	if !opt.Form.valid() {
		return nil, fmt.Errorf("psych: posterior: unknown form %d", int(opt.Form))
	}
	if opt.Criterion == 0 {
		opt.Criterion = 0.5
	}
	if opt.Level == 0 {
		opt.Level = 0.95
	}
	if !(opt.Criterion > 0 && opt.Criterion < 1) || !(opt.Level > 0 && opt.Level < 1) {
		return nil, fmt.Errorf("psych: posterior: criterion %g and level %g must be in (0, 1)", opt.Criterion, opt.Level)
	}
	if !opt.FreeGamma && !(opt.Gamma >= 0 && opt.Gamma < 1) {
		return nil, fmt.Errorf("psych: posterior: guess rate %g outside [0, 1)", opt.Gamma)
	}
	for _, p := range opt.Targets {
		if !(p > 0 && p < 1) {
			return nil, fmt.Errorf("psych: posterior: target probability %g outside (0, 1)", p)
		}
	}
	g := core{opt.Form}
	pts := make([]Point, 0, len(data))
	for i, d := range data {
		if !finite(d.X) || d.N < 1 || d.K < 0 || d.K > d.N {
			return nil, fmt.Errorf("psych: posterior: point %d (x=%g, k=%d, n=%d) invalid", i, d.X, d.K, d.N)
		}
		if opt.Form == Weibull && d.X <= 0 {
			return nil, errors.New("psych: posterior: a Weibull needs positive stimuli")
		}
		pts = append(pts, d)
	}
	slices.SortFunc(pts, func(a, b Point) int {
		switch {
		case a.X < b.X:
			return -1
		case a.X > b.X:
			return 1
		}
		return 0
	})
	s := make([]float64, len(pts))
	for i, d := range pts {
		s[i] = g.axis(d.X)
	}
	wmin := math.Inf(1)
	for i := 1; i < len(s); i++ {
		if d := s[i] - s[i-1]; d > 0 {
			wmin = math.Min(wmin, d)
		}
	}
	if math.IsInf(wmin, 1) {
		return nil, fmt.Errorf("psych: posterior: %d stimulus levels, need at least 2", len(pts))
	}
	lo, hi := s[0], s[len(s)-1]
	if r := opt.StimulusRange; r != [2]float64{} {
		if !(r[0] < r[1]) || !finite(r[0]) || !finite(r[1]) || (opt.Form == Weibull && r[0] <= 0) {
			return nil, fmt.Errorf("psych: posterior: stimulus range [%g, %g] invalid", r[0], r[1])
		}
		lo, hi = math.Min(lo, g.axis(r[0])), math.Max(hi, g.axis(r[1]))
	}
	// The tested range carries the flat part of the threshold prior and
	// sets the width prior; the flanks reach half of it beyond each end,
	// or as far as the procedure's range goes, up to the whole of it.
	sp := s[len(s)-1] - s[0]
	m := &postModel{g: g, opt: opt, pts: pts, s: s, lo: s[0], hi: s[len(s)-1], wmin: wmin, wspread: sp,
		flo: math.Min(math.Max(sp/2, s[0]-lo), sp), fhi: math.Min(math.Max(sp/2, hi-s[len(s)-1]), sp)}
	m.zc = g.inv(opt.Criterion)
	m.c = g.inv(1-widthAlpha) - g.inv(widthAlpha)

	// Pass 1 over the priors' support, pass 2 over where the mass is.
	gmax := 0.0
	if opt.FreeGamma {
		gmax = 0.5
	}
	emax := 0.0
	if !opt.Binomial {
		emax = 0.99
	}
	b := [5][2]float64{
		{m.lo - m.flo, m.hi + m.fhi}, {wmin, 3 * m.wspread}, {0, 0.5}, {0, gmax}, {0, emax},
	}
	coarse := m.grid(b, [5]int{25, 25, 8, 8, 6})
	mass := m.evaluate(coarse)
	b = coarse.bounds(mass, b)
	fine := m.grid(b, [5]int{40, 32, 10, 10, 6})
	mass = m.evaluate(fine)
	return m.summarise(fine, mass), nil
}

// postModel holds what every cell's likelihood needs: the points, their
// stimuli on the fit's axis (s), the tested range and smallest spacing
// there, and the sigmoid's z at the criterion (zc) and width span (c).
type postModel struct {
	g        core
	opt      PosteriorOptions
	pts      []Point
	s        []float64
	lo, hi   float64
	wmin     float64
	wspread  float64
	flo, fhi float64 // the threshold prior's flanks below lo and above hi
	zc, c    float64
}

// grid lays out one pass: t uniform, w logarithmic, λ, γ and η uniform;
// an axis whose bounds coincide is one point.
func (m *postModel) grid(b [5][2]float64, n [5]int) *posteriorGrid {
	axis := func(lo, hi float64, n int, log bool) ([]float64, []float64) {
		if !(hi > lo) {
			return []float64{lo}, []float64{1}
		}
		v := make([]float64, n)
		for i := range v {
			f := float64(i) / float64(n-1)
			if log && lo > 0 {
				v[i] = lo * math.Pow(hi/lo, f)
			} else {
				v[i] = lo + (hi-lo)*f
			}
		}
		return v, trapezoid(v)
	}
	pg := &posteriorGrid{}
	pg.t, pg.tw = axis(b[0][0], b[0][1], n[0], false)
	pg.w, pg.ww = axis(b[1][0], b[1][1], n[1], true)
	pg.l, pg.lw = axis(b[2][0], b[2][1], n[2], false)
	pg.g, pg.gw = axis(b[3][0], b[3][1], n[3], false)
	if !m.opt.FreeGamma {
		pg.g, pg.gw = []float64{m.opt.Gamma}, []float64{1}
	}
	pg.e, pg.ew = axis(b[4][0], b[4][1], n[4], false)
	return pg
}

// trapezoid returns the composite trapezoid weights of the points v.
func trapezoid(v []float64) []float64 {
	w := make([]float64, len(v))
	for i := 1; i < len(v); i++ {
		h := (v[i] - v[i-1]) / 2
		w[i-1] += h
		w[i] += h
	}
	return w
}

// Default priors (psignifit 4).
func (m *postModel) priorT(t float64) float64 {
	switch {
	case t > m.lo && t < m.hi:
		return 1
	case t >= m.lo-m.flo && t <= m.lo:
		return (1 + math.Cos(math.Pi*(m.lo-t)/m.flo)) / 2
	case t >= m.hi && t <= m.hi+m.fhi:
		return (1 + math.Cos(math.Pi*(t-m.hi)/m.fhi)) / 2
	}
	return 0
}

// priorW is the width prior: psignifit's shape, flat between twice the
// smallest level spacing and the tested range with cosine flanks, but
// flat in ln w rather than in w.
func (m *postModel) priorW(w float64) float64 {
	return m.priorWShape(w) / w
}

func (m *postModel) priorWShape(w float64) float64 {
	sp, lo := m.wspread, m.wmin
	switch {
	case w > 2*lo && w < sp:
		return 1
	case w >= lo && w <= 2*lo:
		return (1 - math.Cos(math.Pi*(w-lo)/lo)) / 2
	case w >= sp && w <= 3*sp:
		return (1 + math.Cos(math.Pi/2*(w-sp)/sp)) / 2
	}
	return 0
}

// lapsePrior is the Beta(1, 20) density: the prior of the lapse rate and
// of the overdispersion.
func lapsePrior(x float64) float64 {
	if x < 0 || x >= 1 {
		return 0
	}
	return 20 * math.Pow(1-x, 19)
}

// betaPrior is the Beta(1, 10) density: the guess rate's prior.
func betaPrior(x float64) float64 {
	if x < 0 || x >= 1 {
		return 0
	}
	return 10 * math.Pow(1-x, 9)
}

// evaluate returns each cell's posterior mass (density times the cell's
// weight, summing to 1), indexed [t][w][l][g][e] flattened.
func (m *postModel) evaluate(pg *posteriorGrid) []float64 {
	nt, nw, nl, ng, ne := len(pg.t), len(pg.w), len(pg.l), len(pg.g), len(pg.e)
	lp := make([]float64, nt*nw*nl*ng*ne)
	np := len(m.pts)
	F := make([]float64, np)
	// The beta-binomial's normalising term ln Γ(v)/Γ(n+v) per η and point.
	vs := make([]float64, ne)
	norm := make([]float64, ne)
	for ie, eta := range pg.e {
		if eta <= 1e-9 {
			continue
		}
		v := 1/(eta*eta) - 1
		vs[ie] = v
		for _, d := range m.pts {
			norm[ie] -= lnRising(v, d.N)
		}
	}
	logPrior := func(v float64) float64 {
		if v <= 0 {
			return math.Inf(-1)
		}
		return math.Log(v)
	}
	idx := 0
	for _, t := range pg.t {
		pt := logPrior(m.priorT(t))
		for _, w := range pg.w {
			pw := pt + logPrior(m.priorW(w))
			for i, s := range m.s {
				F[i] = m.g.cdf(m.zc + m.c*(s-t)/w)
			}
			for _, l := range pg.l {
				pl := pw + logPrior(lapsePrior(l))
				for _, gam := range pg.g {
					pgm := pl
					if m.opt.FreeGamma {
						pgm += logPrior(betaPrior(gam))
					}
					scale := 1 - gam - l
					for ie, eta := range pg.e {
						v := pgm
						if len(pg.e) > 1 {
							v += logPrior(lapsePrior(eta))
						}
						if math.IsInf(v, -1) || scale <= 0 {
							lp[idx] = math.Inf(-1)
							idx++
							continue
						}
						if eta <= 1e-9 {
							for i, d := range m.pts {
								p := math.Min(math.Max(gam+scale*F[i], tiny), 1-1e-15)
								v += float64(d.K)*math.Log(p) + float64(d.N-d.K)*math.Log1p(-p)
							}
						} else {
							c := vs[ie]
							v += norm[ie]
							for i, d := range m.pts {
								p := math.Min(math.Max(gam+scale*F[i], 1e-12), 1-1e-12)
								v += lnRising(p*c, d.K) + lnRising((1-p)*c, d.N-d.K)
							}
						}
						lp[idx] = v
						idx++
					}
				}
			}
		}
	}
	best := math.Inf(-1)
	for _, v := range lp {
		best = math.Max(best, v)
	}
	var sum float64
	idx = 0
	for _, tw := range pg.tw {
		for _, ww := range pg.ww {
			for _, lw := range pg.lw {
				for _, gw := range pg.gw {
					for _, ew := range pg.ew {
						v := 0.0
						if !math.IsInf(lp[idx], -1) {
							v = math.Exp(lp[idx]-best) * tw * ww * lw * gw * ew
						}
						lp[idx] = v
						sum += v
						idx++
					}
				}
			}
		}
	}
	for i := range lp {
		lp[i] /= sum
	}
	return lp
}

// lnRising returns ln(a(a+1)…(a+k−1)) = ln Γ(a+k) − ln Γ(a): a product
// and one logarithm for the few trials of a level, ln Γ beyond.
func lnRising(a float64, k int) float64 {
	if k == 0 {
		return 0
	}
	if k <= 24 {
		p := 1.0
		for j := range k {
			p *= a + float64(j)
		}
		return math.Log(p)
	}
	x, _ := math.Lgamma(a + float64(k))
	y, _ := math.Lgamma(a)
	return x - y
}

// marginal sums the mass over every axis but one (0 t, 1 w, 2 λ, 3 γ, 4 η).
func (pg *posteriorGrid) marginal(mass []float64, axis int) []float64 {
	n := [5]int{len(pg.t), len(pg.w), len(pg.l), len(pg.g), len(pg.e)}
	out := make([]float64, n[axis])
	stride := 1
	for a := 4; a > axis; a-- {
		stride *= n[a]
	}
	for i, v := range mass {
		out[(i/stride)%n[axis]] += v
	}
	return out
}

// bounds narrows each axis to the cells whose marginal mass exceeds 1e-5
// of the largest, one cell wider on each side.
func (pg *posteriorGrid) bounds(mass []float64, b [5][2]float64) [5][2]float64 {
	axes := [5][]float64{pg.t, pg.w, pg.l, pg.g, pg.e}
	for a, vals := range axes {
		if len(vals) < 2 {
			continue
		}
		mg := pg.marginal(mass, a)
		top := slices.Max(mg)
		first, last := len(mg)-1, 0
		for i, v := range mg {
			if v > 1e-5*top {
				first, last = min(first, i), max(last, i)
			}
		}
		first, last = max(first-1, 0), min(last+1, len(mg)-1)
		if last <= first {
			continue
		}
		b[a] = [2]float64{vals[first], vals[last]}
	}
	return b
}

// summarise computes the medians, intervals and warnings.
func (m *postModel) summarise(pg *posteriorGrid, mass []float64) *Posterior {
	opt := m.opt
	q := (1 - opt.Level) / 2
	res := &Posterior{Options: opt, Data: m.pts, Range: [2]float64{m.pts[0].X, m.pts[len(m.pts)-1].X}}
	fromMarginal := func(vals []float64, axis int) Quantity {
		if len(vals) == 1 {
			return Quantity{vals[0], vals[0], vals[0]}
		}
		mg := pg.marginal(mass, axis)
		return Quantity{cellQuantile(vals, mg, 0.5), cellQuantile(vals, mg, q), cellQuantile(vals, mg, 1-q)}
	}
	t := fromMarginal(pg.t, 0)
	res.Width = fromMarginal(pg.w, 1)
	res.Lambda = fromMarginal(pg.l, 2)
	res.Gamma = fromMarginal(pg.g, 3)
	res.Eta = fromMarginal(pg.e, 4)
	res.Threshold = Quantity{m.g.stimulus(t.Median), m.g.stimulus(t.Lo), m.g.stimulus(t.Hi)}
	res.PF = m.pf(t.Median, res.Width.Median, res.Lambda.Median, res.Gamma.Median)

	// Derived quantities over every cell.
	ncell := len(mass)
	vals := make([]float64, ncell)
	each := func(f func(t, w, l, g float64) float64) {
		i := 0
		for _, t := range pg.t {
			for _, w := range pg.w {
				for _, l := range pg.l {
					for _, g := range pg.g {
						v := f(t, w, l, g)
						for range pg.e {
							vals[i] = v
							i++
						}
					}
				}
			}
		}
	}
	for _, p := range opt.Targets {
		var unreached float64
		each(func(t, w, l, g float64) float64 {
			f := (p - g) / (1 - g - l)
			switch {
			case f >= 1:
				return math.Inf(1)
			case f <= 0:
				return math.Inf(-1)
			}
			return t + w*(m.g.inv(f)-m.zc)/m.c
		})
		for i, v := range vals {
			if math.IsInf(v, 0) {
				unreached += mass[i]
			}
		}
		qt := weightedQuantiles(vals, mass, 0.5, q, 1-q)
		res.AtTargets = append(res.AtTargets, TargetThreshold{P: p, Unreached: unreached,
			Threshold: Quantity{m.g.stimulus(qt[0]), m.g.stimulus(qt[1]), m.g.stimulus(qt[2])}})
	}
	each(func(t, w, l, g float64) float64 {
		d := (1 - g - l) * m.g.pdf(m.zc) * m.c / w
		if m.opt.Form == Weibull {
			d /= math.Exp(t) // dψ/dx = dψ/ds / x
		}
		return d
	})
	qs := weightedQuantiles(vals, mass, 0.5, q, 1-q)
	res.Slope = Quantity{qs[0], qs[1], qs[2]}
	res.Warnings = m.warnings(res, pg, mass)
	return res
}

// pf converts the model's parameters to a PF of the same form.
func (m *postModel) pf(t, w, l, g float64) PF {
	beta := m.c / w
	loc := t - m.zc*w/m.c // α on the s axis
	if m.opt.Form == Weibull {
		loc = math.Exp(loc)
	}
	return PF{Form: m.opt.Form, Alpha: loc, Beta: beta, Gamma: g, Lambda: l}
}

// warnings reports what the posterior says the data leave open.
func (m *postModel) warnings(res *Posterior, pg *posteriorGrid, mass []float64) []string {
	var w []string
	lo, hi := res.Range[0], res.Range[1]
	th := res.Threshold
	if !(th.Median >= lo && th.Median <= hi) {
		w = append(w, fmt.Sprintf("threshold %.4g outside the tested stimuli [%.4g, %.4g]", th.Median, lo, hi))
	} else if !(th.Lo >= lo && th.Hi <= hi) {
		w = append(w, fmt.Sprintf("the threshold's %.0f %% interval [%.4g, %.4g] reaches beyond the tested stimuli [%.4g, %.4g]", 100*m.opt.Level, th.Lo, th.Hi, lo, hi))
	}
	// The data's own say on the width: the marginal posterior over the
	// prior. When it is largest among the steepest widths the prior
	// allows, the data are fitted best by a step (the Bayesian face of a
	// slope on its bound).
	mw := pg.marginal(mass, 1)
	best, bestSteep := 0.0, 0.0
	for i, v := range pg.w {
		pr := m.priorW(v) * pg.ww[i]
		if pr <= 0 {
			continue
		}
		r := mw[i] / pr
		best = math.Max(best, r)
		if v <= 2*m.wmin {
			bestSteep = math.Max(bestSteep, r)
		}
	}
	if best > 0 && bestSteep >= 0.9*best {
		w = append(w, "slope not bounded by the data: they are fitted best by the steepest function the prior allows (a step); the slope and the interval rest on the prior")
	}
	for _, at := range res.AtTargets {
		if at.Unreached > 1-m.opt.Level {
			w = append(w, fmt.Sprintf("the %.1f %% point is not reached with posterior probability %.2f (lapse rate too high for it)", 100*at.P, at.Unreached))
		}
	}
	return w
}

// cellQuantile returns the p-quantile of a marginal given as masses at
// grid points, each spread over its cell (halfway to its neighbours).
func cellQuantile(v, mass []float64, p float64) float64 {
	var total float64
	for _, x := range mass {
		total += x
	}
	w := make([]float64, len(mass))
	for i := range mass {
		w[i] = mass[i] / total
	}
	return gridQuantile(v, w, p)
}

// weightedQuantiles returns the ps-quantiles of values with weights (the
// cells' masses), interpolating within each value's share.
func weightedQuantiles(v, w []float64, ps ...float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		switch {
		case v[a] < v[b]:
			return -1
		case v[a] > v[b]:
			return 1
		}
		return 0
	})
	var total float64
	for _, x := range w {
		total += x
	}
	out := make([]float64, len(ps))
	for k, p := range ps {
		target := p * total
		var cum float64
		out[k] = v[idx[len(idx)-1]]
		for j, i := range idx {
			if w[i] <= 0 {
				continue
			}
			if cum+w[i] >= target {
				out[k] = v[i]
				// Interpolate towards the next value within this cell's share.
				if j+1 < len(idx) && !math.IsInf(v[i], 0) && !math.IsInf(v[idx[j+1]], 0) {
					out[k] = v[i] + (v[idx[j+1]]-v[i])*(target-cum)/w[i]
				}
				break
			}
			cum += w[i]
		}
	}
	return out
}

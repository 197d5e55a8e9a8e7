package psych

import (
	"encoding/json"
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/floats"
)

// PsiConfig configures the Psi method (Kontsevich & Tyler 1999): a joint
// posterior over threshold and slope, with each trial placed at the
// stimulus that minimises the expected entropy of that posterior (or, by
// Objective, the expected entropy or variance of the threshold's marginal
// posterior).
//
// The threshold t (at Criterion) lives on Thresholds grid levels spanning
// [Min, Max] on Scale; β on Betas log-spaced values in [BetaMin, BetaMax];
// trials are drawn from Stimuli values spanning [Min, Max] on Scale. γ and
// λ are assumed known.
//
// The grid defaults (61 thresholds, 21 slopes, 61 stimuli) put the levels
// well inside the posterior's spread at the end of a run: on the package's
// steep 2AFC study observer (a 46 dB range, so 0.77 dB between levels; a
// final posterior SD of about 1 dB in the threshold and 0.3 in ln β, 0.10
// between slope levels), 201 thresholds and 101 stimuli gave a
// 1,000-observer RMSE at 60 trials of 9.80% ± 0.22 against 9.66% ± 0.22
// at the defaults (variance objective), while the tables grow with the
// product of the three. Choose a range that surely holds the threshold:
// the grid truncates the posterior.
//
// The slope prior is flat in ln β over the grid unless PriorBetaSD is set.
// With the slope unknown a forced-choice threshold cannot be known better
// than PF.ThresholdSDBoundFreeSlope allows (9.5% at 60 trials for the
// steep study observer, against 7.3% with the slope known), and an
// informative slope prior is the only way below it. It is a real
// assumption about the observer, not a tuning knob: a prior centred on
// β = 3 with PriorBetaSD 0.35 takes the steep (β = 3.5) study observer to
// 8.8% at 60 trials but biases the shallow (β = 1.5) one by +16% (see the
// package documentation), so set it only from pilot data or the
// literature for the task at hand.
type PsiConfig struct {
	Task       Task    `json:"task" toml:"task"`
	Form       Form    `json:"form" toml:"form"`
	Gamma      float64 `json:"gamma,omitempty" toml:"gamma"` // m-AFC implies 1/m
	Lambda     float64 `json:"lambda,omitempty" toml:"lambda"`
	Criterion  float64 `json:"criterion,omitempty" toml:"criterion"` // 0 means 0.5
	Scale      Scale   `json:"scale" toml:"scale"`
	Min        float64 `json:"min" toml:"min"`
	Max        float64 `json:"max" toml:"max"`
	Thresholds int     `json:"thresholds,omitempty" toml:"thresholds"` // 0 means 61
	BetaMin    float64 `json:"beta_min" toml:"beta_min"`
	BetaMax    float64 `json:"beta_max" toml:"beta_max"`
	Betas      int     `json:"betas,omitempty" toml:"betas"`     // 0 means 21
	Stimuli    int     `json:"stimuli,omitempty" toml:"stimuli"` // 0 means 61
	// PriorThreshold and PriorSD (on the scale) give a Gaussian prior on
	// the threshold; PriorSD = 0 gives a uniform prior over the grid.
	PriorThreshold float64 `json:"prior_threshold,omitempty" toml:"prior_threshold"`
	PriorSD        float64 `json:"prior_sd,omitempty" toml:"prior_sd"`
	// PriorBeta (the median) and PriorBetaSD (the SD of ln β) give a
	// log-normal prior on β, truncated to the grid; PriorBetaSD = 0 gives
	// a prior flat in ln β over the grid.
	PriorBeta   float64 `json:"prior_beta,omitempty" toml:"prior_beta"`
	PriorBetaSD float64 `json:"prior_beta_sd,omitempty" toml:"prior_beta_sd"`
	MaxTrials   int     `json:"max_trials" toml:"max_trials"`
	// StopSD stops early once the threshold's posterior SD on the scale
	// falls below it; 0 disables.
	StopSD float64 `json:"stop_sd,omitempty" toml:"stop_sd"`
	// Objective is what the stimulus choice minimises: "joint" (the
	// default), the expected entropy of the posterior over threshold and
	// slope as in Kontsevich & Tyler; "threshold", the expected entropy of
	// the threshold's marginal posterior, with the slope as a nuisance
	// parameter (Prins 2013), which spends fewer trials on the slope and
	// more on the threshold; or "variance", the expected posterior
	// variance of the threshold's level (the minimum-variance rule of
	// King-Smith et al. 1994 applied to the marginal), which is what the
	// threshold's RMSE measures. For a threshold, choose "variance": on
	// the steep 2AFC study observer its RMSE at 60 trials was 9.7%, against
	// 9.9% for "threshold" and 11.5% for "joint" (1,000 observers each,
	// ± 0.2 to 0.25), and it is the cheapest to compute.
	Objective Objective `json:"objective,omitempty" toml:"objective"`
}

// Objective is the quantity whose expected entropy Psi minimises.
type Objective string

const (
	ObjectiveJoint     Objective = "joint"
	ObjectiveThreshold Objective = "threshold"
	ObjectiveVariance  Objective = "variance"
)

func (c *PsiConfig) resolve() error {
	if err := c.Task.Validate(); err != nil {
		return err
	}
	g, err := c.Task.gammaFor(c.Gamma)
	if err != nil {
		return err
	}
	c.Gamma = g
	if c.Criterion == 0 {
		c.Criterion = 0.5
	}
	if c.Thresholds == 0 {
		c.Thresholds = 61
	}
	if c.Betas == 0 {
		c.Betas = 21
	}
	if c.Stimuli == 0 {
		c.Stimuli = 61
	}
	if c.Objective == "" {
		c.Objective = ObjectiveJoint
	}
	if c.Objective != ObjectiveJoint && c.Objective != ObjectiveThreshold && c.Objective != ObjectiveVariance {
		return fmt.Errorf("psych: psi objective %q (want joint, threshold or variance)", c.Objective)
	}
	if !c.Scale.valid() {
		return fmt.Errorf("psych: psi scale %d unknown", int(c.Scale))
	}
	if err := c.Scale.checkRange("psi stimulus", c.Min, c.Max); err != nil {
		return err
	}
	if !(c.BetaMin > 0 && c.BetaMax >= c.BetaMin && finite(c.BetaMax)) {
		return fmt.Errorf("psych: psi beta range [%g, %g] invalid", c.BetaMin, c.BetaMax)
	}
	if _, err := NewPF(c.Form, c.Max, c.Criterion, c.BetaMin, c.Gamma, c.Lambda); err != nil {
		return fmt.Errorf("psych: psi model: %w", err)
	}
	if c.Thresholds < 2 || c.Betas < 1 || c.Stimuli < 2 || c.Thresholds*c.Betas*c.Stimuli > 4<<20 {
		return fmt.Errorf("psych: psi grid %d thresholds × %d betas × %d stimuli: each >= 2 (betas >= 1), product <= %d",
			c.Thresholds, c.Betas, c.Stimuli, 4<<20)
	}
	if c.Betas == 1 && c.BetaMin != c.BetaMax {
		return fmt.Errorf("psych: psi with one beta needs beta_min = beta_max, have [%g, %g]", c.BetaMin, c.BetaMax)
	}
	if !finite(c.PriorSD) || c.PriorSD < 0 {
		return fmt.Errorf("psych: psi prior SD %g invalid", c.PriorSD)
	}
	if c.PriorSD > 0 && !(c.PriorThreshold >= c.Min && c.PriorThreshold <= c.Max) {
		return fmt.Errorf("psych: psi prior threshold %g outside [%g, %g]", c.PriorThreshold, c.Min, c.Max)
	}
	if !finite(c.PriorBetaSD) || c.PriorBetaSD < 0 {
		return fmt.Errorf("psych: psi prior beta SD %g invalid", c.PriorBetaSD)
	}
	if c.PriorBetaSD > 0 && !(c.PriorBeta >= c.BetaMin && c.PriorBeta <= c.BetaMax) {
		return fmt.Errorf("psych: psi prior beta %g outside [%g, %g]", c.PriorBeta, c.BetaMin, c.BetaMax)
	}
	if c.MaxTrials < 1 || c.MaxTrials > maxTrials {
		return fmt.Errorf("psych: psi max trials %d, want 1..%d", c.MaxTrials, maxTrials)
	}
	if !finite(c.StopSD) || c.StopSD < 0 {
		return fmt.Errorf("psych: psi stop SD %g invalid", c.StopSD)
	}
	return nil
}

// Psi is the Psi method.
type Psi struct {
	s psiState
	*psiTables
	lw, w []float64 // per cell (threshold-major): log posterior (max 0), posterior
	// [lo, hi) is the range of thresholds outside which no cell's
	// posterior weight exceeds negligible; the stimulus choice sums over
	// it only.
	lo, hi int
	wj     []float64 // scratch: the threshold's marginal posterior
	v      []float64 // scratch: per cell, weight × (threshold level − mean)
}

// psiTables are the grids and the per-stimulus, per-cell tables of ψ and
// their logs. They depend on the configuration's model and grid only and
// are never written after construction, so every Psi with the same grid
// shares one copy: building them costs more than a whole run.
type psiTables struct {
	tLevel   []float64 // threshold grid on the scale
	lnBeta   []float64 // ln β grid
	stim     []float64 // candidate stimuli
	p        []float64 // per stimulus and cell: ψ
	lnp, lnq []float64 // ln ψ and ln(1 − ψ), floored at ln tiny
	h        []float64 // binary entropy of ψ
}

// psiGrid is what psiTables depend on.
type psiGrid struct {
	form                       Form
	gamma, lambda, criterion   float64
	scale                      Scale
	min, max, betaMin, betaMax float64
	thresholds, betas, stimuli int
}

// psiCache holds the tables of the last few grids used; a study or a
// session of interleaved tracks uses one or two.
var psiCache struct {
	sync.Mutex
	m map[psiGrid]*psiTables
}

const psiCacheSize = 8

func tablesFor(c *PsiConfig) *psiTables {
	g := psiGrid{c.Form, c.Gamma, c.Lambda, c.Criterion, c.Scale, c.Min, c.Max, c.BetaMin, c.BetaMax, c.Thresholds, c.Betas, c.Stimuli}
	psiCache.Lock()
	defer psiCache.Unlock()
	if t, ok := psiCache.m[g]; ok {
		return t
	}
	if len(psiCache.m) >= psiCacheSize || psiCache.m == nil {
		psiCache.m = make(map[psiGrid]*psiTables)
	}
	t := newPsiTables(c)
	psiCache.m[g] = t
	return t
}

func newPsiTables(c *PsiConfig) *psiTables {
	nt, nb, ns := c.Thresholds, c.Betas, c.Stimuli
	lo, hi := c.Scale.Level(c.Min), c.Scale.Level(c.Max)
	t := &psiTables{tLevel: linspace(lo, hi, nt), lnBeta: linspace(math.Log(c.BetaMin), math.Log(c.BetaMax), nb), stim: make([]float64, ns)}
	for i, l := range linspace(lo, hi, ns) {
		t.stim[i] = c.Scale.Stimulus(l)
	}
	t.stim[0], t.stim[ns-1] = c.Min, c.Max
	cells := nt * nb
	t.p = make([]float64, ns*cells)
	t.lnp = make([]float64, ns*cells)
	t.lnq = make([]float64, ns*cells)
	t.h = make([]float64, ns*cells)
	for j, l := range t.tLevel {
		th := c.Scale.Stimulus(l)
		for k, lb := range t.lnBeta {
			beta := math.Exp(lb)
			pf := PF{Form: c.Form, Alpha: c.Form.alphaFor(th, beta, c.Criterion), Beta: beta, Gamma: c.Gamma, Lambda: c.Lambda}
			for s, x := range t.stim {
				i := s*cells + j*nb + k
				p, q := pf.probs(x)
				t.p[i], t.h[i] = p, binaryEntropy(p, q)
				t.lnp[i], t.lnq[i] = math.Log(math.Max(p, tiny)), math.Log(math.Max(q, tiny))
			}
		}
	}
	return t
}

// negligible is the posterior weight below which a cell is left out of the
// stimulus choice; all such cells together hold under 1e-8 of the mass.
const negligible = 1e-14

type psiState struct {
	Config PsiConfig `json:"config"`
	journal
}

// NewPsi returns the Psi method with its prior.
func NewPsi(c PsiConfig) (*Psi, error) {
	if err := c.resolve(); err != nil {
		return nil, err
	}
	p := &Psi{s: psiState{Config: c}}
	p.init()
	return p, nil
}

func restorePsi(b []byte) (*Psi, error) {
	var s psiState
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, err
	}
	if err := s.Config.resolve(); err != nil {
		return nil, err
	}
	if err := s.journal.check(s.Config.Task); err != nil {
		return nil, err
	}
	p := &Psi{s: psiState{Config: s.Config}}
	p.init()
	for i, r := range s.Records {
		k := p.stimIndex(r.X)
		if k < 0 {
			return nil, fmt.Errorf("record %d: stimulus %g is not on the psi grid", i, r.X)
		}
		p.learn(k, r.Positive)
	}
	if s.Pending != nil && p.stimIndex(s.Pending.X) < 0 {
		return nil, fmt.Errorf("pending stimulus %g is not on the psi grid", s.Pending.X)
	}
	p.s.journal = s.journal
	return p, nil
}

func (p *Psi) init() {
	c := &p.s.Config
	p.psiTables = tablesFor(c)
	nb := c.Betas
	cells := c.Thresholds * nb
	p.lw = make([]float64, cells)
	p.w = make([]float64, cells)
	p.wj = make([]float64, c.Thresholds)
	p.v = make([]float64, cells)
	if c.PriorSD > 0 {
		m := c.Scale.Level(c.PriorThreshold)
		for j, l := range p.tLevel {
			z := (l - m) / c.PriorSD
			for k := range nb {
				p.lw[j*nb+k] = -z * z / 2
			}
		}
	}
	if c.PriorBetaSD > 0 {
		m := math.Log(c.PriorBeta)
		for j := range p.tLevel {
			for k, lb := range p.lnBeta {
				z := (lb - m) / c.PriorBetaSD
				p.lw[j*nb+k] -= z * z / 2
			}
		}
	}
	p.normalise()
}

// normalise normalises the posterior and finds its active thresholds.
func (p *Psi) normalise() {
	normalise(p.lw, p.w)
	nb := len(p.lnBeta)
	p.lo, p.hi = len(p.tLevel), 0
	for j := range p.tLevel {
		for _, w := range p.w[j*nb : (j+1)*nb] {
			if w > negligible {
				p.lo, p.hi = min(p.lo, j), j+1
				break
			}
		}
	}
}

func linspace(lo, hi float64, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		if n == 1 {
			v[i] = lo
			continue
		}
		v[i] = lo + (hi-lo)*float64(i)/float64(n-1)
	}
	return v
}

// binaryEntropy returns −p ln p − q ln q with q = 1 − p.
func binaryEntropy(p, q float64) float64 {
	var h float64
	if p > 0 {
		h -= p * math.Log(p)
	}
	if q > 0 {
		h -= q * math.Log(q)
	}
	return h
}

// binaryTerm returns −v ln v, 0 at v = 0.
func binaryTerm(v float64) float64 {
	if v <= 0 {
		return 0
	}
	return -v * math.Log(v)
}

func (p *Psi) stimIndex(x float64) int {
	for i, v := range p.stim {
		if v == x {
			return i
		}
	}
	return -1
}

func (p *Psi) learn(s int, positive bool) {
	cells := len(p.w)
	tab := p.lnq[s*cells : (s+1)*cells]
	if positive {
		tab = p.lnp[s*cells : (s+1)*cells]
	}
	for i, v := range tab {
		p.lw[i] += v
	}
	p.normalise()
}

// choose returns the stimulus index with the least expected posterior
// entropy of the objective.
func (p *Psi) choose() int {
	switch p.s.Config.Objective {
	case ObjectiveThreshold:
		return p.chooseMarginal()
	case ObjectiveVariance:
		return p.chooseVariance()
	}
	// For the joint posterior, the expected entropy after a trial at s is
	// H(posterior) − [H_b(p̄_s) − Σ w·H_b(ψ_s)], so it suffices to maximise
	// the bracket, the mutual information between response and parameters.
	// The sums are dot products over the active cells (gonum's, in
	// assembly: the stimulus choice is most of a run's time).
	cells, nb := len(p.w), len(p.lnBeta)
	a, b := p.lo*nb, p.hi*nb
	w := p.w[a:b]
	best, bestI := 0, math.Inf(-1)
	for s := range p.stim {
		o := s * cells
		pbar, hbar := floats.Dot(w, p.p[o+a:o+b]), floats.Dot(w, p.h[o+a:o+b])
		if mi := binaryEntropy(pbar, 1-pbar) - hbar; mi > bestI {
			best, bestI = s, mi
		}
	}
	return best
}

// chooseMarginal minimises the expected entropy of the threshold's
// marginal posterior.
func (p *Psi) chooseMarginal() int {
	cells, nb := len(p.w), len(p.lnBeta)
	for j := p.lo; j < p.hi; j++ {
		p.wj[j] = floats.Sum(p.w[j*nb : (j+1)*nb])
	}
	best, bestH := 0, math.Inf(1)
	for s := range p.stim {
		ps := p.p[s*cells : (s+1)*cells]
		// Σ_r p_r·H(m_r/p_r) = Σ_r p_r ln p_r − Σ_r Σ_j m_rj ln m_rj, with
		// m_1j = Σ_k w·ψ and m_0j = w_j − m_1j.
		var p1, h float64
		for j := p.lo; j < p.hi; j++ {
			m := floats.Dot(p.w[j*nb:(j+1)*nb], ps[j*nb:(j+1)*nb])
			p1 += m
			h += binaryTerm(m) + binaryTerm(p.wj[j]-m)
		}
		h -= binaryEntropy(p1, 1-p1)
		if h < bestH {
			best, bestH = s, h
		}
	}
	return best
}

func (p *Psi) Kind() Kind { return KindPsi }

// Config returns the resolved configuration (defaults filled in).
func (p *Psi) Config() PsiConfig { return p.s.Config }

func (p *Psi) Done() bool {
	c := &p.s.Config
	if len(p.s.Records) >= c.MaxTrials {
		return true
	}
	return c.StopSD > 0 && len(p.s.Records) > 0 && p.Estimate().SD < c.StopSD
}

func (p *Psi) Next() (Trial, error) {
	if p.s.Pending != nil {
		return *p.s.Pending, nil
	}
	if p.Done() {
		return Trial{}, ErrDone
	}
	return p.s.pend(Trial{Index: len(p.s.Records), X: p.stim[p.choose()]}), nil
}

func (p *Psi) Update(t Trial, r Response) error {
	rec, err := p.s.accept(p.s.Config.Task, t, r)
	if err != nil {
		return err
	}
	s := p.stimIndex(rec.X)
	if s < 0 {
		return fmt.Errorf("psych: psi stimulus %g is not on the grid", rec.X)
	}
	p.learn(s, rec.Positive)
	p.s.commit(rec)
	return nil
}

// Estimate returns the median of the threshold's marginal posterior (as
// Level on the scale and as Threshold in stimulus units), its posterior SD
// on the scale, and the posterior geometric mean of β.
//
// The median, unlike the mean, does not depend on the scale, and it is the
// more accurate estimate: with the slope unknown the marginal has a long
// tail towards low thresholds (a shallow slope explains the same responses
// with a lower threshold) that pulls the mean down. On the steep 2AFC
// study observer it cut the mean squared error at 60 trials by 3 to 4%
// (paired over the same 2,000 runs, 5 to 7 standard errors) and the bias
// from −2% to −0.7%.
func (p *Psi) Estimate() Estimate {
	nb := len(p.lnBeta)
	var m, m2, lb float64
	for j, l := range p.tLevel {
		var wj float64
		for k, b := range p.lnBeta {
			w := p.w[j*nb+k]
			wj += w
			lb += w * b
		}
		p.wj[j] = wj
		m += wj * l
		m2 += wj * l * l
	}
	sd := math.Sqrt(math.Max(m2-m*m, 0))
	med := gridQuantile(p.tLevel, p.wj, 0.5)
	c := &p.s.Config
	return Estimate{Threshold: c.Scale.Stimulus(med), Level: med, SD: sd, Beta: math.Exp(lb),
		TargetP: nan, Criterion: c.Criterion, Trials: len(p.s.Records)}
}

func (p *Psi) Records() []Record { return p.s.Records }

func (p *Psi) State() ([]byte, error) { return marshalState(KindPsi, &p.s) }

// chooseVariance minimises the expected posterior variance of the
// threshold's level l. After response r the variance is
// E[l² | r] − E[l | r]², so its expectation over r is
// E[l²] − Σ_r M_r²/P_r with P_r the response's predictive probability and
// M_r = Σ_j m_rj·(l_j − E[l]) (the offset leaves the sum unchanged and
// avoids cancellation). As M_0 = −M_1, it suffices to maximise
// M_1²/(P_1·P_0).
func (p *Psi) chooseVariance() int {
	cells, nb := len(p.w), len(p.lnBeta)
	a, b := p.lo*nb, p.hi*nb
	var mean float64
	for j := p.lo; j < p.hi; j++ {
		mean += floats.Sum(p.w[j*nb:(j+1)*nb]) * p.tLevel[j]
	}
	for j := p.lo; j < p.hi; j++ {
		d := p.tLevel[j] - mean
		for i := j * nb; i < (j+1)*nb; i++ {
			p.v[i] = p.w[i] * d
		}
	}
	w, v := p.w[a:b], p.v[a:b]
	best, bestG := 0, math.Inf(-1)
	for s := range p.stim {
		o := s * cells
		p1, m1 := floats.Dot(w, p.p[o+a:o+b]), floats.Dot(v, p.p[o+a:o+b])
		// A response certain under the posterior teaches nothing.
		g := 0.0
		if p1 > 0 && p1 < 1 {
			g = m1 * m1 / (p1 * (1 - p1))
		}
		if g > bestG {
			best, bestG = s, g
		}
	}
	return best
}

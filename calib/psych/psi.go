package psych

import (
	"encoding/json"
	"fmt"
	"math"
)

// PsiConfig configures the Psi method (Kontsevich & Tyler 1999): a joint
// posterior over threshold and slope, with each trial placed at the
// stimulus that minimises the expected entropy of that posterior.
//
// The threshold t (at Criterion) lives on Thresholds grid levels spanning
// [Min, Max] on Scale; β on Betas log-spaced values in [BetaMin, BetaMax];
// trials are drawn from Stimuli values spanning [Min, Max] on Scale. γ and
// λ are assumed known.
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
	MaxTrials      int     `json:"max_trials" toml:"max_trials"`
	// StopSD stops early once the threshold's posterior SD on the scale
	// falls below it; 0 disables.
	StopSD float64 `json:"stop_sd,omitempty" toml:"stop_sd"`
	// Objective is what the stimulus choice minimises the expected entropy
	// of: "joint" (the default), the posterior over threshold and slope as
	// in Kontsevich & Tyler; or "threshold", the marginal posterior of the
	// threshold with the slope as a nuisance parameter (Prins 2013), which
	// spends fewer trials on the slope and more on the threshold.
	Objective Objective `json:"objective,omitempty" toml:"objective"`
}

// Objective is the quantity whose expected entropy Psi minimises.
type Objective string

const (
	ObjectiveJoint     Objective = "joint"
	ObjectiveThreshold Objective = "threshold"
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
	if c.Objective != ObjectiveJoint && c.Objective != ObjectiveThreshold {
		return fmt.Errorf("psych: psi objective %q (want joint or threshold)", c.Objective)
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
	s       psiState
	tLevel  []float64 // threshold grid on the scale
	lnBeta  []float64 // ln β grid
	stim    []float64 // candidate stimuli
	p, q, h []float64 // per stimulus and cell: ψ, 1 − ψ, binary entropy of ψ
	lw, w   []float64 // per cell (threshold-major): log posterior (max 0), posterior
	// active lists the thresholds at which some cell's posterior weight
	// exceeds negligible; the stimulus choice sums over them only.
	active []int
	wj     []float64 // scratch: the threshold's marginal posterior
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
	nt, nb, ns := c.Thresholds, c.Betas, c.Stimuli
	lo, hi := c.Scale.Level(c.Min), c.Scale.Level(c.Max)
	p.tLevel = linspace(lo, hi, nt)
	p.lnBeta = linspace(math.Log(c.BetaMin), math.Log(c.BetaMax), nb)
	p.stim = make([]float64, ns)
	for i, l := range linspace(lo, hi, ns) {
		p.stim[i] = c.Scale.Stimulus(l)
	}
	p.stim[0], p.stim[ns-1] = c.Min, c.Max
	cells := nt * nb
	p.p = make([]float64, ns*cells)
	p.q = make([]float64, ns*cells)
	p.h = make([]float64, ns*cells)
	for j, l := range p.tLevel {
		t := c.Scale.Stimulus(l)
		for k, lb := range p.lnBeta {
			beta := math.Exp(lb)
			pf := PF{Form: c.Form, Alpha: c.Form.alphaFor(t, beta, c.Criterion), Beta: beta, Gamma: c.Gamma, Lambda: c.Lambda}
			for s, x := range p.stim {
				i := s*cells + j*nb + k
				p.p[i], p.q[i] = pf.probs(x)
				p.h[i] = binaryEntropy(p.p[i], p.q[i])
			}
		}
	}
	p.lw = make([]float64, cells)
	p.w = make([]float64, cells)
	p.wj = make([]float64, nt)
	if c.PriorSD > 0 {
		m := c.Scale.Level(c.PriorThreshold)
		for j, l := range p.tLevel {
			z := (l - m) / c.PriorSD
			for k := range nb {
				p.lw[j*nb+k] = -z * z / 2
			}
		}
	}
	p.normalise()
}

// normalise normalises the posterior and lists its active thresholds.
func (p *Psi) normalise() {
	normalise(p.lw, p.w)
	nb := len(p.lnBeta)
	p.active = p.active[:0]
	for j := range p.tLevel {
		for _, w := range p.w[j*nb : (j+1)*nb] {
			if w > negligible {
				p.active = append(p.active, j)
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
	tab := p.q[s*cells : (s+1)*cells]
	if positive {
		tab = p.p[s*cells : (s+1)*cells]
	}
	for i, v := range tab {
		p.lw[i] += math.Log(math.Max(v, tiny))
	}
	p.normalise()
}

// choose returns the stimulus index with the least expected posterior
// entropy of the objective.
func (p *Psi) choose() int {
	if p.s.Config.Objective == ObjectiveThreshold {
		return p.chooseMarginal()
	}
	// For the joint posterior, the expected entropy after a trial at s is
	// H(posterior) − [H_b(p̄_s) − Σ w·H_b(ψ_s)], so it suffices to maximise
	// the bracket, the mutual information between response and parameters.
	cells, nb := len(p.w), len(p.lnBeta)
	best, bestI := 0, math.Inf(-1)
	for s := range p.stim {
		ps := p.p[s*cells : (s+1)*cells]
		hs := p.h[s*cells : (s+1)*cells]
		var pbar, hbar float64
		for _, j := range p.active {
			for i := j * nb; i < (j+1)*nb; i++ {
				pbar += p.w[i] * ps[i]
				hbar += p.w[i] * hs[i]
			}
		}
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
	for _, j := range p.active {
		var v float64
		for _, w := range p.w[j*nb : (j+1)*nb] {
			v += w
		}
		p.wj[j] = v
	}
	best, bestH := 0, math.Inf(1)
	for s := range p.stim {
		ps := p.p[s*cells : (s+1)*cells]
		// Σ_r p_r·H(m_r/p_r) = Σ_r p_r ln p_r − Σ_r Σ_j m_rj ln m_rj, with
		// m_1j = Σ_k w·ψ and m_0j = w_j − m_1j.
		var p1, h float64
		for _, j := range p.active {
			var m float64
			for i := j * nb; i < (j+1)*nb; i++ {
				m += p.w[i] * ps[i]
			}
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

// Estimate returns the posterior mean and SD of the threshold on the scale
// and the posterior geometric mean of β.
func (p *Psi) Estimate() Estimate {
	nb := len(p.lnBeta)
	var m, m2, lb float64
	for j, l := range p.tLevel {
		for k, b := range p.lnBeta {
			w := p.w[j*nb+k]
			m += w * l
			m2 += w * l * l
			lb += w * b
		}
	}
	sd := math.Sqrt(math.Max(m2-m*m, 0))
	c := &p.s.Config
	return Estimate{Threshold: c.Scale.Stimulus(m), Level: m, SD: sd, Beta: math.Exp(lb),
		TargetP: nan, Criterion: c.Criterion, Trials: len(p.s.Records)}
}

func (p *Psi) Records() []Record { return p.s.Records }

func (p *Psi) State() ([]byte, error) { return marshalState(KindPsi, &p.s) }

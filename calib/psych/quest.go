package psych

import (
	"encoding/json"
	"fmt"
	"math"
)

// Placement says which summary of the posterior a Bayesian procedure
// places the next trial at.
type Placement string

const (
	PlaceMean   Placement = "mean" // King-Smith et al. 1994; the default
	PlaceMode   Placement = "mode" // Watson & Pelli 1983
	PlaceMedian Placement = "median"
)

// QuestConfig configures QUEST (Watson & Pelli 1983): a Bayesian estimate
// of the threshold of a psychometric function whose form, slope, guess and
// lapse rates are assumed known.
//
// The unknown is the threshold t at Criterion (the x where F = Criterion),
// held as a posterior on a grid of Grid levels spanning [Min, Max] on
// Scale, with a Gaussian prior on the scale. Each trial is placed where the
// assumed ψ equals Target given the posterior's Placement summary of t,
// at the grid level nearest to it.
type QuestConfig struct {
	Task      Task    `json:"task" toml:"task"`
	Form      Form    `json:"form" toml:"form"`
	Beta      float64 `json:"beta" toml:"beta"`             // assumed slope parameter
	Gamma     float64 `json:"gamma,omitempty" toml:"gamma"` // guess rate; m-AFC implies 1/m
	Lambda    float64 `json:"lambda,omitempty" toml:"lambda"`
	Criterion float64 `json:"criterion,omitempty" toml:"criterion"` // 0 means 0.5
	Scale     Scale   `json:"scale" toml:"scale"`
	Min       float64 `json:"min" toml:"min"` // stimulus range of the grid and of trials
	Max       float64 `json:"max" toml:"max"`
	Grid      int     `json:"grid,omitempty" toml:"grid"` // 0 means 201
	// PriorThreshold is the prior mean (stimulus units) and PriorSD the
	// prior standard deviation on the scale.
	PriorThreshold float64   `json:"prior_threshold" toml:"prior_threshold"`
	PriorSD        float64   `json:"prior_sd" toml:"prior_sd"`
	Placement      Placement `json:"placement,omitempty" toml:"placement"` // "" means mean
	// Target is ψ at the placed stimulus; 0 selects the sweet point, the
	// level at which one trial tells most about the threshold.
	Target    float64 `json:"target,omitempty" toml:"target"`
	MaxTrials int     `json:"max_trials" toml:"max_trials"`
	// StopSD stops the run early once the posterior SD on the scale falls
	// below it; 0 disables.
	StopSD float64 `json:"stop_sd,omitempty" toml:"stop_sd"`
}

// resolve fills defaults and validates.
func (c *QuestConfig) resolve() error {
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
	if c.Grid == 0 {
		c.Grid = 201
	}
	if c.Placement == "" {
		c.Placement = PlaceMean
	}
	if !c.Scale.valid() {
		return fmt.Errorf("psych: quest scale %d unknown", int(c.Scale))
	}
	if err := c.Scale.checkRange("quest stimulus", c.Min, c.Max); err != nil {
		return err
	}
	if _, err := NewPF(c.Form, c.Scale.Stimulus(c.Scale.Level(c.Min)/2+c.Scale.Level(c.Max)/2), c.Criterion, c.Beta, c.Gamma, c.Lambda); err != nil {
		return fmt.Errorf("psych: quest model: %w", err)
	}
	if c.Grid < 3 || c.Grid > 100000 {
		return fmt.Errorf("psych: quest grid of %d points, want 3..100000", c.Grid)
	}
	if !(c.PriorThreshold >= c.Min && c.PriorThreshold <= c.Max) {
		return fmt.Errorf("psych: quest prior threshold %g outside [%g, %g]", c.PriorThreshold, c.Min, c.Max)
	}
	if !finite(c.PriorSD) || c.PriorSD <= 0 {
		return fmt.Errorf("psych: quest prior SD %g must be positive", c.PriorSD)
	}
	switch c.Placement {
	case PlaceMean, PlaceMode, PlaceMedian:
	default:
		return fmt.Errorf("psych: quest placement %q (want mean, mode or median)", c.Placement)
	}
	if c.Target == 0 {
		c.Target = sweetTarget(c.Form, c.Gamma, c.Lambda)
	}
	if !(c.Target > c.Gamma && c.Target < 1-c.Lambda) {
		return fmt.Errorf("psych: quest target %g outside (γ, 1−λ) = (%g, %g)", c.Target, c.Gamma, 1-c.Lambda)
	}
	if c.MaxTrials < 1 || c.MaxTrials > maxTrials {
		return fmt.Errorf("psych: quest max trials %d, want 1..%d", c.MaxTrials, maxTrials)
	}
	if !finite(c.StopSD) || c.StopSD < 0 {
		return fmt.Errorf("psych: quest stop SD %g invalid", c.StopSD)
	}
	return nil
}

// sweetTarget returns the ψ at which a trial carries the most Fisher
// information about the location of the function (x for the logistic and
// cumulative normal, ln x for the Weibull). It depends on the form, γ and
// λ only.
func sweetTarget(form Form, gamma, lambda float64) float64 {
	pf := PF{Form: form, Alpha: 1, Beta: 2, Gamma: gamma, Lambda: lambda}
	info := func(c float64) float64 {
		x := pf.Threshold(c)
		d := pf.Slope(x)
		if form == Weibull {
			d *= x
		}
		p, q := pf.probs(x)
		return d * d / (p * q)
	}
	best, bestI := 0.5, info(0.5)
	for i := 1; i < 1000; i++ {
		c := float64(i) / 1000
		if v := info(c); v > bestI {
			best, bestI = c, v
		}
	}
	return gamma + (1-gamma-lambda)*best
}

// Quest is the QUEST procedure.
type Quest struct {
	s     questState
	level []float64 // grid levels on the scale
	alpha []float64 // α of the assumed function at each grid threshold
	lw    []float64 // log posterior, max 0
	w     []float64 // posterior, sum 1
}

type questState struct {
	Config QuestConfig `json:"config"`
	journal
}

// NewQuest returns QUEST with its prior.
func NewQuest(c QuestConfig) (*Quest, error) {
	if err := c.resolve(); err != nil {
		return nil, err
	}
	q := &Quest{s: questState{Config: c}}
	q.init()
	return q, nil
}

func restoreQuest(b []byte) (*Quest, error) {
	var s questState
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, err
	}
	if err := s.Config.resolve(); err != nil {
		return nil, err
	}
	if err := s.journal.check(s.Config.Task); err != nil {
		return nil, err
	}
	q := &Quest{s: questState{Config: s.Config}}
	q.init()
	for _, r := range s.Records {
		q.learn(r.X, r.Positive)
	}
	q.s.journal = s.journal
	return q, nil
}

func (q *Quest) init() {
	c := &q.s.Config
	n := c.Grid
	q.level = make([]float64, n)
	q.alpha = make([]float64, n)
	q.lw = make([]float64, n)
	q.w = make([]float64, n)
	lo, hi := c.Scale.Level(c.Min), c.Scale.Level(c.Max)
	m := c.Scale.Level(c.PriorThreshold)
	for i := range n {
		l := lo + (hi-lo)*float64(i)/float64(n-1)
		q.level[i] = l
		q.alpha[i] = c.Form.alphaFor(c.Scale.Stimulus(l), c.Beta, c.Criterion)
		z := (l - m) / c.PriorSD
		q.lw[i] = -z * z / 2
	}
	normalise(q.lw, q.w)
}

// learn multiplies the posterior by the likelihood of one response.
func (q *Quest) learn(x float64, positive bool) {
	c := &q.s.Config
	for i := range q.lw {
		pf := PF{Form: c.Form, Alpha: q.alpha[i], Beta: c.Beta, Gamma: c.Gamma, Lambda: c.Lambda}
		p, qq := pf.probs(x)
		if positive {
			q.lw[i] += math.Log(math.Max(p, tiny))
		} else {
			q.lw[i] += math.Log(math.Max(qq, tiny))
		}
	}
	normalise(q.lw, q.w)
}

// tiny floors likelihoods so that a lapse the model rules out (λ = 0)
// cannot empty the posterior.
const tiny = 1e-300

// normalise shifts lw to a maximum of 0 and writes exp(lw)/Σ into w.
func normalise(lw, w []float64) {
	m := math.Inf(-1)
	for _, v := range lw {
		m = math.Max(m, v)
	}
	var sum float64
	for i := range lw {
		lw[i] -= m
		w[i] = math.Exp(lw[i])
		sum += w[i]
	}
	for i := range w {
		w[i] /= sum
	}
}

func (q *Quest) Kind() Kind { return KindQuest }

// Config returns the resolved configuration (defaults filled in).
func (q *Quest) Config() QuestConfig { return q.s.Config }

func (q *Quest) Done() bool {
	c := &q.s.Config
	if len(q.s.Records) >= c.MaxTrials {
		return true
	}
	return c.StopSD > 0 && len(q.s.Records) > 0 && q.Estimate().SD < c.StopSD
}

// summary returns the posterior's Placement summary on the scale.
func (q *Quest) summary() float64 {
	switch q.s.Config.Placement {
	case PlaceMode:
		best := 0
		for i, v := range q.w {
			if v > q.w[best] {
				best = i
			}
		}
		return q.level[best]
	case PlaceMedian:
		return gridQuantile(q.level, q.w, 0.5)
	}
	m, _ := gridMoments(q.level, q.w)
	return m
}

func (q *Quest) Next() (Trial, error) {
	if q.s.Pending != nil {
		return *q.s.Pending, nil
	}
	if q.Done() {
		return Trial{}, ErrDone
	}
	c := &q.s.Config
	alpha := c.Form.alphaFor(c.Scale.Stimulus(q.summary()), c.Beta, c.Criterion)
	x := c.Form.quantile((c.Target-c.Gamma)/(1-c.Gamma-c.Lambda), alpha, c.Beta)
	x = math.Min(math.Max(x, c.Min), c.Max)
	return q.s.pend(Trial{Index: len(q.s.Records), X: q.onGrid(x)}), nil
}

// onGrid returns the stimulus of the posterior's grid level nearest to x
// (on the scale), so that trials placed at nearly the same stimulus are
// one level of a fit: Min and Max at the ends, the others to 12
// significant digits.
func (q *Quest) onGrid(x float64) float64 {
	c := &q.s.Config
	n := len(q.level)
	lo, hi := q.level[0], q.level[n-1]
	i := int(math.Round((c.Scale.Level(x) - lo) / (hi - lo) * float64(n-1)))
	switch {
	case i <= 0:
		return c.Min
	case i >= n-1:
		return c.Max
	}
	return roundSig(c.Scale.Stimulus(q.level[i]), 12)
}

func (q *Quest) Update(t Trial, r Response) error {
	rec, err := q.s.accept(q.s.Config.Task, t, r)
	if err != nil {
		return err
	}
	q.learn(rec.X, rec.Positive)
	q.s.commit(rec)
	return nil
}

// Estimate returns the posterior mean and SD of the threshold on the scale.
func (q *Quest) Estimate() Estimate {
	m, sd := gridMoments(q.level, q.w)
	return Estimate{Threshold: q.s.Config.Scale.Stimulus(m), Level: m, SD: sd, Beta: q.s.Config.Beta,
		TargetP: nan, Criterion: q.s.Config.Criterion, Trials: len(q.s.Records)}
}

func (q *Quest) Records() []Record { return q.s.Records }

func (q *Quest) State() ([]byte, error) { return marshalState(KindQuest, &q.s) }

// gridMoments returns the mean and standard deviation of v under weights w
// summing to 1.
func gridMoments(v, w []float64) (mean, sd float64) {
	for i, x := range v {
		mean += w[i] * x
	}
	var ss float64
	for i, x := range v {
		ss += w[i] * (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss)
}

// gridQuantile returns the p-quantile of v under weights w: each weight is
// spread evenly over its grid point's cell, which reaches halfway to the
// neighbouring points (and no further than the ends of the grid).
func gridQuantile(v, w []float64, p float64) float64 {
	edge := func(i int) float64 {
		switch i {
		case 0:
			return v[0]
		case len(v):
			return v[len(v)-1]
		}
		return (v[i-1] + v[i]) / 2
	}
	var cum float64
	for i, x := range w {
		if x > 0 && cum+x >= p {
			return edge(i) + (edge(i+1)-edge(i))*(p-cum)/x
		}
		cum += x
	}
	return v[len(v)-1]
}

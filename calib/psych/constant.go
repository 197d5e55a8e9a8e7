package psych

import (
	"encoding/json"
	"fmt"
)

// ConstantConfig configures the method of constant stimuli: every level is
// presented Repeats times, in blocks that each hold every level once in a
// random order. The threshold estimate is a maximum-likelihood fit with
// Fit (for m-AFC tasks the guess rate is the task's).
type ConstantConfig struct {
	Task    Task       `json:"task" toml:"task"`
	Levels  []float64  `json:"levels" toml:"levels"`
	Repeats int        `json:"repeats" toml:"repeats"`
	Seed    uint64     `json:"seed" toml:"seed"`
	Fit     FitOptions `json:"fit" toml:"fit"`
}

func (c *ConstantConfig) resolve() error {
	if err := c.Task.Validate(); err != nil {
		return err
	}
	if g := c.Task.Guess(); finite(g) {
		if c.Fit.FreeGamma || (c.Fit.Gamma != 0 && c.Fit.Gamma != g) {
			return fmt.Errorf("psych: constant stimuli: fit guess rate %g (free %v) contradicts the %s task (1/m = %g)", c.Fit.Gamma, c.Fit.FreeGamma, c.Task.Kind, g)
		}
		c.Fit.Gamma = g
	}
	if len(c.Levels) < 2 {
		return fmt.Errorf("psych: constant stimuli need at least 2 levels, have %d", len(c.Levels))
	}
	seen := map[float64]bool{}
	for i, x := range c.Levels {
		if !finite(x) || seen[x] {
			return fmt.Errorf("psych: constant stimuli level %d (%g) is not finite or repeats another", i, x)
		}
		seen[x] = true
	}
	if c.Repeats < 1 || c.Repeats*len(c.Levels) > maxTrials {
		return fmt.Errorf("psych: constant stimuli: %d repeats of %d levels, want 1..%d trials", c.Repeats, len(c.Levels), maxTrials)
	}
	if !c.Fit.Form.valid() {
		return fmt.Errorf("psych: constant stimuli: unknown fit form %d", int(c.Fit.Form))
	}
	return nil
}

// Constant is the method of constant stimuli.
type Constant struct {
	s constantState
}

type constantState struct {
	Config ConstantConfig `json:"config"`
	// Order is the whole presentation sequence as indices into Levels,
	// drawn once from Seed.
	Order []int `json:"order"`
	journal
}

// NewConstant draws the presentation order.
func NewConstant(c ConstantConfig) (*Constant, error) {
	if err := c.resolve(); err != nil {
		return nil, err
	}
	c.Levels = append([]float64(nil), c.Levels...)
	n := len(c.Levels)
	order := make([]int, n*c.Repeats)
	r := newRNG(c.Seed, 0)
	for b := range c.Repeats {
		r.perm(order[b*n : (b+1)*n])
	}
	return &Constant{s: constantState{Config: c, Order: order}}, nil
}

func restoreConstant(b []byte) (*Constant, error) {
	var s constantState
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, err
	}
	if err := s.Config.resolve(); err != nil {
		return nil, err
	}
	n := len(s.Config.Levels)
	if len(s.Order) != n*s.Config.Repeats {
		return nil, fmt.Errorf("order of %d trials, want %d", len(s.Order), n*s.Config.Repeats)
	}
	for i, k := range s.Order {
		if k < 0 || k >= n {
			return nil, fmt.Errorf("order entry %d is level %d of %d", i, k, n)
		}
	}
	if err := s.journal.check(s.Config.Task); err != nil {
		return nil, err
	}
	if len(s.Records) > len(s.Order) {
		return nil, fmt.Errorf("%d records for %d planned trials", len(s.Records), len(s.Order))
	}
	for i, r := range s.Records {
		if r.X != s.Config.Levels[s.Order[i]] {
			return nil, fmt.Errorf("record %d at stimulus %g, planned %g", i, r.X, s.Config.Levels[s.Order[i]])
		}
	}
	return &Constant{s: s}, nil
}

func (p *Constant) Kind() Kind { return KindConstant }

// Config returns the resolved configuration.
func (p *Constant) Config() ConstantConfig { return p.s.Config }

// Order returns the planned sequence of level indices. It must not be
// modified.
func (p *Constant) Order() []int { return p.s.Order }

func (p *Constant) Done() bool { return len(p.s.Records) >= len(p.s.Order) }

func (p *Constant) Next() (Trial, error) {
	if p.s.Pending != nil {
		return *p.s.Pending, nil
	}
	if p.Done() {
		return Trial{}, ErrDone
	}
	i := len(p.s.Records)
	return p.s.pend(Trial{Index: i, X: p.s.Config.Levels[p.s.Order[i]]}), nil
}

func (p *Constant) Update(t Trial, r Response) error {
	rec, err := p.s.accept(p.s.Config.Task, t, r)
	if err != nil {
		return err
	}
	p.s.commit(rec)
	return nil
}

// Estimate fits the data so far; all values are NaN until at least two
// levels have data or when the fit fails (FitPF gives the reason).
func (p *Constant) Estimate() Estimate {
	e := Estimate{Threshold: nan, Level: nan, SD: nan, Beta: nan, TargetP: nan,
		Criterion: p.s.Config.Fit.Criterion, Trials: len(p.s.Records)}
	if e.Criterion == 0 {
		e.Criterion = 0.5
	}
	f, err := FitPF(Tally(p.s.Records), p.s.Config.Fit)
	if err != nil {
		return e
	}
	e.Threshold, e.Level, e.Beta = f.Threshold, f.Threshold, f.PF.Beta
	return e
}

func (p *Constant) Records() []Record { return p.s.Records }

func (p *Constant) State() ([]byte, error) { return marshalState(KindConstant, &p.s) }

package psych

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// StaircaseConfig configures a transformed up/down staircase (Levitt 1971)
// with optional unequal up and down steps (Kaernbach 1991).
//
// After Down consecutive positive responses the level steps down (harder);
// after Up consecutive negative responses it steps up. One of Up and Down
// must be 1. The down step is Steps[k] after k reversals (the last entry
// thereafter); the up step is UpRatio times the down step. The staircase
// converges on the stimulus where the probability of a positive response
// is TargetP: p^Down = r/(1+r) for Up = 1, (1−p)^Up = 1/(1+r) for Down = 1,
// with r = UpRatio. So 1-up/2-down targets 70.7%, 1-up/3-down 79.4%, and
// 1-up/1-down with r = 3 (Kaernbach) 75%.
type StaircaseConfig struct {
	Task  Task    `json:"task" toml:"task"`
	Scale Scale   `json:"scale" toml:"scale"`
	Start float64 `json:"start" toml:"start"` // first stimulus
	Min   float64 `json:"min" toml:"min"`     // lowest stimulus presented
	Max   float64 `json:"max" toml:"max"`     // highest stimulus presented
	Up    int     `json:"up" toml:"up"`       // negatives before a step up
	Down  int     `json:"down" toml:"down"`   // positives before a step down
	// Steps are down-step sizes on Scale, changing at reversals.
	Steps []float64 `json:"steps" toml:"steps"`
	// UpRatio is the up step over the down step; 0 means 1.
	UpRatio float64 `json:"up_ratio,omitempty" toml:"up_ratio"`
	// FastStart uses 1-up/1-down until the first reversal, so that a start
	// far above threshold costs few trials.
	FastStart bool `json:"fast_start,omitempty" toml:"fast_start"`
	// The staircase stops at MaxTrials trials or MaxReversals reversals,
	// whichever comes first; 0 disables a rule, and at least one is set.
	MaxTrials    int `json:"max_trials,omitempty" toml:"max_trials"`
	MaxReversals int `json:"max_reversals,omitempty" toml:"max_reversals"`
	// Discard is the number of initial reversals left out of the estimate.
	Discard int `json:"discard,omitempty" toml:"discard"`
}

func (c StaircaseConfig) ratio() float64 {
	if c.UpRatio == 0 {
		return 1
	}
	return c.UpRatio
}

// TargetP returns the probability of a positive response on which the
// staircase converges.
func (c StaircaseConfig) TargetP() float64 {
	r := c.ratio()
	if c.Up == 1 {
		return math.Pow(r/(1+r), 1/float64(c.Down))
	}
	return 1 - math.Pow(1/(1+r), 1/float64(c.Up))
}

// Validate reports whether the configuration is usable.
func (c StaircaseConfig) Validate() error {
	if err := c.Task.Validate(); err != nil {
		return err
	}
	if !c.Scale.valid() {
		return fmt.Errorf("psych: staircase scale %d unknown", int(c.Scale))
	}
	if err := c.Scale.checkRange("staircase stimulus", c.Min, c.Max); err != nil {
		return err
	}
	if !(c.Start >= c.Min && c.Start <= c.Max) {
		return fmt.Errorf("psych: staircase start %g outside [%g, %g]", c.Start, c.Min, c.Max)
	}
	if c.Up < 1 || c.Down < 1 || (c.Up > 1 && c.Down > 1) {
		return fmt.Errorf("psych: staircase %d-up/%d-down: both must be >= 1 and one of them 1", c.Up, c.Down)
	}
	if len(c.Steps) == 0 {
		return fmt.Errorf("psych: staircase has no step sizes")
	}
	for i, s := range c.Steps {
		if !finite(s) || s <= 0 {
			return fmt.Errorf("psych: staircase step %d is %g, want > 0", i, s)
		}
	}
	if !finite(c.UpRatio) || c.UpRatio < 0 {
		return fmt.Errorf("psych: staircase up ratio %g invalid", c.UpRatio)
	}
	if c.MaxTrials < 0 || c.MaxReversals < 0 || c.Discard < 0 {
		return fmt.Errorf("psych: staircase max trials %d, max reversals %d, discard %d must be >= 0", c.MaxTrials, c.MaxReversals, c.Discard)
	}
	if c.MaxTrials == 0 && c.MaxReversals == 0 {
		return fmt.Errorf("psych: staircase needs a stopping rule (max_trials or max_reversals)")
	}
	if c.MaxTrials > maxTrials {
		return fmt.Errorf("psych: staircase max trials %d above the limit %d", c.MaxTrials, maxTrials)
	}
	if g := c.Task.Guess(); finite(g) && c.TargetP() <= g {
		return fmt.Errorf("psych: %d-up/%d-down staircase (ratio %g) targets p = %.3f, not above the guess rate %.3f", c.Up, c.Down, c.ratio(), c.TargetP(), g)
	}
	return nil
}

// Staircase is a transformed (and optionally weighted) up/down staircase.
//
// Its levels lie on a grid: Start's level plus whole multiples of a
// quantum on the scale, the largest step that divides every down and up
// step (a thousandth of the smallest step when none does: the steps are
// then rounded to it). A level is kept as its index on the grid, not as a
// running sum, so a level the staircase comes back to is the same
// stimulus to the last bit, and a fit counts its trials as one point. Min
// and Max clamp to the grid levels inside them.
type Staircase struct {
	s    staircaseState
	grid stairGrid
}

type staircaseState struct {
	Config StaircaseConfig `json:"config"`
	// K is the current level's index on the grid, Level the level itself
	// on the scale (kept for readers of the state).
	K     int     `json:"k"`
	Level float64 `json:"level"`
	Pos   int     `json:"pos"` // consecutive positives since the last step
	Neg   int     `json:"neg"` // consecutive negatives since the last step
	Dir   int     `json:"dir"` // last step: −1 down, +1 up, 0 none yet
	// Reversals are the levels at which the direction changed.
	Reversals []float64 `json:"reversals"`
	journal
}

// NewStaircase returns a staircase at its start level.
func NewStaircase(c StaircaseConfig) (*Staircase, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	c.Steps = append([]float64(nil), c.Steps...)
	p := &Staircase{s: staircaseState{Config: c}, grid: newStairGrid(c)}
	p.s.K = p.grid.clamp(0)
	p.s.Level = p.grid.level(p.s.K)
	return p, nil
}

func restoreStaircase(b []byte) (*Staircase, error) {
	var s staircaseState
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, err
	}
	c := s.Config
	if err := c.Validate(); err != nil {
		return nil, err
	}
	lo, hi := c.Scale.Level(c.Min), c.Scale.Level(c.Max)
	if !(s.Level >= lo && s.Level <= hi) || s.Pos < 0 || s.Neg < 0 || s.Dir < -1 || s.Dir > 1 {
		return nil, fmt.Errorf("level %g, counters %d/%d, direction %d out of range", s.Level, s.Pos, s.Neg, s.Dir)
	}
	g := newStairGrid(c)
	// A state written before the grid holds only the level: take the grid
	// level nearest to it.
	if k := g.clamp(s.K); k != s.K || math.Abs(g.level(k)-s.Level) > 1e-9*math.Max(1, math.Abs(s.Level)) {
		s.K = g.clamp(int(math.Round((s.Level - g.l0) / g.q)))
		s.Level = g.level(s.K)
	}
	for i, r := range s.Reversals {
		if !(r >= lo && r <= hi) {
			return nil, fmt.Errorf("reversal %d at level %g outside [%g, %g]", i, r, lo, hi)
		}
	}
	if err := s.journal.check(c.Task); err != nil {
		return nil, err
	}
	return &Staircase{s: s, grid: g}, nil
}

// stairGrid is a staircase's level grid: level(k) = l0 + k·q on the scale,
// k in [kmin, kmax], and each down and up step a whole number of quanta.
type stairGrid struct {
	scale      Scale
	start      float64
	l0, q      float64
	kmin, kmax int
	down, up   []int // quanta per step, per entry of Steps
}

func newStairGrid(c StaircaseConfig) stairGrid {
	g := stairGrid{scale: c.Scale, start: c.Start, l0: c.Scale.Level(c.Start)}
	sizes := make([]float64, 0, 2*len(c.Steps))
	smallest := math.Inf(1)
	for _, st := range c.Steps {
		sizes = append(sizes, st, st*c.ratio())
		smallest = math.Min(smallest, math.Min(st, st*c.ratio()))
	}
	g.q = smallest / 1000
	if q := floatGCD(sizes, smallest/1000); q > 0 {
		g.q = q
	}
	for _, st := range c.Steps {
		g.down = append(g.down, max(1, int(math.Round(st/g.q))))
		g.up = append(g.up, max(1, int(math.Round(st*c.ratio()/g.q))))
	}
	const eps = 1e-9
	g.kmin = int(math.Ceil((c.Scale.Level(c.Min)-g.l0)/g.q - eps))
	g.kmax = int(math.Floor((c.Scale.Level(c.Max)-g.l0)/g.q + eps))
	return g
}

// floatGCD returns the largest q >= floor that divides every value to
// within 1e-9 of the smallest, or 0 when there is none.
func floatGCD(v []float64, floor float64) float64 {
	tol := 1e-9 * floor * 1000
	g := v[0]
	for _, x := range v[1:] {
		a, b := math.Max(g, x), math.Min(g, x)
		for b > tol {
			a, b = b, math.Mod(a, b)
			if a-b <= tol {
				b = 0
			}
		}
		g = a
		if g < floor {
			return 0
		}
	}
	for _, x := range v {
		if r := x / g; math.Abs(r-math.Round(r)) > 1e-6 {
			return 0
		}
	}
	return g
}

func (g *stairGrid) clamp(k int) int { return min(max(k, g.kmin), g.kmax) }

func (g *stairGrid) level(k int) float64 { return g.l0 + float64(k)*g.q }

// stimulus returns the stimulus at grid index k: Start itself at k = 0,
// and otherwise computed from Start and k alone (so the same index always
// gives the same value), to 12 significant digits.
func (g *stairGrid) stimulus(k int) float64 {
	if k == 0 {
		return g.start
	}
	var x float64
	switch g.scale {
	case Log10:
		x = g.start * math.Pow(10, float64(k)*g.q)
	case DB:
		x = g.start * math.Pow(10, float64(k)*g.q/20)
	default:
		x = g.start + float64(k)*g.q
	}
	return roundSig(x, 12)
}

// roundSig rounds x to n significant digits.
func roundSig(x float64, n int) float64 {
	if x == 0 || !finite(x) {
		return x
	}
	v, err := strconv.ParseFloat(strconv.FormatFloat(x, 'g', n, 64), 64)
	if err != nil {
		return x
	}
	return v
}

func (p *Staircase) Kind() Kind { return KindStaircase }

// Config returns the staircase's configuration.
func (p *Staircase) Config() StaircaseConfig { return p.s.Config }

// Reversals returns the levels (on the scale) at which the staircase
// reversed. The slice must not be modified.
func (p *Staircase) Reversals() []float64 { return p.s.Reversals }

func (p *Staircase) Done() bool {
	c := &p.s.Config
	return (c.MaxTrials > 0 && len(p.s.Records) >= c.MaxTrials) ||
		(c.MaxReversals > 0 && len(p.s.Reversals) >= c.MaxReversals)
}

func (p *Staircase) Next() (Trial, error) {
	if p.s.Pending != nil {
		return *p.s.Pending, nil
	}
	if p.Done() {
		return Trial{}, ErrDone
	}
	return p.s.pend(Trial{Index: len(p.s.Records), X: p.grid.stimulus(p.s.K)}), nil
}

func (p *Staircase) Update(t Trial, r Response) error {
	rec, err := p.s.accept(p.s.Config.Task, t, r)
	if err != nil {
		return err
	}
	p.s.commit(rec)
	p.s.step(rec.Positive, &p.grid)
	return nil
}

// step applies the up/down rule after one response.
func (s *staircaseState) step(positive bool, g *stairGrid) {
	c := &s.Config
	up, down := c.Up, c.Down
	if c.FastStart && len(s.Reversals) == 0 {
		up, down = 1, 1
	}
	dir := 0
	if positive {
		s.Pos++
		s.Neg = 0
		if s.Pos >= down {
			dir = -1
		}
	} else {
		s.Neg++
		s.Pos = 0
		if s.Neg >= up {
			dir = +1
		}
	}
	if dir == 0 {
		return
	}
	s.Pos, s.Neg = 0, 0
	if s.Dir != 0 && dir != s.Dir {
		s.Reversals = append(s.Reversals, s.Level)
	}
	s.Dir = dir
	i := min(len(s.Reversals), len(c.Steps)-1)
	if dir > 0 {
		s.K += g.up[i]
	} else {
		s.K -= g.down[i]
	}
	s.K = g.clamp(s.K)
	s.Level = g.level(s.K)
}

// Estimate averages the reversal levels after the first Discard ones, on
// the scale (so a dB staircase gives a geometric mean). When an odd number
// remains, the earliest is dropped so that peaks and valleys balance. With
// no reversal beyond Discard it averages all reversals, and with none at
// all it returns the current level with SD NaN.
func (p *Staircase) Estimate() Estimate {
	s := &p.s
	e := Estimate{TargetP: s.Config.TargetP(), Criterion: nan, Beta: nan, SD: nan,
		Trials: len(s.Records), Reversals: len(s.Reversals)}
	rev := s.Reversals
	if len(rev) > s.Config.Discard {
		rev = rev[s.Config.Discard:]
	}
	if len(rev) > 1 && len(rev)%2 == 1 {
		rev = rev[1:]
	}
	if len(rev) == 0 {
		e.Level = s.Level
	} else {
		e.Level, e.SD = meanSD(rev)
	}
	e.Threshold = s.Config.Scale.Stimulus(e.Level)
	return e
}

func (p *Staircase) Records() []Record { return p.s.Records }

func (p *Staircase) State() ([]byte, error) { return marshalState(KindStaircase, &p.s) }

// meanSD returns the mean and the sample standard deviation (NaN for one
// value).
func meanSD(v []float64) (mean, sd float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, nan
	}
	var ss float64
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(v)-1))
}

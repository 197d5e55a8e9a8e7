package psych

import (
	"encoding/json"
	"fmt"
	"math"
)

// Order is how interleaved tracks take turns.
type Order string

const (
	// OrderRandom picks an unfinished track uniformly at each trial.
	OrderRandom Order = "random"
	// OrderBlocked runs rounds in which every unfinished track has one
	// trial, in a random order per round.
	OrderBlocked Order = "blocked"
	// OrderSequential cycles through the unfinished tracks in order.
	OrderSequential Order = "sequential"
)

// InterleavedConfig configures several procedures run in one session, one
// trial at a time, so that the subject cannot follow any one track: for
// example an ascending and a descending staircase on the same condition,
// or one staircase per fabric pair. Tracks may be of any kind.
type InterleavedConfig struct {
	Tracks []Config `json:"tracks" toml:"tracks"`
	Order  Order    `json:"order,omitempty" toml:"order"` // "" means random
	Seed   uint64   `json:"seed" toml:"seed"`
}

// Interleaved runs tracks in turn. Trial.Stream is the track index.
type Interleaved struct {
	tracks []Procedure
	s      interleavedState
}

type interleavedState struct {
	Config InterleavedConfig `json:"config"`
	RNG    rng               `json:"rng"`
	// Round holds the tracks still to run in the current blocked or
	// sequential round.
	Round []int `json:"round"`
	// Tracks are the tracks' own states.
	Tracks []json.RawMessage `json:"tracks"`
	journal
}

func (c *InterleavedConfig) validate() error {
	if len(c.Tracks) < 1 || len(c.Tracks) > 1000 {
		return fmt.Errorf("psych: interleaved procedure with %d tracks, want 1..1000", len(c.Tracks))
	}
	if c.Order == "" {
		c.Order = OrderRandom
	}
	switch c.Order {
	case OrderRandom, OrderBlocked, OrderSequential:
	default:
		return fmt.Errorf("psych: interleaved order %q (want random, blocked or sequential)", c.Order)
	}
	return nil
}

// NewInterleaved builds every track.
func NewInterleaved(c InterleavedConfig) (*Interleaved, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	p := &Interleaved{s: interleavedState{Config: c, RNG: newRNG(c.Seed, 1)}}
	for i, tc := range c.Tracks {
		t, err := New(tc)
		if err != nil {
			return nil, fmt.Errorf("psych: interleaved track %d: %w", i, err)
		}
		p.tracks = append(p.tracks, t)
	}
	return p, nil
}

func restoreInterleaved(b []byte) (*Interleaved, error) {
	var s interleavedState
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, err
	}
	if err := s.Config.validate(); err != nil {
		return nil, err
	}
	if s.RNG.pcg == nil {
		return nil, fmt.Errorf("random generator state missing")
	}
	if len(s.Tracks) != len(s.Config.Tracks) {
		return nil, fmt.Errorf("%d track states for %d tracks", len(s.Tracks), len(s.Config.Tracks))
	}
	p := &Interleaved{s: s}
	n := 0
	for i, ts := range s.Tracks {
		t, err := restore(ts, false)
		if err != nil {
			return nil, fmt.Errorf("track %d: %w", i, err)
		}
		if t.Kind() != s.Config.Tracks[i].Kind {
			return nil, fmt.Errorf("track %d is a %s, configured as %s", i, t.Kind(), s.Config.Tracks[i].Kind)
		}
		p.tracks = append(p.tracks, t)
		n += len(t.Records())
	}
	for _, k := range s.Round {
		if k < 0 || k >= len(p.tracks) {
			return nil, fmt.Errorf("round names track %d of %d", k, len(p.tracks))
		}
	}
	if n != len(s.Records) {
		return nil, fmt.Errorf("tracks hold %d records, the session %d", n, len(s.Records))
	}
	for i, r := range s.Records {
		if r.Index != i || r.Stream < 0 || r.Stream >= len(p.tracks) {
			return nil, fmt.Errorf("record %d has index %d, track %d", i, r.Index, r.Stream)
		}
	}
	if pt := s.Pending; pt != nil && (pt.Index != len(s.Records) || pt.Stream < 0 || pt.Stream >= len(p.tracks)) {
		return nil, fmt.Errorf("pending trial %+v inconsistent", *pt)
	}
	p.s.Tracks = nil
	return p, nil
}

func (p *Interleaved) Kind() Kind { return KindInterleaved }

// Tracks returns the tracks. Callers may read their estimates but must not
// drive them.
func (p *Interleaved) Tracks() []Procedure { return p.tracks }

func (p *Interleaved) Done() bool {
	for _, t := range p.tracks {
		if !t.Done() {
			return false
		}
	}
	return true
}

// pick chooses the next track among the unfinished ones.
func (p *Interleaved) pick() int {
	var open []int
	for i, t := range p.tracks {
		if !t.Done() {
			open = append(open, i)
		}
	}
	if p.s.Config.Order == OrderRandom {
		return open[p.s.RNG.intn(len(open))]
	}
	for {
		for len(p.s.Round) > 0 {
			k := p.s.Round[0]
			p.s.Round = p.s.Round[1:]
			if !p.tracks[k].Done() {
				return k
			}
		}
		p.s.Round = append(p.s.Round[:0], open...)
		if p.s.Config.Order == OrderBlocked {
			perm := make([]int, len(open))
			p.s.RNG.perm(perm)
			for i, j := range perm {
				p.s.Round[i] = open[j]
			}
		}
	}
}

func (p *Interleaved) Next() (Trial, error) {
	if p.s.Pending != nil {
		return *p.s.Pending, nil
	}
	if p.Done() {
		return Trial{}, ErrDone
	}
	k := p.pick()
	t, err := p.tracks[k].Next()
	if err != nil {
		return Trial{}, fmt.Errorf("psych: interleaved track %d: %w", k, err)
	}
	return p.s.pend(Trial{Index: len(p.s.Records), Stream: k, X: t.X}), nil
}

func (p *Interleaved) Update(t Trial, r Response) error {
	if p.s.Pending == nil {
		return ErrNoPending
	}
	if t != *p.s.Pending {
		return fmt.Errorf("%w: got %+v, pending %+v", ErrTrialMismatch, t, *p.s.Pending)
	}
	track := p.tracks[t.Stream]
	sub, err := track.Next()
	if err != nil {
		return fmt.Errorf("psych: interleaved track %d: %w", t.Stream, err)
	}
	if err := track.Update(sub, r); err != nil {
		return fmt.Errorf("psych: interleaved track %d: %w", t.Stream, err)
	}
	recs := track.Records()
	p.s.commit(Record{Trial: t, Response: r, Positive: recs[len(recs)-1].Positive})
	return nil
}

// Estimate averages the tracks' levels. It is meaningful when all tracks
// measure the same threshold on the same scale (ascending and descending
// staircases, say); Threshold is NaN when the scales differ, and TargetP
// and Criterion are NaN when the tracks' differ. SD is the spread of the
// track levels. Trials and Reversals are totals.
func (p *Interleaved) Estimate() Estimate {
	e := Estimate{Beta: nan, Trials: len(p.s.Records)}
	sc0, _ := scaleOf(p.tracks[0])
	first := p.tracks[0].Estimate()
	e.TargetP, e.Criterion = first.TargetP, first.Criterion
	same := true
	lv := make([]float64, len(p.tracks))
	for i, t := range p.tracks {
		te := t.Estimate()
		lv[i] = te.Level
		e.Reversals += te.Reversals
		if sc, _ := scaleOf(t); sc != sc0 {
			same = false
		}
		if !sameOrBothNaN(te.TargetP, e.TargetP) {
			e.TargetP = nan
		}
		if !sameOrBothNaN(te.Criterion, e.Criterion) {
			e.Criterion = nan
		}
	}
	e.Level, e.SD = meanSD(lv)
	e.Threshold = nan
	if same {
		e.Threshold = sc0.Stimulus(e.Level)
	}
	return e
}

func sameOrBothNaN(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

// scaleOf returns the scale a procedure's Estimate.Level is on.
func scaleOf(p Procedure) (Scale, bool) {
	switch t := p.(type) {
	case *Staircase:
		return t.s.Config.Scale, true
	case *Quest:
		return t.s.Config.Scale, true
	case *Psi:
		return t.s.Config.Scale, true
	}
	return Linear, false
}

func (p *Interleaved) Records() []Record { return p.s.Records }

func (p *Interleaved) State() ([]byte, error) {
	s := p.s
	s.Tracks = make([]json.RawMessage, len(p.tracks))
	for i, t := range p.tracks {
		b, err := t.State()
		if err != nil {
			return nil, fmt.Errorf("psych: interleaved track %d: %w", i, err)
		}
		s.Tracks[i] = b
	}
	return marshalState(KindInterleaved, &s)
}

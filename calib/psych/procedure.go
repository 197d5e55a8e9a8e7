package psych

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// Errors a Procedure returns. Callers branch on them with errors.Is.
var (
	// ErrDone is returned by Next once the procedure's stopping rule is met.
	ErrDone = errors.New("psych: procedure is done")
	// ErrNoPending is returned by Update when no trial was handed out by
	// Next since the last Update.
	ErrNoPending = errors.New("psych: no pending trial")
	// ErrTrialMismatch is returned by Update when the trial is not the one
	// Next handed out.
	ErrTrialMismatch = errors.New("psych: trial is not the pending trial")
)

// Kind names a procedure in configurations and saved states.
type Kind string

const (
	KindStaircase   Kind = "staircase"
	KindQuest       Kind = "quest"
	KindPsi         Kind = "psi"
	KindConstant    Kind = "constant"
	KindInterleaved Kind = "interleaved"
)

// Trial is one presentation a procedure asks for.
type Trial struct {
	Index  int     `json:"index"`  // 0-based trial number in the procedure
	Stream int     `json:"stream"` // track of an interleaved procedure, else 0
	X      float64 `json:"x"`      // nominal stimulus, physical units
}

// Record is a completed trial.
type Record struct {
	Trial
	Response Response `json:"response"`
	Positive bool     `json:"positive"` // correct, yes, or rating >= criterion
}

// Estimate is a procedure's current threshold estimate. Unknown values are
// NaN (null in JSON).
type Estimate struct {
	// Threshold is the estimate in stimulus units.
	Threshold float64 `json:"threshold"`
	// Level is the estimate on the procedure's scale.
	Level float64 `json:"level"`
	// SD is the uncertainty on the scale: the posterior standard deviation
	// for QUEST and Psi, the standard deviation of the averaged reversal
	// levels for staircases (not a standard error).
	SD float64 `json:"sd"`
	// Beta is the slope-parameter estimate (Psi and constant stimuli).
	Beta float64 `json:"beta"`
	// TargetP is the probability of a positive response at which the
	// estimate lies, for procedures defined by it (staircases); NaN
	// otherwise.
	TargetP float64 `json:"target_p"`
	// Criterion is the F level that defines the threshold (see
	// PF.Threshold) for model-based procedures; NaN for staircases.
	Criterion float64 `json:"criterion"`
	Trials    int     `json:"trials"`
	Reversals int     `json:"reversals"`
}

// MarshalJSON writes non-finite values as null.
func (e Estimate) MarshalJSON() ([]byte, error) {
	type plain struct {
		Threshold *float64 `json:"threshold"`
		Level     *float64 `json:"level"`
		SD        *float64 `json:"sd"`
		Beta      *float64 `json:"beta"`
		TargetP   *float64 `json:"target_p"`
		Criterion *float64 `json:"criterion"`
		Trials    int      `json:"trials"`
		Reversals int      `json:"reversals"`
	}
	f := func(v float64) *float64 {
		if !finite(v) {
			return nil
		}
		return &v
	}
	return json.Marshal(plain{f(e.Threshold), f(e.Level), f(e.SD), f(e.Beta), f(e.TargetP), f(e.Criterion), e.Trials, e.Reversals})
}

// Truth returns the stimulus an unbiased estimate should equal for an
// observer with psychometric function pf: pf's inverse at TargetP, or its
// threshold at Criterion.
func (e Estimate) Truth(pf PF) (float64, error) {
	if finite(e.TargetP) {
		return pf.Inverse(e.TargetP)
	}
	if finite(e.Criterion) {
		return pf.Threshold(e.Criterion), nil
	}
	return nan, errors.New("psych: estimate has neither a target probability nor a criterion")
}

// Procedure is a psychophysical procedure: it chooses stimuli and learns
// from responses.
//
// The caller alternates Next and Update. Next hands out the pending trial
// and keeps handing out the same one until Update consumes it, so a runner
// that crashes between the two simply calls Next again after Restore.
// State returns everything needed to continue: Restore(State()) gives a
// procedure that behaves bit-identically from that point on. Procedures
// are deterministic given their configuration (and seed); they are not
// safe for concurrent use.
type Procedure interface {
	Kind() Kind
	// Next returns the pending trial, choosing it if there is none. It
	// returns ErrDone when the stopping rule is met.
	Next() (Trial, error)
	// Update records the response to the pending trial.
	Update(t Trial, r Response) error
	// Done reports whether the stopping rule is met.
	Done() bool
	// Estimate returns the current threshold estimate.
	Estimate() Estimate
	// Records returns the completed trials in order. The slice must not
	// be modified.
	Records() []Record
	// State returns the procedure's complete state as JSON.
	State() ([]byte, error)
}

// Config selects and configures one procedure, as read from an experiment
// file: Kind names the procedure and the field of that name holds its
// configuration.
type Config struct {
	Kind        Kind               `json:"kind" toml:"kind"`
	Staircase   *StaircaseConfig   `json:"staircase,omitempty" toml:"staircase,omitempty"`
	Quest       *QuestConfig       `json:"quest,omitempty" toml:"quest,omitempty"`
	Psi         *PsiConfig         `json:"psi,omitempty" toml:"psi,omitempty"`
	Constant    *ConstantConfig    `json:"constant,omitempty" toml:"constant,omitempty"`
	Interleaved *InterleavedConfig `json:"interleaved,omitempty" toml:"interleaved,omitempty"`
}

// New builds the procedure a Config describes.
func New(c Config) (Procedure, error) {
	missing := fmt.Errorf("psych: %q procedure has no [%s] configuration", c.Kind, c.Kind)
	switch c.Kind {
	case KindStaircase:
		if c.Staircase == nil {
			return nil, missing
		}
		return NewStaircase(*c.Staircase)
	case KindQuest:
		if c.Quest == nil {
			return nil, missing
		}
		return NewQuest(*c.Quest)
	case KindPsi:
		if c.Psi == nil {
			return nil, missing
		}
		return NewPsi(*c.Psi)
	case KindConstant:
		if c.Constant == nil {
			return nil, missing
		}
		return NewConstant(*c.Constant)
	case KindInterleaved:
		if c.Interleaved == nil {
			return nil, missing
		}
		return NewInterleaved(*c.Interleaved)
	}
	return nil, fmt.Errorf("psych: unknown procedure kind %q", c.Kind)
}

const (
	stateFormat  = "haptex-psych-procedure"
	stateVersion = 1
	// maxTrials bounds every procedure's length so that a typo in a
	// configuration cannot produce a run that never ends.
	maxTrials = 100000
)

type envelope struct {
	Format  string          `json:"format"`
	Version int             `json:"version"`
	Kind    Kind            `json:"kind"`
	State   json.RawMessage `json:"state"`
}

func marshalState(k Kind, body any) ([]byte, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("psych: %s state: %w", k, err)
	}
	return json.Marshal(envelope{Format: stateFormat, Version: stateVersion, Kind: k, State: b})
}

// Restore rebuilds a procedure from State. It validates the saved
// configuration and history, replays the history (the trials it presents
// and the state it ends in must be the saved ones), and fails with a
// clear error on a state written by another format or version, or on a
// corrupt one.
func Restore(state []byte) (Procedure, error) {
	return restore(state, true)
}

// restore is Restore; with check false it leaves out the replay of the
// history (an interleaved procedure replays its tracks' histories as
// part of its own).
func restore(state []byte, check bool) (Procedure, error) {
	var e envelope
	if err := json.Unmarshal(state, &e); err != nil {
		return nil, fmt.Errorf("psych: restore: %w", err)
	}
	if e.Format != stateFormat {
		return nil, fmt.Errorf("psych: restore: format %q, want %q", e.Format, stateFormat)
	}
	if e.Version != stateVersion {
		return nil, fmt.Errorf("psych: restore: state version %d, this build reads %d", e.Version, stateVersion)
	}
	if len(e.State) == 0 {
		return nil, fmt.Errorf("psych: restore: %s state missing", e.Kind)
	}
	var (
		p   Procedure
		err error
	)
	switch e.Kind {
	case KindStaircase:
		p, err = restoreStaircase(e.State)
	case KindQuest:
		p, err = restoreQuest(e.State)
	case KindPsi:
		p, err = restorePsi(e.State)
	case KindConstant:
		p, err = restoreConstant(e.State)
	case KindInterleaved:
		p, err = restoreInterleaved(e.State)
	default:
		return nil, fmt.Errorf("psych: restore: unknown procedure kind %q", e.Kind)
	}
	if err == nil && check {
		err = replay(p)
	}
	if err != nil {
		return nil, fmt.Errorf("psych: restore %s: %w", e.Kind, err)
	}
	return p, nil
}

// journal is the trial bookkeeping every procedure shares: the completed
// records and the trial handed out but not yet answered.
type journal struct {
	Records []Record `json:"records"`
	Pending *Trial   `json:"pending,omitempty"`
}

// pend stores and returns t as the pending trial.
func (j *journal) pend(t Trial) Trial {
	j.Pending = &t
	return t
}

// accept checks that t is the pending trial and that r is a valid answer
// to task, and returns the record to commit.
func (j *journal) accept(task Task, t Trial, r Response) (Record, error) {
	if j.Pending == nil {
		return Record{}, ErrNoPending
	}
	if t != *j.Pending {
		return Record{}, fmt.Errorf("%w: got %+v, pending %+v", ErrTrialMismatch, t, *j.Pending)
	}
	pos, err := task.Positive(r)
	if err != nil {
		return Record{}, err
	}
	return Record{Trial: *j.Pending, Response: r, Positive: pos}, nil
}

func (j *journal) commit(rec Record) {
	j.Records = append(j.Records, rec)
	j.Pending = nil
}

// check validates a restored journal of a single-track procedure against
// the task and the next trial index.
func (j *journal) check(task Task) error {
	for i, r := range j.Records {
		if r.Index != i {
			return fmt.Errorf("record %d has index %d", i, r.Index)
		}
		if r.Stream != 0 {
			return fmt.Errorf("record %d has track %d of a procedure with one", i, r.Stream)
		}
		if !finite(r.X) {
			return fmt.Errorf("record %d has stimulus %g", i, r.X)
		}
		pos, err := task.Positive(r.Response)
		if err != nil {
			return fmt.Errorf("record %d: %w", i, err)
		}
		if pos != r.Positive {
			return fmt.Errorf("record %d: positive=%v contradicts response %d", i, r.Positive, r.Response)
		}
	}
	if len(j.Records) > maxTrials {
		return fmt.Errorf("%d records exceed the limit of %d", len(j.Records), maxTrials)
	}
	if p := j.Pending; p != nil && (p.Index != len(j.Records) || p.Stream != 0 || !finite(p.X)) {
		return fmt.Errorf("pending trial %+v inconsistent with %d records", *p, len(j.Records))
	}
	return nil
}

// MaxTrials returns how many trials a procedure runs at most, and whether
// it runs exactly that many (no earlier stopping rule): what a subject is
// told ("trial 3 of 60", or "of at most 60"). 0 means no bound on trials
// (a staircase that stops on reversals only).
func MaxTrials(c Config) (n int, exact bool) {
	switch c.Kind {
	case KindStaircase:
		if s := c.Staircase; s != nil {
			return s.MaxTrials, s.MaxReversals == 0
		}
	case KindQuest:
		if q := c.Quest; q != nil {
			return q.MaxTrials, q.StopSD == 0
		}
	case KindPsi:
		if p := c.Psi; p != nil {
			return p.MaxTrials, p.StopSD == 0
		}
	case KindConstant:
		if k := c.Constant; k != nil {
			return k.Repeats * len(k.Levels), true
		}
	case KindInterleaved:
		if il := c.Interleaved; il != nil {
			exact = true
			for _, t := range il.Tracks {
				m, e := MaxTrials(t)
				if m == 0 {
					return 0, false
				}
				n += m
				exact = exact && e
			}
			return n, exact
		}
	}
	return 0, false
}

// Span is the range of stimuli a procedure presents and the scale it
// steps on: Start is its first stimulus where it has one (a staircase's),
// NaN otherwise; Levels lists a constant-stimuli design's levels.
type Span struct {
	Min, Max float64
	Scale    Scale
	Start    float64
	Levels   []float64
}

// SpanOf returns the span of each stream of a procedure (one for all but
// an interleaved one, whose streams are its tracks).
func SpanOf(c Config) []Span {
	switch c.Kind {
	case KindStaircase:
		if s := c.Staircase; s != nil {
			return []Span{{Min: s.Min, Max: s.Max, Scale: s.Scale, Start: s.Start}}
		}
	case KindQuest:
		if q := c.Quest; q != nil {
			return []Span{{Min: q.Min, Max: q.Max, Scale: q.Scale, Start: nan}}
		}
	case KindPsi:
		if p := c.Psi; p != nil {
			return []Span{{Min: p.Min, Max: p.Max, Scale: p.Scale, Start: nan}}
		}
	case KindConstant:
		if k := c.Constant; k != nil && len(k.Levels) > 0 {
			lv := slices.Clone(k.Levels)
			slices.Sort(lv)
			return []Span{{Min: lv[0], Max: lv[len(lv)-1], Scale: Linear, Start: nan, Levels: lv}}
		}
	case KindInterleaved:
		if il := c.Interleaved; il != nil {
			var out []Span
			for _, t := range il.Tracks {
				out = append(out, SpanOf(t)...)
			}
			return out
		}
	}
	return nil
}

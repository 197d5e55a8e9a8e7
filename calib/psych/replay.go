package psych

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
)

// replay checks a restored procedure against its own history: a procedure
// built fresh from the restored configuration is given the records'
// responses in order, and must present the same trials (index, track and
// stimulus, to 1e-9 relative) and end in the same state, the pending trial
// included. Each kind's restore checks its fields' ranges; only the
// history can tell a saved counter, reversal list, track order or random
// generator that a hand edit, a lost field or a faulty build changed from
// the values the trials produced, which would otherwise go on to choose
// the next trials and stop the run.
//
// Numbers compare to 1e-9 relative, not bit for bit, so that a state
// written before a staircase's levels lay on a grid (running sums, equal
// to the grid's levels to rounding) still restores.
func replay(p Procedure) error {
	saved, err := p.State()
	if err != nil {
		return err
	}
	var env struct {
		State struct {
			Pending *Trial `json:"pending"`
		} `json:"state"`
	}
	if err := json.Unmarshal(saved, &env); err != nil {
		return err
	}
	q, err := New(configOf(p))
	if err != nil {
		return err
	}
	recs := p.Records()
	for i, r := range recs {
		t, err := q.Next()
		if errors.Is(err, ErrDone) {
			return fmt.Errorf("record %d of %d: the procedure's stopping rule ends the run before it", i, len(recs))
		}
		if err != nil {
			return fmt.Errorf("record %d: %w", i, err)
		}
		if t.Index != r.Index || t.Stream != r.Stream || !near(t.X, r.X) {
			return fmt.Errorf("record %d is trial %d of track %d at stimulus %g; its configuration and the records before it give trial %d of track %d at %g",
				i, r.Index, r.Stream, r.X, t.Index, t.Stream, t.X)
		}
		if err := q.Update(t, r.Response); err != nil {
			return fmt.Errorf("record %d: %w", i, err)
		}
	}
	if pt := env.State.Pending; pt != nil {
		t, err := q.Next()
		if err != nil {
			return fmt.Errorf("pending trial %d: %w", pt.Index, err)
		}
		if t.Index != pt.Index || t.Stream != pt.Stream || !near(t.X, pt.X) {
			return fmt.Errorf("pending trial %d of track %d at stimulus %g; its configuration and records give trial %d of track %d at %g",
				pt.Index, pt.Stream, pt.X, t.Index, t.Stream, t.X)
		}
	}
	want, err := q.State()
	if err != nil {
		return err
	}
	a, err := tree(saved, nil)
	if err != nil {
		return err
	}
	b, err := tree(want, nil)
	if err != nil {
		return err
	}
	if d := differ("", a, b, "the trials give"); d != "" {
		return fmt.Errorf("the state disagrees with its own %d trials: %s", len(recs), d)
	}
	return nil
}

// tree decodes JSON b for differ; err passes an encoder's error on
// (tree(json.Marshal(v))).
func tree(b []byte, err error) (any, error) {
	var v any
	if err == nil {
		err = json.Unmarshal(b, &v)
	}
	return v, err
}

// configOf returns the configuration p was built from.
func configOf(p Procedure) Config {
	switch p := p.(type) {
	case *Staircase:
		c := p.s.Config
		return Config{Kind: KindStaircase, Staircase: &c}
	case *Quest:
		c := p.s.Config
		return Config{Kind: KindQuest, Quest: &c}
	case *Psi:
		c := p.s.Config
		return Config{Kind: KindPsi, Psi: &c}
	case *Constant:
		c := p.s.Config
		return Config{Kind: KindConstant, Constant: &c}
	case *Interleaved:
		c := p.s.Config
		return Config{Kind: KindInterleaved, Interleaved: &c}
	}
	return Config{Kind: p.Kind()}
}

// near reports whether two numbers agree to 1e-9 relative.
func near(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// differ describes the first place where the decoded JSON values saved and
// replayed differ ("" when they agree), named by its path in the state;
// by says where the replayed values come from ("the trials give").
func differ(path string, saved, replayed any, by string) string {
	at := path
	if at == "" {
		at = "the state"
	}
	switch s := saved.(type) {
	case map[string]any:
		r, ok := replayed.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s is an object where %s %s", at, by, brief(replayed))
		}
		for _, k := range slices.Sorted(maps.Keys(r)) {
			rv := r[k]
			sv, ok := s[k]
			if !ok {
				return fmt.Sprintf("%s is missing (%s %s)", join(path, k), by, brief(rv))
			}
			if d := differ(join(path, k), sv, rv, by); d != "" {
				return d
			}
		}
		for _, k := range slices.Sorted(maps.Keys(s)) {
			if _, ok := r[k]; !ok {
				return fmt.Sprintf("%s = %s; %s none", join(path, k), brief(s[k]), by)
			}
		}
	case []any:
		r, ok := replayed.([]any)
		if !ok {
			return fmt.Sprintf("%s is a list where %s %s", at, by, brief(replayed))
		}
		if len(s) != len(r) {
			return fmt.Sprintf("%s holds %d entries; %s %d", at, len(s), by, len(r))
		}
		for i := range s {
			if d := differ(path+"["+strconv.Itoa(i)+"]", s[i], r[i], by); d != "" {
				return d
			}
		}
	case float64:
		r, ok := replayed.(float64)
		if !ok || !near(s, r) {
			return fmt.Sprintf("%s = %s; %s %s", at, brief(saved), by, brief(replayed))
		}
	default:
		if saved != replayed {
			return fmt.Sprintf("%s = %s; %s %s", at, brief(saved), by, brief(replayed))
		}
	}
	return ""
}

func join(path, key string) string {
	if path == "" {
		return strconv.Quote(key)
	}
	return path + "." + strconv.Quote(key)
}

// brief prints a decoded JSON value for an error line: scalars whole,
// lists and objects by their size.
func brief(v any) string {
	switch v := v.(type) {
	case []any:
		return fmt.Sprintf("a list of %d", len(v))
	case map[string]any:
		return fmt.Sprintf("an object of %d fields", len(v))
	case nil:
		return "null"
	case string:
		return strconv.Quote(v)
	}
	return fmt.Sprint(v)
}

// Resume is Restore for a run configured by c: it also refuses a state
// whose configuration is not c's, such as one saved by a run of another
// configuration or edited by hand (its history may agree with the edited
// configuration, which Restore alone accepts).
func Resume(c Config, state []byte) (Procedure, error) {
	p, err := Restore(state)
	if err != nil {
		return nil, err
	}
	q, err := New(c)
	if err != nil {
		return nil, err
	}
	a, err := tree(json.Marshal(configOf(p)))
	if err != nil {
		return nil, err
	}
	b, err := tree(json.Marshal(configOf(q)))
	if err != nil {
		return nil, err
	}
	if d := differ("", a, b, "the run's configuration gives"); d != "" {
		return nil, fmt.Errorf("psych: resume %s: the state's configuration is another: %s", p.Kind(), d)
	}
	return p, nil
}

// Matches returns nil when o is p but for its random state, and otherwise
// an error naming the first parameter in which they differ: an observer
// restored from a run's state must be the one the run names (its
// specification is kept beside its parameters, and an edit of either
// alone would change how it answers).
func (o *Observer) Matches(p *Observer) error { return matches("observer", o, p) }

// Matches is Observer.Matches for a cue observer.
func (o *CueObserver) Matches(p *CueObserver) error { return matches("cue observer", o, p) }

func matches(what string, saved, want any) error {
	var m [2]any
	for i, v := range []any{saved, want} {
		var err error
		if m[i], err = tree(json.Marshal(v)); err != nil {
			return err
		}
		delete(m[i].(map[string]any), "rng")
	}
	if d := differ("", m[0], m[1], "the run's "+what+" has"); d != "" {
		return fmt.Errorf("psych: the saved %s is another: %s", what, d)
	}
	return nil
}

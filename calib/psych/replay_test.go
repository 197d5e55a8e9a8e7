package psych

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestRestoreRefusesWhatItsTrialsContradict edits every field of a saved
// state but its configuration and its records, one edit at a time:
// deleted, a number moved, a flag flipped, a list shortened, a string
// changed. Restore must refuse the edited state, or restore a procedure
// whose state is the one saved (an edit of a field to the value the
// trials give it anyway, such as deleting a counter that is zero).
// Before the replay, a staircase without its reversals or with its
// counters reset resumed from the edited values.
func TestRestoreRefusesWhatItsTrialsContradict(t *testing.T) {
	for _, tc := range testConfigs() {
		t.Run(tc.name, func(t *testing.T) {
			ref, err := New(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			run(t, ref, newTestObserver(t, tc.truth, tc.task, 5), math.MaxInt, false)
			cut := len(ref.Records()) / 2
			p, err := New(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			run(t, p, newTestObserver(t, tc.truth, tc.task, 5), cut, true)
			good, err := p.State()
			if err != nil {
				t.Fatal(err)
			}
			tree := decode(t, good)
			edits, refused := 0, 0
			for _, e := range stateEdits(tree.(map[string]any)["state"], `"state"`) {
				edits++
				doc := decode(t, good)
				doc.(map[string]any)["state"] = e.apply(doc.(map[string]any)["state"])
				bad, err := json.Marshal(doc)
				if err != nil {
					t.Fatal(err)
				}
				q, err := Restore(bad)
				if err != nil {
					refused++
					if strings.Contains(err.Error(), "\n") {
						t.Errorf("%s: error of more than one line: %q", e.name, err)
					}
					continue
				}
				got, err := q.State()
				if err != nil {
					t.Fatal(err)
				}
				d := differ("", decode(t, got), tree, "the trials give")
				if d != "" && !q.Done() {
					// A state without its pending trial hands out the
					// same trial again.
					if _, err := q.Next(); err != nil {
						t.Fatal(err)
					}
					if got, err = q.State(); err != nil {
						t.Fatal(err)
					}
					d = differ("", decode(t, got), tree, "the trials give")
				}
				if d != "" {
					t.Errorf("%s: restored a procedure other than the saved one: %s", e.name, d)
				}
			}
			if refused == 0 {
				t.Errorf("none of %d edits refused", edits)
			}
			t.Logf("%d edits, %d refused, the others restore the saved procedure", edits, refused)
		})
	}
}

// stateEdit is one edit of a decoded state: op applied to the node at
// path (object keys and list indices), or the node deleted when op is nil.
type stateEdit struct {
	name string
	path []any
	op   func(any) any
}

// apply edits a fresh copy of the state and returns it.
func (e stateEdit) apply(state any) any {
	parent, key := state, e.path[len(e.path)-1]
	for _, k := range e.path[:len(e.path)-1] {
		parent = child(parent, k)
	}
	switch p := parent.(type) {
	case map[string]any:
		if e.op == nil {
			delete(p, key.(string))
		} else {
			p[key.(string)] = e.op(p[key.(string)])
		}
	case []any:
		p[key.(int)] = e.op(p[key.(int)])
	}
	return state
}

func child(v, k any) any {
	if s, ok := k.(string); ok {
		return v.(map[string]any)[s]
	}
	return v.([]any)[k.(int)]
}

// stateEdits lists the edits of every node under the decoded state v but
// its configuration and records.
func stateEdits(v any, name string) []stateEdit {
	var out []stateEdit
	var walk func(v any, name string, path []any)
	walk = func(v any, name string, path []any) {
		add := func(what string, op func(any) any) {
			out = append(out, stateEdit{name: name + ": " + what, path: path, op: op})
		}
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				if k == "config" || k == "records" {
					continue
				}
				p := append(path[:len(path):len(path)], k)
				out = append(out, stateEdit{name: name + "." + strconv.Quote(k) + ": deleted", path: p})
				walk(c, name+"."+strconv.Quote(k), p)
			}
		case []any:
			if len(x) > 0 && len(path) > 0 {
				add("shortened", func(a any) any { l := a.([]any); return l[:len(l)-1] })
			}
			for i, c := range x {
				walk(c, name+"["+strconv.Itoa(i)+"]", append(path[:len(path):len(path)], i))
			}
		case float64:
			if len(path) == 0 {
				return
			}
			add("+1", func(a any) any { return a.(float64) + 1 })
			add("×1.5+0.5", func(a any) any { return a.(float64)*1.5 + 0.5 })
		case bool:
			add("flipped", func(a any) any { return !a.(bool) })
		case string:
			add("changed", func(a any) any { return a.(string) + "x" })
		case nil:
			add("set", func(any) any { return 1.0 })
		}
	}
	walk(v, name, nil)
	return out
}

func decode(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestResumeRefusesAnotherConfiguration: a state whose history agrees with
// its own configuration restores, and resumes only under that
// configuration.
func TestResumeRefusesAnotherConfiguration(t *testing.T) {
	tc := testConfigs()[0]
	p, err := New(tc.cfg)
	if err != nil {
		t.Fatal(err)
	}
	run(t, p, newTestObserver(t, tc.truth, tc.task, 1), 10, true)
	state, err := p.State()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Resume(tc.cfg, state); err != nil {
		t.Fatalf("own configuration: %v", err)
	}
	other := *tc.cfg.Staircase
	other.MaxTrials++
	_, err = Resume(Config{Kind: KindStaircase, Staircase: &other}, state)
	if err == nil || !strings.Contains(err.Error(), `"max_trials" = 60; the run's configuration gives 61`) {
		t.Errorf("another configuration: %v", err)
	}
}

// TestObserverMatches: an observer restored from its state matches the
// one it was saved from after trials (its random state moved on), and
// not one of other parameters.
func TestObserverMatches(t *testing.T) {
	o, err := ParseObserver("nominal:form=weibull,threshold=10,beta=3.5,lambda=0.01,seed=7", TwoAFC)
	if err != nil {
		t.Fatal(err)
	}
	fresh := *o
	for range 5 {
		o.Respond(10)
	}
	b, err := o.State()
	if err != nil {
		t.Fatal(err)
	}
	r, err := RestoreObserver(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Matches(&fresh); err != nil {
		t.Errorf("restored observer: %v", err)
	}
	other, err := ParseObserver("nominal:form=weibull,threshold=10,beta=3.5,lambda=0.02,seed=7", TwoAFC)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Matches(other); err == nil || !strings.Contains(err.Error(), `"pf"."lambda" = 0.01; the run's observer has 0.02`) {
		t.Errorf("another lapse rate: %v", err)
	}
	c, err := ParseCueObserver("cue:weber=0.2,seed=3", TwoAFC)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := ParseCueObserver("cue:weber=0.2,seed=4", TwoAFC)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Matches(c); err != nil {
		t.Errorf("cue observer against itself: %v", err)
	}
	if err := c.Matches(c2); err == nil {
		t.Errorf("cue observers of other seeds match")
	}
}

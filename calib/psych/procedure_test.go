package psych

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

// testConfigs returns one configuration of every procedure kind and task,
// with its observer's true function.
func testConfigs() []struct {
	name  string
	cfg   Config
	truth PF
	task  Task
} {
	weib := must(NewPF(Weibull, 10, 0.5, 3.5, 0.5, 0.01))
	yn := Task{Kind: YesNo}
	logi := must(NewPF(Logistic, 2.35, 0.5, 3, 0.02, 0.02))
	rating := Task{Kind: Rating, Levels: 4, Criterion: 3}
	stair := func(task Task, up, down int, ratio float64, fast bool) *StaircaseConfig {
		return &StaircaseConfig{Task: task, Scale: DB, Start: 30, Min: 0.5, Max: 100, Up: up, Down: down, UpRatio: ratio,
			Steps: []float64{4, 2, 1}, FastStart: fast, MaxTrials: 60, MaxReversals: 12, Discard: 2}
	}
	return []struct {
		name  string
		cfg   Config
		truth PF
		task  Task
	}{
		{"staircase-1u2d", Config{Kind: KindStaircase, Staircase: stair(TwoAFC, 1, 2, 0, false)}, weib, TwoAFC},
		{"staircase-1u3d-fast", Config{Kind: KindStaircase, Staircase: stair(TwoAFC, 1, 3, 0, true)}, weib, TwoAFC},
		{"staircase-weighted", Config{Kind: KindStaircase, Staircase: stair(TwoAFC, 1, 1, 3, false)}, weib, TwoAFC},
		{"staircase-2u1d-yesno", Config{Kind: KindStaircase, Staircase: &StaircaseConfig{Task: yn, Scale: Linear, Start: 6.67, Min: 0, Max: 10,
			Up: 2, Down: 1, Steps: []float64{0.5, 0.25}, MaxTrials: 50}}, logi, yn},
		{"staircase-rating", Config{Kind: KindStaircase, Staircase: &StaircaseConfig{Task: rating, Scale: Linear, Start: 6, Min: 0, Max: 10,
			Up: 1, Down: 1, Steps: []float64{0.5}, MaxTrials: 40}}, logi, rating},
		{"quest", Config{Kind: KindQuest, Quest: &QuestConfig{Task: TwoAFC, Form: Weibull, Beta: 3.5, Lambda: 0.01, Scale: DB,
			Min: 0.5, Max: 100, PriorThreshold: 20, PriorSD: 10, MaxTrials: 40}}, weib, TwoAFC},
		{"quest-mode-yesno", Config{Kind: KindQuest, Quest: &QuestConfig{Task: yn, Form: Logistic, Beta: 3, Gamma: 0.02, Lambda: 0.02,
			Scale: Linear, Min: 0, Max: 10, PriorThreshold: 4, PriorSD: 2, Placement: PlaceMode, MaxTrials: 40}}, logi, yn},
		{"psi", Config{Kind: KindPsi, Psi: &PsiConfig{Task: TwoAFC, Form: Weibull, Lambda: 0.01, Scale: DB, Min: 0.5, Max: 100,
			BetaMin: 1, BetaMax: 8, Thresholds: 31, Betas: 9, Stimuli: 31, MaxTrials: 30}}, weib, TwoAFC},
		{"psi-slope-prior", Config{Kind: KindPsi, Psi: &PsiConfig{Task: TwoAFC, Form: Weibull, Lambda: 0.01, Scale: DB, Min: 0.5, Max: 100,
			BetaMin: 0.5, BetaMax: 16, Thresholds: 31, Betas: 9, Stimuli: 31, PriorBeta: 3, PriorBetaSD: 0.35, Objective: ObjectiveThreshold,
			MaxTrials: 30}}, weib, TwoAFC},
		{"psi-variance-yesno", Config{Kind: KindPsi, Psi: &PsiConfig{Task: yn, Form: Logistic, Gamma: 0.02, Lambda: 0.02, Scale: Linear,
			Min: 0, Max: 10, BetaMin: 0.5, BetaMax: 20, Thresholds: 31, Betas: 9, Stimuli: 31, PriorThreshold: 4, PriorSD: 2,
			Objective: ObjectiveVariance, MaxTrials: 30}}, logi, yn},
		{"psi-marginal-yesno", Config{Kind: KindPsi, Psi: &PsiConfig{Task: yn, Form: Logistic, Gamma: 0.02, Lambda: 0.02, Scale: Linear,
			Min: 0, Max: 10, BetaMin: 0.5, BetaMax: 20, Thresholds: 31, Betas: 9, Stimuli: 31, PriorThreshold: 4, PriorSD: 2,
			Objective: ObjectiveThreshold, MaxTrials: 30}}, logi, yn},
		{"constant", Config{Kind: KindConstant, Constant: &ConstantConfig{Task: yn, Levels: []float64{0, 1.82, 2.22, 2.86, 3.33, 4, 5, 6.67},
			Repeats: 5, Seed: 3, Fit: FitOptions{Form: Logistic, FreeGamma: true, Lambda: 0.02}}}, logi, yn},
		{"interleaved-mixed", Config{Kind: KindInterleaved, Interleaved: &InterleavedConfig{Seed: 9, Tracks: []Config{
			{Kind: KindStaircase, Staircase: stair(TwoAFC, 1, 2, 0, false)},
			{Kind: KindStaircase, Staircase: &StaircaseConfig{Task: TwoAFC, Scale: DB, Start: 2, Min: 0.5, Max: 100, Up: 1, Down: 2,
				Steps: []float64{4, 2, 1}, MaxTrials: 30}},
			{Kind: KindQuest, Quest: &QuestConfig{Task: TwoAFC, Form: Weibull, Beta: 3.5, Scale: DB, Min: 0.5, Max: 100,
				PriorThreshold: 20, PriorSD: 10, MaxTrials: 20}},
		}}}, weib, TwoAFC},
		{"interleaved-blocked", Config{Kind: KindInterleaved, Interleaved: &InterleavedConfig{Seed: 2, Order: OrderBlocked, Tracks: []Config{
			{Kind: KindStaircase, Staircase: stair(TwoAFC, 1, 2, 0, false)},
			{Kind: KindStaircase, Staircase: stair(TwoAFC, 1, 3, 0, false)},
		}}}, weib, TwoAFC},
		{"interleaved-sequential", Config{Kind: KindInterleaved, Interleaved: &InterleavedConfig{Order: OrderSequential, Tracks: []Config{
			{Kind: KindStaircase, Staircase: stair(TwoAFC, 1, 2, 0, false)},
			{Kind: KindStaircase, Staircase: stair(TwoAFC, 1, 1, 3, false)},
		}}}, weib, TwoAFC},
	}
}

func newTestObserver(t *testing.T, pf PF, task Task, seed uint64) *Observer {
	t.Helper()
	if task.Kind == Rating {
		o, err := NewRatingObserver(pf, task, []float64{pf.Threshold(0.5) - 1, pf.Threshold(0.5), pf.Threshold(0.5) + 1}, seed)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	o, err := NewObserver(pf, task, seed)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// run drives p with o until done or until stop trials are complete; with
// pending set it leaves one trial handed out but unanswered.
func run(t *testing.T, p Procedure, o *Observer, stop int, pending bool) {
	t.Helper()
	for !p.Done() && len(p.Records()) < stop {
		tr, err := p.Next()
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Update(tr, o.Respond(tr.X)); err != nil {
			t.Fatal(err)
		}
	}
	if pending && !p.Done() {
		if _, err := p.Next(); err != nil {
			t.Fatal(err)
		}
	}
}

func sameRecords(a, b []Record) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Index != b[i].Index || a[i].Stream != b[i].Stream || math.Float64bits(a[i].X) != math.Float64bits(b[i].X) ||
			a[i].Response != b[i].Response || a[i].Positive != b[i].Positive {
			return false
		}
	}
	return true
}

func sameEstimate(a, b Estimate) bool {
	eq := func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }
	return eq(a.Threshold, b.Threshold) && eq(a.Level, b.Level) && eq(a.SD, b.SD) && eq(a.Beta, b.Beta) &&
		eq(a.TargetP, b.TargetP) && eq(a.Criterion, b.Criterion) && a.Trials == b.Trials && a.Reversals == b.Reversals
}

// TestRestoreContinuesBitIdentically interrupts every procedure at several
// points (with and without a trial handed out), saves procedure and
// observer, restores both from JSON, and checks that the rest of the run
// is bit-identical to an uninterrupted run.
func TestRestoreContinuesBitIdentically(t *testing.T) {
	for _, tc := range testConfigs() {
		t.Run(tc.name, func(t *testing.T) {
			ref, err := New(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			run(t, ref, newTestObserver(t, tc.truth, tc.task, 5), math.MaxInt, false)
			refState, err := ref.State()
			if err != nil {
				t.Fatal(err)
			}
			n := len(ref.Records())
			if n < 10 {
				t.Fatalf("reference run has only %d trials", n)
			}
			for _, cut := range []int{0, 1, n / 3, n / 2, n - 1, n} {
				for _, pending := range []bool{false, true} {
					p, err := New(tc.cfg)
					if err != nil {
						t.Fatal(err)
					}
					o := newTestObserver(t, tc.truth, tc.task, 5)
					run(t, p, o, cut, pending)
					ps, err := p.State()
					if err != nil {
						t.Fatal(err)
					}
					os, err := o.State()
					if err != nil {
						t.Fatal(err)
					}
					p2, err := Restore(ps)
					if err != nil {
						t.Fatalf("cut %d: %v", cut, err)
					}
					o2, err := RestoreObserver(os)
					if err != nil {
						t.Fatal(err)
					}
					ps2, err := p2.State()
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(ps, ps2) {
						t.Fatalf("cut %d pending %v: state changes in a save/restore round trip", cut, pending)
					}
					if !sameEstimate(p.Estimate(), p2.Estimate()) {
						t.Fatalf("cut %d: estimate %+v after restore, %+v before", cut, p2.Estimate(), p.Estimate())
					}
					run(t, p2, o2, math.MaxInt, false)
					if !sameRecords(ref.Records(), p2.Records()) {
						t.Fatalf("cut %d pending %v: resumed run differs from the uninterrupted one", cut, pending)
					}
					if !sameEstimate(ref.Estimate(), p2.Estimate()) {
						t.Fatalf("cut %d pending %v: final estimate %+v, uninterrupted %+v", cut, pending, p2.Estimate(), ref.Estimate())
					}
					final, err := p2.State()
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(final, refState) {
						t.Fatalf("cut %d pending %v: final state differs from the uninterrupted run's", cut, pending)
					}
				}
			}
		})
	}
}

// TestDeterministic: the same configuration and observer seed give the
// same run; another observer seed gives another.
func TestDeterministic(t *testing.T) {
	for _, tc := range testConfigs() {
		a, _ := New(tc.cfg)
		b, _ := New(tc.cfg)
		c, _ := New(tc.cfg)
		run(t, a, newTestObserver(t, tc.truth, tc.task, 11), math.MaxInt, false)
		run(t, b, newTestObserver(t, tc.truth, tc.task, 11), math.MaxInt, false)
		run(t, c, newTestObserver(t, tc.truth, tc.task, 12), math.MaxInt, false)
		if !sameRecords(a.Records(), b.Records()) {
			t.Errorf("%s: two runs with one seed differ", tc.name)
		}
		if sameRecords(a.Records(), c.Records()) {
			t.Errorf("%s: runs with different observer seeds are identical", tc.name)
		}
	}
}

func TestProtocolErrors(t *testing.T) {
	for _, tc := range testConfigs() {
		p, err := New(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Update(Trial{}, 1); !errors.Is(err, ErrNoPending) {
			t.Errorf("%s: Update before Next: %v", tc.name, err)
		}
		t1, err := p.Next()
		if err != nil {
			t.Fatal(err)
		}
		if t2, _ := p.Next(); t2 != t1 {
			t.Errorf("%s: Next is not idempotent: %+v then %+v", tc.name, t1, t2)
		}
		wrong := t1
		wrong.X *= 1.5
		if err := p.Update(wrong, 1); !errors.Is(err, ErrTrialMismatch) {
			t.Errorf("%s: Update with another trial: %v", tc.name, err)
		}
		if err := p.Update(t1, 7); err == nil {
			t.Errorf("%s: response 7 accepted", tc.name)
		}
		if len(p.Records()) != 0 {
			t.Errorf("%s: rejected updates left %d records", tc.name, len(p.Records()))
		}
		run(t, p, newTestObserver(t, tc.truth, tc.task, 1), math.MaxInt, false)
		if _, err := p.Next(); !errors.Is(err, ErrDone) {
			t.Errorf("%s: Next after done: %v", tc.name, err)
		}
		e := p.Estimate()
		if _, err := json.Marshal(e); err != nil {
			t.Errorf("%s: estimate %+v does not marshal: %v", tc.name, e, err)
		}
		if !finite(e.Threshold) || e.Trials != len(p.Records()) {
			t.Errorf("%s: final estimate %+v", tc.name, e)
		}
	}
}

func TestRestoreRejectsCorruptState(t *testing.T) {
	tc := testConfigs()[0]
	p, _ := New(tc.cfg)
	run(t, p, newTestObserver(t, tc.truth, tc.task, 1), 10, true)
	good, err := p.State()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, old, new string }{
		{"format", `"haptex-psych-procedure"`, `"other"`},
		{"version", `"version":1`, `"version":2`},
		{"kind", `"kind":"staircase"`, `"kind":"bogus"`},
		{"level", `"level":`, `"level":1e9,"x":`},
		{"positive flag", `"positive":true`, `"positive":false`},
		{"step", `"steps":[4,2,1]`, `"steps":[-1]`},
		{"pending index", `"pending":{"index":10`, `"pending":{"index":3`},
		{"record track", `"stream":0`, `"stream":-1`},
		{"pending track", `"pending":{"index":10,"stream":0`, `"pending":{"index":10,"stream":1`},
	} {
		bad := strings.Replace(string(good), c.old, c.new, 1)
		if bad == string(good) {
			t.Fatalf("%s: %q not found in state %s", c.name, c.old, good)
		}
		if _, err := Restore([]byte(bad)); err == nil {
			t.Errorf("%s: corrupt state restored", c.name)
		}
	}
	for _, bad := range []string{"", "{}", "null", `{"format":"haptex-psych-procedure","version":1,"kind":"psi"}`, "[1,2]"} {
		if _, err := Restore([]byte(bad)); err == nil {
			t.Errorf("state %q restored", bad)
		}
	}
}

// FuzzRestore: no input makes Restore panic, and whatever it accepts
// round-trips.
func FuzzRestore(f *testing.F) {
	for _, tc := range testConfigs() {
		p, err := New(tc.cfg)
		if err != nil {
			f.Fatal(err)
		}
		s, err := p.State()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Restore(b)
		if err != nil {
			return
		}
		s, err := p.State()
		if err != nil {
			t.Fatalf("restored procedure cannot save: %v", err)
		}
		q, err := Restore(s)
		if err != nil {
			t.Fatalf("saved state does not restore: %v", err)
		}
		if !p.Done() {
			if _, err := q.Next(); err != nil {
				t.Fatalf("restored procedure: %v", err)
			}
		}
	})
}

func TestNewErrors(t *testing.T) {
	for _, c := range []Config{
		{Kind: "bogus"},
		{Kind: KindStaircase},
		{Kind: KindStaircase, Staircase: &StaircaseConfig{Task: TwoAFC, Scale: DB, Start: 1, Min: 0, Max: 10, Up: 1, Down: 2, Steps: []float64{1}, MaxTrials: 10}},
		{Kind: KindStaircase, Staircase: &StaircaseConfig{Task: TwoAFC, Start: 1, Min: 0, Max: 10, Up: 1, Down: 1, Steps: []float64{1}, MaxTrials: 10}},
		{Kind: KindStaircase, Staircase: &StaircaseConfig{Task: TwoAFC, Start: 1, Min: 0, Max: 10, Up: 2, Down: 2, Steps: []float64{1}, MaxTrials: 10}},
		{Kind: KindStaircase, Staircase: &StaircaseConfig{Task: TwoAFC, Start: 1, Min: 0, Max: 10, Up: 1, Down: 2, Steps: []float64{1}}},
		{Kind: KindStaircase, Staircase: &StaircaseConfig{Task: TwoAFC, Start: 11, Min: 0, Max: 10, Up: 1, Down: 2, Steps: []float64{1}, MaxTrials: 10}},
		{Kind: KindQuest, Quest: &QuestConfig{Task: TwoAFC, Form: Weibull, Beta: 3, Gamma: 0.3, Scale: DB, Min: 1, Max: 10, PriorThreshold: 3, PriorSD: 5, MaxTrials: 10}},
		{Kind: KindQuest, Quest: &QuestConfig{Task: TwoAFC, Form: Weibull, Beta: 3, Scale: DB, Min: 1, Max: 10, PriorThreshold: 30, PriorSD: 5, MaxTrials: 10}},
		{Kind: KindPsi, Psi: &PsiConfig{Task: TwoAFC, Form: Weibull, Scale: DB, Min: 1, Max: 10, BetaMin: 3, BetaMax: 1, MaxTrials: 10}},
		{Kind: KindPsi, Psi: &PsiConfig{Task: TwoAFC, Form: Weibull, Scale: DB, Min: 1, Max: 10, BetaMin: 1, BetaMax: 3, MaxTrials: 10, Objective: "x"}},
		{Kind: KindPsi, Psi: &PsiConfig{Task: TwoAFC, Form: Weibull, Scale: DB, Min: 1, Max: 10, BetaMin: 1, BetaMax: 3, MaxTrials: 10, PriorBeta: 4, PriorBetaSD: 0.3}},
		{Kind: KindPsi, Psi: &PsiConfig{Task: TwoAFC, Form: Weibull, Scale: DB, Min: 1, Max: 10, BetaMin: 1, BetaMax: 3, MaxTrials: 10, PriorBetaSD: 0.3}},
		{Kind: KindPsi, Psi: &PsiConfig{Task: TwoAFC, Form: Weibull, Scale: DB, Min: 1, Max: 10, BetaMin: 1, BetaMax: 3, MaxTrials: 10, PriorBeta: 2, PriorBetaSD: -1}},
		{Kind: KindConstant, Constant: &ConstantConfig{Task: TwoAFC, Levels: []float64{1, 1}, Repeats: 3}},
		{Kind: KindConstant, Constant: &ConstantConfig{Task: TwoAFC, Levels: []float64{1, 2}, Repeats: 3, Fit: FitOptions{FreeGamma: true}}},
		{Kind: KindInterleaved, Interleaved: &InterleavedConfig{}},
		{Kind: KindInterleaved, Interleaved: &InterleavedConfig{Tracks: []Config{{Kind: "bogus"}}}},
	} {
		if _, err := New(c); err == nil {
			b, _ := json.Marshal(c)
			t.Errorf("config %s accepted", b)
		}
	}
}

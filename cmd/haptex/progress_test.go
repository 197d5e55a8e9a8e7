package main

import (
	"bytes"
	"encoding/json"
	"math"

	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/psych"
	"github.com/haptex/haptex/internal/statebuf/statebufbench"
)

// The live status line fits in 80 columns whatever the numbers.
func TestStatusTextWidth(t *testing.T) {
	s := rig.Status{RunS: 123456.7, Loops: []rig.LoopStatus{
		{Name: "haptics", RateHz: 99999, LatenessP99: 123456, Overruns: 987654},
		{Name: "sim", RateHz: 12345},
		{Name: "tactile", RateHz: 40},
	}, Contact: [2]bool{true, false}, ForceN: [2]float64{1234.5, math.NaN()}}
	line := statusText(s)
	if n := utf8.RuneCountInString(line); n > statusWidth {
		t.Errorf("status line %d columns: %q", n, line)
	}
	if !strings.Contains(statusText(rig.Status{RunS: 1.5, Loops: []rig.LoopStatus{{Name: "haptics", RateHz: 1000, LatenessP99: 45}}}), "haptics 1000 Hz p99   45 µs") {
		t.Errorf("status line %q", statusText(rig.Status{}))
	}
}

// The trial counter says how many trials at most and, after two, how
// long at most remains at this run's rate; without a terminal it prints
// a line every ten trials and at the end.
func TestProgress(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, "stiffness-2afc", 60)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p.now = func() time.Time { return now }
	for n := 1; n <= 20; n++ {
		now = now.Add(500 * time.Millisecond)
		p.update(n)
	}
	out := b.String()
	if strings.Count(out, "\n") != 2 || !strings.Contains(out, "trial 20 of max 60, 0.5 s/trial, <= 20s left") {
		t.Errorf("progress output:\n%s", out)
	}
	if l := p.line(5, now); utf8.RuneCountInString(l) > statusWidth {
		t.Errorf("progress line too wide: %q", l)
	}
	if got := maxTrials(psych.Config{Kind: psych.KindConstant, Constant: &psych.ConstantConfig{Levels: []float64{1, 2, 3}, Repeats: 10}}); got != 30 {
		t.Errorf("constant stimuli: at most %d trials, want 30", got)
	}
	il := psych.Config{Kind: psych.KindInterleaved, Interleaved: &psych.InterleavedConfig{Tracks: []psych.Config{
		{Kind: psych.KindQuest, Quest: &psych.QuestConfig{MaxTrials: 40}},
		{Kind: psych.KindStaircase, Staircase: &psych.StaircaseConfig{MaxTrials: 80}},
	}}}
	if got := maxTrials(il); got != 120 {
		t.Errorf("interleaved: at most %d trials, want 120", got)
	}
	il.Interleaved.Tracks[1].Staircase.MaxTrials = 0 // reversals only: no bound
	if got := maxTrials(il); got != 0 {
		t.Errorf("interleaved with an unbounded track: %d, want 0 (unknown)", got)
	}
}

// A bench's JSON carries the version, commit, time, host and its goals;
// the render bench without any display or Xvfb is skipped with a reason,
// and bench all still gives its JSON.
func TestBenchJSON(t *testing.T) {
	// A result as the statebuf bench gives it (running it takes long
	// under -race), through the same path as runOneBench's.
	obj, err := withCommonFields("statebuf", &statebufbench.Result{PublishNs: 27, ReadNs: 60})
	if err != nil {
		t.Fatal(err)
	}
	obj["goals"] = evalGoals("statebuf", obj)
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	json.Unmarshal(b, &back)
	for _, k := range []string{"software", "timestamp", "host", "goals", "publish_ns", "go", "cpus"} {
		if back[k] == nil {
			t.Errorf("bench JSON lacks %q: %s", k, b)
		}
	}
	goals, _ := back["goals"].([]any)
	if len(goals) != 2 {
		t.Fatalf("statebuf goals: %v", goals)
	}
	for _, g := range goals {
		m := g.(map[string]any)
		if m["goal_met"] == nil || m["goal"] == nil || m["value"] == nil {
			t.Errorf("goal without value, goal or goal_met: %v", m)
		}
		// 27 ns against 100 is met, 60 ns against 50 is not.
		if want := m["figure"] == "publish_ns"; m["goal_met"] != want {
			t.Errorf("goal %v: goal_met %v, want %v", m["figure"], m["goal_met"], want)
		}
	}

	t.Setenv("DISPLAY", "")
	t.Setenv("PATH", t.TempDir())
	res, err := benchRender(t.Context(), benchOpts{frames: 1})
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := res.(map[string]any); !ok || !strings.Contains(m["skipped"].(string), "no display") {
		t.Errorf("render bench without a display: %v", res)
	}
}

// A goal on a figure the result lacks says so instead of failing.
func TestEvalGoalsMissingFigure(t *testing.T) {
	gs := evalGoals("control", map[string]any{"step_rise_ms": 12.0})
	var found, missing int
	for _, g := range gs {
		if g.Value != nil {
			found++
			if g.Figure != "step_rise_ms" || !*g.Met {
				t.Errorf("goal %+v", g)
			}
		} else if g.Note != "" {
			missing++
		}
	}
	if found != 1 || missing != len(gs)-1 {
		t.Errorf("found %d, missing %d of %d", found, missing, len(gs))
	}
}

// A self-collision scene that laid no cloth on itself fails its
// self-contact goal, however fast its steps were: its time is the step's
// without self-contact. One that did passes it; a scene with
// self-collision off carries no such goal, nor does the showcase with
// self-collision on, which has no step goal and never folds (it read as
// a goal not met).
func TestEvalGoalsSelfContact(t *testing.T) {
	scene := func(self bool, most float64) map[string]any {
		return map[string]any{"script": "fold", "side": 24.0, "dt_ms": 1.0, "self_collision": self, "penetrations": 0.0,
			"self_contacts": map[string]any{"max": most}, "goal_percentile": "p999", "goal_ms": 1.2, "step_ms": map[string]any{"p999": 0.8}}
	}
	showcase := map[string]any{"script": "showcase", "side": 24.0, "dt_ms": 1.0, "self_collision": true, "penetrations": 0.0,
		"self_contacts": map[string]any{"max": 0.0}, "goal_percentile": "p999", "goal_ms": 0.0, "step_ms": map[string]any{"p999": 0.8}}
	gs := evalGoals("sim", map[string]any{"scenes": []any{scene(true, 0), scene(true, 175), scene(false, 0), showcase}})
	met := map[string]bool{}
	for _, g := range gs {
		if g.Met == nil {
			t.Fatalf("goal %+v has no verdict", g)
		}
		met[g.Figure] = *g.Met
	}
	want := map[string]bool{
		"scenes.0.penetrations": true, "scenes.0.self_contacts.max": false, "scenes.0.step_ms.p999": true,
		"scenes.1.penetrations": true, "scenes.1.self_contacts.max": true, "scenes.1.step_ms.p999": true,
		"scenes.2.step_ms.p999": true,
		"scenes.3.penetrations": true,
	}
	for _, g := range gs {
		if _, ok := want[g.Figure]; !ok && strings.HasPrefix(g.Figure, "scenes.") {
			t.Errorf("unexpected goal %s", g.Figure)
		}
	}
	for f, w := range want {
		if m, ok := met[f]; !ok || m != w {
			t.Errorf("%s: met %v (present %v), want %v", f, m, ok, w)
		}
	}
}

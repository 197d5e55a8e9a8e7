package simbench

import (
	"encoding/json"
	"flag"
	"strings"
	"testing"

	"github.com/haptex/haptex/internal/latency"
)

func TestBenchSmall(t *testing.T) {
	res, err := Bench(Options{Scenes: []Scene{{Side: 12, DtMs: 5, GoalMs: 1000, GoalPercentile: "p99"}}, MinSteps: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Scenes) != 1 || res.Bench != "sim" || res.CPUs < 1 || !strings.HasPrefix(res.Go, "go") {
		t.Fatalf("result %+v", res)
	}
	s := res.Scenes[0]
	if s.Side != 12 || s.Triangles != 242 || s.Steps < 100 || s.StepMs.P50 <= 0 || s.StepMs.Max < s.StepMs.P999 ||
		s.StepMs.P999 < s.StepMs.P99 || s.StepMs.P99 < s.StepMs.P50 || s.CGIters.Max < s.CGIters.P50 {
		t.Errorf("scene %+v", s)
	}
	// The kernel ran between the steps.
	if c := s.Calibration; c.Us.P50 <= 0 || c.LoadFactor < 1 || s.StepMsQuiet.P50 != s.StepMs.P50/c.LoadFactor {
		t.Errorf("scene calibration %+v, quiet estimate %+v", c, s.StepMsQuiet)
	}
	if res.Calibration != s.Calibration {
		t.Errorf("run calibration %+v, the only scene's %+v", res.Calibration, s.Calibration)
	}
	if _, ok := latency.ThreadCPU(); ok && (s.StepCPUMs.P50 <= 0 || s.StepCPUMs.Max < s.StepCPUMs.P50) {
		t.Errorf("thread CPU per step %+v", s.StepCPUMs)
	}
	// The count is process-wide: the runtime allocates now and then on its
	// own (6 objects, 5.3 kB in one step of a 12² run, none of them in the
	// heap profile of Step), and CI once saw 8 in 720 steps. Step itself
	// allocates nothing (sim's TestStepAllocs); an allocation in every step
	// would count Steps here.
	if total := s.AllocsPerStep * float64(s.Steps); total > 20 {
		t.Errorf("%v allocations per step, %.0f in all", s.AllocsPerStep, total)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	sc := m["scenes"].([]any)[0].(map[string]any)
	for _, k := range []string{"side", "triangles", "dt_ms", "step_ms", "cg_iters", "allocs_per_step"} {
		if _, ok := sc[k]; !ok {
			t.Errorf("JSON scene lacks %q: %s", k, raw)
		}
	}
	for _, k := range []string{"p50", "p99", "p999", "max"} {
		if _, ok := sc["step_ms"].(map[string]any)[k]; !ok {
			t.Errorf("step_ms lacks %q", k)
		}
	}
}

// TestBenchFoldLaid: a fold at 1 ms is laid at FoldLayStep and measured
// from the flap's landing on, so its steps lay cloth on itself (at 1 ms
// throughout they would not: docs/cloth-contact.md), without
// intersections, and the JSON says how it was laid.
func TestBenchFoldLaid(t *testing.T) {
	res, err := Bench(Options{Scenes: []Scene{{Script: "fold", Side: 12, DtMs: 1}}, MinSteps: 100})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Scenes[0]
	t.Logf("fold 12² at 1 ms, laid at %g ms, from %g s: %d steps, self-contact pairs p50 %d max %d, %d penetrations",
		s.LaidAtMs, s.FromS, s.Steps, s.SelfContacts.P50, s.SelfContacts.Max, s.Penetrations)
	if s.LaidAtMs != 5 || s.FromS != 2.7 || s.SelfContacts.P50 < 20 || s.Penetrations != 0 {
		t.Errorf("scene %+v", s)
	}
	// One run: the steps from the landing to the script's end (2.8 s),
	// less the untimed first step and those after the calibration kernel.
	if s.Steps < 2700 || s.Steps >= 2800 {
		t.Errorf("%d measured steps, want one run from the landing on", s.Steps)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"laid_at_ms":5`, `"from_s":2.7`} {
		if !strings.Contains(string(raw), k) {
			t.Errorf("JSON lacks %s", k)
		}
	}
}

// TestBenchFold: the fold scene lays the cloth on itself (self-contact
// pairs counted), its oracle pass finds no intersection, each run's new
// cloth allocates nothing once stepped, and the JSON carries the fields.
func TestBenchFold(t *testing.T) {
	res, err := Bench(Options{Scenes: []Scene{{Script: "fold", Side: 16, DtMs: 5}}, MinSteps: 600})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Scenes[0]
	t.Logf("fold 16² at 5 ms: %d steps, self-contact pairs p50 %d max %d, %d collisions caught, %d penetrations, %.4f allocations per step",
		s.Steps, s.SelfContacts.P50, s.SelfContacts.Max, s.Collisions, s.Penetrations, s.AllocsPerStep)
	if s.Script != "fold" || !s.SelfCollision || s.SelfContacts.Max < 20 || s.Penetrations != 0 || s.PenetrationSteps != 0 {
		t.Errorf("scene %+v", s)
	}
	if total := s.AllocsPerStep * float64(s.Steps); total > 20 {
		t.Errorf("%v allocations per step, %.0f in all", s.AllocsPerStep, total)
	}
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"script":"fold"`, `"self_collision":true`, `"self_contacts":{`, `"penetrations":0`} {
		if !strings.Contains(string(raw), k) {
			t.Errorf("JSON scene lacks %s: %s", k, raw)
		}
	}
}

func TestBenchErrors(t *testing.T) {
	if _, err := Bench(Options{MinSteps: -1}); err == nil {
		t.Error("negative step count accepted")
	}
	if _, err := Bench(Options{Scenes: []Scene{{Side: 1, DtMs: 5}}}); err == nil || !strings.HasPrefix(err.Error(), "simbench: ") {
		t.Errorf("bad scene: %v", err)
	}
	if _, err := Bench(Options{Scenes: []Scene{{Script: "unfold", Side: 12, DtMs: 5}}}); err == nil || !strings.Contains(err.Error(), `unknown script "unfold"`) {
		t.Errorf("unknown script: %v", err)
	}
}

var full = flag.Bool("simbench.full", false, "run the full showcase benchmark and print its JSON (about a minute on a quiet machine)")

// TestBenchFull prints what `haptex bench sim -json` prints. Run it with
// go test ./sim/simbench -run TestBenchFull -simbench.full -v.
func TestBenchFull(t *testing.T) {
	if !*full {
		t.Skip("needs -simbench.full")
	}
	res, err := Bench(Options{})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.MarshalIndent(res, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", raw)
}

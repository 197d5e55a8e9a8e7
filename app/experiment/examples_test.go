package experiment

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/haptex/haptex/calib/kes"
	"github.com/haptex/haptex/calib/psych"
)

// Every example experiment passes haptex experiment check: its file and
// fabric load and validate, and its stimulus check finds it valid. The
// stimulus checks of the examples run for minutes, so the short version
// checks the stimulus of the bending example only (the one the check
// used to refuse; the others' are run by TestDryRunMatchesCheck,
// TestDeliveredCuesFollowKES, TestEvaluationProtocols and cmd/haptex's
// tests) at its largest level with one trial: the finger bends the
// swatch in both intervals, the stiffer fabric's cue is the larger, and
// the check's verdict (a contrast of twice the Weber fraction) holds.
// -long runs the full check of every file as it is.
func TestExamplesPassCheck(t *testing.T) {
	var files []string
	for _, dir := range []string{"", "evaluation"} {
		m, err := filepath.Glob(filepath.Join("..", "..", "examples", dir, "*.toml"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 15 {
		t.Fatalf("%d examples", len(files))
	}
	for _, path := range files {
		name, _ := filepath.Rel(filepath.Join("..", "..", "examples"), path)
		t.Run(name, func(t *testing.T) {
			e, _, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if e.Set == nil {
				if _, err := e.LoadFabric(kes.Library{}); err != nil {
					t.Fatal(err)
				}
			}
			o := CheckOptions{Experiment: e}
			if !*long {
				if name != filepath.Join("evaluation", "bending-2afc.toml") {
					return
				}
				sp := psych.SpanOf(e.Procedure)[0]
				e.Procedure = psych.Config{Kind: psych.KindConstant, Constant: &psych.ConstantConfig{Task: psych.TwoAFC, Levels: []float64{sp.Max}, Repeats: 1}}
				o.Pairs = 1
				o.NoWarmup = true
			}
			if e.Set != nil {
				rep, err := CheckSet(context.Background(), o, 0)
				if err != nil {
					t.Fatal(err)
				}
				if !rep.Valid {
					t.Fatal(rep.Reason)
				}
				return
			}
			rep, err := Check(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Levels) == 0 {
				t.Fatalf("no level measured: %s", rep.Reason)
			}
			l := rep.Levels[len(rep.Levels)-1]
			t.Logf("%g %s: %s %.4g against %.4g %s (contrast %.3g, %.2g Weber fractions)", l.X, e.Stimulus.Unit, rep.Cue, l.CueTest, l.CueReference, rep.Unit, l.Contrast, l.Contrast/rep.Weber)
			if !*long && !(l.CueTest > l.CueReference) {
				t.Fatalf("the stiffer fabric's cue is not the larger: %s", rep.Reason)
			}
			if !rep.Valid {
				t.Fatal(rep.Reason)
			}
		})
	}
}

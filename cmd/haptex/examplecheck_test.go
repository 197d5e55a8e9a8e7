package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/haptex/haptex/app/experiment"
	"github.com/haptex/haptex/calib/psych"
)

// checkSlots lets two stimulus checks run at once, one per core of a
// two-core CI machine, whichever test starts them.
var checkSlots = make(chan struct{}, 2)

// runCheck runs the built program's experiment check with args (the file
// first) in one of checkSlots, and returns its JSON report. A refused
// experiment is returned too, with its error.
func runCheck(t *testing.T, args ...string) ([]byte, error) {
	t.Helper()
	bin, _ := program(t)
	checkSlots <- struct{}{}
	defer func() { <-checkSlots }()
	cmd := exec.Command(bin, append([]string{"experiment", "check"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		err = fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return out, err
}

// Every example experiment passes the stimulus check's short form
// (experiment check -quick), run by the program as a lab runs it, two at
// a time: valid, its largest level checked alone and delivering a
// contrast above the cue's Weber fraction, without a threshold
// prediction. An identification or rating is checked on the fabrics of
// extreme KES value of each property, one of which delivers twice its
// Weber fraction between them; two examples whose checks have the same
// inputs (the set, the properties, the cloth and the timing) are checked
// once. TestExperimentCheckExample runs the stiffness example's full check
// beside these.
func TestExperimentCheckExamplesQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("the short checks run the examples' motions 10 to 30 times each")
	}
	var files []string
	for _, dir := range []string{"", "evaluation"} {
		m, err := filepath.Glob(filepath.Join("..", "..", "examples", dir, "*.toml"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 15 {
		t.Fatalf("%d examples, want the 15 shipped", len(files))
	}
	t.Parallel()
	checked := map[string]string{}
	for _, path := range files {
		name, _ := filepath.Rel(filepath.Join("..", "..", "examples"), path)
		e, _, err := experiment.Load(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if e.Set != nil && e.Set.Kind != experiment.Magnitude {
			key := fmt.Sprint(e.Set.Fabrics, e.Set.Properties, e.Set.Condition == "real", e.Side, e.Timing)
			if first, ok := checked[key]; ok {
				t.Logf("%s: the same check as %s", name, first)
				continue
			}
			checked[key] = name
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out, err := runCheck(t, path, "-quick", "-json")
			if err != nil {
				t.Fatal(err)
			}
			if e.Set != nil {
				var rep experiment.SetReport
				if err := json.Unmarshal(out, &rep); err != nil {
					t.Fatalf("-json: %v\n%s", err, out)
				}
				if !rep.Valid {
					t.Fatalf("not valid: %s", rep.Reason)
				}
				if rep.Levels != nil {
					checkLargestLevel(t, rep.Levels, slices.Max(e.Set.Levels))
					return
				}
				checkExtremes(t, &rep, e)
				return
			}
			var rep experiment.StimulusReport
			if err := json.Unmarshal(out, &rep); err != nil {
				t.Fatalf("-json: %v\n%s", err, out)
			}
			spans := psych.SpanOf(e.Procedure)
			for i, r := range append([]*experiment.StimulusReport{&rep}, rep.Streams...) {
				checkLargestLevel(t, r, spans[i].Max)
			}
		})
	}
}

// checkLargestLevel checks a stream's short check: valid, the one level
// checked is the largest, its contrast is above the Weber fraction, and
// there is no threshold prediction.
func checkLargestLevel(t *testing.T, r *experiment.StimulusReport, max float64) {
	t.Helper()
	if !r.Valid {
		t.Errorf("stream %d not valid: %s", r.Stream, r.Reason)
	}
	if len(r.Levels) != 1 || r.Levels[0].X != max {
		t.Fatalf("stream %d: levels %+v checked, want the largest, %g, alone", r.Stream, r.Levels, max)
	}
	l := r.Levels[0]
	if !(l.Contrast > r.Weber) {
		t.Errorf("stream %d: at %g %s the delivered %s contrast is %.3g, not above the Weber fraction %.3g", r.Stream, l.X, r.XUnit, r.Cue, l.Contrast, r.Weber)
	}
	if r.DetectableFromX != nil || r.DetectableFromXPowerLaw != nil || r.Prediction != "" {
		t.Errorf("stream %d: a threshold predicted from one level", r.Stream)
	}
	t.Logf("stream %d: at %g %s the delivered %s is %.4g against %.4g %s, contrast %.3g (%.2f Weber fractions), cue_sd %.3g", r.Stream, l.X, r.XUnit, r.Cue, l.CueTest, l.CueReference, r.Unit, l.Contrast, l.Contrast/r.Weber, r.CueSD)
}

// checkExtremes checks an identification's or a rating's short check:
// each property handled the two fabrics of extreme KES value, and one
// property's delivered a contrast of twice its Weber fraction.
func checkExtremes(t *testing.T, rep *experiment.SetReport, e *experiment.Experiment) {
	t.Helper()
	if e.Set.Condition == "real" {
		if len(rep.Properties) != 0 {
			t.Errorf("real swatches checked: %+v", rep.Properties)
		}
		return
	}
	if len(rep.Properties) != len(e.Set.Properties) {
		t.Fatalf("%d properties checked, want %d", len(rep.Properties), len(e.Set.Properties))
	}
	best := math.Inf(-1)
	for _, p := range rep.Properties {
		if n := len(p.Fabrics) + len(p.Unmeasured); n != 2 {
			t.Errorf("%s: %d fabrics handled, want the 2 of extreme %s", p.Dimension, n, p.Quantity)
		}
		best = math.Max(best, math.Abs(p.ExtremeWebers))
		t.Logf("%s: the extremes' %s contrast %.3g (%.2f Weber fractions)", p.Dimension, p.Cue, p.ExtremeContrast, p.ExtremeWebers)
	}
	if !(best >= 2) {
		t.Errorf("no property delivers twice its Weber fraction between its extremes (at most %.2f)", best)
	}
}

// The short form's verdict bounds the largest level's contrast by its
// trials' spread: above the Weber fraction at the bound is valid, below it
// at the other bound refused, between them undecided; a stream decides
// for the report, and an unmeasured cue keeps Check's reason.
func TestShortVerdict(t *testing.T) {
	ratio := 1.0
	level := func(c, sd float64) *experiment.StimulusReport {
		return &experiment.StimulusReport{Weber: 0.2, XUnit: "%", Cue: "cue", CueSD: sd, Valid: c >= 0.4,
			Levels: []experiment.LevelCue{{X: 160, CueReference: 1, CueTest: 1 + c, Ratio: &ratio, Contrast: c}}}
	}
	for _, tc := range []struct {
		name  string
		rep   *experiment.StimulusReport
		pairs int
		want  verdict
		valid bool
	}{
		// 4 trials: t(3) = 2.353, the bound 2.353·√2·sd/2 = 1.664·sd in ln(1 + c).
		{"clear", level(0.5, 0.05), 4, shown, true},
		{"above W, below the full check's 2W", level(0.3, 0.02), 4, shown, true},
		{"variable", level(0.5, 0.15), 4, undecided, false},
		{"the same, 12 trials", level(0.5, 0.15), 12, shown, true},
		{"nothing delivered", level(0.01, 0.02), 4, refused, false},
		{"one trial", level(0.5, 0), 1, undecided, false},
		{"no cue", &experiment.StimulusReport{Reason: "stimulus check: cue cannot be measured"}, 4, refused, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := shortVerdict(tc.rep, tc.pairs); got != tc.want || tc.rep.Valid != tc.valid {
				t.Errorf("verdict %d valid %v, want %d %v (%s)", got, tc.rep.Valid, tc.want, tc.valid, tc.rep.Reason)
			}
			if !tc.valid && tc.rep.Reason == "" {
				t.Error("refused without a reason")
			}
		})
	}
	rep := level(0.5, 0.05)
	rep.Streams = []*experiment.StimulusReport{level(0.01, 0.02)}
	if shortVerdict(rep, 4) != refused || rep.Valid || !strings.Contains(rep.Reason, "not above its Weber fraction") {
		t.Errorf("a stream that delivers nothing: valid %v, %q", rep.Valid, rep.Reason)
	}
}

// -quick chooses its own levels and trials; counts are neither negative
// nor beyond what runs in hours (a billion pairs ran until killed); a
// Weber fraction is a number in [0, 10] (NaN ran a whole check, then
// judged against NaN %).
func TestExperimentCheckFlags(t *testing.T) {
	example := filepath.Join("..", "..", "examples", "force-2afc.toml")
	for _, args := range [][]string{
		{"check", example, "-quick", "-pairs", "8"},
		{"check", example, "-levels", "-1"},
		{"check", example, "-levels", "21"},
		{"check", example, "-pairs", "1000000000"},
		{"check", example, "-quick", "-weber", "NaN"},
		{"check", example, "-quick", "-weber", "-1"},
		{"check", example, "-quick", "-weber", "Inf"},
	} {
		if err := runExperiment(args); !errors.Is(err, errUsage) {
			t.Errorf("experiment %s: %v, want a usage error", strings.Join(args, " "), err)
		}
	}
}

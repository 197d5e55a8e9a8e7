package experiment

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/haptex/haptex/calib/psych"
	devrecord "github.com/haptex/haptex/devices/record"
	"github.com/haptex/haptex/devices/setup"
	"github.com/haptex/haptex/internal/safefile"
)

// evaluationObserver is the simulated subject that answers an
// evaluation protocol in its dry run.
func evaluationObserver(t *testing.T, e *Experiment) Options {
	t.Helper()
	if e.Set == nil {
		return Options{CueObservers: []*psych.CueObserver{cueObserver(t, "cue:lambda=0.01,seed=7")}}
	}
	spec := map[SetKind]string{Identify: "match:lambda=0.02,seed=7", Rate: "rate:seed=7", Magnitude: "magnitude:exponent=0.7,sigma=0.3,seed=7"}[e.Set.Kind]
	o, err := ParseSetObserver(spec)
	if err != nil {
		t.Fatal(err)
	}
	return Options{SetObserver: o}
}

// Every protocol under examples/evaluation runs to completion with
// simulated observers and writes its analysis: the discrimination
// staircases' fit.json, the matching's confusion matrix, the ratings'
// real-versus-virtual analysis, the magnitude estimations' power laws.
// The short version runs each on an 8² cloth with a few trials and
// short pauses (under the race detector: the matching, roughness only,
// and the real ratings); -long runs the files as they are.
func TestEvaluationProtocols(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "examples", "evaluation", "*.toml"))
	if err != nil || len(files) < 8 {
		t.Fatalf("%d protocols (%v)", len(files), err)
	}
	out := t.TempDir()
	// The real ratings first, so that the virtual ones' analysis has
	// both conditions.
	files = append([]string{filepath.Join("..", "..", "examples", "evaluation", "semantic-real.toml")}, files...)
	ran := map[string]bool{}
	for _, path := range files {
		name := filepath.Base(path)
		if ran[name] {
			continue
		}
		ran[name] = true
		if raceEnabled && !*long && name != "semantic-real.toml" && name != "matching.toml" {
			// Under the race detector the cloth runs about ten times
			// slower: one protocol that renders (the set runner on the
			// rig) and the real ratings; the staircases' runner is the
			// other examples' (TestDryRunMatchesCheck).
			continue
		}
		t.Run(name, func(t *testing.T) {
			e, src, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			o := evaluationObserver(t, e)
			if !*long {
				// The pauses of the small and pinch tests: the gap still
				// outlasts the material ramp between fabrics.
				// The checks before the first trial have tests of their own
				// (TestSetRunStimulusCheck for the sets').
				e.Side, e.Timing.Gap, e.Timing.ITI = 8, 300*time.Millisecond, 300*time.Millisecond
				o.SkipStimulusCheck = true
				if e.Set == nil {
					e.Procedure.Staircase.MaxTrials = 6
				} else {
					shorten(e.Set)
				}
			}
			o.Experiment, o.Source, o.Path, o.Subject, o.OutDir = e, src, path, "sim01", out
			o.NoTraces, o.Force, o.BIDS = !*long, true, true
			var printed strings.Builder
			o.Out = &printed
			res, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			// Every protocol, set or staircase, writes its BIDS table
			// with every column described.
			if tsv, _ := filepath.Glob(filepath.Join(res.Dir, "sub-*", "beh", "*_beh.tsv")); len(tsv) != 1 {
				t.Errorf("BIDS tables: %v, want one", tsv)
			}
			analysis := filepath.Join(res.Dir, "fit.json")
			if e.Set != nil {
				analysis = res.Analysis
			}
			b, err := safefile.ReadFile(analysis, 1<<24)
			if err != nil {
				t.Fatal(err)
			}
			var v map[string]any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatalf("%s: %v", analysis, err)
			}
			t.Logf("%s: %d trials, %s", name, res.Trials, analysis)
			// An identification says what each property delivered of
			// each fabric, from its own trials; these fabrics differ by
			// several Weber fractions in every property.
			if e.Set != nil && e.Set.Kind == Identify {
				var ma MatchingAnalysis
				if err := json.Unmarshal(b, &ma); err != nil {
					t.Fatal(err)
				}
				if len(ma.Delivered) != len(e.Set.Properties) {
					t.Errorf("delivered: %d properties, want %d", len(ma.Delivered), len(e.Set.Properties))
				}
				for _, fr := range ma.Delivered {
					if len(fr.Fabrics) != len(e.Set.Fabrics) || !(math.Abs(fr.ExtremeWebers) >= 2) {
						t.Errorf("delivered %s: %d of %d fabrics measured (%+v), the extremes %.3g Weber fractions apart", fr.Dimension, len(fr.Fabrics), len(e.Set.Fabrics), fr.Unmeasured, fr.ExtremeWebers)
					}
				}
				if len(ma.Warnings) > 0 {
					t.Errorf("matching.json warns: %q", ma.Warnings)
				}
			}
			if e.Set != nil && e.Set.Kind == Rate && e.Set.Condition == "virtual" && (v["analysis"] == nil || v["error"] != nil) {
				t.Errorf("no real-versus-virtual analysis: %v", v["error"])
			}
			// The rendered fabrics' ratings come with what the fabrics
			// delivered over every subject's rendered trials.
			if e.Set != nil && e.Set.Kind == Rate && e.Set.Condition == "virtual" {
				var sr SemanticResult
				if err := json.Unmarshal(b, &sr); err != nil {
					t.Fatal(err)
				}
				if len(sr.Delivered) == 0 {
					t.Error("semantic.json: nothing delivered")
				}
				for _, fr := range sr.Delivered {
					if len(fr.Fabrics) != len(e.Set.Fabrics) {
						t.Errorf("delivered %s: %d of %d fabrics measured (%+v)", fr.Dimension, len(fr.Fabrics), len(e.Set.Fabrics), fr.Unmeasured)
					}
				}
			}
			// The real ratings, run first, have their profiles and say
			// that the comparison waits for the rendered fabrics'.
			if e.Set != nil && e.Set.Kind == Rate && e.Set.Condition == "real" && (v["analysis"] == nil || !strings.Contains(fmt.Sprint(v["error"]), "both conditions")) {
				t.Errorf("the real ratings alone: analysis %v, error %v; want the profiles and why there is no comparison", v["analysis"] != nil, v["error"])
			}
			// The terminal says the same once, without the correlations'
			// NaN or their warnings.
			if p := printed.String(); e.Set != nil && e.Set.Kind == Rate && e.Set.Condition == "real" &&
				(strings.Count(p, "no real-versus-virtual analysis yet") != 1 || strings.Contains(p, "NaN") || strings.Contains(p, "WARNING")) {
				t.Errorf("the real ratings alone printed:\n%s", p)
			}
			if e.Set != nil && e.Set.Kind != Magnitude {
				// The sidecar names and hashes every fabric of the set.
				var sc sidecar
				if err := json.Unmarshal([]byte(readFile(t, filepath.Join(res.Dir, "sidecar.json"))), &sc); err != nil {
					t.Fatal(err)
				}
				var names []string
				for _, f := range sc.Fabrics {
					if len(f.SHA256) == 64 {
						names = append(names, f.Name)
					}
				}
				if !slices.Equal(names, e.Set.Fabrics) {
					t.Errorf("sidecar.json's hashed fabrics %v, want the set's %v", names, e.Set.Fabrics)
				}
			}
			if e.Set != nil && e.Set.Kind == Identify && v["confusion"] == nil {
				t.Error("no confusion matrix")
			}
			if e.Set != nil && e.Set.Kind == Magnitude && (v["unit"] == "" || v["cue_unit"] == "") {
				t.Errorf("magnitude.json names the KES quantity's unit %q and the cue's %q; want both", v["unit"], v["cue_unit"])
			}
			if _, err := os.Stat(filepath.Join(res.Dir, "trials.csv")); err != nil {
				t.Error(err)
			}
		})
	}
}

// shorten cuts a set experiment down for the short test: two fabrics or
// three levels, one repeat, and under the race detector roughness only.
func shorten(s *Set) {
	s.Repeats = 1
	if len(s.Fabrics) > 2 {
		s.Fabrics = []string{s.Fabrics[0], s.Fabrics[len(s.Fabrics)-1]}
		if len(s.Responses) > 0 {
			s.Responses = s.Fabrics
		}
	}
	if len(s.Levels) > 3 {
		s.Levels = []float64{0, 100, 200}
	}
	if raceEnabled && s.Kind != Magnitude {
		s.Properties = []Kind{Roughness}
	}
}

// Real ratings typed from a paper form (one answer per line, in the
// order asked; a wrong entry is asked again) land in trials.csv with the
// swatch each rated, and an interrupted entry resumes at the next swatch
// with the answers it had kept: nothing typed is lost or taken twice.
func TestRealRatingsFromForm(t *testing.T) {
	path := filepath.Join("..", "..", "examples", "evaluation", "semantic-real.toml")
	e, src, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	n := len(e.Set.Fabrics) * e.Set.Repeats
	scales := len(e.Set.Scales)
	var form strings.Builder
	for i := range n * scales {
		if i == 3 {
			form.WriteString("9\nsoft\n") // outside 1..7 and not a number: asked again
		}
		fmt.Fprintf(&form, "%d\n", 1+i%7)
	}
	lines := strings.SplitAfter(form.String(), "\n")
	out := t.TempDir()
	// The first sitting ends after 4 trials; the second types the rest.
	var typed strings.Builder
	first := 4*scales + 2
	for _, l := range lines[:first] {
		typed.WriteString(l)
	}
	o := Options{Experiment: e, Source: src, Path: path, Subject: "P01", OutDir: out, Out: io.Discard,
		In: strings.NewReader(typed.String()), AfterTrial: func(done int) error {
			if done == 4 {
				return errors.New("the form's first page is done")
			}
			return nil
		}}
	if _, err := Run(context.Background(), o); err == nil || !strings.Contains(err.Error(), "first page") {
		t.Fatalf("first sitting: %v", err)
	}
	typed.Reset()
	for _, l := range lines[first:] {
		typed.WriteString(l)
	}
	e2, _, _ := Load(path)
	o.Experiment, o.In, o.AfterTrial = e2, strings.NewReader(typed.String()), nil
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Resumed || res.Trials != n {
		t.Fatalf("resumed %v, %d trials, want %d", res.Resumed, res.Trials, n)
	}
	b, err := os.ReadFile(filepath.Join(res.Dir, "trials.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
	if err != nil || len(recs) != n+1 {
		t.Fatalf("%d rows (%v)", len(recs), err)
	}
	col := slices.Index(recs[0], "rating_"+e.Set.Scales[0])
	for i, r := range recs[1:] {
		for k := range scales {
			if got, want := r[col+k], fmt.Sprint(1+(i*scales+k)%7); got != want {
				t.Fatalf("trial %d scale %d: %s, typed %s", i+1, k, got, want)
			}
		}
		if r[slices.Index(recs[0], "condition")] != "real" || r[slices.Index(recs[0], "observer")] != "person" {
			t.Fatalf("trial %d: %v", i+1, r)
		}
	}
	// No rig handled a real swatch: the sidecar names no traces.
	if sc := readFile(t, filepath.Join(res.Dir, "sidecar.json")); strings.Contains(sc, `"traces"`) {
		t.Errorf("sidecar.json of real ratings names traces:\n%s", sc)
	}
	if _, err := os.Stat(filepath.Join(res.Dir, "traces")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("traces folder of real ratings: %v", err)
	}
}

// A set experiment's file is checked as the rest: each mistake is one
// line naming the field.
func TestSetFileErrors(t *testing.T) {
	base := `format = 1
name = "s"
[set]
kind = "identify"
fabrics = ["denim", "linen"]
`
	for _, c := range []struct{ edit, field string }{
		{`kind = "identify"`, ""},
		{`kind = "guess"`, "set.kind"},
		{`fabrics = ["denim"]`, "set.fabrics: 1 fabrics"},
		{`fabrics = ["denim", "denim"]`, `set.fabrics: "denim" twice`},
		{`fabrics = ["denim", "../x"]`, "set.fabrics[1]"},
		{"kind = \"identify\"\nrepeats = 1000", "set.repeats"},
		{"kind = \"identify\"\nproperties = [\"weight\"]", "set.properties"},
		{"kind = \"identify\"\nscales = [\"smooth-rough\"]", "only a rating"},
		{"kind = \"rate\"\nscales = [\"smooth\"]", "set.scales"},
		{"kind = \"rate\"\nscales = [\"smooth-rough\"]\npoints = 2", "set.points"},
		{"kind = \"rate\"\nscales = [\"smooth-rough\"]\ncondition = \"dream\"", "set.condition"},
		{"kind = \"rate\"\nscales = [\"warm-cool\"]", "set.properties"},
		{`kind = "magnitude"`, "stimulus.kind"},
	} {
		doc := strings.Replace(base, `kind = "identify"`, c.edit, 1)
		if strings.HasPrefix(c.edit, `fabrics`) {
			doc = strings.Replace(base, `fabrics = ["denim", "linen"]`, c.edit, 1)
		}
		_, err := Parse([]byte(doc), "s.toml")
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%q: %v", c.edit, err)
		case c.field != "" && (err == nil || !strings.Contains(err.Error(), c.field) || strings.Contains(err.Error(), "\n")):
			t.Errorf("%q: %v, want one line naming %s", c.edit, err, c.field)
		}
	}
	mag := "format = 1\nname = \"m\"\n[stimulus]\nkind = \"bending\"\n[set]\nkind = \"magnitude\"\nlevels = [0, 0, 50]\n"
	if _, err := Parse([]byte(mag), "m.toml"); err == nil || !strings.Contains(err.Error(), "set.levels: 2 distinct") {
		t.Errorf("two distinct levels: %v", err)
	}
	if _, err := Parse([]byte(strings.Replace(mag, "[0, 0, 50]", "[-100, 0, 50]", 1)), "m.toml"); err == nil || !strings.Contains(err.Error(), "set.levels: -100") {
		t.Errorf("-100 %%: %v", err)
	}
	if _, err := Parse([]byte(strings.Replace(mag, "[0, 0, 50]", "[0, 50, 100]\nfabrics = [\"denim\"]", 1)), "m.toml"); err == nil || !strings.Contains(err.Error(), "set.fabrics") {
		t.Errorf("fabrics in a magnitude estimation: %v", err)
	}
	// A magnitude estimation, one property on one fabric, may choose its
	// motion; an identification or a rating plays each property's own.
	ok := strings.Replace(mag, "[0, 0, 50]", "[0, 50, 100]", 1)
	for _, c := range []struct{ doc, want string }{
		{ok + "[timing]\nmotion = \"stretch\"\n", ""},
		{ok + "[timing]\nmotion = \"wiggle\"\n", `timing.motion: "wiggle"`},
		{base + "[timing]\nmotion = \"stretch\"\n", "timing.motion: identify plays each property's own motion"},
	} {
		_, err := Parse([]byte(c.doc), "m.toml")
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.doc, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n")):
			t.Errorf("%q: %v, want one line with %q", c.doc, err, c.want)
		}
	}
}

// A set whose properties need two benches (flex's swatch beside the
// hanging fabric) on devices is refused in one line before any device
// opens, and before its stimulus check: one set of devices renders one
// cloth.
func TestSetOnDevicesRefusesTwoBenches(t *testing.T) {
	e, src, err := Load(filepath.Join("..", "..", "examples", "evaluation", "matching.toml"))
	if err != nil {
		t.Fatal(err)
	}
	o := evaluationObserver(t, e)
	o.Experiment, o.Source, o.Subject, o.OutDir = e, src, "sim01", t.TempDir()
	o.Rig.OpenDevices = func(*devrecord.Session) (*setup.Set, error) {
		t.Error("devices opened")
		return nil, errors.New("no devices here")
	}
	var printed strings.Builder
	o.Out = &printed
	_, err = Run(context.Background(), o)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "one set of devices") {
		t.Fatalf("two benches on devices: %v", err)
	}
	// At once: not after a stimulus check of the set.
	if strings.Contains(printed.String(), "stimulus check") {
		t.Errorf("the refusal came after the stimulus check: %q", printed.String())
	}
	t.Log(err)
}

// A magnitude estimation plays the motion its file names (the stretch of
// tensile-2afc.toml here), or its property's own (the pull) when it names
// none: each trial's interval trace, kept under traces/, shows the pads
// pulled 1 mm straight down (the stretch) or 0.4 mm at 45° between down
// and sideways (the pull), and the stimulus check says which it played.
// Without the race detector (CUE_TESTS): two runs of the rig and a check.
func TestMagnitudeEstimationPlaysItsMotion(t *testing.T) {
	for _, c := range []struct {
		motion, want string
	}{{"stretch", "stretch"}, {"", "pull"}} {
		t.Run(c.want, func(t *testing.T) {
			path := filepath.Join("..", "..", "examples", "evaluation", "magnitude-tensile.toml")
			e, src, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			e.Timing.Motion = c.motion
			if err := e.validateSet(); err != nil {
				t.Fatal(err)
			}
			e.Side, e.Timing.Gap, e.Timing.ITI = 8, 300*time.Millisecond, 300*time.Millisecond
			shorten(e.Set)
			o := evaluationObserver(t, e)
			o.Experiment, o.Source, o.Path, o.Subject, o.OutDir = e, src, path, "sim01", t.TempDir()
			res, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			traces, _ := filepath.Glob(filepath.Join(res.Dir, "traces", "*-haptics.csv.gz"))
			if len(traces) != res.Trials {
				t.Fatalf("%d haptics traces for %d trials of one property: %v", len(traces), res.Trials, traces)
			}
			// The pads' travel across and down the stand over the
			// interval (the approach is along the pinch's axis, z).
			recs := readTrace(t, filepath.Join(res.Dir, "traces", "0001-i1-haptics.csv.gz"))
			if len(recs) < 1000 {
				t.Fatalf("haptics trace: %d rows", len(recs))
			}
			col := map[string]int{}
			for i, h := range recs[0] {
				col[h] = i
			}
			var lo, hi [2]float64
			for a := range 2 {
				lo[a], hi[a] = math.Inf(1), math.Inf(-1)
			}
			for _, r := range recs[1:] {
				for a, name := range []string{"index_x_m", "index_y_m"} {
					v, err := strconv.ParseFloat(r[col[name]], 64)
					if err != nil {
						t.Fatal(err)
					}
					lo[a], hi[a] = min(lo[a], v), max(hi[a], v)
				}
			}
			across, down := 1e3*(hi[0]-lo[0]), 1e3*(hi[1]-lo[1])
			t.Logf("motion %q: the index pad travelled %.3f mm across and %.3f mm down", c.want, across, down)
			switch c.want {
			case "stretch":
				if !(down > 0.8 && down > 4*across) {
					t.Errorf("want about 1 mm down and little across: the stretch")
				}
			case "pull":
				if !(across > 0.2 && down < 1.5*across && across < 1.5*down) {
					t.Errorf("want alike across and down, about 0.4 mm: the pull")
				}
			}
			rep, err := CheckSet(context.Background(), CheckOptions{Experiment: e, Levels: 1, Pairs: 1, NoWarmup: true}, 0)
			if err != nil {
				t.Fatal(err)
			}
			played := ""
			if rep.Levels != nil {
				played = rep.Levels.Motion
			}
			if played != c.want {
				t.Errorf("the stimulus check played %q, want %q", played, c.want)
			}
		})
	}
}

package report

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/haptex/haptex/app/experiment"
	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/kes"
	"github.com/haptex/haptex/calib/psych"
)

// realtimeSession records a short real-time session, as make demo does
// (shorter), and returns its folder.
func realtimeSession(t *testing.T) string {
	t.Helper()
	r, err := rig.New(rig.Config{OutDir: t.TempDir(), Duration: time.Second, NormalPriority: true, IdleSleep: true, NoStandby: true})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return sum.SessionDir
}

// exampleExperiment runs the README's example experiment with a
// simulated observer, cut to 4 trials with short pauses on a coarse cloth
// (the test's time), and returns the subject's folder. Its intervals keep
// the motion's length, so each interval's cue is measured and recorded as
// in a real run; the stimulus check, which runs the motion at seven levels
// and is tested by app/experiment, is not what this test is about.
func exampleExperiment(t *testing.T) string {
	t.Helper()
	path := filepath.Join("..", "..", "examples", "stiffness-2afc.toml")
	e, src, err := experiment.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	e.Procedure.Staircase.MaxTrials = 4
	e.Side = 6
	e.Timing.Gap, e.Timing.ITI = 50*time.Millisecond, 50*time.Millisecond
	obs, err := psych.ParseObserver("sim:form=weibull,threshold=12,beta=3,lambda=0.01,seed=7", e.Task)
	if err != nil {
		t.Fatal(err)
	}
	res, err := experiment.Run(context.Background(), experiment.Options{Experiment: e, Source: src, Path: path, Subject: "sim01",
		OutDir: t.TempDir(), Library: kes.Library{}, Observers: []*psych.Observer{obs}, Rig: rig.Config{NormalPriority: true}, SkipStimulusCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	return res.Dir
}

func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// The reports of a real-time session and of the example experiment have
// every figure the issue asks for, leave the folders they read alone,
// and load in headless Chromium without an error, showing something.
func TestReportsInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a session, an experiment and a browser")
	}
	b := startBrowser(t)
	for _, tc := range []struct {
		name  string
		dir   func(*testing.T) string
		kind  string
		files []string
		title string
	}{
		{"session", realtimeSession, "session",
			[]string{"force-thumb.png", "force-index.svg", "pins-thumb_a40_um.png", "pins-index_a320_um.png", "sim-steps.png", "lateness.png"}, "Session"},
		{"experiment", exampleExperiment, "experiment",
			[]string{"tracks.png", "fit-0.png", "fit-0.svg", "delivered.png"}, "Experiment stiffness-2afc"},
		{"magnitude estimation", magnitudeFolder, "experiment",
			[]string{"power-law.png", "power-law.svg"}, "Experiment m"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t0 := time.Now()
			dir := tc.dir(t)
			t1 := time.Now()
			before := listFiles(t, dir)
			out := filepath.Join(t.TempDir(), "report")
			res, err := Write(dir, Options{Out: out})
			t.Logf("run %.1f s, report %.1f s", t1.Sub(t0).Seconds(), time.Since(t1).Seconds())
			if err != nil {
				t.Fatal(err)
			}
			if res.Kind != tc.kind {
				t.Errorf("kind %q, want %q", res.Kind, tc.kind)
			}
			for _, f := range tc.files {
				if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
					t.Errorf("figure %s: %v", f, err)
				}
			}
			if after := listFiles(t, dir); strings.Join(after, "\n") != strings.Join(before, "\n") {
				t.Errorf("the report changed the folder it read:\n%v\n%v", before, after)
			}
			for _, n := range res.Notes {
				t.Logf("not shown: %s", n)
			}
			pc, err := b.load(res.Page, 90*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range pc.errors {
				t.Errorf("page error: %s", e)
			}
			if !strings.HasPrefix(pc.title, tc.title) {
				t.Errorf("page title %q", pc.title)
			}
			ink, colours := inkShare(pc.screenshot)
			t.Logf("screenshot %v: %.1f %% ink, %d colours", pc.screenshot.Bounds().Size(), 100*ink, colours)
			if ink < 0.01 || colours < 50 {
				t.Errorf("the page looks blank: %.1f %% of it is not background, %d colours", 100*ink, colours)
			}
		})
	}
}

// The report of a set experiment (real ratings typed from a form: no rig
// runs) shows its analysis and its trials, and says why it draws no
// figure (the real ratings alone: nothing rendered to compare them with)
// rather than that the run has not finished.
func TestSetExperimentReport(t *testing.T) {
	path := filepath.Join("..", "..", "examples", "evaluation", "semantic-real.toml")
	e, src, err := experiment.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	e.Set.Repeats = 1
	n := len(e.Set.Fabrics)
	res, err := experiment.Run(context.Background(), experiment.Options{Experiment: e, Source: src, Path: path, Subject: "P01",
		OutDir: t.TempDir(), Library: kes.Library{}, Out: io.Discard, In: strings.NewReader(strings.Repeat("4\n", n*len(e.Set.Scales)))})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Write(res.Dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(r.Page)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{"<h2>Analysis</h2>", "semantic.json", fmt.Sprintf("<summary>%d trials</summary>", n), "rating_" + e.Set.Scales[0], "<td>set</td><td>rate</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, bad := range []string{"has not finished", "staircase", "<td>procedure</td>"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page says %q of a finished set experiment", bad)
		}
	}
	if len(r.Figures) != 0 || len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "both conditions") {
		t.Errorf("figures %v, notes %q", r.Figures, r.Notes)
	}
}

// setCheck is an identification's or a rating's stimulus-check.json, as
// CheckSet records it: roughness on the set's extremes, valid or refused.
func setCheck(valid bool) string {
	webers, reason := 6.2, ""
	if !valid {
		webers, reason = 0.4, `, "reason": "stimulus check: no property delivers a contrast across the set of twice its Weber fraction"`
	}
	return fmt.Sprintf(`{"experiment": "i", "kind": "identify", "valid": %v%s, "properties": [{"dimension": "roughness", "unit": "× threshold", "quantity_unit": "µm",
		"extreme_webers": %g, "fabrics": [{"fabric": "silk-habutae", "kes": 1.2, "cue": 1.1, "cue_sd": 0.05, "cues": [1.05, 1.15]},
		{"fabric": "denim", "kes": 8.5, "cue": 5.4, "cue_sd": 0.1, "cues": [5.3, 5.5]}]}]}`, valid, reason, webers)
}

// writeIn writes a file of a subject folder written by hand.
func writeIn(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// magnitudeFolder writes a magnitude estimation's subject folder by hand
// (the report reads records by key name; the runs that write them are
// app/experiment's tests) and returns it.
func magnitudeFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"sidecar.json": `{"experiment": {"name": "m", "set": {"kind": "magnitude"}, "stimulus": {"kind": "stiffness"}}, "subject": "sim01"}`,
		"magnitude.json": `{"quantity": "EMT", "unit": "%", "cue": "loading-stiffness", "cue_unit": "N/m",
			"kes": {"scale": 5000, "exponent": -1.2, "points": [{"x": 2.5, "geomean": 1660, "n": 6}, {"x": 4.25, "geomean": 880, "n": 6}, {"x": 6.1, "geomean": 570, "n": 6}]},
			"delivered": {"scale": 2, "exponent": 0.93, "points": [{"x": 390, "geomean": 520, "n": 6}, {"x": 680, "geomean": 880, "n": 6}, {"x": 1330, "geomean": 1600, "n": 6}]}}`,
		"trials.csv": "trial,subject,stimulus,x,unit,kes_EMT,estimate,cue_stiffness,rt_s,observer,run_time_s,wall_time\n1,sim01,0,0,%,4.25,880,680,NaN,magnitude:seed=7,10,2026-11-29T00:00:00Z\n",
		// The check of its levels, as CheckSet records it.
		"stimulus-check.json": `{"experiment": "m", "kind": "magnitude", "valid": true, "levels": {"stream": 0, "cue": "loading-stiffness", "unit": "N/m", "x_unit": "%",
			"weber": 0.13, "cue_sd": 0.08, "efficiency": 0.7, "detectable_from_x": 39, "prediction": "curve",
			"levels": [{"x": 100, "cue_reference": 390, "cue_test": 680, "ratio": 1.74, "contrast": 0.74, "contrast_ci": [0.6, 0.9]}]}}`,
	}
	for name, body := range files {
		writeIn(t, dir, name, body)
	}
	return dir
}

// A magnitude estimation's page draws its power laws from magnitude.json.
func TestMagnitudeReport(t *testing.T) {
	dir := magnitudeFolder(t)
	r, err := Write(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Figures) != 2 || filepath.Base(r.Figures[0]) != "power-law.png" || len(r.Notes) != 0 {
		t.Fatalf("figures %v, notes %q; want the power law's PNG and SVG and nothing left out", r.Figures, r.Notes)
	}
	// The check of its levels before the first trial.
	page, err := os.ReadFile(r.Page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Stimulus check, stream 0: loading-stiffness [N/m], before the first trial",
		"<td>100</td><td>390</td><td>680</td><td>1.74</td><td>74.0 %</td><td>60.0 to 90.0 %</td>", "reaches the Weber fraction from 39 %"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// Both axes say their units.
	svg, err := os.ReadFile(r.Figures[1])
	if err != nil {
		t.Fatal(err)
	}
	for _, label := range []string{"KES EMT [%]", "delivered loading-stiffness [N/m]"} {
		if !strings.Contains(string(svg), label) {
			t.Errorf("the power law's SVG lacks the axis label %q", label)
		}
	}
	// Without the fit's parameters the levels are still drawn.
	writeIn(t, dir, "magnitude.json", `{"kes": {"points": [{"x": 1, "geomean": 2}, {"x": 2, "geomean": 3}]}, "delivered": {"points": []}}`)
	if r, err = Write(dir, Options{}); err != nil || len(r.Figures) != 2 || len(r.Notes) != 1 {
		t.Fatalf("%v: figures %v, notes %q; want the KES panel and a note for the empty one", err, r.Figures, r.Notes)
	}
	// Hostile analyses draw what a logarithmic axis can show, or say why
	// not: one level twice, a fit that overflows, numbers at float64's
	// ends, the wrong types (each once panicked or could).
	for _, body := range []string{
		`{"kes": {"scale": 1e308, "exponent": 1e308, "points": [{"x": 1, "geomean": 1}, {"x": 1, "geomean": 1}]}, "delivered": {"scale": -1, "points": [{"x": 1e-300, "geomean": 1e300}, {"x": 1e300, "geomean": 1e-300}]}}`,
		`{"kes": {"scale": 2, "exponent": 1, "points": [{"x": 1, "geomean": 3}, {"x": 2, "geomean": 3}]}, "delivered": {"points": [{"x": 5e-324, "geomean": 1}, {"x": 1e-323, "geomean": 1e308}]}}`,
		`{"kes": {"points": "x"}, "delivered": 5}`,
		`[1, 2]`,
	} {
		writeIn(t, dir, "magnitude.json", body)
		if _, err := Write(dir, Options{}); err != nil {
			t.Errorf("%s: %v", body, err)
		}
	}
}

// An identification's page shows its confusion matrix as a table, rows
// the fabrics presented and columns the names given, labelled from the
// sidecar, with the information transmitted (a folder written by hand).
func TestIdentificationReport(t *testing.T) {
	dir := t.TempDir()
	writeIn(t, dir, "sidecar.json", `{"experiment": {"name": "i", "set": {"kind": "identify", "fabrics": ["denim", "linen"], "responses": ["jeans", "flax"]}}, "subject": "s",
		"fabric": {"name": "denim", "sha256": "d1"}, "fabrics": [{"name": "denim", "sha256": "d1"}, {"name": "linen", "sha256": "l2"}],
		"observers": [{"spec": "match:seed=7", "from_trial": 1}, {"spec": "person", "from_trial": 3}, "match:seed=8", 5]}`)
	writeIn(t, dir, "trials.csv", "trial,subject,stimulus,response,correct,cue_roughness,rt_s,observer,run_time_s,wall_time\n1,s,denim,jeans,1,5,NaN,person,3,2026-11-29T00:00:00Z\n")
	writeIn(t, dir, "matching.json", `{"confusion": {"counts": [[3, 1], [0, 4]], "information_bits": 0.55, "information_interval": {"lo": 0.1, "hi": 0.9},
		"information_warning": "information transmitted: 3 trials of the least presented stimulus, fewer than 5"}}`)
	writeIn(t, dir, "stimulus-check.json", setCheck(true))
	r, err := Write(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(r.Page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"information transmitted 0.55 bits (0.1 to 0.9)", "3 trials of the least presented stimulus, fewer than 5", "<th>jeans</th><th>flax</th>",
		"<tr><td>denim</td><td>3</td><td>1</td></tr>", "<tr><td>linen</td><td>0</td><td>4</td></tr>",
		"<td>fabric</td><td>denim (sha256 d1)</td>", "<td>fabric</td><td>linen (sha256 l2)</td>",
		"<td>answered by</td><td>match:seed=7</td>", "<td>answered by</td><td>person, from trial 3</td>", "<td>answered by</td><td>match:seed=8</td>"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// A hand-edited list of fabrics: what names no fabric is left out.
	writeIn(t, dir, "sidecar.json", `{"experiment": {"name": "i", "set": {"kind": "identify", "fabrics": ["denim", "linen"]}}, "subject": "s",
		"fabrics": [3, null, {"sha256": "x"}, {"name": "linen", "sha256": 5}]}`)
	if r, err = Write(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	if b, err = os.ReadFile(r.Page); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(b), "<td>fabric</td>"); got != 1 || !strings.Contains(string(b), "<td>fabric</td><td>linen (sha256 5)</td>") {
		t.Errorf("%d fabric rows, want linen's alone", got)
	}
	// What the trials delivered, and the analysis's warning.
	writeIn(t, dir, "matching.json", `{"confusion": {"counts": [[3, 1], [0, 4]]}, "warnings": ["as delivered in this run's trials, no property's extremes differ"],
		"delivered": [{"dimension": "roughness", "unit": "× threshold", "quantity_unit": "µm", "extreme_webers": 0.8,
			"fabrics": [{"fabric": "linen", "kes": 6.5, "cue": 5.4, "cue_sd": 0.1, "cues": [5.3, 5.5]}],
			"unmeasured": [{"fabric": "denim", "kes": 8.5, "error": "no trial measured its cue"}]}]}`)
	if r, err = Write(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	if b, err = os.ReadFile(r.Page); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"What the trials delivered", "<td>roughness</td><td>linen</td><td>6.5 µm</td><td>5.4 × threshold</td><td>0.1</td><td>2</td>",
		"not measured: no trial measured its cue", "0.8 Weber fractions apart", "<li>as delivered in this run",
		"Stimulus check, before the first trial", "<td>roughness</td><td>silk-habutae</td><td>1.2 µm</td><td>1.1 × threshold</td><td>0.05</td><td>2</td>", "6.2 Weber fractions apart"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, body := range []string{`{"confusion": {"counts": [5, "x"]}}`, `{"confusion": {"counts": []}}`, `{"confusion": 3}`,
		`{"confusion": 3, "delivered": [3, {"fabrics": "x", "unmeasured": [null]}], "warnings": [1]}`} {
		writeIn(t, dir, "matching.json", body)
		if _, err := Write(dir, Options{}); err != nil {
			t.Errorf("%s: %v", body, err)
		}
	}
	// A check that refused the set, which ran anyway (-force), is a
	// warning; hostile checks are shown as far as they go.
	writeIn(t, dir, "stimulus-check.json", setCheck(false))
	if r, err = Write(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	if b, err = os.ReadFile(r.Page); err != nil || !strings.Contains(string(b), "the stimulus check refused this experiment, which ran anyway (-force): stimulus check: no property delivers") {
		t.Errorf("the page does not warn of the refused check (%v)", err)
	}
	for _, body := range []string{`{"properties": 3}`, `{"properties": [3, {"fabrics": [null, 5]}]}`, `{"levels": {"levels": "x"}}`, `{"kind": "magnitude", "levels": null}`} {
		writeIn(t, dir, "stimulus-check.json", body)
		if _, err := Write(dir, Options{}); err != nil {
			t.Errorf("%s: %v", body, err)
		}
	}
}

// A rating's page draws each scale's rendered-against-real means from
// semantic.json when both conditions are there, and says why not when
// one is missing (folders written by hand).
func TestRatingsReport(t *testing.T) {
	dir := t.TempDir()
	writeIn(t, dir, "sidecar.json", `{"experiment": {"name": "r", "set": {"kind": "rate", "points": 7}}, "subject": "s-virtual"}`)
	writeIn(t, dir, "trials.csv", "trial,subject,stimulus,condition,rating_smooth-rough,cue_roughness,rt_s,observer,run_time_s,wall_time\n1,s-virtual,denim,virtual,5,5,NaN,rate:seed=7,3,2026-11-29T00:00:00Z\n")
	writeIn(t, dir, "stimulus-check.json", setCheck(true))
	profile := func(cond, fabric string, m1, m2 float64) string {
		return fmt.Sprintf(`{"condition": %q, "fabric": %q, "mean": [%g, %g]}`, cond, fabric, m1, m2)
	}
	both := []string{profile("real", "denim", 5, 2), profile("virtual", "denim", 6, 3), profile("real", "silk", 1, 6), profile("virtual", "silk", 2, 5)}
	analysis := func(profiles []string) string {
		return `{"analysis": {"scales": ["smooth-rough", "stretchy-firm"], "correlations": [{"scale": "smooth-rough", "r": 1}], "profiles": [` + strings.Join(profiles, ", ") + `]}}`
	}
	for _, c := range []struct {
		name, body       string
		figures, notes   int
		noteHas, titleOf string
	}{
		{"both conditions", analysis(both), 2, 0, "", "smooth-rough, r = 1.00"},
		{"the real ratings alone", analysis(both[0:1]), 0, 1, "both conditions", ""},
		{"means shorter than the scales", analysis([]string{`{"condition": "real", "fabric": "a", "mean": [1]}`, `{"condition": "virtual", "fabric": "a", "mean": [2]}`}), 2, 0, "", ""},
		{"the wrong types", `{"analysis": {"scales": 3, "profiles": [5, {"mean": "x"}]}}`, 0, 1, "both conditions", ""},
		{"a subject left out", `{"skipped": ["OUT/r/s9-real: trials.csv has other columns"], ` + analysis(both)[1:], 2, 1, "leaves out OUT/r/s9-real: trials.csv has other columns", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			writeIn(t, dir, "semantic.json", c.body)
			r, err := Write(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Figures) != c.figures || len(r.Notes) != c.notes || c.notes > 0 && !strings.Contains(r.Notes[0], c.noteHas) {
				t.Errorf("figures %v, notes %q", r.Figures, r.Notes)
			}
			if c.titleOf != "" {
				svg, err := os.ReadFile(filepath.Join(filepath.Dir(r.Page), "ratings.svg"))
				if err != nil || !strings.Contains(string(svg), c.titleOf) {
					t.Errorf("ratings.svg lacks the title %q (%v)", c.titleOf, err)
				}
			}
		})
	}
}

// The report of an experiment shows the stimulus check the run recorded:
// each level's contrast with its interval, the levels whose interval
// holds zero and the predicted threshold; a check that refused the
// experiment is a warning; a damaged or hostile record is a note, and
// the page is still written.
func TestExperimentReportStimulusCheck(t *testing.T) {
	dir := t.TempDir()
	writeIn(t, dir, "trials.csv", "trial,stream,x,unit,test_interval,positive\n0,0,40,%,1,1\n1,0,20,%,2,0\n")
	f := func(v float64) *float64 { return &v }
	rep := experiment.StimulusReport{Experiment: "b", Cue: "bending-stiffness", Unit: "N/m", XUnit: "%", Weber: 0.23, CueSD: 0.165, Efficiency: 0.87,
		Levels: []experiment.LevelCue{
			{X: 2.5, CueReference: 0.964, CueTest: 1.202, Ratio: f(1.247), Contrast: 0.247, ContrastCI: &[2]float64{-0.024, 0.594}},
			{X: 52.53, CueReference: 1.065, CueTest: 1.546, Ratio: f(1.451), Contrast: 0.451, ContrastCI: &[2]float64{0.136, 0.855}},
		},
		DetectableFromX: f(29.9), Prediction: "curve", DetectableFromXCI: [2]*float64{f(21.1), nil}, Valid: true}
	page := func(t *testing.T, check any) (string, []string) {
		t.Helper()
		switch c := check.(type) {
		case nil:
			os.Remove(filepath.Join(dir, "stimulus-check.json"))
		case string:
			writeIn(t, dir, "stimulus-check.json", c)
		default:
			b, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			writeIn(t, dir, "stimulus-check.json", string(b))
		}
		res, err := Write(dir, Options{Out: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(res.Page)
		if err != nil {
			t.Fatal(err)
		}
		return string(b), res.Notes
	}
	html, _ := page(t, rep)
	for _, want := range []string{"Stimulus check, stream 0: bending-stiffness [N/m]", "-2.4 to 59.4 %", "13.6 to 85.5 %", "24.7 %",
		"At 2.5 % the interval holds 0", "from 29.9 % (curve; 95 % interval 21.1 % to beyond the checked levels)", "varies by 17.9 %"} {
		if !strings.Contains(html, want) {
			t.Errorf("no %q on the page", want)
		}
	}
	if strings.Contains(html, "refused this experiment") || strings.Contains(html, "At 2.5, 52.53") {
		t.Error("a valid check's page warns, or names a level whose interval is above zero")
	}
	rep.Valid, rep.Reason = false, "stimulus check: at the largest level the contrast is below twice its Weber fraction"
	if html, _ := page(t, rep); !strings.Contains(html, "refused this experiment, which ran anyway (-force): stimulus check: at the largest level") {
		t.Error("no warning for a check that refused the experiment")
	}
	for _, hostile := range []string{`{"levels": "many", "streams": [1, {"levels": [{"x": "a", "contrast_ci": [1]}, 3]}], "cue_sd": "x"}`, `[1, 2]`, `{"valid": "yes", "levels": [{"contrast_ci": [null, "x"]}]}`} {
		if html, _ := page(t, hostile); !strings.Contains(html, "Experiment") {
			t.Errorf("%s: no page", hostile)
		}
	}
	writeIn(t, dir, "fit.json", `{"streams": [{"stream": 0, "fit": {"pf": {"form": "weibull", "alpha": 25, "beta": 3, "gamma": 0.5, "lambda": 0.01},
		"threshold": 22, "data": [{"x": 10, "k": 5, "n": 8}, {"x": 40, "k": 8, "n": 8}]},
		"delivered": {"trials": 16, "scale": 0.81, "scale_ci": [0.59, 1.03]}}]}`)
	if html, _ := page(t, rep); !strings.Contains(html, "The 16 trials delivered 0.81 [0.59, 1.03] times the contrast the stimulus check measured") {
		t.Error("the fit's caption does not say what the trials delivered")
	}
	writeIn(t, dir, "fit.json", `{"streams": [{"stream": 0, "fit": {"pf": {"form": "weibull", "alpha": 25, "beta": 3, "gamma": 0.5, "lambda": 0.01},
		"threshold": 22, "data": [{"x": 10, "k": 5, "n": 8}, {"x": 40, "k": 8, "n": 8}]}, "unmeasured_trials": 16}]}`)
	if html, _ := page(t, rep); !strings.Contains(html, "What 16 trials delivered was not measured") {
		t.Error("the fit's caption does not say that what the trials delivered was not measured")
	}
	if _, notes := page(t, "{not json"); !hasNote(notes, "stimulus-check.json is not valid JSON") {
		t.Errorf("a damaged record: notes %q", notes)
	}
	if _, notes := page(t, nil); !hasNote(notes, "no stimulus-check.json") {
		t.Errorf("no record: notes %q", notes)
	}
}

package experiment

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/psych"
	devrecord "github.com/haptex/haptex/devices/record"
	"github.com/haptex/haptex/devices/setup"
)

// small is a short experiment on a coarse cloth with the hand at rest:
// what the resume tests need is trials, not handling.
const small = `
format = 1
name = "level-test"
task = { kind = "afc", alternatives = 2 }
side = 8
[stimulus]
kind = "tactile-level"
[timing]
motion = "rest"
interval_s = 0.3
gap_s = 0.3
iti_s = 0.3
[procedure]
kind = "staircase"
[procedure.staircase]
task = { kind = "afc", alternatives = 2 }
scale = "linear"
start = 12
min = 0
max = 30
up = 1
down = 2
steps = [4, 2]
max_trials = 9
`

// pinch is a one-trial stiffness experiment with real handling, on a mesh
// graded round the pinch: one trial has a test and a reference interval.
const pinch = `
format = 1
name = "stiffness-test"
side = 8
refine = true
[stimulus]
kind = "stiffness"
[timing]
gap_s = 0.3
iti_s = 0.3
[procedure]
kind = "staircase"
[procedure.staircase]
task = { kind = "afc", alternatives = 2 }
scale = "linear"
start = 40
min = 10
max = 160
up = 1
down = 2
steps = [10]
max_trials = 1
`

func observer(t *testing.T) *psych.Observer {
	t.Helper()
	o, err := psych.ParseObserver("sim:form=weibull,threshold=12,beta=3,lambda=0.01,seed=7", psych.TwoAFC)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// run runs the small experiment with scripted fingertips (no device
// plants: the resume tests are about the procedure, and this keeps them
// fast under the race detector).
func run(t *testing.T, dir string, after func(int) error) (*Result, error) {
	return runFile(t, small, dir, after, rig.Config{Scripted: true})
}

func runFile(t *testing.T, file, dir string, after func(int) error, base rig.Config) (*Result, error) {
	t.Helper()
	e, err := Parse([]byte(file), "exp.toml")
	if err != nil {
		t.Fatal(err)
	}
	return Run(context.Background(), Options{
		Experiment: e, Source: []byte(file), Path: "exp.toml", Subject: "sim01", OutDir: dir,
		Observers: []*psych.Observer{observer(t)}, AfterTrial: after, Rig: base, SkipStimulusCheck: true,
	})
}

// uninterrupted is the small experiment run once to its end with its BIDS
// table on: the reference of both resume tests (they compare its records
// and trial count) and the run whose files TestBIDSBesideTrials reads.
// Its subject, sim-01, is not a BIDS label as it is. Its folder lives
// until TestMain removes it.
var uninterrupted struct {
	once sync.Once
	dir  string
	res  *Result
	err  error
}

const wholeSubject = "sim-01"

func wholeRun(t *testing.T) (*Result, string) {
	t.Helper()
	uninterrupted.once.Do(func() {
		e, err := Parse([]byte(small), "exp.toml")
		if err != nil {
			uninterrupted.err = err
			return
		}
		if uninterrupted.dir, uninterrupted.err = os.MkdirTemp("", "experiment-whole-"); uninterrupted.err != nil {
			return
		}
		uninterrupted.res, uninterrupted.err = Run(context.Background(), Options{
			Experiment: e, Source: []byte(small), Path: "exp.toml", Subject: wholeSubject, OutDir: uninterrupted.dir,
			Observers: []*psych.Observer{observer(t)}, Rig: rig.Config{Scripted: true}, SkipStimulusCheck: true, BIDS: true,
		})
	})
	if uninterrupted.res == nil {
		t.Fatalf("the uninterrupted run: %v", uninterrupted.err)
	}
	return uninterrupted.res, uninterrupted.dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if uninterrupted.dir != "" {
		os.RemoveAll(uninterrupted.dir)
	}
	os.Exit(code)
}

// Interrupting a run after any trial and resuming it gives the same trials,
// responses and procedure state as a run that was never interrupted, and
// loses no completed trial.
func TestResumeContinuesTheSameProcedure(t *testing.T) {
	whole, _ := wholeRun(t)
	dir := t.TempDir()
	interruptAfter(t, dir, 4)
	part, err := run(t, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !part.Resumed || part.Trials != whole.Trials {
		t.Fatalf("resumed %v with %d trials; the whole run had %d", part.Resumed, part.Trials, whole.Trials)
	}
	a, b := whole.Procedure.Records(), part.Procedure.Records()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("trial %d: %+v uninterrupted, %+v resumed", i, a[i], b[i])
		}
	}
	rows := readCSV(t, filepath.Join(dir, "level-test", "sim01", "trials.csv"))
	if len(rows) != whole.Trials {
		t.Fatalf("trials.csv has %d rows, want %d", len(rows), whole.Trials)
	}
}

// interruptAfter runs the small experiment into dir and stops it once
// trial n has been recorded, as a kill would.
func interruptAfter(t *testing.T, dir string, n int) {
	t.Helper()
	stop := errors.New("killed")
	if _, err := run(t, dir, func(k int) error {
		if k == n {
			return stop
		}
		return nil
	}); !errors.Is(err, stop) {
		t.Fatalf("interrupted run: %v", err)
	}
}

// A run stopped after a trial reached the CSV but before its state was
// saved replays that trial on resume: nothing is lost or doubled.
func TestResumeAfterCSVBeforeState(t *testing.T) {
	resumeAfterTrial4(t, func(string) error { return nil })
}

// A run killed while it wrote trial 4's row leaves half of it in
// trials.csv and the state of trial 3: the resumed run drops the torn
// line, runs trial 4 again and ends with the uninterrupted run's trials,
// each once.
func TestResumeAfterTornRow(t *testing.T) {
	resumeAfterTrial4(t, func(path string) error {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		// Cut the last row (trial 4's) in half, as if the run had died in
		// the middle of writing it.
		last := bytes.LastIndexByte(b[:len(b)-1], '\n') + 1
		return os.WriteFile(path, b[:last+(len(b)-last)/2], 0o644)
	})
}

// resumeAfterTrial4 stops a run once trial 4 has reached trials.csv,
// lets damage change that file, puts back the state saved after trial 3
// (as if the run had died between the two writes), resumes it, and
// checks that the resumed run's trials are the uninterrupted run's, each
// in trials.csv once and in order.
func resumeAfterTrial4(t *testing.T, damage func(trialsCSV string) error) {
	t.Helper()
	whole, _ := wholeRun(t)
	dir := t.TempDir()
	sub := filepath.Join(dir, "level-test", "sim01")
	var saved []byte
	stop := errors.New("killed")
	if _, err := run(t, dir, func(n int) error {
		switch n {
		case 3:
			saved, _ = os.ReadFile(filepath.Join(sub, "state.json"))
		case 4:
			if err := damage(filepath.Join(sub, "trials.csv")); err != nil {
				return err
			}
			os.WriteFile(filepath.Join(sub, "state.json"), saved, 0o644)
			return stop
		}
		return nil
	}); !errors.Is(err, stop) {
		t.Fatalf("interrupted run: %v", err)
	}
	part, err := run(t, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameTrials(t, whole, part, sub)
}

// sameTrials checks that the resumed run part ended with the
// uninterrupted run's trials, each in sub's trials.csv once and in order.
func sameTrials(t *testing.T, whole, part *Result, sub string) {
	t.Helper()
	a, b := whole.Procedure.Records(), part.Procedure.Records()
	if len(a) != len(b) {
		t.Fatalf("%d trials resumed, %d uninterrupted", len(b), len(a))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("trial %d: %+v uninterrupted, %+v resumed", i, a[i], b[i])
		}
	}
	rows := readCSV(t, filepath.Join(sub, "trials.csv"))
	if len(rows) != len(a) {
		t.Fatalf("trials.csv has %d rows, want %d", len(rows), len(a))
	}
	for i, r := range rows {
		if r[0] != strconv.Itoa(i) {
			t.Fatalf("row %d holds trial %s: a trial lost or repeated", i, r[0])
		}
	}
}

// A run begun by a version of haptex that wrote other columns is not
// resumed into the same trials.csv: its rows would not line up. The
// older layout is a whole table without the columns added since (header
// and rows alike); a table whose rows do not match its own header is
// refused as not a trials table.
func TestResumeRefusesOtherColumns(t *testing.T) {
	dir := t.TempDir()
	stop := errors.New("killed")
	if _, err := run(t, dir, func(n int) error {
		if n == 2 {
			return stop
		}
		return nil
	}); !errors.Is(err, stop) {
		t.Fatalf("interrupted run: %v", err)
	}
	path := filepath.Join(dir, "level-test", "sim01", "trials.csv")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	drop := map[int]bool{}
	for i, c := range recs[0] {
		if c == "i1_thumb_limited_s" || c == "i1_index_limited_s" {
			drop[i] = true
		}
	}
	if len(drop) != 2 {
		t.Fatalf("trials.csv has no limited_s columns: %q", recs[0])
	}
	write := func(recs [][]string) {
		t.Helper()
		var b strings.Builder
		w := csv.NewWriter(&b)
		w.WriteAll(recs)
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	older := make([][]string, len(recs))
	for r, rec := range recs {
		for i, v := range rec {
			if !drop[i] {
				older[r] = append(older[r], v)
			}
		}
	}
	write(older)
	if _, err := run(t, dir, nil); err == nil || !strings.Contains(err.Error(), "other columns") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("resumed a trials.csv of another layout: %v", err)
	}
	write(append([][]string{older[0]}, recs[1:]...))
	if _, err := run(t, dir, nil); err == nil || !strings.Contains(err.Error(), "not a trials table") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("resumed a trials.csv whose rows do not match its header: %v", err)
	}
}

// The record holds the nominal and the delivered stimulus: in the test
// interval the fabric is stiffer, both fingers pinched the cloth and felt
// a force, the loading stiffness was measured in both intervals, the row
// names the observer, and each interval's tick-level record is on disk.
func TestTrialRecord(t *testing.T) {
	dir := t.TempDir()
	if _, err := runFile(t, pinch, dir, nil, rig.Config{}); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "stiffness-test", "sim01")
	rows := readCSV(t, filepath.Join(sub, "trials.csv"))
	header := csvHeader(2)
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	if len(rows) != 1 {
		t.Fatalf("%d trials, want 1", len(rows))
	}
	for _, r := range rows {
		if len(r) != len(header) {
			t.Fatalf("row has %d fields, header %d", len(r), len(header))
		}
		for _, i := range []string{"i1_", "i2_"} {
			if r[col[i+"pinch_s"]] == "0" || r[col[i+"index_peak_force_des_n"]] == "0" || r[col[i+"thumb_peak_force_n"]] == "0" {
				t.Fatalf("interval %s: no pinch or no force: %v", i, r)
			}
			want := "0"
			if r[col[i+"role"]] == "test" {
				want = r[col["x"]]
			}
			if r[col[i+"value"]] != want {
				t.Fatalf("interval %s %s: value %s", i, r[col[i+"role"]], r[col[i+"value"]])
			}
			if c, err := strconv.ParseFloat(r[col[i+"cue"]], 64); err != nil || !(c > 0) {
				t.Fatalf("interval %s: cue %q", i, r[col[i+"cue"]])
			}
		}
		if r[col["observer"]] != observer(t).Spec {
			t.Fatalf("observer column %q", r[col["observer"]])
		}
	}
	traces, _ := filepath.Glob(filepath.Join(sub, "traces", "*.csv.gz"))
	if len(traces) != 4 {
		t.Fatalf("%d trace files, want 2 intervals × haptics and tactile: %v", len(traces), traces)
	}
	if recs := readTrace(t, filepath.Join(sub, "traces", "0001-i1-haptics.csv.gz")); len(recs) < 3000 || recs[0][0] != "t_s" {
		t.Fatalf("haptics trace: %d rows", len(recs))
	}
	for _, f := range []string{"sidecar.json", "state.json", "fit.json"} {
		if _, err := os.Stat(filepath.Join(sub, f)); err != nil {
			t.Fatal(err)
		}
	}
	sc := readFile(t, filepath.Join(sub, "sidecar.json"))
	for _, want := range []string{`"refine": true`, `"name": "loading-stiffness"`, `"unit": "N/m"`, observer(t).Spec} {
		if !strings.Contains(sc, want) {
			t.Errorf("sidecar.json lacks %s:\n%s", want, sc)
		}
	}
}

// The file's seconds become durations at load; the sidecar's JSON gives
// them in seconds again, under the file's keys. Zero takes the default.
func TestTiming(t *testing.T) {
	e, err := Parse([]byte(small), "small.toml")
	if err != nil {
		t.Fatal(err)
	}
	if want := (Timing{Motion: "rest", Interval: 300 * time.Millisecond, Gap: 300 * time.Millisecond, ITI: 300 * time.Millisecond}); e.Timing != want {
		t.Errorf("timing %+v, want %+v", e.Timing, want)
	}
	b, err := json.Marshal(e.Timing)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"motion":"rest","interval_s":0.3,"gap_s":0.3,"iti_s":0.3}`; string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
	p, err := Parse([]byte(pinch), "pinch.toml")
	if err != nil {
		t.Fatal(err)
	}
	if p.Timing.Motion != "pull" || p.Timing.Interval != 4200*time.Millisecond {
		t.Errorf("default timing %+v, want the 4.2 s pull that delivers stiffness", p.Timing)
	}
	for _, bad := range []string{"interval_s = nan", "interval_s = 1e300", "interval_s = 0.05"} {
		if _, err := Parse([]byte(strings.Replace(small, "interval_s = 0.3", bad, 1)), "bad.toml"); err == nil || !strings.Contains(err.Error(), "timing.interval_s") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ name, edit, want string }{
		{"format", `format = 1`, "format"},
		{"kind", `kind = "tactile-level"`, "stimulus.kind"},
		{"unknown key", `side = 8`, "unknown field"},
		{"old key", `side = 8`, "nodes is now side"},
		{"gap", `gap_s = 0.3`, "timing.gap_s"},
		{"motion", `motion = "rest"`, "timing.motion"},
		{"procedure", `max_trials = 9`, "procedure"},
		{"reference level", `kind = "tactile-level"`, "stimulus.reference_db: 3 dB, want -40..0"},
		{"reference kind", `kind = "tactile-level"`, "only a tactile-level or roughness experiment"},
	} {
		bad := map[string]string{
			"format": `format = 2`, "kind": `kind = "weight"`, "unknown key": "side = 8\ncolour = 3", "old key": "nodes = 8", "gap": `gap_s = 0.1`,
			"motion": `motion = "dance"`, "procedure": `max_trials = 0`,
			"reference level": "kind = \"tactile-level\"\nreference_db = 3", "reference kind": "kind = \"force-scale\"\nreference_db = -6",
		}[c.name]
		_, err := Parse([]byte(strings.Replace(small, c.edit, bad, 1)), "bad.toml")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "bad.toml") {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	// A test level below the tactile gain's range.
	low := strings.Replace(strings.Replace(small, "min = 0", "min = -10", 1), `kind = "tactile-level"`, "kind = \"tactile-level\"\nreference_db = -35", 1)
	if _, err := Parse([]byte(low), "low.toml"); err == nil || !strings.Contains(err.Error(), "outside the tactile gain's -40..40 dB") {
		t.Errorf("reference -35 dB, levels from -10 dB: %v", err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(readFile(t, path))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs[1:]
}

// The threshold calibration's run of each finger is a valid experiment:
// the interleaved 40 and 320 Hz pair, 2AFC, at rest.
func TestThresholdExperiment(t *testing.T) {
	for _, finger := range []string{"thumb", "index"} {
		for _, method := range []psych.Kind{psych.KindStaircase, psych.KindQuest} {
			e, err := thresholdExperiment(finger, method, [2]float64{150, 12})
			if err != nil {
				t.Fatalf("%s, %s: %v", finger, method, err)
			}
			p := e.Procedure
			if e.Name != "tactile-threshold-"+finger || e.Task != psych.TwoAFC || e.Stimulus.Kind != TactileTone ||
				e.Stimulus.Finger != finger || e.Timing.Motion != "rest" || p.Kind != psych.KindInterleaved ||
				len(p.Interleaved.Tracks) != 2 || p.Interleaved.Tracks[0].Kind != method || p.Interleaved.Tracks[1].Kind != method {
				t.Errorf("%s, %s: %+v", finger, method, e)
			}
			if sp := psych.SpanOf(p); len(sp) != 2 || sp[0].Max != 150 || sp[1].Max != 12 {
				t.Errorf("%s, %s: tracks up to %+v, want the array's limits 150 and 12 µm", finger, method, sp)
			}
		}
	}
}

// A damaged or hand-edited state.json is refused on resume with one line
// naming it, never a panic, and trials.csv stays as it was, a torn last
// row included (it was cut before the check).
func TestResumeRefusesDamagedState(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "level-test", "sim01")
	interruptAfter(t, dir, 4)
	statePath, csvPath := filepath.Join(sub, "state.json"), filepath.Join(sub, "trials.csv")
	good, err := os.ReadFile(statePath)
	if err != nil {
		t.Fatal(err)
	}
	// A row torn by the interruption stays too: it goes only when the run
	// resumes.
	f, err := os.OpenFile(csvPath, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("5,staircase,0,")
	f.Close()
	trials, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]json.RawMessage
	if err := json.Unmarshal(good, &st); err != nil {
		t.Fatal(err)
	}
	edit := func(key, value string) []byte {
		m := maps.Clone(st)
		m[key] = json.RawMessage(value)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// editProc edits the procedure's own state (psych's envelope, "state").
	editProc := func(f func(ps map[string]any)) []byte {
		var env map[string]any
		if err := json.Unmarshal(st["procedure"], &env); err != nil {
			t.Fatal(err)
		}
		f(env["state"].(map[string]any))
		b, err := json.Marshal(env)
		if err != nil {
			t.Fatal(err)
		}
		return edit("procedure", string(b))
	}
	// editObs edits the first observer's psychometric function.
	editObs := func(f func(pf map[string]any)) []byte {
		var os []map[string]any
		if err := json.Unmarshal(st["observers"], &os); err != nil {
			t.Fatal(err)
		}
		f(os[0]["pf"].(map[string]any))
		b, err := json.Marshal(os)
		if err != nil {
			t.Fatal(err)
		}
		return edit("observers", string(b))
	}
	obs := string(st["observers"])
	for _, c := range []struct {
		name  string
		state []byte
	}{
		{"truncated", good[:len(good)/2]},
		{"an observer too many", edit("observers", "["+obs[1:len(obs)-1]+","+obs[1:len(obs)-1]+"]")},
		{"no observer's state", edit("observers", "[]")},
		{"a cue observer's state too many", edit("cue_observers", obs)},
		{"garbage observer", edit("observers", `[{"spec": 3}]`)},
		{"garbage random state", edit("rng", `"AAAA"`)},
		{"garbage procedure", edit("procedure", `{"kind": "staircase"}`)},
		{"a pending trial on track -1", edit("procedure", strings.Replace(string(st["procedure"]), `"records":`, `"pending": {"index": 4, "stream": -1, "x": 4}, "records":`, 1))},
		// Fields its trials contradict, and a configuration its trials
		// agree with but the experiment file does not: before, each of
		// these resumed.
		{"the staircase's direction lost", editProc(func(ps map[string]any) { delete(ps, "dir") })},
		{"the staircase's counter edited", editProc(func(ps map[string]any) { ps["pos"] = 1 })},
		{"the staircase's maximum edited", editProc(func(ps map[string]any) { ps["config"].(map[string]any)["max_trials"] = 12 })},
		{"the observer's lapse rate lost", editObs(func(pf map[string]any) { delete(pf, "lambda") })},
		{"the observer's threshold edited", editObs(func(pf map[string]any) { pf["alpha"] = 20.0 })},
		{"completed negative", edit("completed", "-1")},
		{"completed beyond the trials", edit("completed", "1000")},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := os.WriteFile(statePath, c.state, 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := run(t, dir, nil)
			switch {
			case err == nil:
				t.Fatalf("resumed (%d trials)", res.Trials)
			case strings.ContainsAny(err.Error(), "\n\r") || !strings.Contains(err.Error(), "state.json") && !strings.Contains(err.Error(), "trials.csv"):
				t.Errorf("not one line naming the file: %q", err)
			}
			if b, _ := os.ReadFile(csvPath); !bytes.Equal(b, trials) {
				t.Errorf("trials.csv changed")
			}
			t.Log(err)
		})
	}
}

// readTrace reads an interval's gzipped trace (traces/NNNN-iK-*.csv.gz),
// its header first.
func readTrace(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(z).ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("%s: %d rows, %v", path, len(recs), err)
	}
	return recs
}

// A rig that does not settle on devices says what only the fingers can
// do; on the simulated twins, and for other errors, the error is as it
// was.
func TestSettleFailedOnDevices(t *testing.T) {
	unsettled := fmt.Errorf("%w within 10s: rig: not settled: the cloth is moving", errUnsettled)
	onDevices := rig.Config{OpenDevices: func(*devrecord.Session) (*setup.Set, error) { return nil, nil }}
	for _, c := range []struct {
		name string
		rig  rig.Config
		err  error
		hint bool
	}{
		{"devices, not settled", onDevices, unsettled, true},
		{"twins, not settled", rig.Config{}, unsettled, false},
		{"devices, stopped", onDevices, errors.New("stopped (resume with the same command): context canceled"), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := &runner{o: Options{Rig: c.rig}, done: 3}
			err := run.settleFailed(c.err)
			msg := err.Error()
			if !errors.Is(err, c.err) || !strings.HasPrefix(msg, "experiment: before trial 4: ") || strings.Contains(msg, "-script rest") != c.hint {
				t.Errorf("%q, want it to wrap %q with the hint %v", msg, c.err, c.hint)
			}
		})
	}
}

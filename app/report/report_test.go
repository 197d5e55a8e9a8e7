package report

import (
	"context"
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
// runs) shows its analysis and its trials, and says it draws no figure of
// a set rather than that the run has not finished.
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
	if len(r.Figures) != 0 || len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "set experiment (rate)") {
		t.Errorf("figures %v, notes %q", r.Figures, r.Notes)
	}
}

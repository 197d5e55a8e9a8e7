package experiment

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/psych"
	"github.com/haptex/haptex/internal/safefile"
	"github.com/haptex/haptex/internal/safefile/safefiletest"
)

// Every hostile experiment file is refused in little memory with one line
// naming the file and the limit.
func TestHostileExperimentFiles(t *testing.T) {
	safefiletest.Refused(t, safefiletest.TOML(), func(path string) error {
		_, _, err := Load(path)
		return err
	})
}

// Experiment, subject and fabric names share one pattern: nothing that
// leaves the output folder, hides, or holds a NUL passes.
func TestNames(t *testing.T) {
	for _, name := range []string{"..", ".", "a/b", "a\x00b", "-x", "a b", ""} {
		doc := strings.Replace(small, `name = "level-test"`, "name = "+tomlString(name), 1)
		if _, err := Parse([]byte(doc), "bad.toml"); err == nil || !strings.Contains(err.Error(), "name: ") {
			t.Errorf("experiment name %q: %v", name, err)
		}
		doc = strings.Replace(small, `kind = "tactile-level"`, "kind = \"tactile-level\"\nfabric = "+tomlString(name), 1)
		if _, err := Parse([]byte(doc), "bad.toml"); name != "" && (err == nil || !strings.Contains(err.Error(), "stimulus.fabric")) {
			t.Errorf("fabric name %q: %v", name, err)
		}
		e, err := Parse([]byte(small), "exp.toml")
		if err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		_, err = Run(context.Background(), Options{Experiment: e, Source: []byte(small), Subject: name, OutDir: out,
			Observers: []*psych.Observer{observer(t)}, Rig: rig.Config{Scripted: true}})
		if !errors.Is(err, safefile.ErrName) {
			t.Errorf("subject %q: %v", name, err)
		}
		if ents, _ := os.ReadDir(out); len(ents) != 0 {
			t.Errorf("subject %q: the refused run wrote %v", name, ents)
		}
	}
}

// tomlString quotes s for a TOML file, control characters escaped.
func tomlString(s string) string {
	return `"` + strings.ReplaceAll(s, "\x00", `\u0000`) + `"`
}

// No output of an experiment follows a symbolic link planted at its path:
// the experiment's and the subject's folders, and each file in them.
func TestOutputsDoNotFollowLinks(t *testing.T) {
	// Planted where the run reads or creates before its first trial: it
	// stops with an error naming the link.
	for _, rel := range []string{"level-test", "level-test/sim01", "level-test/sim01/trials.csv", "level-test/sim01/state.json"} {
		out := t.TempDir()
		victim := safefiletest.Plant(t, filepath.Join(out, rel), !strings.Contains(rel, "."))
		_, err := run(t, out, nil)
		if !errors.Is(err, safefile.ErrSymlink) || !strings.Contains(err.Error(), filepath.Join(out, rel)) {
			t.Errorf("%s: %v", rel, err)
		}
		safefiletest.Untouched(t, rel, victim)
	}
	// Planted where the run writes whole files: each is replaced by the
	// file, the link's target untouched.
	out := t.TempDir()
	victims := map[string]string{}
	for _, f := range []string{"sidecar.json", "fit.json", "fit-0.png", "fit-0.svg"} {
		victims[f] = safefiletest.Plant(t, filepath.Join(out, "level-test", "sim01", f), false)
	}
	// Three trials are enough for a fit and its plots.
	three := strings.Replace(small, "max_trials = 9", "max_trials = 3", 1)
	if _, err := runFile(t, three, out, nil, rig.Config{Scripted: true}); err != nil {
		t.Fatal(err)
	}
	for f, victim := range victims {
		safefiletest.Replaced(t, filepath.Join(out, "level-test", "sim01", f), victim)
	}
}

// A run that fails before its first trial leaves nothing behind, and what
// an older run left in that state (a trials.csv with its header alone)
// does not stop the next one, even for a changed experiment file.
func TestFailedRunLeavesNothing(t *testing.T) {
	out := t.TempDir()
	e, err := Parse([]byte(small), "exp.toml")
	if err != nil {
		t.Fatal(err)
	}
	e.Stimulus.Fabric = "no-such-fabric"
	_, err = Run(context.Background(), Options{Experiment: e, Source: []byte(small), Subject: "sim01", OutDir: out,
		Observers: []*psych.Observer{observer(t)}, Rig: rig.Config{Scripted: true}})
	if err == nil || !strings.Contains(err.Error(), "stimulus.fabric") || !strings.Contains(err.Error(), "no-such-fabric") {
		t.Errorf("missing fabric: %v", err)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Errorf("a run refused for its fabric wrote %v", ents)
	}

	// Stopped before its first trial, after its files were written.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e.Stimulus.Fabric = ""
	if _, err := Run(ctx, Options{Experiment: e, Source: []byte(small), Subject: "sim01", OutDir: out,
		Observers: []*psych.Observer{observer(t)}, Rig: rig.Config{Scripted: true}}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v", err)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Errorf("a run stopped before its first trial left %v", ents)
	}

	// What the run before this fix left: a header-only trials.csv.
	sub := filepath.Join(out, "level-test", "sim01")
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "trials.csv"), []byte("trial,x\n"), 0o644)
	os.WriteFile(filepath.Join(sub, "state.json"), []byte(`{"format":"haptex-experiment-state","experiment_sha256":"another file","completed":0}`), 0o644)
	stop := errors.New("stopped after the first trial")
	if _, err := run(t, out, func(int) error { return stop }); !errors.Is(err, stop) {
		t.Fatalf("after a run that completed no trial: %v", err)
	}
	if rows := readCSV(t, filepath.Join(sub, "trials.csv")); len(rows) != 1 {
		t.Errorf("%d trials recorded, want 1", len(rows))
	}
}

// A trials.csv with trials but no state.json is never discarded.
func TestTrialsWithoutStateKept(t *testing.T) {
	out := t.TempDir()
	sub := filepath.Join(out, "level-test", "sim01")
	os.MkdirAll(sub, 0o755)
	csv := filepath.Join(sub, "trials.csv")
	os.WriteFile(csv, []byte("trial,x\n1,12\n"), 0o644)
	if _, err := run(t, out, nil); err == nil || !strings.Contains(err.Error(), "1 trials without state.json") {
		t.Errorf("%v", err)
	}
	if b, _ := os.ReadFile(csv); string(b) != "trial,x\n1,12\n" {
		t.Errorf("trials.csv now %q", b)
	}
	if _, err := os.Stat(filepath.Join(sub, "state.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("state.json: %v", err)
	}
}

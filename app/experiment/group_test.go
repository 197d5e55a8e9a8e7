package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/haptex/haptex/internal/safefile"
)

// Subjects' runs ending together write the group's semantic.json one at
// a time, each from every subject's complete trials, so the last write
// misses none of them. A trials.csv whose last line is still being
// written counts its complete rows, and one of other columns is left out
// by name.
func TestSemanticGroupConcurrent(t *testing.T) {
	path, e, out, expDir := semanticReal(t)
	trials := len(e.Set.Fabrics) * e.Set.Repeats
	scales := len(e.Set.Scales)

	// A subject whose run is writing its fourth row, and a subject of
	// an earlier version of the file.
	first := runRatings(path, out, "P00", 1)
	if first.err != nil {
		t.Fatal(first.err)
	}
	rows := strings.SplitAfter(readFile(t, filepath.Join(first.res.Dir, "trials.csv")), "\n")
	torn := strings.Join(rows[:4], "") + rows[4][:len(rows[4])/2]
	for name, data := range map[string]string{"P98-real": torn, "P99-real": "trial,stimulus\n1,denim\n"} {
		if err := os.MkdirAll(filepath.Join(expDir, name), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(expDir, name, "trials.csv"), []byte(data), 0o666); err != nil {
			t.Fatal(err)
		}
	}

	// Hold the experiment's folder as a run writing its analysis does,
	// while three subjects run to their last trial.
	hold := holdFolder(t, expDir)
	done := make(chan ratingRun, 3)
	for i := 1; i <= 3; i++ {
		go func() { done <- runRatings(path, out, fmt.Sprintf("P%02d", i), uint64(i+1)) }()
	}
	for i := 1; i <= 3; i++ {
		waitRows(t, filepath.Join(expDir, fmt.Sprintf("P%02d-real", i), "trials.csv"), trials)
	}
	select {
	case r := <-done:
		t.Fatalf("a run ended (error %v) while another held the experiment's folder", r.err)
	case <-time.After(200 * time.Millisecond):
	}
	hold.Close()
	for range 3 {
		if r := <-done; r.err != nil {
			t.Fatal(r.err)
		}
	}

	sr := readSemantic(t, filepath.Join(expDir, "semantic.json"))
	if want := (4*trials + 3) * scales; sr.Ratings != want {
		t.Errorf("the group's semantic.json holds %d ratings, want %d: four subjects of %d trials and three complete rows of P98, %d scales each", sr.Ratings, want, trials, scales)
	}
	if len(sr.Skipped) != 1 || !strings.Contains(sr.Skipped[0], "P99-real") || !strings.Contains(sr.Skipped[0], "other columns") {
		t.Errorf("skipped %q, want P99-real's other columns", sr.Skipped)
	}
}

type ratingRun struct {
	res *Result
	err error
}

// runRatings rates the real swatches of path for subject with a
// simulated observer.
func runRatings(path, out, subject string, seed uint64) ratingRun {
	e, src, err := Load(path)
	if err != nil {
		return ratingRun{err: err}
	}
	obs, err := ParseSetObserver(fmt.Sprintf("rate:seed=%d", seed))
	if err != nil {
		return ratingRun{err: err}
	}
	res, err := Run(context.Background(), Options{Experiment: e, Source: src, Path: path, Subject: subject, OutDir: out, Out: io.Discard, SetObserver: obs})
	return ratingRun{res, err}
}

// waitRows waits until the trials.csv at path holds n complete rows.
func waitRows(t *testing.T, path string, n int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil && strings.Count(string(b), "\n") == n+1 {
			return
		}
	}
	t.Fatalf("%s: no %d rows within a minute", path, n)
}

// A run that cannot take the experiment's folder within its bound (a
// holder stopped, not killed) fails in one line that says what to do,
// and keeps its trials: the same command, once the folder is free,
// writes the group's analysis without running a trial again.
func TestSemanticGroupHeld(t *testing.T) {
	path, e, out, expDir := semanticReal(t)
	trials := len(e.Set.Fabrics) * e.Set.Repeats
	hold := holdFolder(t, expDir)
	defer func(d time.Duration) { groupLockWait = d }(groupLockWait)
	groupLockWait = 50 * time.Millisecond
	r := runRatings(path, out, "P01", 1)
	if r.err == nil || !strings.Contains(r.err.Error(), "run the same command again") || strings.Contains(r.err.Error(), "\n") {
		t.Fatalf("held throughout: %v, want one line saying what to do", r.err)
	}
	if _, err := os.Stat(filepath.Join(expDir, "semantic.json")); !os.IsNotExist(err) {
		t.Errorf("semantic.json written while another held the folder: %v", err)
	}
	hold.Close()
	r = runRatings(path, out, "P01", 1)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if !r.res.Resumed || r.res.Trials != trials {
		t.Errorf("the second run: resumed %v, %d trials; want the first's %d kept", r.res.Resumed, r.res.Trials, trials)
	}
	sr := readSemantic(t, filepath.Join(expDir, "semantic.json"))
	if want := trials * len(e.Set.Scales); sr.Ratings != want {
		t.Errorf("%d ratings in the group's file, want %d", sr.Ratings, want)
	}
}

// semanticReal is the real swatches' rating example: its path, the
// experiment, and a fresh output folder with the experiment's folder in
// it.
func semanticReal(t *testing.T) (path string, e *Experiment, out, expDir string) {
	t.Helper()
	path = filepath.Join("..", "..", "examples", "evaluation", "semantic-real.toml")
	e, _, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	out = t.TempDir()
	return path, e, out, filepath.Join(out, e.Name)
}

// holdFolder makes the folder dir and holds its lock, as a run writing
// the group's analysis does, until it is closed.
func holdFolder(t *testing.T, dir string) *safefile.Dir {
	t.Helper()
	if err := os.MkdirAll(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	d, err := safefile.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if err := d.Lock(); err != nil {
		t.Fatal(err)
	}
	return d
}

// readSemantic reads a semantic.json.
func readSemantic(t *testing.T, path string) SemanticResult {
	t.Helper()
	var sr SemanticResult
	if err := json.Unmarshal([]byte(readFile(t, path)), &sr); err != nil {
		t.Fatal(err)
	}
	return sr
}

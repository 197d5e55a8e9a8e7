package experiment

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/psych"
)

// TestResumeAfterDiskFull runs the small experiment on a file system of
// its own (a tmpfs, so it needs root) and fills the disk once trial 3 is
// recorded. The run stops at its next write with one line that says the
// disk is full; trials.csv holds at least the three trials; once the
// space is freed the same command resumes and ends with the uninterrupted
// run's trials, each in trials.csv once. With the traces the next write
// is a trace's, without them trials.csv's row or state.json.
func TestResumeAfterDiskFull(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	for _, noTraces := range []bool{false, true} {
		t.Run("no-traces="+strconv.FormatBool(noTraces), func(t *testing.T) { diskFull(t, noTraces) })
	}
}

func diskFull(t *testing.T, noTraces bool) {
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=16m"); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() {
		if unix.Unmount(dir, 0) != nil {
			unix.Unmount(dir, unix.MNT_DETACH) // a file left open by a failed test
		}
	})
	whole, _ := wholeRun(t)
	filler := filepath.Join(dir, "filler")
	_, err := runSmall(t, dir, noTraces, func(n int) error {
		if n == 3 {
			fill(t, filler)
		}
		return nil
	})
	if !errors.Is(err, syscall.ENOSPC) || strings.ContainsAny(err.Error(), "\n\r") {
		t.Fatalf("run on a full disk: %v", err)
	}
	t.Log(err)
	sub := filepath.Join(dir, "level-test", "sim01")
	if b, err := os.ReadFile(filepath.Join(sub, "trials.csv")); err != nil || strings.Count(string(b), "\n") < 4 {
		t.Fatalf("trials.csv on the full disk (%v):\n%s", err, b)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	part, err := runSmall(t, dir, noTraces, nil)
	if err != nil {
		t.Fatalf("resumed once the space was freed: %v", err)
	}
	if !part.Resumed {
		t.Fatal("the run after the full disk did not resume")
	}
	sameTrials(t, whole, part, sub)
}

// fill writes to path until the file system has no byte left.
func fill(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, size := range []int{1 << 16, 1 << 12, 1} {
		buf := make([]byte, size)
		for {
			if _, err := f.Write(buf); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatal(err)
				}
				break
			}
		}
	}
}

// runSmall is run with or without the traces.
func runSmall(t *testing.T, dir string, noTraces bool, after func(int) error) (*Result, error) {
	t.Helper()
	e, err := Parse([]byte(small), "exp.toml")
	if err != nil {
		t.Fatal(err)
	}
	return Run(context.Background(), Options{
		Experiment: e, Source: []byte(small), Path: "exp.toml", Subject: "sim01", OutDir: dir,
		Observers: []*psych.Observer{observer(t)}, AfterTrial: after, Rig: rig.Config{Scripted: true},
		SkipStimulusCheck: true, NoTraces: noTraces,
	})
}

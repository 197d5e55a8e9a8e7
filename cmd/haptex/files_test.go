package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/psych"
	"github.com/haptex/haptex/internal/safefile/safefiletest"
)

// The device calibrations (haptex calib force|kinematics|tactile, which
// all write through writeCal) replace a symbolic link planted at their
// output instead of writing through it.
func TestCalibOutputsDoNotFollowLinks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "calibration", "index-force.json")
	victim := safefiletest.Plant(t, path, false)
	if err := calibTwin(context.Background(), "force", "index", path); err != nil {
		t.Fatal(err)
	}
	safefiletest.Replaced(t, path, victim)
}

// The user calibration (haptex calib threshold) writes its threshold file
// the same way, and refuses a FIFO at that path instead of blocking on it
// when it reads the subject's earlier thresholds.
func TestUserCalibrationDoesNotFollowLinks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "calibration", "s1-thresholds.json")
	victim := safefiletest.Plant(t, path, false)
	tf := psych.NewThresholdFile("s1", time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC))
	if err := writeCal(path, tf.Write); err != nil {
		t.Fatal(err)
	}
	safefiletest.Replaced(t, path, victim)
	if _, err := rig.ReadCalibrationFile(path, psych.ReadThresholdFile); err != nil {
		t.Errorf("reading it back: %v", err)
	}

	fifo := filepath.Join(t.TempDir(), "s2-thresholds.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	err := calibThreshold(context.Background(), thresholdRun{subject: "s2", fingers: []string{"index"}, path: fifo, outDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), fifo+": a FIFO") {
		t.Errorf("threshold file at a FIFO: %v", err)
	}
}

// Every hostile file given as -user or -tactile-cal is refused in little
// memory with one line naming it and the limit.
func TestHostileCalibrationFiles(t *testing.T) {
	safefiletest.Refused(t, safefiletest.JSON(), func(path string) error {
		return (&calFlags{user: path}).apply(&rig.Config{})
	})
	safefiletest.Refused(t, safefiletest.JSON(), func(path string) error {
		return (&calFlags{pins: listFlag{path}}).apply(&rig.Config{})
	})
}

// haptex fabric check FILE refuses every hostile fabric file (it ran out
// of memory on /dev/zero and blocked on a FIFO before).
func TestFabricCheckHostile(t *testing.T) {
	safefiletest.Refused(t, safefiletest.TOML(), func(path string) error {
		return runFabric([]string{"check", path})
	})
}

// experiment check resolves the fabric an experiment names.
func TestExperimentCheckResolvesFabric(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "stiffness-2afc.toml"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "x.toml")
	os.WriteFile(p, []byte(strings.Replace(string(src), `fabric = "wool-suiting"`, `fabric = "no-such-fabric"`, 1)), 0o600)
	err = runExperiment([]string{"check", p, "-library", t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "stimulus.fabric") || !strings.Contains(err.Error(), "no-such-fabric") {
		t.Errorf("%v", err)
	}
}

// A subject that is not a name is refused before it becomes a path.
func TestCalibThresholdSubjectName(t *testing.T) {
	for _, s := range []string{"../../tmp/x", "a\x00b", ".."} {
		if err := runCalib([]string{"threshold", "-subject", s}); err == nil || !strings.Contains(err.Error(), "-subject") {
			t.Errorf("%q: %v", s, err)
		}
	}
}

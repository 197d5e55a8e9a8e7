package rig

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/haptex/haptex/calib/device"
	"github.com/haptex/haptex/calib/psych"
	"github.com/haptex/haptex/sim"
	"github.com/haptex/haptex/tactile"
)

// A subject's thresholds and an array's pin corrections go into the
// tactile calibration of the fingers they name, and both files are named
// in the session record; a finger with a threshold at one frequency only,
// and a second pin file for the same array, are refused.
func TestCalibrationFilesApply(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, w func(*bytes.Buffer) error) string {
		t.Helper()
		var b bytes.Buffer
		if err := w(&b); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	tc, err := device.TwinStand{Finger: "thumb"}.Tactile(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	pins := write("thumb-tactile.json", func(b *bytes.Buffer) error { return tc.Write(b) })
	tf := psych.NewThresholdFile("s1", time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC))
	entries := []psych.ThresholdEntry{
		{Finger: "index", FrequencyHz: 40, ThresholdUm: 8, ThresholdDB: 20 * math.Log10(8), TargetP: 0.79, Trials: 80, Reversals: 14, Method: psych.KindStaircase},
		{Finger: "index", FrequencyHz: 320, ThresholdUm: 0.5, ThresholdDB: 20 * math.Log10(0.5), TargetP: 0.79, Trials: 80, Reversals: 14, Method: psych.KindStaircase},
	}
	for _, e := range entries {
		if err := tf.Set(e); err != nil {
			t.Fatal(err)
		}
	}
	user := write("s1-thresholds.json", func(b *bytes.Buffer) error { return tf.Write(b) })

	var cfg Config
	if err := (CalibrationFiles{}).Apply(&cfg); err != nil || cfg.TactileCal != ([sim.NumFingers]*tactile.Calibration{}) {
		t.Errorf("no files: %v, %v", cfg.TactileCal, err)
	}
	c := CalibrationFiles{User: user, Pins: []string{pins}}
	if err := c.Apply(&cfg); err != nil {
		t.Fatal(err)
	}
	if len(cfg.Calibrations) != 2 || cfg.Calibrations[0].Path != user || cfg.Calibrations[1].Path != pins ||
		cfg.Calibrations[0].Kind != "thresholds" || cfg.Calibrations[1].Kind != "tactile" || !sameHash(t, pins, cfg.Calibrations[1].SHA256) {
		t.Errorf("calibrations named: %v", cfg.Calibrations)
	}
	ref := tactile.ReferenceChannels()
	idx, th := cfg.TactileCal[sim.IndexFinger], cfg.TactileCal[sim.Thumb]
	if d := idx.Channels.Drive; math.Abs(d.NP40-20*math.Log10(8)) > 1e-9 || math.Abs(d.P320-20*math.Log10(0.5)) > 1e-9 {
		t.Errorf("index drive thresholds %+v", d)
	}
	if th.Channels.Drive != ref.Drive {
		t.Errorf("thumb has no thresholds in the file but its drive changed: %+v", th.Channels.Drive)
	}
	if th.Pin40DB != tc.Pin40DB || th.Pin320DB != tc.Pin320DB || idx.Pin40DB != ([tactile.Pins]float64{}) {
		t.Errorf("pin corrections not on the thumb alone")
	}

	c.Pins = append(c.Pins, pins)
	if err := c.Apply(&Config{}); err == nil || !strings.Contains(err.Error(), "second thumb") {
		t.Errorf("two thumb array files: %v", err)
	}
	one := psych.NewThresholdFile("s1", time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC))
	if err := one.Set(entries[0]); err != nil {
		t.Fatal(err)
	}
	half := write("s1-40hz.json", func(b *bytes.Buffer) error { return one.Write(b) })
	if err := (CalibrationFiles{User: half}).Apply(&Config{}); err == nil || !strings.Contains(err.Error(), "one frequency only") {
		t.Errorf("a threshold at 40 Hz only: %v", err)
	}
}

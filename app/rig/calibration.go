package rig

import (
	"bytes"
	"fmt"
	"io"

	"github.com/haptex/haptex/calib/device"
	"github.com/haptex/haptex/calib/psych"
	"github.com/haptex/haptex/internal/safefile"
	"github.com/haptex/haptex/sim"
	"github.com/haptex/haptex/tactile"
)

// CalibrationFiles are the calibration files a session applies to the
// tactile rendering: a subject's detection thresholds (psych.ThresholdFile,
// from haptex calib threshold) and the arrays' per-pin corrections
// (device.TactileCalibration, from haptex calib tactile).
type CalibrationFiles struct {
	User string   // the subject's threshold file; "" for none
	Pins []string // per-pin calibration files, at most one per finger
}

// Apply loads the files into cfg.TactileCal and names them in
// cfg.Calibrations; with no files it leaves cfg alone. Each finger starts
// from tactile.DefaultCalibration. A finger with thresholds in the user's
// file gets channels made personal from its 40 and 320 Hz thresholds
// (ChannelModel.WithUserThresholds), and needs both; a finger without
// keeps the reference channels. A pin file corrects the pins of the
// finger it names; a second file for the same finger is an error.
func (c CalibrationFiles) Apply(cfg *Config) error {
	if c.User == "" && len(c.Pins) == 0 {
		return nil
	}
	var cal [sim.NumFingers]tactile.Calibration
	for f := range cal {
		cal[f] = tactile.DefaultCalibration()
	}
	if c.User != "" {
		tf, err := ReadCalibrationFile(c.User, psych.ReadThresholdFile)
		if err != nil {
			return err
		}
		for f := range sim.NumFingers {
			name := sim.FingerName(f)
			e40, ok40 := tf.Lookup(name, 40)
			e320, ok320 := tf.Lookup(name, 320)
			if !ok40 && !ok320 {
				continue
			}
			if !ok40 || !ok320 {
				return fmt.Errorf("%s: the %s finger has a threshold at one frequency only; measure both (haptex calib threshold)", c.User, name)
			}
			ch, err := cal[f].Channels.WithUserThresholds(e40.ThresholdDB, e320.ThresholdDB)
			if err != nil {
				return fmt.Errorf("%s: %s: %w", c.User, name, err)
			}
			cal[f].Channels = ch
		}
		cfg.Calibrations = append(cfg.Calibrations, c.User)
	}
	var seen [sim.NumFingers]string
	for _, p := range c.Pins {
		tc, err := ReadCalibrationFile(p, device.ReadTactileCalibration)
		if err != nil {
			return err
		}
		f := sim.FingerByName(tc.Finger)
		if f < 0 {
			return fmt.Errorf("%s: finger %q, want thumb or index", p, tc.Finger)
		}
		if seen[f] != "" {
			return fmt.Errorf("%s: a second %s array calibration (first: %s)", p, tc.Finger, seen[f])
		}
		seen[f] = p
		cal[f].Pin40DB, cal[f].Pin320DB = tc.Pin40DB, tc.Pin320DB
		cfg.Calibrations = append(cfg.Calibrations, p)
	}
	for f := range cal {
		cfg.TactileCal[f] = &cal[f]
	}
	return nil
}

// MaxCalibrationFile bounds a calibration file (a threshold file or a
// per-pin calibration: a few kilobytes of JSON).
const MaxCalibrationFile = 1 << 20

// ReadCalibrationFile reads the calibration file path, a regular file of
// at most MaxCalibrationFile bytes within safefile.DefaultJSON's structure
// limits, and decodes it with read, naming the file in errors.
func ReadCalibrationFile[T any](path string, read func(io.Reader) (T, error)) (T, error) {
	var zero T
	data, err := safefile.ReadJSON(path, MaxCalibrationFile, safefile.JSONLimits{})
	if err != nil {
		return zero, err
	}
	v, err := read(bytes.NewReader(data))
	if err != nil {
		return zero, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

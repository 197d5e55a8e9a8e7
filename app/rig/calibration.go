package rig

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/haptex/haptex/calib/device"
	"github.com/haptex/haptex/calib/psych"
	"github.com/haptex/haptex/internal/safefile"
	"github.com/haptex/haptex/sim"
	"github.com/haptex/haptex/tactile"
)

// CalibrationFile is a calibration file a session applied, as its record
// names it: the path given, what kind of file it is, and the SHA-256 of
// the bytes read, so that a later reader can tell whether the file at
// that path is still the one used.
type CalibrationFile struct {
	Path string `json:"path"`
	// Kind is "thresholds" (a subject's), "tactile" (an array's pins),
	// "force" or "kinematics" (an exoskeleton's, named in the devices
	// file), or "devices" (the devices file itself).
	Kind   string `json:"kind"`
	SHA256 string `json:"sha256"`
	// Finger and Device name the exoskeleton a force or kinematics
	// calibration is of, and the device it was made on ("model serial").
	Finger string `json:"finger,omitempty"`
	Device string `json:"device,omitempty"`
}

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
		tf, rec, err := readCalibration(c.User, "thresholds", psych.ReadThresholdFile)
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
		cfg.Calibrations = append(cfg.Calibrations, rec)
	}
	var seen [sim.NumFingers]string
	for _, p := range c.Pins {
		tc, rec, err := readCalibration(p, "tactile", device.ReadTactileCalibration)
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
		cfg.Calibrations = append(cfg.Calibrations, rec)
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
	v, _, err := readCalibration(path, "", read)
	return v, err
}

// readCalibration reads path as ReadCalibrationFile does and returns its
// record with the hash of the bytes decoded.
func readCalibration[T any](path, kind string, read func(io.Reader) (T, error)) (T, CalibrationFile, error) {
	var zero T
	b, err := safefile.ReadJSON(path, MaxCalibrationFile, safefile.JSONLimits{})
	if err != nil {
		return zero, CalibrationFile{}, err
	}
	v, err := read(bytes.NewReader(b))
	if err != nil {
		return zero, CalibrationFile{}, fmt.Errorf("%s: %w", path, err)
	}
	sum := sha256.Sum256(b)
	return v, CalibrationFile{Path: path, Kind: kind, SHA256: hex.EncodeToString(sum[:])}, nil
}

package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/device"
	"github.com/haptex/haptex/calib/psych"
	"github.com/haptex/haptex/sim"
	"github.com/haptex/haptex/tactile"
)

// calFlags are the calibration files a session applies: a user's tactile
// thresholds (haptex calib threshold) and per-pin array corrections
// (haptex calib tactile).
type calFlags struct {
	user string
	pins listFlag
}

func (c *calFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.user, "user", "", "the subject's tactile threshold file (haptex calib threshold); renders each channel above their own thresholds")
	fs.Var(&c.pins, "tactile-cal", "a tactile array's per-pin calibration file (haptex calib tactile); repeat for each finger")
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// apply loads the files into cfg's tactile calibration and names them in
// the session record.
func (c *calFlags) apply(cfg *rig.Config) error {
	if c.user == "" && len(c.pins) == 0 {
		return nil
	}
	var cal [sim.NumFingers]tactile.Calibration
	for f := range cal {
		cal[f] = tactile.DefaultCalibration()
	}
	if c.user != "" {
		tf, err := readFile(c.user, psych.ReadThresholdFile)
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
				return fmt.Errorf("%s: the %s finger has a threshold at one frequency only; measure both (haptex calib threshold)", c.user, name)
			}
			ch, err := cal[f].Channels.WithUserThresholds(e40.ThresholdDB, e320.ThresholdDB)
			if err != nil {
				return fmt.Errorf("%s: %s: %w", c.user, name, err)
			}
			cal[f].Channels = ch
		}
		cfg.Calibrations = append(cfg.Calibrations, c.user)
	}
	var seen [sim.NumFingers]string
	for _, p := range c.pins {
		tc, err := readFile(p, device.ReadTactileCalibration)
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

// readFile opens path and decodes it with read, naming the file in errors.
func readFile[T any](path string, read func(io.Reader) (T, error)) (T, error) {
	f, err := os.Open(path)
	if err != nil {
		var zero T
		return zero, err
	}
	defer f.Close()
	v, err := read(f)
	if err != nil {
		return v, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

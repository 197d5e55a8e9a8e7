package main

import (
	"flag"
	"strings"

	"github.com/haptex/haptex/app/rig"
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
	return rig.CalibrationFiles{User: c.user, Pins: c.pins}.Apply(cfg)
}

package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/kes"
	"github.com/haptex/haptex/calib/psych"
	"github.com/haptex/haptex/devices/setup"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/sim"
)

// ThresholdCalibration measures a subject's vibrotactile detection
// thresholds at 40 and 320 Hz on each finger's array: one run per finger
// of an interleaved pair of adaptive tracks (2AFC), the finger at rest on
// the fabric.
type ThresholdCalibration struct {
	Subject string
	Fingers []string   // "thumb", "index", in the order they are measured
	Method  psych.Kind // both tracks' procedure: staircase or quest
	// Observers, when set, returns the simulated observers that answer one
	// finger's run, for the run's task; the rig then runs in virtual time.
	// Without observers a person answers on In and reads prompts on Out.
	Observers func(task psych.Task) ([]*psych.Observer, error)
	OutDir    string // parent folder of the trial records (Options.OutDir)
	Library   kes.Library
	In        io.Reader
	Out       io.Writer
	Rig       rig.Config // the base rig configuration (Options.Rig)
	// Measured, when set, is told each threshold once its finger's run
	// has ended.
	Measured func(psych.ThresholdEntry)
	// AfterTrial, when set, is Options.AfterTrial of each finger's run,
	// told which experiment (finger) the trial belongs to.
	AfterTrial func(e *Experiment, completed int) error
}

// Run measures the thresholds and sets them in tf, replacing its entries of
// the same finger and frequency and keeping the others.
func (c ThresholdCalibration) Run(ctx context.Context, tf *psych.ThresholdFile) error {
	limits, err := c.arrayLimits()
	if err != nil {
		return err
	}
	for _, finger := range c.Fingers {
		f := sim.FingerByName(finger)
		if f < 0 {
			return fmt.Errorf("threshold: finger %q, want thumb or index", finger)
		}
		e, err := thresholdExperiment(finger, c.Method, limits[f])
		if err != nil {
			return err
		}
		src, err := json.Marshal(e)
		if err != nil {
			return err
		}
		// The tone's delivery is the arrays' calibration's business
		// (haptex calib tactile); no stimulus check.
		opt := Options{Experiment: e, Source: src, Path: "(haptex calib threshold)", Subject: c.Subject,
			OutDir: c.OutDir, Library: c.Library, In: c.In, Out: c.Out, Rig: c.Rig, SkipStimulusCheck: true}
		if c.AfterTrial != nil {
			opt.AfterTrial = func(n int) error { return c.AfterTrial(e, n) }
		}
		if c.Observers != nil {
			if opt.Observers, err = c.Observers(e.Task); err != nil {
				return err
			}
		}
		res, err := Run(ctx, opt)
		if err != nil {
			return err
		}
		il, ok := res.Procedure.(*psych.Interleaved)
		if !ok || len(il.Tracks()) != 2 {
			return fmt.Errorf("threshold: the procedure is not the interleaved 40/320 Hz pair")
		}
		for i, hz := range []float64{40, 320} {
			en, err := psych.NewThresholdEntry(finger, hz, il.Tracks()[i])
			if err != nil {
				return err
			}
			if err := tf.Set(en); err != nil {
				return err
			}
			if c.Measured != nil {
				c.Measured(en)
			}
		}
	}
	return nil
}

// arrayLimits returns each finger's array's amplitude limits at 40 and
// 320 Hz [µm peak] from its capability record: the arrays of c.Rig, those
// its OpenDevices opens (opened and closed here: the limits are known
// once a device has sent its capabilities), or the simulated array's.
func (c ThresholdCalibration) arrayLimits() ([sim.NumFingers][2]float64, error) {
	var limits [sim.NumFingers][2]float64
	p := twin.DefaultTactileParams()
	for f := range limits {
		limits[f] = [2]float64{p.MaxA40Um, p.MaxA320Um}
	}
	var set *setup.Set
	if c.Rig.OpenDevices != nil {
		var err error
		if set, err = c.Rig.OpenDevices(nil); err != nil {
			return limits, err
		}
		defer set.Close()
	}
	for f := range limits {
		a := c.Rig.Tactile[f]
		if a == nil && set != nil {
			a = set.Tactile[f]
		}
		if a != nil {
			s := a.Spec()
			limits[f] = [2]float64{s.MaxA40Um, s.MaxA320Um}
		}
	}
	return limits, nil
}

// thresholdExperiment is one finger's threshold run: a tone at 40 and
// 320 Hz, each track capped at the drive limit of the finger's array
// (limit, µm peak at 40 and 320 Hz), on a coarse cloth (16 nodes a side)
// since the finger only rests on it.
func thresholdExperiment(finger string, method psych.Kind, limit [2]float64) (*Experiment, error) {
	sess, err := psych.TactileThresholdSession(
		psych.TactileThresholdSpec{FrequencyHz: 40, MaxUm: limit[0], Method: method},
		psych.TactileThresholdSpec{FrequencyHz: 320, MaxUm: limit[1], Method: method}, 1)
	if err != nil {
		return nil, err
	}
	e := &Experiment{
		Format: FormatVersion, Name: "tactile-threshold-" + finger,
		Title:        "Vibration detection thresholds at 40 and 320 Hz, " + finger,
		Instructions: "Rest your " + finger + " on the fabric. One of the two intervals holds a faint vibration; answer 1 or 2.",
		Stimulus:     Stimulus{Kind: TactileTone, FrequencyHz: []float64{40, 320}, Finger: finger},
		Timing:       Timing{Motion: "rest"},
		Procedure:    sess, Side: 16,
	}
	if err := e.Validate(); err != nil {
		return nil, err
	}
	return e, nil
}

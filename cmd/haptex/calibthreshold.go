package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/haptex/haptex/app/experiment"
	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/kes"
	"github.com/haptex/haptex/calib/psych"
)

type thresholdRun struct {
	subject   string
	fingers   []string
	observers []string
	method    psych.Kind
	priority  int
	outDir    string
	path      string
	// rig holds the devices (-devices) the runs use.
	rig rig.Config
}

// rigConfig is the runs' rig: tr.rig (its devices) with the priority.
func (tr thresholdRun) rigConfig() rig.Config {
	c := tr.rig
	c.Priority, c.NormalPriority, c.Logf = tr.priority, tr.priority <= 0, stderrf
	return c
}

// calibThreshold measures a subject's detection thresholds at 40 and
// 320 Hz on each finger's array with the experiment runner, and writes
// them into the subject's threshold file, keeping entries of other
// fingers already there.
func calibThreshold(ctx context.Context, tr thresholdRun) error {
	tf := psych.NewThresholdFile(tr.subject, time.Now().UTC())
	if old, err := rig.ReadCalibrationFile(tr.path, psych.ReadThresholdFile); err == nil {
		tf = old
		tf.Created = time.Now().UTC()
	} else if !os.IsNotExist(err) {
		return err
	}
	var prog *progress
	c := experiment.ThresholdCalibration{Subject: tr.subject, Fingers: tr.fingers, Method: tr.method,
		OutDir: tr.outDir, Library: kes.Library{}, In: os.Stdin,
		Rig: tr.rigConfig(),
		Measured: func(en psych.ThresholdEntry) {
			fmt.Printf("%s %3.0f Hz: written to the file: %.3g µm (%.1f dB re 1 µm; the %s's estimate, SD %.1f dB, %d trials)\n",
				en.Finger, en.FrequencyHz, en.ThresholdUm, en.ThresholdDB, en.Method, en.SDDB, en.Trials)
		},
		AfterTrial: func(e *experiment.Experiment, n int) error {
			if prog == nil || prog.label != e.Name {
				if prog != nil {
					prog.done()
				}
				prog = newProgress(os.Stderr, e.Name, maxTrials(e.Procedure))
				if len(tr.observers) == 0 {
					prog.tty, prog.every = false, 1
				}
			}
			prog.update(n)
			return nil
		}}
	c.Out = writerFunc(func(b []byte) (int, error) {
		if prog != nil {
			prog.done()
		}
		return os.Stdout.Write(b)
	})
	fmt.Println("Each finger's run ends with its psychometric fit (for comparison) and the")
	fmt.Println("procedure's own estimate, which is what the threshold file gets.")
	if len(tr.observers) > 0 {
		c.Observers = func(task psych.Task) ([]*psych.Observer, error) {
			var obs []*psych.Observer
			for _, s := range tr.observers {
				o, err := psych.ParseObserver(s, task)
				if err != nil {
					return nil, fmt.Errorf("%w: -observer: %v", errUsage, err)
				}
				obs = append(obs, o)
			}
			return obs, nil
		}
	}
	err := c.Run(ctx, tf)
	if prog != nil {
		prog.done()
	}
	if err != nil {
		return err
	}
	if err := writeCal(tr.path, tf.Write); err != nil {
		return err
	}
	fmt.Printf("wrote %s; apply it with haptex run -user %s\n", tr.path, tr.path)
	return nil
}

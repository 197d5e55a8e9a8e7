package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/haptex/haptex/calib/device"
	"github.com/haptex/haptex/calib/psych"
	"github.com/haptex/haptex/devices/setup"
	"github.com/haptex/haptex/internal/safefile"
)

func init() {
	register(&command{name: "calib", summary: "calibrate: force | kinematics | tactile (devices), threshold (a subject's 40/320 Hz thresholds)", run: runCalib,
		subs: []subcommand{
			{"force", "", "fit a fingertip force sensor's gain and bias from known loads"},
			{"kinematics", "", "fit an exoskeleton's encoder zeros and link lengths from poses at jig points"},
			{"tactile", "", "fit each pin's gain from vibrometer readings"},
			{"threshold", "", "measure a subject's 40 and 320 Hz detection thresholds per finger"},
		}})
}

const calibUsage = `usage: haptex calib force|kinematics|tactile [-finger F] [-devices FILE] [-o FILE]
       haptex calib threshold -subject ID [-finger F] [-devices FILE] [-observer SPEC] [-o FILE]`

func runCalib(args []string) error {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, calibUsage)
		return fmt.Errorf("%w: which calibration?", errUsage)
	}
	what := args[0]
	fs := subFlags("calib", args)
	finger := fs.String("finger", "index", "finger whose devices are calibrated: thumb, index or both")
	outPath := fs.String("o", "", "calibration file to write (default: calibration/<subject or finger>-<kind>.json, which -finger both always uses)")
	devFile := fs.String("devices", "", "devices file (haptex devices check FILE): calibrate its devices instead of the simulated twin; an emulated device's stand (haptex devices emulate) carries out the steps, at a real one the operator does")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch what {
	case "force", "kinematics", "tactile":
		samples := fs.Int("samples", 0, "-devices: device samples averaged per reading (0: 100 for force, 20 for kinematics)")
		settle := fs.Duration("settle", 0, "-devices: force: how long to wait after a load is hung before reading (0: 500ms, for a swinging mass to come to rest); tactile: how long each pin is driven before the vibrometer reads (0: 50ms)")
		if err := parse(fs, args[1:], 0); err != nil {
			return err
		}
		fingers, err := fingerList(*finger)
		if err != nil {
			return err
		}
		if len(fingers) > 1 && *outPath != "" {
			return fmt.Errorf("%w: -o names one file; with -finger both each finger's goes to calibration/<finger>-%s.json", errUsage, what)
		}
		if *samples < 0 || *settle < 0 {
			return fmt.Errorf("%w: -samples and -settle cannot be negative", errUsage)
		}
		var file *setup.File
		if *devFile != "" {
			if file, err = setup.Load(*devFile); err != nil {
				return err
			}
		}
		in := bufio.NewReader(os.Stdin)
		for _, fg := range fingers {
			path := *outPath
			if path == "" {
				path = filepath.Join("calibration", fg+"-"+what+".json")
			}
			if file == nil {
				err = calibTwin(ctx, what, fg, path)
			} else {
				err = calibDevice{what: what, finger: fg, path: path, file: file, samples: *samples, settle: *settle, in: in, out: os.Stdout}.run(ctx)
			}
			if err != nil {
				return err
			}
		}
		return nil
	case "threshold":
		subject := fs.String("subject", "", "participant identifier; required")
		var observers listFlag
		fs.Var(&observers, "observer", "a simulated observer answers (virtual time): sim:form=weibull,threshold=UM,beta=B,seed=S; repeat for 40 Hz then 320 Hz")
		method := fs.String("method", "staircase", "staircase (1-up/3-down, about 80 trials per frequency) or quest (about 40)")
		prio := fs.Int("priority", 80, "SCHED_FIFO priority of the 1 kHz thread (0: normal scheduling)")
		out := fs.String("out", "experiments", "parent folder of the trial records")
		if err := parse(fs, args[1:], 0); err != nil {
			return err
		}
		if *subject == "" {
			return fmt.Errorf("%w: -subject ID is required", errUsage)
		}
		// The subject names the default threshold file and the trial
		// records' folder.
		if err := safefile.CheckName("-subject", *subject); err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		fingers, err := fingerList(*finger)
		if err != nil {
			return err
		}
		if *outPath == "" {
			*outPath = filepath.Join("calibration", *subject+"-thresholds.json")
		}
		tr := thresholdRun{subject: *subject, fingers: fingers, observers: observers,
			method: psych.Kind(*method), priority: *prio, outDir: *out, path: *outPath}
		if *devFile != "" {
			set, err := openDevices(&tr.rig, *devFile, false)
			if err != nil {
				return err
			}
			defer set.close()
		}
		return calibThreshold(ctx, tr)
	}
	fmt.Fprintln(os.Stderr, calibUsage)
	return fmt.Errorf("%w: unknown calibration %q", errUsage, what)
}

// writeCal writes a calibration file, creating its folder: whole or not
// at all, replacing a symbolic link at path rather than writing through it
// (safefile.WriteFile).
func writeCal(path string, write func(io.Writer) error) error {
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), safefile.DirMode); err != nil {
		return err
	}
	return safefile.WriteFile(path, b.Bytes())
}

// calibTwin calibrates the simulated twin of one finger's device on a
// virtual clock, on its calibration stand.
func calibTwin(ctx context.Context, what, finger, path string) error {
	stand := device.TwinStand{Finger: finger}
	switch what {
	case "force":
		stand.Announce = func(st device.Step) {
			fmt.Printf("[%d/%d] %s (the stand does it)\n", st.Index+1, st.Total, st.Instruction)
		}
		c, err := stand.Force(ctx)
		if err != nil {
			return err
		}
		if err := writeCal(path, c.Write); err != nil {
			return err
		}
		gain, bias := device.TwinSensorError()
		for i, ax := range []string{"x", "y", "z"} {
			fmt.Printf("axis %s: gain %.4f (true %.4f, %+.2f %%), bias %+.4f N (true %+.4f N, %+.2f %%), residual RMS %.4f N\n", ax,
				c.Gain[i][i], gain[i], 100*(c.Gain[i][i]/gain[i]-1),
				c.Bias[i], bias[i], 100*(c.Bias[i]/bias[i]-1), c.Report.ResidualRMSN[i])
		}
	case "kinematics":
		stand.Announce = func(st device.Step) {
			fmt.Printf("[%d/%d] %s (the jig does it)\n", st.Index+1, st.Total, st.Instruction)
		}
		c, err := stand.Kinematics(ctx)
		if err != nil {
			return err
		}
		if err := writeCal(path, c.Write); err != nil {
			return err
		}
		fmt.Printf("pad position error at the jig points: RMS %.0f µm with the nominal kinematics, %.2f µm calibrated (%d poses)\n",
			c.Report.NominalRMSUm, c.Report.ResidualRMSUm, c.Report.Poses)
	case "tactile":
		c, err := stand.Tactile(ctx)
		if err != nil {
			return err
		}
		if err := writeCal(path, c.Write); err != nil {
			return err
		}
		worst := 0.0
		for p := range c.Report.Gain40DB {
			worst = max(worst, math.Abs(c.Report.Gain40DB[p]), math.Abs(c.Report.Gain320DB[p]))
		}
		fmt.Printf("pins: largest gain error %.2f dB before, %.3f dB after correction\n", worst, c.Report.VerifyMaxDB)
	}
	fmt.Printf("wrote %s\n", path)
	return nil
}

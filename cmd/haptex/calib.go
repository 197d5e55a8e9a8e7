package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/haptex/haptex/app/experiment"
	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/device"
	"github.com/haptex/haptex/calib/kes"
	"github.com/haptex/haptex/calib/psych"
	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/internal/sessionlog"
	"github.com/haptex/haptex/internal/vec3"
	"github.com/haptex/haptex/sim"
)

func init() {
	register(&command{name: "calib", summary: "calibrate: force | kinematics | tactile (devices), threshold (a subject's 40/320 Hz thresholds)", run: runCalib})
}

const calibUsage = `usage: haptex calib force|kinematics|tactile -finger F [-o FILE]   (the simulated twin)
       haptex calib threshold -subject ID [-finger F] [-observer SPEC] [-o FILE]`

func runCalib(args []string) error {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, calibUsage)
		return fmt.Errorf("%w: which calibration?", errUsage)
	}
	what := args[0]
	fs := newFlags("calib "+what, "calib "+what+" [flags]")
	finger := fs.String("finger", "index", "finger whose devices are calibrated: thumb or index (threshold: also both)")
	outPath := fs.String("o", "", "calibration file to write (default: calibration/<subject or finger>-<kind>.json)")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch what {
	case "force", "kinematics", "tactile":
		if err := parse(fs, args[1:], 0); err != nil {
			return err
		}
		if sim.FingerByName(*finger) < 0 {
			return fmt.Errorf("%w: -finger %q, want thumb or index", errUsage, *finger)
		}
		if *outPath == "" {
			*outPath = filepath.Join("calibration", *finger+"-"+what+".json")
		}
		return calibTwin(ctx, what, *finger, *outPath)
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
		fingers := []string{*finger}
		if *finger == "both" {
			fingers = []string{"thumb", "index"}
		} else if sim.FingerByName(*finger) < 0 {
			return fmt.Errorf("%w: -finger %q, want thumb, index or both", errUsage, *finger)
		}
		if *outPath == "" {
			*outPath = filepath.Join("calibration", *subject+"-thresholds.json")
		}
		return calibThreshold(ctx, thresholdRun{subject: *subject, fingers: fingers, observers: observers,
			method: psych.Kind(*method), priority: rtPriority(*prio), outDir: *out, path: *outPath})
	}
	fmt.Fprintln(os.Stderr, calibUsage)
	return fmt.Errorf("%w: unknown calibration %q", errUsage, what)
}

// writeCal writes a calibration file atomically, creating its folder.
func writeCal(path string, write func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return err
	}
	return sessionlog.WriteFileAtomic(path, b.Bytes())
}

// The simulated twin's known errors, which its calibration must recover:
// a force sensor 3 % to 4 % off in gain with tens of millinewtons of bias,
// and kinematics with encoder zeros a few degrees and links a few tenths
// of a millimetre off nominal.
var (
	twinSensorGain = [3]float64{1.03, 0.96, 1.02}
	twinSensorBias = [3]float64{0.05, -0.04, 0.03}
)

func twinKinematics() exo.Params {
	const deg = math.Pi / 180
	p := exo.DefaultParams()
	p.Links[0].Offset += 2.5 * deg
	p.Links[1].Offset -= 1.8 * deg
	p.Links[2].Offset += 3.1 * deg
	p.Links[1].A += 0.5e-3
	p.Links[2].A -= 0.45e-3
	return p
}

// calibTwin calibrates the simulated twin of one finger's device on a
// virtual clock, with the automatic operator of its calibration stand.
func calibTwin(ctx context.Context, what, finger, path string) error {
	f := sim.FingerByName(finger)
	base := twin.DefaultBase(f)
	switch what {
	case "force":
		p := twin.DefaultExoParams()
		p.Sensor.Gain, p.Sensor.Bias = twinSensorGain, twinSensorBias
		kin, err := exo.New(p.Kinematics)
		if err != nil {
			return err
		}
		q := p.Kinematics.Home
		var k exo.Kin
		kin.Eval(&k, q)
		dev, err := twin.NewExo(p, base, fixedIntent(base.Point(kin.Forward(q))), f)
		if err != nil {
			return err
		}
		dev.Clamp(true)
		plan, err := device.LoadPlan([]float64{0.05, 0.1, 0.2})
		if err != nil {
			return err
		}
		clock := device.NewVirtualClock(dev)
		s := device.Session{Finger: finger, Clock: clock, Samples: 200, Prompt: func(st device.Step) error {
			fmt.Printf("[%d/%d] %s (the stand does it)\n", st.Index+1, st.Total, st.Instruction)
			dev.SetPadLoad(vec3.Scale(-1, base.Vec(k.R.MulVec(plan[st.Index].LoadN))))
			return nil
		}}
		c, err := device.RunForce(ctx, dev, s, plan, device.PerAxis)
		if err != nil {
			return err
		}
		if err := writeCal(path, c.Write); err != nil {
			return err
		}
		for i, ax := range []string{"x", "y", "z"} {
			fmt.Printf("axis %s: gain %.4f (true %.4f, %+.2f %%), bias %+.4f N (true %+.4f N, %+.2f %%), residual RMS %.4f N\n", ax,
				c.Gain[i][i], twinSensorGain[i], 100*(c.Gain[i][i]/twinSensorGain[i]-1),
				c.Bias[i], twinSensorBias[i], 100*(c.Bias[i]/twinSensorBias[i]-1), c.Report.ResidualRMSN[i])
		}
	case "kinematics":
		p := twin.DefaultExoParams()
		p.Kinematics = twinKinematics()
		// The jig's locating cone holds the pad (see device.Jig).
		p.Finger = twin.FingerParams{Mass: 0.1, Stiffness: 2e6, Damping: 800}
		p.Pulp = twin.PulpParams{Stiffness: 2e6, Damping: 500}
		p.Substeps = 50
		nominal := exo.DefaultParams()
		nom, err := exo.New(nominal)
		if err != nil {
			return err
		}
		jig := device.NewJig(base, nom.Forward(nominal.Home))
		dev, err := twin.NewExo(p, base, jig, f)
		if err != nil {
			return err
		}
		plan, err := device.PlanPoses(nominal, device.DefaultKinParams(), 15)
		if err != nil {
			return err
		}
		clock := device.NewVirtualClock(dev)
		op := jig.Operator(clock, plan.Points, 200*time.Millisecond, 40*time.Millisecond)
		s := device.Session{Finger: finger, Clock: clock, Samples: 20, Prompt: func(st device.Step) error {
			fmt.Printf("[%d/%d] %s (the jig does it)\n", st.Index+1, st.Total, st.Instruction)
			return op(st)
		}}
		c, err := device.RunKinematics(ctx, dev, s, nominal, plan)
		if err != nil {
			return err
		}
		if err := writeCal(path, c.Write); err != nil {
			return err
		}
		fmt.Printf("pad position error at the jig points: RMS %.0f µm with the nominal kinematics, %.2f µm calibrated (%d poses)\n",
			c.Report.NominalRMSUm, c.Report.ResidualRMSUm, c.Report.Poses)
	case "tactile":
		arr, err := twin.NewTactile(twin.DefaultTactileParams(), f)
		if err != nil {
			return err
		}
		clock := device.NewVirtualClock(arr)
		s := device.Session{Finger: finger, Clock: clock, Prompt: func(device.Step) error { return nil }}
		c, err := device.RunTactile(ctx, arr, device.DeliveredVibrometer{Array: arr}, s, device.DefaultTactilePlan(arr.Spec()))
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

type fixedIntent [3]float64

func (p fixedIntent) At(time.Duration, int) (pos, vel [3]float64) { return p, [3]float64{} }

type thresholdRun struct {
	subject   string
	fingers   []string
	observers []string
	method    psych.Kind
	priority  int
	outDir    string
	path      string
}

// calibThreshold measures a subject's detection thresholds at 40 and
// 320 Hz on each finger's array (an interleaved pair of adaptive tracks,
// 2AFC, the fingers at rest on the fabric) with the experiment runner, and
// writes them into the subject's threshold file, keeping entries of other
// fingers already there.
func calibThreshold(ctx context.Context, tr thresholdRun) error {
	tf := psych.NewThresholdFile(tr.subject, time.Now().UTC())
	if old, err := readFile(tr.path, psych.ReadThresholdFile); err == nil {
		tf = old
		tf.Created = time.Now().UTC()
	} else if !os.IsNotExist(err) {
		return err
	}
	spec := twin.DefaultTactileParams()
	for _, finger := range tr.fingers {
		sess, err := psych.TactileThresholdSession(
			psych.TactileThresholdSpec{FrequencyHz: 40, MaxUm: spec.MaxA40Um, Method: tr.method},
			psych.TactileThresholdSpec{FrequencyHz: 320, MaxUm: spec.MaxA320Um, Method: tr.method}, 1)
		if err != nil {
			return err
		}
		e := &experiment.Experiment{
			Format: experiment.FormatVersion, Name: "tactile-threshold-" + finger,
			Title:        "Vibration detection thresholds at 40 and 320 Hz, " + finger,
			Instructions: "Rest your " + finger + " on the fabric. One of the two intervals holds a faint vibration; answer 1 or 2.",
			Stimulus:     experiment.Stimulus{Kind: experiment.TactileTone, FrequencyHz: []float64{40, 320}, Finger: finger},
			Timing:       experiment.Timing{Motion: "rest"},
			Procedure:    sess, Side: 16,
		}
		if err := e.Validate(); err != nil {
			return err
		}
		src, err := json.Marshal(e)
		if err != nil {
			return err
		}
		opt := experiment.Options{Experiment: e, Source: src, Path: "(haptex calib threshold)", Subject: tr.subject,
			OutDir: tr.outDir, Library: kes.Library{}, In: os.Stdin, Out: os.Stdout,
			Rig: rig.Config{Priority: tr.priority, Logf: stderrf}}
		for _, s := range tr.observers {
			o, err := psych.ParseObserver(s, e.Task)
			if err != nil {
				return fmt.Errorf("%w: -observer: %v", errUsage, err)
			}
			opt.Observers = append(opt.Observers, o)
		}
		res, err := experiment.Run(ctx, opt)
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
			fmt.Printf("%s %3.0f Hz: threshold %.3g µm (%.1f dB re 1 µm, SD %.1f dB, %d trials)\n",
				finger, hz, en.ThresholdUm, en.ThresholdDB, en.SDDB, en.Trials)
		}
	}
	if err := writeCal(tr.path, tf.Write); err != nil {
		return err
	}
	fmt.Printf("wrote %s; apply it with haptex run -user %s\n", tr.path, tr.path)
	return nil
}

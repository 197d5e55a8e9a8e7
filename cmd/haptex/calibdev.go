package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"time"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/device"
	"github.com/haptex/haptex/devices/link"
	"github.com/haptex/haptex/devices/setup"
	"github.com/haptex/haptex/haptics"
	"github.com/haptex/haptex/sim"
)

// calibDevice is one device calibration on a device of a devices file:
// its kind, finger and output, and how long each reading takes.
type calibDevice struct {
	what, finger, path string
	file               *setup.File
	samples            int           // device samples averaged per reading (0: the routine's default)
	settle             time.Duration // force: wait after each load; tactile: each drive (0: default)
	in                 *bufio.Reader // the operator's answers at a real stand
	out                io.Writer
}

// openOne opens one device of a devices file bare (no reconnection, no
// calibration files applied: a calibration measures the device as it
// reports itself). A calibration drives no motor, so the link waits up to
// calibSilence for a device that falls silent (a run's link gives up
// after 250 ms, for the 1 kHz loop's sake).
func openOne(d setup.Device, fi int, role string) (*setup.Set, error) {
	f := setup.Default()
	if role == setup.RoleExo {
		f.Fingers[fi].Exoskeleton = d.Uncalibrated()
	} else {
		f.Fingers[fi].Tactile = d
	}
	lim := rig.LinkLimits(haptics.DefaultConfig().Limits)
	return setup.Open(f, setup.Options{SkipSim: true, NoReconnect: true, Link: slackLink(link.Options{Limits: lim, Logf: stderrf, SilenceTimeout: calibSilence})})
}

// calibSilence is how long a calibration's link waits for a silent device.
const calibSilence = 2 * time.Second

// run calibrates the device of c.finger that c.what needs.
func (c calibDevice) run(ctx context.Context) error {
	fi := sim.FingerByName(c.finger)
	role := setup.RoleExo
	d := c.file.Fingers[fi].Exoskeleton
	if c.what == "tactile" {
		role, d = setup.RoleTactile, c.file.Fingers[fi].Tactile
	}
	if d.Kind == setup.KindSim {
		return fmt.Errorf("%w: the devices file's %s %s is simulated: haptex calib %s without -devices calibrates the simulated twin", errUsage, c.finger, role, c.what)
	}
	op, err := findOperator(d, c.finger, c.in, c.out)
	if err != nil {
		return err
	}
	defer op.close()
	set, err := openOne(d, fi, role)
	if err != nil {
		return err
	}
	defer set.Close()
	sess := device.Session{Finger: c.finger, Prompt: op.confirm, Samples: c.samples, Settle: c.settle}
	where := "the device at " + d.String()
	switch {
	case op.stand != nil && role == setup.RoleTactile:
		where = fmt.Sprintf("the emulated %s with the emulator's vibrometer", op.name)
	case op.stand != nil:
		where = fmt.Sprintf("the emulated %s on its stand", op.name)
	}
	fmt.Fprintf(c.out, "calibrating %s\n", where)
	var write func(io.Writer) error
	key := ""
	switch c.what {
	case "force":
		x := set.Exo[fi]
		plan, err := device.LoadPlan(device.StandLoadsKg)
		if err != nil {
			return err
		}
		if op.stand != nil {
			sess.Prompt = func(st device.Step) error {
				if err := op.confirm(st); err != nil {
					return err
				}
				return op.stand.Load(op.name, plan[st.Index].LoadN)
			}
		}
		cal, err := device.RunForce(ctx, x, sess, plan, device.PerAxis)
		if err != nil {
			return err
		}
		for i, ax := range []string{"x", "y", "z"} {
			fmt.Fprintf(c.out, "axis %s: gain %.4f, bias %+.4f N, residual RMS %.4f N\n", ax, cal.Gain[i][i], cal.Bias[i], cal.Report.ResidualRMSN[i])
		}
		write, key = cal.Write, "force_calibration"
	case "kinematics":
		x := set.Exo[fi].(*setup.Exo)
		nominal := x.Kinematics().Params()
		plan, err := device.PlanPoses(nominal, device.DefaultKinParams(), device.JigPoints)
		if err != nil {
			return err
		}
		if op.stand != nil {
			sess.Prompt = func(st device.Step) error {
				if err := op.confirm(st); err != nil {
					return err
				}
				return op.stand.Jig(op.name, plan.Points[st.Index])
			}
		}
		if sess.Samples == 0 {
			sess.Samples = 20
		}
		cal, err := device.RunKinematics(ctx, x, sess, nominal, plan)
		if err != nil {
			return err
		}
		fmt.Fprintf(c.out, "pad position error at the jig points: RMS %.0f µm with the nominal kinematics, %.2f µm calibrated (%d poses)\n",
			cal.Report.NominalRMSUm, cal.Report.ResidualRMSUm, cal.Report.Poses)
		write, key = cal.Write, "kinematics_calibration"
	case "tactile":
		a := set.Tactile[fi]
		plan := device.DefaultTactilePlan(a.Spec())
		if c.settle > 0 {
			plan.Settle = c.settle
		}
		if op.stand != nil {
			sess.Prompt = func(st device.Step) error { return op.confirm(st) }
		}
		cal, err := device.RunTactile(ctx, a, op, sess, plan)
		if err != nil {
			return err
		}
		worst := 0.0
		for p := range cal.Report.Gain40DB {
			worst = max(worst, math.Abs(cal.Report.Gain40DB[p]), math.Abs(cal.Report.Gain320DB[p]))
		}
		fmt.Fprintf(c.out, "pins: largest gain error %.2f dB before, %.3f dB after correction\n", worst, cal.Report.VerifyMaxDB)
		write = cal.Write
	}
	if err := writeCal(c.path, write); err != nil {
		return err
	}
	fmt.Fprintf(c.out, "wrote %s\n", c.path)
	if key != "" {
		// A devices file's paths are relative to it: name this one whole.
		abs, err := filepath.Abs(c.path)
		if err != nil {
			abs = c.path
		}
		fmt.Fprintf(c.out, "apply it: under [%s.exoskeleton] in the devices file, %s = %q\n", c.finger, key, abs)
	} else {
		fmt.Fprintf(c.out, "apply it: haptex run -tactile-cal %s\n", c.path)
	}
	return nil
}

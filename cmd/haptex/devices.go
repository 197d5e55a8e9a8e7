package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/devices/link"
	"github.com/haptex/haptex/devices/reconnect"
	devrecord "github.com/haptex/haptex/devices/record"
	"github.com/haptex/haptex/devices/scan"
	"github.com/haptex/haptex/devices/setup"
	"github.com/haptex/haptex/haptics"
)

func init() {
	register(&command{name: "devices", summary: "devices: list | emulate [-exo N -tactile N] | check FILE", run: runDevices,
		subs: []subcommand{
			{"list", "", "find the devices on serial ports and USB HID"},
			{"emulate", "", "run emulated devices on pseudo-terminals and print a devices file for them"},
			{"check", "FILE", "validate a devices file"},
		}})
}

func runDevices(args []string) error {
	fs := subFlags("devices", args)
	flagNotes[fs] = "devices emulate, " + consoleHelp + faultNames()
	asJSON := fs.Bool("json", false, "list, check: print JSON")
	timeout := fs.Duration("timeout", 300*time.Millisecond, "list: how long each port may take to answer HELLO (check: at least 1 s, as a run)")
	exos := fs.Int("exo", 2, "emulate: exoskeletons (0..2: thumb, index)")
	tactiles := fs.Int("tactile", 2, "emulate: tactile arrays (0..2: thumb, index)")
	ports := fs.String("ports", "", "list: further serial ports to probe, comma-separated (the ports of running emulators are probed anyway)")
	noProbe := fs.Bool("no-probe", false, "list: list the ports without talking to them; check: check the file only")
	dir := fs.String("dir", "", "emulate: folder for the port links and the devices file (default: a new temporary folder)")
	script := fs.String("script", "showcase", "emulate: what the emulated hand does in each run, from the run's start: showcase (the handling script), pinch (one pinch and stretch) or rest (still, off the fabric)")
	stand := fs.Bool("stand", false, "emulate: the exoskeletons sit on their calibration stands (a jig and a load clamp) instead of on the hand, for haptex calib force|kinematics -devices")
	unmeasured := fs.Bool("unmeasured", false, "emulate: the tactile arrays do not measure their pins (CAPS_TACTILE measures = 0), as an array without pickups or of protocol 1.0")
	errs := fs.Bool("errors", false, "emulate: the exoskeletons carry known errors (force sensor gain and bias, encoder zeros, link lengths), as calib's twin does, for calibrating them")
	if len(args) == 0 {
		fs.Usage()
		return fmt.Errorf("%w: which devices command?", errUsage)
	}
	sub := args[0]
	if err := parse(fs, args[1:], 1); err != nil {
		return err
	}
	switch sub {
	case "list":
		opt := scan.Options{Timeout: *timeout, NoProbe: *noProbe}
		if *ports != "" {
			opt.Ports = strings.Split(*ports, ",")
		}
		rep := scan.Scan(opt)
		if *asJSON {
			printJSON(rep)
		} else {
			rep.WriteText(os.Stdout)
		}
		return nil
	case "emulate":
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return emulate(ctx, emulateOptions{exos: *exos, tactiles: *tactiles, dir: *dir, script: *script, stand: *stand, errors: *errs, unmeasured: *unmeasured})
	case "check":
		if fs.NArg() != 1 {
			return fmt.Errorf("%w: devices check FILE", errUsage)
		}
		return checkDevices(fs.Arg(0), *asJSON, *noProbe, *timeout)
	}
	return fmt.Errorf("%w: unknown devices command %q (list, emulate, check)", errUsage, sub)
}

// checkDevices validates a devices file and, unless noProbe, talks to
// each of its serial and HID devices as a run would (handshake, kind,
// limits, kinematics), so that it finds everything a run would refuse.
func checkDevices(path string, asJSON, noProbe bool, timeout time.Duration) error {
	f, err := setup.Load(path)
	if err != nil {
		return err
	}
	var checks []setup.DeviceCheck
	if !noProbe {
		// As long as a run waits for a device: the link's handshake limit.
		checks = setup.Probe(f, slackLink(link.Options{HandshakeTimeout: max(timeout, time.Second), Limits: rig.LinkLimits(haptics.DefaultConfig().Limits)}))
	}
	bad := 0
	for _, c := range checks {
		if c.Err != "" {
			bad++
		}
	}
	if asJSON {
		printJSON(struct {
			File    *setup.File         `json:"file"`
			Devices []setup.DeviceCheck `json:"devices,omitempty"`
		}{f, checks})
	} else {
		fmt.Printf("%s: valid\n", path)
		for i, fg := range f.Fingers {
			fmt.Printf("  %-5s exoskeleton: %s%s\n", setup.Fingers[i], fg.Exoskeleton, kinematicsNote(fg.Exoskeleton))
			fmt.Printf("  %-5s tactile:     %s\n", setup.Fingers[i], fg.Tactile)
		}
		for _, c := range f.Calibrations() {
			fmt.Printf("  %-5s %s calibration: %s (made on %s; sha256 %.12s)\n", c.Finger, c.Kind, c.Path, c.Device, c.SHA256)
		}
		for _, c := range checks {
			switch {
			case c.Err != "":
				fmt.Printf("  %s %s (%s): %s\n", c.Finger, c.Role, c.Device, c.Err)
			case c.Info.Exo != nil:
				fmt.Printf("  %s %s (%s): %q serial %q, protocol %s: ok\n", c.Finger, c.Role, c.Device, c.Info.Exo.Model, c.Info.Exo.Serial, c.Info.Protocol)
			case c.Info.Tactile != nil:
				measures := "measures its pins: what they deliver is recorded"
				if !c.Info.Tactile.Measures {
					measures = "does not measure its pins: what they deliver is recorded as not measured"
				}
				fmt.Printf("  %s %s (%s): %q serial %q, protocol %s, %s: ok\n", c.Finger, c.Role, c.Device, c.Info.Tactile.Model, c.Info.Tactile.Serial, c.Info.Protocol, measures)
			}
		}
		if noProbe {
			fmt.Println("  (devices not probed: -no-probe)")
		}
	}
	if bad > 0 {
		return fmt.Errorf("devices check: %s: a run would refuse %d of its %d serial and HID devices", path, bad, len(checks))
	}
	return nil
}

func kinematicsNote(d setup.Device) string {
	if d.Kind == setup.KindSim {
		return ""
	}
	k := d.Kinematics
	base := "default mount"
	if d.BaseOrigin != nil {
		base = fmt.Sprintf("base at %v m", *d.BaseOrigin)
	}
	return fmt.Sprintf("; kinematics %s, %s", k, base)
}

// openedDevices closes what openDevices opened.
type openedDevices struct{ set *setup.Set }

func (o *openedDevices) close() {
	if o.set != nil {
		o.set.Close()
		o.set = nil
	}
}

// openDevices loads the devices file and lets the rig open its devices
// (with reconnection, recorded when the rig records devices) once the
// session folder exists; a later rig built from the same cfg (the next
// finger of a threshold calibration) opens them again, once the one
// before has closed them. The devices file and the calibration files it
// names go into the session record with their hashes.
func openDevices(cfg *rig.Config, path string, lockstep bool) (*openedDevices, error) {
	f, err := setup.Load(path)
	if err != nil {
		return nil, err
	}
	if lockstep {
		for i, fg := range f.Fingers {
			for _, d := range []setup.Device{fg.Exoskeleton, fg.Tactile} {
				if d.Kind != setup.KindSim {
					return nil, fmt.Errorf("%w: -lockstep runs on virtual time; the %s device %s needs real time", errUsage, setup.Fingers[i], d)
				}
			}
		}
	}
	cfg.DevicesFile = &rig.CalibrationFile{Path: f.Path, Kind: "devices", SHA256: f.SHA256}
	for _, c := range f.Calibrations() {
		cfg.Calibrations = append(cfg.Calibrations, rig.CalibrationFile{Path: c.Path, Kind: c.Kind, SHA256: c.SHA256, Finger: c.Finger, Device: c.Device})
	}
	o := &openedDevices{}
	logf := cfg.Logf
	if logf == nil {
		logf = stderrf
	}
	servo := cfg.Servo
	if servo == (haptics.Config{}) {
		servo = haptics.DefaultConfig()
	}
	limits := rig.LinkLimits(servo.Limits)
	cfg.OpenDevices = func(rec *devrecord.Session) (*setup.Set, error) {
		o.close()
		s, err := setup.Open(f, setup.Options{Record: rec, SkipSim: true, Reconnect: reconnect.Options{Logf: logf}, Link: slackLink(link.Options{Logf: logf, Limits: limits})})
		o.set = s
		return s, err
	}
	return o, nil
}

package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/devices/emu"
	"github.com/haptex/haptex/devices/link"
	"github.com/haptex/haptex/devices/reconnect"
	devrecord "github.com/haptex/haptex/devices/record"
	"github.com/haptex/haptex/devices/scan"
	"github.com/haptex/haptex/devices/setup"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/devices/wire"
	"github.com/haptex/haptex/haptics"
	"github.com/haptex/haptex/internal/safefile"
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
	asJSON := fs.Bool("json", false, "list, check: print JSON")
	timeout := fs.Duration("timeout", 300*time.Millisecond, "list: how long each port may take to answer HELLO (check: at least 1 s, as a run)")
	exos := fs.Int("exo", 2, "emulate: exoskeletons (0..2: thumb, index)")
	tactiles := fs.Int("tactile", 2, "emulate: tactile arrays (0..2: thumb, index)")
	ports := fs.String("ports", "", "list: further serial ports to probe, comma-separated (the ports of running emulators are probed anyway)")
	noProbe := fs.Bool("no-probe", false, "list: list the ports without talking to them; check: check the file only")
	dir := fs.String("dir", "", "emulate: folder for the port links and the devices file (default: a new temporary folder)")
	script := fs.String("script", "showcase", "emulate: what the emulated hand does in each run, from the run's start: showcase (the handling script), pinch (one pinch and stretch) or rest (still, off the fabric)")
	stand := fs.Bool("stand", false, "emulate: the exoskeletons sit on their calibration stands (a jig and a load clamp) instead of on the hand, for haptex calib force|kinematics -devices")
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
		return emulate(ctx, emulateOptions{exos: *exos, tactiles: *tactiles, dir: *dir, script: *script, stand: *stand, errors: *errs})
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
				fmt.Printf("  %s %s (%s): %q serial %q, protocol %s: ok\n", c.Finger, c.Role, c.Device, c.Info.Tactile.Model, c.Info.Tactile.Serial, c.Info.Protocol)
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

// emulateOptions are the flags of devices emulate.
type emulateOptions struct {
	exos, tactiles int
	dir, script    string
	stand, errors  bool
	// ready, when set, is called once the emulator runs (tests).
	ready func(*emu.Emulator)
}

// devicesSlack, when set, is the links' silence and write limits and
// their handshake's time limit in the commands that open devices (and
// devices emulate's watchdogs are 1 s):
// the tests that run them on a loaded machine set it far above its stalls
// (README, "The two commands"); the limits themselves are tested in
// devices/fault, devices/emu and devices/serial.
var devicesSlack time.Duration

// slackLink applies devicesSlack to link options.
func slackLink(o link.Options) link.Options {
	if devicesSlack > 0 {
		o.SilenceTimeout, o.WriteLimit = devicesSlack, devicesSlack
		o.HandshakeTimeout = max(o.HandshakeTimeout, devicesSlack)
		o.Limits.MaxExoWatchdog, o.Limits.MaxTactileWatchdog = devicesSlack, devicesSlack
	}
	return o
}

// emulatedScripts are the hand's motions of devices emulate -script.
var emulatedScripts = map[string]func(twin.Scene) *twin.Script{
	"showcase": twin.DefaultScript, "pinch": twin.PinchScript, "rest": twin.RestScript,
}

// emulate runs emulated devices on pseudo-terminals until ctx is done,
// announced in the run folder (emu.RunDir) meanwhile.
func emulate(ctx context.Context, o emulateOptions) error {
	exos, tactiles := o.exos, o.tactiles
	if exos < 0 || exos > 2 || tactiles < 0 || tactiles > 2 || exos+tactiles == 0 {
		return fmt.Errorf("%w: -exo and -tactile take 0, 1 or 2 (thumb, then index), not both 0", errUsage)
	}
	script := emulatedScripts[o.script]
	if script == nil {
		return fmt.Errorf("%w: -script %q, want showcase, pinch or rest", errUsage, o.script)
	}
	var devs []emu.DeviceConfig
	for _, d := range emu.DefaultDevices() {
		n := &tactiles
		if d.Kind == wire.KindExo {
			n = &exos
		}
		finger := 0
		if strings.HasPrefix(d.Name, "index") {
			finger = 1
		}
		if finger < *n {
			if devicesSlack > 0 {
				// Long enough for a stalled machine, short enough for
				// the host's heartbeats (a quarter of it) to tell one
				// run from the next (emu.Emulator.HandIdle).
				d.WatchdogMs = 1000
			}
			devs = append(devs, d)
		}
	}
	em, err := emu.Run(ctx, emu.Config{Dir: o.dir, Devices: devs, Script: script(twin.DefaultScene()), Stand: o.stand, Errors: o.errors, Announce: true})
	if err != nil {
		return err
	}
	defer em.Close()
	sched := em.RealTime()
	fmt.Printf("emulated devices (the physical twins of devices/twin behind the haptex protocol), their loop at %s:\n", sched)
	switch {
	case o.stand:
		fmt.Println("the exoskeletons are on their calibration stands: haptex calib force|kinematics -devices operates them")
	default:
		fmt.Printf("the emulated hand plays the %s script from the start of each run (a HELLO after %v without host traffic)\n", o.script, em.HandIdle())
	}
	if o.errors {
		fmt.Println("the exoskeletons carry known errors: force sensor gain and bias, encoder zeros, link lengths (calibrate them)")
	}
	if !sched.RealTime {
		fmt.Fprintln(os.Stderr, "haptex devices emulate: the devices' loop runs at normal priority: on a loaded machine it can fall silent for milliseconds, and haptex run then trips its fingers device-silent")
	}
	for _, p := range em.Ports() {
		fmt.Printf("  %-14s %-12s %s -> %s\n", p.Name, p.Kind, p.Path, p.TTY)
	}
	snippet, err := safefile.ReadFile(em.DevicesFile(), setup.MaxFileSize)
	if err != nil {
		return err
	}
	fmt.Printf("\ndevices file %s:\n\n%s\n", em.DevicesFile(), snippet)
	fmt.Printf("run haptex with them:  haptex run -devices %s\n", em.DevicesFile())
	fmt.Printf("announced in %s (haptex devices list finds them); Ctrl-C stops the emulator.\n", emu.RunDir())
	if o.ready != nil {
		o.ready(em)
	}
	select {
	case <-ctx.Done():
	case <-em.Done():
	}
	if sched.Standby {
		fmt.Printf("the devices' loop: its standby thread did the loop's work %d times; the duties ran at worst %v late\n", em.Takeovers(), em.Lateness().Round(time.Microsecond))
	}
	return nil
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

// flagSet reports whether the flag was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/haptex/haptex/devices/emu"
	"github.com/haptex/haptex/devices/link"
	"github.com/haptex/haptex/devices/setup"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/devices/wire"
	"github.com/haptex/haptex/internal/safefile"
)

// emulateOptions are the flags of devices emulate.
type emulateOptions struct {
	exos, tactiles int
	dir, script    string
	stand, errors  bool
	unmeasured     bool // the tactile arrays do not measure their pins
	// ready, when set, is called once the emulator runs (tests).
	ready func(*emu.Emulator)
}

// devicesSlack, when set, is the links' silence and write limits and
// their handshake's time limit in the commands that open devices (and
// devices emulate's watchdogs are 1 s):
// the tests that run them on a loaded machine set it far above its stalls
// (README, "The two commands"); the limits themselves are tested in
// devices/faulttest, devices/emu and devices/serial.
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
			d.Unmeasured = o.unmeasured
			devs = append(devs, d)
		}
	}
	// With devicesSlack (tests) the emulator runs inside the test process
	// beside a rig: its loop stays at normal priority there, since two
	// SCHED_FIFO loops and their standbys in one Go process on two cores
	// once held a garbage collection's stop of the world for minutes.
	em, err := emu.Run(ctx, emu.Config{Dir: o.dir, Devices: devs, Script: script(twin.DefaultScene()), Stand: o.stand, Errors: o.errors, Announce: true, NormalPriority: devicesSlack > 0})
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
	switch {
	case tactiles == 0:
	case o.unmeasured:
		fmt.Println("the tactile arrays do not measure their pins (their CAPS says measures = 0): what they deliver is not recorded")
	default:
		fmt.Println("the tactile arrays measure their pins and report what they delivered (TACTILE_MEASURED)")
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
	fmt.Printf("announced in %s (haptex devices list finds them); Ctrl-C stops the emulator; type help for the commands that press an emergency stop or pull a cable.\n", emu.RunDir())
	watchPower(em, os.Stdout)
	go emulatorConsole(os.Stdin, os.Stdout, em)
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
	if st := em.Stalls(); st.Count > 0 {
		fmt.Printf("the devices' physics stalled %d times (held longer than %v, they skipped up to %v)\n", st.Count, emu.MaxCatchUp, st.Longest.Round(time.Microsecond))
	} else {
		fmt.Printf("the devices' physics never stalled (never owed more than %v)\n", emu.MaxCatchUp)
	}
	if !o.stand {
		fmt.Printf("the emulated hand played the %s script from its start %d times (once a run)\n", o.script, em.Runs())
	}
	return nil
}

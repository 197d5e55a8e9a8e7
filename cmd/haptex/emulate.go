package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/haptex/haptex/devices/emu"
	"github.com/haptex/haptex/devices/setup"
	"github.com/haptex/haptex/devices/wire"
	"github.com/haptex/haptex/internal/safefile"
)

// emulate runs emulated devices on pseudo-terminals until interrupted.
func emulate(exos, tactiles int, dir string) error {
	if exos < 0 || exos > 2 || tactiles < 0 || tactiles > 2 || exos+tactiles == 0 {
		return fmt.Errorf("%w: -exo and -tactile take 0, 1 or 2 (thumb, then index), not both 0", errUsage)
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
			devs = append(devs, d)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	em, err := emu.Run(ctx, emu.Config{Dir: dir, Devices: devs})
	if err != nil {
		return err
	}
	defer em.Close()
	sched := em.RealTime()
	fmt.Printf("emulated devices (the physical twins of devices/twin behind the haptex protocol), their loop at %s:\n", sched)
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
	fmt.Printf("run haptex with them:  haptex run -devices %s\nCtrl-C stops the emulator; type help for the commands that press an emergency stop or pull a cable.\n", em.DevicesFile())
	go emulatorConsole(os.Stdin, os.Stdout, em)
	select {
	case <-ctx.Done():
	case <-em.Done():
	}
	if sched.Standby {
		fmt.Printf("the devices' loop: its standby thread did the loop's work %d times; the duties ran at worst %v late\n", em.Takeovers(), em.Lateness().Round(time.Microsecond))
	}
	return nil
}

const consoleHelp = `while it runs, type on its standard input:
  fault DEVICE NAME[,NAME...]  a fault condition present now, as the device's own
                               sensors would report it (NAMES); it cuts an
                               exoskeleton's power stage and stays latched until
                               the next HELLO after "fault DEVICE none"
  fault DEVICE none            the condition has gone
  unplug DEVICE                pull the cable (the port's link disappears)
  replug DEVICE                plug it back in on a new pseudo-terminal
  help                         this text
NAMES: `

// emulatorConsole reads commands from in until it ends and acts on the
// emulated devices, so that a lab engineer can press an emergency stop or
// pull a cable while haptex runs against them; each command answers one
// line on out.
func emulatorConsole(in io.Reader, out io.Writer, em *emu.Emulator) {
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		msg, err := consoleCommand(f, em)
		if err != nil {
			fmt.Fprintf(out, "%v\n", err)
			continue
		}
		fmt.Fprintln(out, msg)
	}
}

func consoleCommand(f []string, em *emu.Emulator) (string, error) {
	if f[0] == "help" {
		return consoleHelp + faultNames(), nil
	}
	if len(f) < 2 {
		return "", fmt.Errorf("%q: which device? (help lists the commands)", strings.Join(f, " "))
	}
	p := em.Plug(f[1])
	if p == nil {
		var names []string
		for _, q := range em.Ports() {
			names = append(names, q.Name)
		}
		return "", fmt.Errorf("no device %q (have %s)", f[1], strings.Join(names, ", "))
	}
	switch {
	case f[0] == "unplug" && len(f) == 2:
		if err := p.Unplug(); err != nil {
			return "", err
		}
		return f[1] + ": unplugged", nil
	case f[0] == "replug" && len(f) == 2:
		if err := p.Replug(); err != nil {
			return "", err
		}
		return f[1] + ": plugged in at " + p.TTY(), nil
	case f[0] == "fault" && len(f) == 3:
		bits, err := parseFaults(f[2])
		if err != nil {
			return "", err
		}
		p.Device().SetCondition(bits)
		if bits == 0 {
			return f[1] + ": no fault condition (the fault bits clear at the next HELLO)", nil
		}
		return f[1] + ": fault condition " + f[2], nil
	}
	return "", fmt.Errorf("%q: not a command (help lists them)", strings.Join(f, " "))
}

// parseFaults turns "estop,over_temp" (or "none") into wire.Fault bits.
func parseFaults(s string) (uint32, error) {
	if s == "none" {
		return 0, nil
	}
	var bits uint32
	for _, n := range strings.Split(s, ",") {
		found := false
		for _, b := range wire.FaultBits {
			if b.Name == n {
				bits |= b.Mask
				found = true
			}
		}
		if !found {
			return 0, fmt.Errorf("no fault %q (have %s, none)", n, faultNames())
		}
	}
	return bits, nil
}

func faultNames() string {
	var n []string
	for _, b := range wire.FaultBits {
		n = append(n, b.Name)
	}
	return strings.Join(n, ", ")
}

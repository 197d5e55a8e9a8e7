package main

import (
	"context"
	"fmt"
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
	watchPower(em, os.Stdout)
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

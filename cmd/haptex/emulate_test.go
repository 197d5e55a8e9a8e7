package main

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/emu"
	"github.com/haptex/haptex/devices/emu/emutest"
	"github.com/haptex/haptex/devices/link"
	"github.com/haptex/haptex/devices/serial"
	"github.com/haptex/haptex/devices/wire"
)

// The emulator's console presses an emergency stop that the host reads
// in the device's fault bits, pulls and replugs a cable, and answers a
// wrong command with one line that says what there is.
func TestEmulatorConsole(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	em, err := emu.Run(ctx, emu.Config{Devices: []emu.DeviceConfig{{Name: "thumb-exo", Kind: wire.KindExo, WatchdogMs: 1000}}, NewExo: emutest.StandInExo})
	if err != nil {
		t.Skip(err)
	}
	defer em.Close()
	var power syncBuffer
	watchPower(em, &power)
	say := func(line string) string {
		var out strings.Builder
		emulatorConsole(strings.NewReader(line+"\n"), &out, em)
		return out.String()
	}
	path := em.Plug("thumb-exo").Path()
	port, err := serial.Open(path, serial.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x, err := link.DialExo(port, link.Options{SilenceTimeout: time.Minute, StaleTimeout: time.Minute, WriteLimit: time.Minute,
		Limits: link.Limits{MaxExoWatchdog: 10 * time.Second, MaxTactileWatchdog: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if err := x.Enable(true); err != nil && err != devices.ErrTimeout {
		t.Fatal(err)
	}
	var st devices.ExoState
	read := func(until func() bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); !until() && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if err := x.Read(&st); err != nil && err != devices.ErrTimeout {
				t.Fatal(err)
			}
		}
	}
	read(func() bool { return st.Enabled })
	if out := say("fault thumb-exo estop,over_temp"); !strings.Contains(out, "fault condition estop,over_temp") {
		t.Errorf("fault: %q", out)
	}
	read(func() bool { return st.Fault != 0 })
	if st.Fault != wire.FaultEStop|wire.FaultOverTemp {
		t.Errorf("the host reads fault bits %#x, want estop and over_temp", st.Fault)
	}
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(power.String(), "off (fault)") && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if got := power.String(); !strings.Contains(got, "thumb-exo: power stage on (enable)\nthumb-exo: power stage off (fault)\n") {
		t.Errorf("the power stage as the console saw it:\n%s", got)
	}
	for line, want := range map[string]string{
		"fault thumb-exo hot":  "no fault \"hot\" (have over_temp, over_current, encoder, force_sensor, supply, estop, none)",
		"unplug index-exo":     "no device \"index-exo\" (have thumb-exo)",
		"press thumb-exo":      "\"press thumb-exo\": not a command",
		"fault":                "which device?",
		"bogus":                "\"bogus\": not a command",
		"fault thumb-exo none": "thumb-exo: no fault condition",
		"wear thumb-exo 0.5":   "emu: wear is a tactile array's; this is an exoskeleton",
		"wear thumb-exo half":  "\"wear thumb-exo half\": the fraction of the limits, a number in (0, 1]",
		"dead thumb-exo 3":     "emu: dead pins are a tactile array's; this is an exoskeleton",
		"dead thumb-exo x":     "\"dead thumb-exo x\": the pins, numbers 0..23 separated by commas, or none",
		"help":                 "unplug DEVICE",
	} {
		if out := say(line); !strings.Contains(out, want) || strings.Count(out, "\n") != 1 && line != "help" {
			t.Errorf("%s: %q, want %q in one line", line, out, want)
		}
	}
	say("unplug thumb-exo")
	if _, err := os.Lstat(path); err == nil {
		t.Error("unplug left the port's link")
	}
	if out := say("replug thumb-exo"); !strings.Contains(out, "plugged in at /dev/pts/") {
		t.Errorf("replug: %q", out)
	}
	if _, err := os.Lstat(path); err != nil {
		t.Errorf("replug: %v", err)
	}
}

// syncBuffer is a strings.Builder safe for a writer and a reader in
// different goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

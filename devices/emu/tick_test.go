package emu

import (
	"testing"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/twin"
)

// stepLog is an exoskeleton backend that notes the longest span of time
// one Advance had to integrate.
type stepLog struct {
	devices.Exoskeleton
	clocked       devices.Clocked
	last, longest time.Duration
}

func (s *stepLog) Advance(t time.Duration) {
	s.longest = max(s.longest, t-s.last)
	s.last = t
	s.clocked.Advance(t)
}

// An emulated exoskeleton without a host keeps its physics current, so
// that the first HELLO, however long after the emulator started, costs
// the devices' loop no catch-up (16-63 ms for each second of idleness
// before). Virtual time: the device's clock is the test's.
func TestIdleExoKeepsItsPhysicsCurrent(t *testing.T) {
	dc := DefaultDevices()[0]
	b, err := handExo(dc, newHand(twin.DefaultScript(twin.DefaultScene())), false)
	if err != nil {
		t.Fatal(err)
	}
	log := &stepLog{Exoskeleton: b, clocked: b.(devices.Clocked)}
	var now time.Duration
	d := NewExoDevice(dc, log, func() time.Duration { return now })
	const tick = 250 * time.Microsecond
	for now = tick; now <= 2*time.Second; now += tick {
		d.Tick(now)
	}
	if log.longest > tick {
		t.Fatalf("an idle device's backend integrated %v at once, want at most one tick (%v)", log.longest, tick)
	}
	if log.last != 2*time.Second {
		t.Fatalf("backend at %v after 2 s of ticks", log.last)
	}
}

func (s *stepLog) Skip(t time.Duration) {
	s.last = t
	s.clocked.(skipper).Skip(t)
}

// A devices' loop held for 100 ms integrates at most MaxCatchUp of it
// when it runs again, skips the rest and counts a stall: the loop never
// computes for long, however far behind it is (under -race at load 31 it
// once spent 6 minutes integrating what it owed). Virtual time.
func TestHeldLoopStallsBriefly(t *testing.T) {
	dc := DefaultDevices()[0]
	b, err := handExo(dc, newHand(twin.DefaultScript(twin.DefaultScene())), false)
	if err != nil {
		t.Fatal(err)
	}
	log := &stepLog{Exoskeleton: b, clocked: b.(devices.Clocked)}
	now := 10 * time.Second // the emulator started long before this device
	d := NewExoDevice(dc, log, func() time.Duration { return now })
	const tick = 250 * time.Microsecond
	for range 8 {
		now += tick
		d.Tick(now)
	}
	if s := d.Stalls(); s.Count != 0 {
		t.Fatalf("%d stalls before the loop was held (switching on is none)", s.Count)
	}
	log.longest = 0
	now += 100 * time.Millisecond
	d.Tick(now)
	if log.longest > MaxCatchUp {
		t.Errorf("held 100 ms, the backend integrated %v at once, want at most %v", log.longest, MaxCatchUp)
	}
	s := d.Stalls()
	if s.Count != 1 || s.Longest != 100*time.Millisecond-MaxCatchUp {
		t.Errorf("stalls %+v, want 1 of %v", s, 100*time.Millisecond-MaxCatchUp)
	}
	var st devices.ExoState
	if err := b.Read(&st); err != nil {
		t.Fatal(err)
	}
	if st.DeviceTime != now.Truncate(time.Millisecond) {
		t.Errorf("the device's newest sample is from %v, want %v: its clock stays on time", st.DeviceTime, now.Truncate(time.Millisecond))
	}
}

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

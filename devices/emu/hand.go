package emu

import (
	"sync"
	"time"

	"github.com/haptex/haptex/devices/twin"
)

// HandIdle is how long the host must at least have sent nothing to any of
// an emulator's devices for the next HELLO to begin a new run: the
// emulated hand then plays its script from the start. A host keeping a
// session sends something at least every quarter of the device's
// watchdog, so the emulator waits for half its longest watchdog if that
// is longer (Emulator.HandIdle). A device reconnected within a run (a
// cable pulled for less than this) leaves the hand where it is.
const HandIdle = 200 * time.Millisecond

// handBlend is how long a restarted hand takes to blend from where it
// was heading to the script's start, on a minimum-jerk ramp, so that a
// restart in the middle of the script never makes the finger jump.
const handBlend = 300 * time.Millisecond

// hand is the emulated person's hand: both fingers follow one handling
// script from an origin that each new run moves to the run's start (before
// the first run they wait where the script starts). It is
// the twin.Intent of the emulator's exoskeletons; At may be called from
// any device's goroutine.
type hand struct {
	script *twin.Script
	mu     sync.Mutex
	origin time.Duration // emulator time at which the script's t = 0 plays
	from   time.Duration // the last restart's start of the blend
	off    [2][3]float64 // where the finger was heading minus the script's start, at the restart
	starts int           // restarts so far
}

func newHand(s *twin.Script) *hand { return &hand{script: s} }

// restart makes the script start at now, blending out where each finger
// was heading.
func (h *hand) restart(now time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for f := range h.off {
		was, _ := h.atLocked(now, f)
		start, _ := h.script.At(0, f)
		for k := range 3 {
			h.off[f][k] = was[k] - start[k]
		}
	}
	h.origin, h.from = now, now
	h.starts++
}

// runs counts the runs the hand has started.
func (h *hand) runs() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.starts
}

// At returns finger f's intended pad centre and velocity at emulator time t.
func (h *hand) At(t time.Duration, f int) (pos, vel [3]float64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.atLocked(t, f)
}

func (h *hand) atLocked(t time.Duration, f int) (pos, vel [3]float64) {
	if h.starts == 0 {
		// Before the first run the hand waits where the script starts.
		pos, _ = h.script.At(0, f)
		return pos, vel
	}
	pos, vel = h.script.At(t-h.origin, f)
	tau := float64(t-h.from) / float64(handBlend)
	if tau >= 1 {
		return pos, vel
	}
	tau = max(tau, 0)
	// The offset fades as 1 - s(τ), s the minimum-jerk ramp.
	s := tau * tau * tau * (10 + tau*(-15+6*tau))
	ds := 30 * tau * tau * (1 - tau) * (1 - tau) / handBlend.Seconds()
	for k := range 3 {
		pos[k] += h.off[f][k] * (1 - s)
		vel[k] -= h.off[f][k] * ds
	}
	return pos, vel
}

package rig

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/haptics"
	"github.com/haptex/haptex/sim"
)

// SettleKinetic is the cloth's kinetic energy [J] under which it counts as
// at rest: 1e-8 J is the cloth of the default scene (about 8 g) swinging
// at under 2 mm/s. A cloth hanging undisturbed has 1e-12 J or less; one
// released from a pinch a second before, 1e-6 to 1e-5 J.
const SettleKinetic = 1e-8

// settle is what the loops publish, each tick, for Settled: since when
// the fingers have been ready (every finger with a device active, the
// intended motion holding still) and since when the cloth has been at
// rest. Times are run times in nanoseconds; -1: not now.
type settle struct {
	now        atomic.Int64 // the haptics loop's latest tick
	readySince atomic.Int64
	restSince  atomic.Int64
	why        atomic.Uint32 // why the fingers are not ready: notRun, moving, or a finger (fingerWhy)
}

const (
	notRun uint32 = iota
	moving
	fingerBit = 1 << 24
)

// fingerWhy packs a finger that is not active, its state and its reason.
func fingerWhy(f int, st haptics.FingerStatus) uint32 {
	return fingerBit | uint32(f)<<16 | uint32(st.State)<<8 | uint32(st.Reason)
}

func whyString(w uint32) string {
	switch {
	case w == notRun:
		return "the rig has not run yet"
	case w == moving:
		return "the fingers are moving"
	}
	f := int(w>>16) & 0xff
	return fmt.Sprintf("%s finger %s (%s)", sim.FingerName(f), haptics.State(w>>8&0xff), haptics.Reason(w&0xff))
}

func (s *settle) init() {
	s.readySince.Store(-1)
	s.restSince.Store(-1)
}

// hapticsTick records the fingers' state after a haptics tick.
func (s *settle) hapticsTick(t time.Duration, servo *haptics.Servo, intent *replayIntent) {
	s.now.Store(int64(t))
	ready := true
	if servo != nil {
		for f := range sim.NumFingers {
			st := servo.Status(f)
			if st.Reason != haptics.ReasonNoDevice && st.State != haptics.StateActive {
				s.why.Store(fingerWhy(f, st))
				ready = false
				break
			}
		}
	}
	if ready && !intent.still(t) {
		s.why.Store(moving)
		ready = false
	}
	since(&s.readySince, t, ready)
}

// simStep records the cloth's kinetic energy after a step.
func (s *settle) simStep(t time.Duration, kinetic float64) {
	since(&s.restSince, t, kinetic < SettleKinetic)
}

func since(v *atomic.Int64, t time.Duration, ok bool) {
	switch {
	case !ok:
		v.Store(-1)
	case v.Load() < 0:
		v.Store(int64(t))
	}
}

// HoldMotion makes the fingers go to the start of motion m (blended from
// where they were heading) and hold there; the next BeginInterval plays m
// from its start. An experiment holds its motion
// while the rig settles, so that its first interval starts as every other
// one does.
func (r *Rig) HoldMotion(m twin.Intent) error {
	if m == nil {
		return fmt.Errorf("rig: nil motion")
	}
	return r.hapticsLoop.do(func(t time.Duration) { r.intent.hold(t, m) })
}

// Settled returns nil once, for at least the last hold of run time, every
// finger with a device has been active, the fingers' intended motion has
// held still and the cloth's kinetic energy has stayed under
// SettleKinetic; otherwise an error saying what is not settled yet. Call
// it while the rig runs (in real or virtual time).
func (r *Rig) Settled(hold time.Duration) error {
	s := &r.settled
	now := s.now.Load()
	if ready := s.readySince.Load(); ready < 0 || now-ready < int64(hold) {
		if ready < 0 {
			return fmt.Errorf("rig: not settled: %s", whyString(s.why.Load()))
		}
		return fmt.Errorf("rig: not settled: the fingers have been ready for %v of %v", time.Duration(now-ready), hold)
	}
	if rest := s.restSince.Load(); rest < 0 || now-rest < int64(hold) {
		return fmt.Errorf("rig: not settled: the cloth is moving (kinetic energy %s %g J)", above(rest), SettleKinetic)
	}
	return nil
}

func above(rest int64) string {
	if rest < 0 {
		return "above"
	}
	return "only just below"
}

// still reports whether the intended motion holds the fingers still at
// t: held at a motion's start, or past the end of a script, and not
// blending.
func (r *replayIntent) still(t time.Duration) bool {
	d := t - r.t0
	if d < restartBlend {
		return false
	}
	if r.held {
		return true
	}
	s, ok := r.inner.(*twin.Script)
	return ok && d >= s.Duration()
}

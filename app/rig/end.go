package rig

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/haptex/haptex/haptics"
	"github.com/haptex/haptex/sim"
)

// endWait bounds how long a real-time run, once over, keeps its loops
// going for its exoskeletons to confirm their power stages off: the stop
// ramp (4 ms), the link's confirmation bound (at most 10 ms) and a device
// watchdog the host accepts (at most 100 ms), with room for a loaded
// machine.
const endWait = 500 * time.Millisecond

// FingerEnd is how a finger's devices were left when the run ended.
type FingerEnd struct {
	Finger string `json:"finger"`
	// SafeBy is how its safe state was known to hold when the loops
	// stopped (haptics.csv's safe_by): "device" (its samples reported the
	// power stage off), "watchdog" (its watchdog cut it after the host
	// fell silent), "lost" (the device had gone: nothing can confirm
	// it), "commanded" (switched off, not confirmed within the wait), or
	// "none" (not yet safe).
	SafeBy string `json:"safe_by"`
	// ConfirmedMs is the time from the stop to that state [ms].
	ConfirmedMs float64 `json:"confirmed_ms"`
	// PinsSilentMs is the time from the silent frame the run sends the
	// finger's pin array, once its loops have stopped, to the array's
	// acknowledgement of it [ms]; absent when the array cannot report
	// (the simulated one) or did not within the wait.
	PinsSilentMs *float64 `json:"pins_silent_ms,omitempty"`
}

// String says in words how the finger's exoskeleton was left, and its
// pins when their array confirmed them silent.
func (e FingerEnd) String() string {
	var s string
	switch e.SafeBy {
	case "device":
		s = fmt.Sprintf("stopped, its power stage off as the device confirmed %.0f ms after the stop", e.ConfirmedMs)
	case "watchdog":
		s = fmt.Sprintf("stopped by the device's watchdog %.0f ms after the stop", e.ConfirmedMs)
	case "lost":
		s = "gone before the end: nothing confirmed its safe state"
	case "commanded":
		s = fmt.Sprintf("switched off, NOT confirmed by the device within %.0f ms", e.ConfirmedMs)
	default:
		s = fmt.Sprintf("NOT safe %.0f ms after the stop", e.ConfirmedMs)
	}
	if e.PinsSilentMs != nil {
		s += fmt.Sprintf(", its pins silent %.0f ms after the loops stopped", *e.PinsSilentMs)
	}
	return e.Finger + " " + s
}

// EndLine is the line that says how a run left its exoskeletons
// ("end of run: thumb stopped, ...; index ..."); "" without any.
func EndLine(ends []FingerEnd) string {
	if len(ends) == 0 {
		return ""
	}
	parts := make([]string, len(ends))
	for i, e := range ends {
		parts[i] = e.String()
	}
	return "end of run: " + strings.Join(parts, "; ")
}

// endOfRun follows, on the haptics goroutine, the fingers from the
// servo's Stop to their confirmed safe state.
type endOfRun struct {
	requested atomic.Bool // the run is over: stop the servo
	done      atomic.Bool // every finger is safe and known to be
	stopping  bool
	at        time.Duration // the first tick after the request
	tick      uint64        // its number (hapticsLoop.tick), for a replay
	fingers   [sim.NumFingers]struct {
		confirm haptics.Confirm // set in the safe state only
		after   time.Duration
		known   bool
	}
}

// add follows tick number tick at t; servo is the haptics loop's.
func (e *endOfRun) add(t time.Duration, tick uint64, servo *haptics.Servo, rec *haptics.TickRecord) {
	if !e.requested.Load() || e.done.Load() {
		return
	}
	if !e.stopping {
		servo.Stop()
		e.stopping, e.at, e.tick = true, t, tick
	}
	all := true
	for f := range e.fingers {
		fe, fr := &e.fingers[f], &rec.Fingers[f]
		if fe.known {
			continue
		}
		fe.confirm, fe.after = fr.Confirm, t-e.at
		fe.known = fr.Confirm == haptics.ConfirmDevice || fr.Confirm == haptics.ConfirmWatchdog || fr.Confirm == haptics.ConfirmLost
		all = all && fe.known
	}
	if all {
		e.done.Store(true)
	}
}

// park stops the servo once the run is over and waits, at most endWait,
// for every exoskeleton to confirm its power stage off; fail stops the
// wait (the haptics loop failed).
func (e *endOfRun) park(fail <-chan struct{}) {
	e.requested.Store(true)
	deadline := time.NewTimer(endWait)
	defer deadline.Stop()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !e.done.Load() {
		select {
		case <-fail:
			return
		case <-deadline.C:
			return
		case <-tick.C:
		}
	}
}

// summary returns each finger's end and an error naming the fingers
// whose devices did not confirm their power stage off. Call it after the
// loops have stopped.
func (e *endOfRun) summary() ([]FingerEnd, error) {
	if !e.stopping {
		return nil, nil
	}
	var out []FingerEnd
	var err error
	for f := range e.fingers {
		fe := &e.fingers[f]
		end := FingerEnd{Finger: sim.FingerName(f), SafeBy: safeBy(fe.confirm), ConfirmedMs: float64(fe.after) / 1e6}
		out = append(out, end)
		if !fe.known && err == nil {
			err = fmt.Errorf("rig: at the run's end the %s exoskeleton did not confirm its power stage off within %v (%s); its link's watchdog stops it once the link closes", end.Finger, endWait, end.SafeBy)
		}
	}
	return out, err
}

// runFor runs until ctx is done or a loop fails (failed closed), then,
// unless the haptics loop is the one that failed, brings the
// exoskeletons to their confirmed safe state before it returns, so that
// the caller stops the loops with no device left holding a torque.
func (r *Rig) runFor(ctx context.Context, failed, hapticsFailed <-chan struct{}) {
	select {
	case <-ctx.Done():
	case <-failed:
	}
	if r.haptics.servo != nil {
		r.haptics.end.park(hapticsFailed)
	}
}

// safeBy names how a safe state is known to hold, as the summary says it:
// haptics.csv's safe_by, "none" before the finger is safe.
func safeBy(c haptics.Confirm) string {
	if c == haptics.ConfirmNone {
		return "none"
	}
	return c.String()
}

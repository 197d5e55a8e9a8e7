package rig

import (
	"errors"
	"fmt"
	"time"

	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/sim"
)

// Changes to a running rig (a new stimulus, the start of an interval) are
// functions queued to one loop and run on that loop's goroutine at the
// start of its next tick, so a loop's state is only ever touched by its own
// goroutine and no lock is taken on the loops. Draining an empty queue is a
// non-blocking channel receive: no allocation, no wait.

const commandQueue = 16

// command runs on a loop's goroutine at the start of its tick at time t.
type command func(t time.Duration)

// errQueueFull is returned when a loop has not drained its queue: it is
// not running, or it stalls.
var errQueueFull = errors.New("rig: command queue full (is the loop running?)")

// do queues f to run on loop l at the start of its next tick.
func (l *loop) do(f command) error {
	select {
	case l.cmds <- f:
		return nil
	default:
		return fmt.Errorf("%w: loop %s", errQueueFull, l.name)
	}
}

// tick drains the loop's queue and runs its step: what the real-time
// runner calls, and the lockstep runner for an unpipelined loop.
func (l *loop) tick(t time.Duration) {
	l.drain(t)
	l.step(t)
}

// beginTick drains the queue and begins a pipelined tick
// (lockstep.Task.Begin).
func (l *loop) beginTick(t time.Duration) {
	l.drain(t)
	l.begin(t)
}

// drain runs the queued commands.
func (l *loop) drain(t time.Duration) {
	for {
		select {
		case f := <-l.cmds:
			f(t)
			continue
		default:
		}
		return
	}
}

// replayIntent plays a handling motion from a start time that can be reset,
// so every interval of an experiment replays the script from its
// beginning. A restart never makes the finger jump: the difference between
// where the finger was heading and where the script starts is blended out
// over restartBlend on a minimum-jerk ramp, as a hand would move. Its state
// is changed only by a command on the haptics loop, the goroutine that
// calls At (through the simulated exoskeletons).
type replayIntent struct {
	inner twin.Intent
	t0    time.Duration
	off   [sim.NumFingers][3]float64 // pose difference still being blended out
	held  bool                       // hold inner's start instead of playing it (hold)
}

const restartBlend = 300 * time.Millisecond

// restart makes motion next (the current one when nil) start at t.
func (r *replayIntent) restart(t time.Duration, next twin.Intent) {
	r.move(t, next, false)
}

// hold makes the fingers go to the start of motion next and stay there
// until the next restart plays it.
func (r *replayIntent) hold(t time.Duration, next twin.Intent) {
	r.move(t, next, true)
}

func (r *replayIntent) move(t time.Duration, next twin.Intent, held bool) {
	if next == nil {
		next = r.inner
	}
	for f := range r.off {
		was, _ := r.At(t, f)
		start, _ := next.At(0, f)
		for k := range 3 {
			r.off[f][k] = was[k] - start[k]
		}
	}
	r.inner, r.t0, r.held = next, t, held
}

func (r *replayIntent) At(t time.Duration, f int) (pos, vel [3]float64) {
	if r.held {
		pos, vel = r.inner.At(0, f)
	} else {
		pos, vel = r.inner.At(t-r.t0, f)
	}
	if d := t - r.t0; d < restartBlend && d >= 0 {
		tau := d.Seconds() / restartBlend.Seconds()
		// 1 − s(τ) of the minimum-jerk profile and its time derivative.
		w := 1 - tau*tau*tau*(10+tau*(-15+6*tau))
		dw := -30 * tau * tau * (1 - tau) * (1 - tau) / restartBlend.Seconds()
		for k := range 3 {
			pos[k] += r.off[f][k] * w
			vel[k] += r.off[f][k] * dw
		}
	}
	return pos, vel
}

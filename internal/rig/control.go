package rig

import (
	"errors"
	"fmt"
	"time"

	devsim "github.com/haptex/haptex/devices/sim"
)

// Changes to a running rig (a new stimulus, the start of an interval) are
// functions queued to one loop and run on that loop's goroutine at the
// start of its next tick, so a loop's state is only ever touched by its own
// goroutine and no lock is taken on the loops. Draining an empty queue is a
// non-blocking channel receive: no allocation, no wait.

const commandQueue = 16

// errQueueFull is returned when a loop has not drained its queue: it is
// not running, or it stalls.
var errQueueFull = errors.New("rig: command queue full (is the loop running?)")

// do queues f to run on loop l at the start of its next tick.
func (l *loop) do(f func()) error {
	select {
	case l.cmds <- f:
		return nil
	default:
		return fmt.Errorf("%w: loop %s", errQueueFull, l.name)
	}
}

// tick drains the loop's queue and runs its step: the function the
// real-time and lockstep runners call.
func (l *loop) tick(t time.Duration) {
	for {
		select {
		case f := <-l.cmds:
			f()
			continue
		default:
		}
		break
	}
	l.step(t)
}

// replayIntent plays a handling motion from a start time that can be reset,
// so every interval of an experiment replays the script from its
// beginning. Its start is changed only by a command on the haptics loop,
// the goroutine that calls At (through the simulated exoskeletons).
type replayIntent struct {
	inner devsim.Intent
	t0    time.Duration
}

func (r *replayIntent) At(t time.Duration, f int) (pos, vel [3]float64) {
	return r.inner.At(t-r.t0, f)
}

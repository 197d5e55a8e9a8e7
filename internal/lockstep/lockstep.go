// Package lockstep runs the loops of a system in virtual time: the same Step
// functions the real-time loops run, called in a fixed order on their
// grids, as fast as the machine computes them.
//
// Given the same tasks and the same inputs it makes the same calls in the
// same order, so a run is bit-identical to the previous one. It never reads
// the wall clock and never starts a goroutine.
package lockstep

import (
	"fmt"
	"time"
)

// Task is one loop: Step is called at Offset + k·Period for k = 0, 1, ...
type Task struct {
	Name   string
	Period time.Duration
	Offset time.Duration
	Step   func(t time.Duration)
}

// Runner advances a set of tasks through virtual time. Ticks due at the same
// instant run in the order the tasks were given.
type Runner struct {
	tasks []Task
	next  []time.Duration
	now   time.Duration
	ticks []uint64
}

// New returns a runner at virtual time 0. It panics on a task with a
// non-positive period or a negative offset, a programming error.
func New(tasks ...Task) *Runner {
	r := &Runner{tasks: tasks, next: make([]time.Duration, len(tasks)), ticks: make([]uint64, len(tasks))}
	for i, t := range tasks {
		if t.Period <= 0 || t.Offset < 0 {
			panic(fmt.Sprintf("lockstep: task %q: period %v, offset %v", t.Name, t.Period, t.Offset))
		}
		r.next[i] = t.Offset
	}
	return r
}

// Now returns the virtual time: the deadline of the last tick run, or 0.
func (r *Runner) Now() time.Duration { return r.now }

// Ticks returns how many ticks task i has run.
func (r *Runner) Ticks(i int) uint64 { return r.ticks[i] }

// RunUntil runs every tick whose deadline is before end, in time order.
func (r *Runner) RunUntil(end time.Duration) {
	for {
		i := r.due()
		if i < 0 || r.next[i] >= end {
			return
		}
		t := r.next[i]
		r.now = t
		r.tasks[i].Step(t)
		r.ticks[i]++
		r.next[i] = t + r.tasks[i].Period
	}
}

// RunWhile runs ticks in time order until cond returns false (checked
// before each tick) or the deadline reaches end. It returns the virtual
// time reached.
func (r *Runner) RunWhile(end time.Duration, cond func() bool) time.Duration {
	for cond() {
		i := r.due()
		if i < 0 || r.next[i] >= end {
			break
		}
		t := r.next[i]
		r.now = t
		r.tasks[i].Step(t)
		r.ticks[i]++
		r.next[i] = t + r.tasks[i].Period
	}
	return r.now
}

// due returns the task with the earliest next deadline (the first given on
// a tie), or -1 when there are no tasks.
func (r *Runner) due() int {
	best := -1
	for i, n := range r.next {
		if best < 0 || n < r.next[best] {
			best = i
		}
	}
	return best
}

// Package lockstep runs the loops of a system in virtual time: the same Step
// functions the real-time loops run, called in a fixed order on their
// grids, as fast as the machine computes them.
//
// Given the same tasks and the same inputs it makes the same calls in the
// same order, so a run is bit-identical to the previous one. It never reads
// the wall clock. A pipelined task (Task.Work) computes on a goroutine of
// its own while the other tasks tick, which uses a second core; what it
// computes becomes visible at a fixed virtual time, so the run stays
// deterministic.
package lockstep

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
)

// Task is one loop, called at Offset + k·Period for k = 0, 1, ...
//
// A plain task sets Step. A pipelined task sets Begin, Work and Commit
// instead: Begin runs at the tick on the runner's goroutine and takes the
// task's inputs; Work computes, on another goroutine, alongside the ticks
// of the other tasks; Commit publishes the result on the runner's
// goroutine at the task's next deadline, before any tick due then. Its
// outputs thus appear one period after its inputs were read, the most a
// real-time loop that keeps its rate may take. Work must touch nothing
// that the other tasks' steps read or write; Begin and Commit may.
//
// A pipelined task may also set Assist, which runs on the runner's
// goroutine a share of the Work in flight, if one is waiting, and reports
// whether it ran one (sim.Cloth.Assist). The runner calls it before each
// tick while the Work runs, and in a loop instead of sleeping when it has
// to wait for the Work: so the runner's core works on the Work whenever
// the other tasks leave it free, and no third goroutine competes with
// them for the two cores.
type Task struct {
	Name   string
	Period time.Duration
	Offset time.Duration
	Step   func(t time.Duration)

	Begin  func(t time.Duration)
	Work   func()
	Commit func()
	Assist func() bool
}

// Runner advances a set of tasks through virtual time. Ticks due at the same
// instant run in the order the tasks were given, after the commits due then.
type Runner struct {
	tasks []Task
	next  []time.Duration
	now   time.Duration
	ticks []uint64
	pipes []pipe
}

// pipe is the state of a pipelined task's step in flight, and of the
// goroutine that runs its Works.
type pipe struct {
	work     func()
	posted   atomic.Bool // a Work waits for the worker
	parked   atomic.Bool // the worker sleeps on wake
	wake     chan struct{}
	done     chan struct{} // a Work ended
	started  bool          // the worker runs
	inFlight bool          // Work started and not yet waited for
	pending  bool          // Commit not yet run
	due      time.Duration
}

// workerSpin is how many times a pipe's worker yields while it polls for
// the next Work before it parks: of the order of a millisecond. The gap
// between one Work's end and the next's start is the runner's commit and
// begin, microseconds, while waking a parked goroutine on a virtual
// machine costs a sizeable share of a cloth step, so the worker polls
// through the gap. A run paused between chunks parks the worker. Counted,
// not timed, so that the package never reads the wall clock.
const workerSpin = 1024

// serve runs the pipe's Works as they are posted, until wake is closed.
func (p *pipe) serve() {
	for {
		for n := 1; !p.posted.Load(); n++ {
			if n%256 != 0 {
				continue
			}
			if n < 256*workerSpin {
				runtime.Gosched()
				continue
			}
			// post stores posted before it looks at parked, and the
			// worker stores parked before it looks at posted, so one of
			// them sees the other: no Work is missed. A stale wake-up
			// only restarts the spin.
			p.parked.Store(true)
			if !p.posted.Load() {
				if _, ok := <-p.wake; !ok {
					return
				}
			}
			p.parked.Store(false)
			n = 0
		}
		p.posted.Store(false)
		p.work()
		p.done <- struct{}{}
	}
}

// post hands the next Work to the worker, starting it the first time.
func (p *pipe) post() {
	if !p.started {
		p.started = true
		go p.serve()
	}
	p.posted.Store(true)
	if p.parked.Load() {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
}

// New returns a runner at virtual time 0. It panics on a task with a
// non-positive period, a negative offset, neither Step nor all of Begin,
// Work and Commit, or Assist without them: a programming error.
func New(tasks ...Task) *Runner {
	r := &Runner{tasks: tasks, next: make([]time.Duration, len(tasks)), ticks: make([]uint64, len(tasks)), pipes: make([]pipe, len(tasks))}
	var wakes []chan struct{}
	for i, t := range tasks {
		piped := t.Begin != nil && t.Work != nil && t.Commit != nil
		if t.Period <= 0 || t.Offset < 0 || piped == (t.Step != nil) || (t.Assist != nil && !piped) {
			panic(fmt.Sprintf("lockstep: task %q: period %v, offset %v, step set %v, pipeline set %v, assist set %v",
				t.Name, t.Period, t.Offset, t.Step != nil, piped, t.Assist != nil))
		}
		r.next[i] = t.Offset
		if piped {
			p := &r.pipes[i]
			p.work = t.Work
			p.done = make(chan struct{}, 1)
			p.wake = make(chan struct{}, 1)
			wakes = append(wakes, p.wake)
		}
	}
	// The workers end when the runner is garbage collected, so a Runner
	// needs no Close; they reference its pipes, not the runner.
	runtime.AddCleanup(r, func(w []chan struct{}) {
		for _, c := range w {
			close(c)
		}
	}, wakes)
	return r
}

// Now returns the virtual time: the deadline of the last tick run, or 0.
func (r *Runner) Now() time.Duration { return r.now }

// Ticks returns how many ticks task i has run.
func (r *Runner) Ticks(i int) uint64 { return r.ticks[i] }

// RunUntil runs every tick and commit whose time is before end, in time
// order. It returns with no Work running: a commit due at end or later
// stays pending until a later call or Flush.
func (r *Runner) RunUntil(end time.Duration) {
	r.RunWhile(end, func() bool { return true })
}

// RunWhile runs ticks and commits in time order until cond returns false
// (checked before each tick) or the time reaches end. It returns the
// virtual time reached, with no Work running.
func (r *Runner) RunWhile(end time.Duration, cond func() bool) time.Duration {
	defer r.wait()
	for {
		if c := r.commitDue(); c >= 0 && r.pipes[c].due < end {
			if i := r.due(); r.pipes[c].due <= r.next[i] {
				r.commit(c)
				continue
			}
		}
		if !cond() {
			return r.now
		}
		i := r.due()
		if i < 0 || r.next[i] >= end {
			return r.now
		}
		r.assist()
		t := r.next[i]
		r.now = t
		task := &r.tasks[i]
		if task.Step != nil {
			task.Step(t)
		} else {
			p := &r.pipes[i]
			task.Begin(t)
			p.inFlight, p.pending, p.due = true, true, t+task.Period
			p.post()
		}
		r.ticks[i]++
		r.next[i] = t + task.Period
	}
}

// Flush waits for every pipelined task's Work and runs its pending
// Commit, whatever its time: the end of a run, after which no tick
// follows that could have read the state before it.
func (r *Runner) Flush() {
	for i := range r.pipes {
		if r.pipes[i].pending {
			r.commit(i)
		}
	}
}

// commit waits for task i's Work and runs its Commit.
func (r *Runner) commit(i int) {
	r.join(i)
	r.pipes[i].pending = false
	r.tasks[i].Commit()
}

// wait waits for every Work in flight, leaving the commits pending.
func (r *Runner) wait() {
	for i := range r.pipes {
		r.join(i)
	}
}

// join waits for task i's Work, if it is in flight, assisting it
// meanwhile if the task can be assisted.
func (r *Runner) join(i int) {
	p := &r.pipes[i]
	if !p.inFlight {
		return
	}
	p.inFlight = false
	assist := r.tasks[i].Assist
	if assist == nil {
		<-p.done
		return
	}
	for n := 1; ; n++ {
		select {
		case <-p.done:
			return
		default:
		}
		if !assist() && n%256 == 0 {
			// Nothing to share right now: let the session's writer and
			// the garbage collector have the core a moment.
			runtime.Gosched()
		}
	}
}

// assist runs every share the Works in flight offer.
func (r *Runner) assist() {
	for i := range r.pipes {
		if r.pipes[i].inFlight && r.tasks[i].Assist != nil {
			for r.tasks[i].Assist() {
			}
		}
	}
}

// commitDue returns the pipelined task with the earliest pending commit
// (the first given on a tie), or -1.
func (r *Runner) commitDue() int {
	best := -1
	for i := range r.pipes {
		if p := &r.pipes[i]; p.pending && (best < 0 || p.due < r.pipes[best].due) {
			best = i
		}
	}
	return best
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

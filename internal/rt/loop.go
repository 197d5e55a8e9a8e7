package rt

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Step is one tick of a loop. t is the tick's deadline on the run's clock:
// an exact multiple of the period (plus the loop's offset), never the
// measured wake-up time, so that the same step gives the same result under
// the lockstep runner.
type Step func(t time.Duration)

// Config configures a Loop.
type Config struct {
	Name   string
	Period time.Duration // > 0
	// Offset shifts the loop's grid: deadlines are Offset + k·Period.
	Offset time.Duration
	// Priority is the SCHED_FIFO priority (1..99) of the loop's thread; 0
	// keeps normal scheduling.
	Priority int
	// Nice, when not 0, makes a loop at normal priority a batch thread at
	// this nice value (-20..19; see LockThreadBatch): a CPU-bound loop
	// (the cloth simulation) runs so, at a positive value, so that the
	// kernel's tty worker and the runtime's helper threads, which carry a
	// device's bytes and hand a preempted real-time goroutine back to its
	// thread, never queue behind it. Ignored under SCHED_FIFO.
	Nice int
	// Standby, when positive, gives a real-time loop a second thread on
	// another core that wakes Standby after each deadline and runs the tick
	// itself if the loop's own thread has not begun it by then. On a
	// virtual machine the host stops one virtual CPU at a time for
	// milliseconds, and a thread on the other one is then still on time.
	// Each thread is pinned to its core. There is no standby unless the
	// loop runs under SCHED_FIFO and may use two cores.
	Standby time.Duration
	// OffStandby keeps the loop's thread off the core of the process's
	// standby thread while one runs, and the runtime's monitor on it (see
	// "Standby" in the package doc). It is for a CPU-bound loop at normal
	// priority (the cloth simulation), which the monitor's passes,
	// thousands a second, would otherwise preempt. Ignored under
	// SCHED_FIFO.
	OffStandby bool
	// Logf receives the loop's one-time notices (real-time refused). Nil
	// discards them.
	Logf func(format string, args ...any)
}

// Telemetry is a loop's always-on record of its timing. Every field may be
// read from any goroutine while the loop runs.
type Telemetry struct {
	Lateness Histogram // wake-up time minus deadline
	Compute  Histogram // step duration
	Ticks    atomic.Uint64
	// Overruns counts the deadlines skipped because a tick ended (or woke)
	// after the next deadline.
	Overruns atomic.Uint64
	// LateOver1ms counts ticks that woke more than 1 ms after their
	// deadline; LateTicks lists the first of them.
	LateOver1ms atomic.Uint64
	// RealTime reports whether the loop's thread runs under SCHED_FIFO. It
	// turns false if the watchdog takes SCHED_FIFO away (see Demotions).
	RealTime atomic.Bool
	// Standby reports whether a standby thread runs (see Config.Standby).
	Standby atomic.Bool
	// Takeovers counts the ticks the standby thread ran.
	Takeovers atomic.Uint64
	// OffStandby reports whether the loop's thread has run off a standby
	// thread's core (Config.OffStandby): set when the thread was moved,
	// never cleared.
	OffStandby atomic.Bool
	started    atomic.Int64 // clock time of the first tick [ns]
	last       atomic.Int64 // clock time of the latest tick [ns]
	late       [MaxLateTicks]LateTick
}

// LateTick is a tick that woke more than 1 ms after its deadline.
type LateTick struct {
	Deadline time.Duration // on the run's clock
	Lateness time.Duration
	Standby  bool // the standby thread ran it
}

// MaxLateTicks is how many late ticks a loop keeps: the first ones, so
// that a run that goes wrong keeps how it began.
const MaxLateTicks = 64

// LateTicks returns the first MaxLateTicks ticks that woke more than 1 ms
// late, in the order they ran. Call it only after Run has returned: the
// loop's threads write the record without synchronisation.
func (t *Telemetry) LateTicks() []LateTick {
	n := min(t.LateOver1ms.Load(), MaxLateTicks)
	return append([]LateTick(nil), t.late[:n]...)
}

// Rate returns the measured tick rate [Hz] since the first tick.
func (t *Telemetry) Rate() float64 {
	n := t.Ticks.Load()
	span := t.last.Load() - t.started.Load()
	if n < 2 || span <= 0 {
		return 0
	}
	return float64(n-1) / (float64(span) / 1e9)
}

// Loop runs a Step on a fixed grid in real time.
type Loop struct {
	cfg   Config
	clock *Clock
	step  Step
	Tel   Telemetry

	// turn is the index of the next tick to run on the grid, or claimed
	// while a thread runs one: whichever of the loop's threads swaps it to
	// claimed runs the tick, so the step never runs twice at once.
	turn atomic.Int64

	// Valid only inside Step (written by the thread that runs the tick,
	// before it calls the step).
	lateness time.Duration
	prevComp time.Duration

	off offStandby // the loop's own thread only, with Config.OffStandby

	// yielding is set while one of the loop's threads yields (sleep), so
	// that the other is never in the scheduler at the same time.
	yielding atomic.Bool
}

const claimed = -1

// YieldPeriod is how often a thread that only sleeps in system calls
// should pass through the Go scheduler (runtime.Gosched), well inside the
// runtime monitor's 10 ms: see "The runtime's monitor" in the package doc.
// A loop's threads do (Loop.sleep says when).
const YieldPeriod = 4 * time.Millisecond

// yieldEvery is YieldPeriod for the loops; 0 never (the tests' comparison).
var yieldEvery = YieldPeriod

// New returns a loop. It panics if the period is not positive, or the
// priority or standby outside their ranges: programming errors caught at
// setup, as time.NewTicker does.
func New(cfg Config, clock *Clock, step Step) *Loop {
	if cfg.Period <= 0 {
		panic(fmt.Sprintf("rt: loop %q: non-positive period %v", cfg.Name, cfg.Period))
	}
	if cfg.Standby < 0 || cfg.Standby >= cfg.Period {
		panic(fmt.Sprintf("rt: loop %q: standby %v outside 0..period %v", cfg.Name, cfg.Standby, cfg.Period))
	}
	if cfg.Priority < 0 || cfg.Priority > 99 {
		panic(fmt.Sprintf("rt: loop %q: priority %d outside 0..99", cfg.Name, cfg.Priority))
	}
	return &Loop{cfg: cfg, clock: clock, step: step}
}

// Name returns the loop's name.
func (l *Loop) Name() string { return l.cfg.Name }

// Period returns the loop's period.
func (l *Loop) Period() time.Duration { return l.cfg.Period }

// Lateness returns how late the current tick woke. Call it only from the
// step.
func (l *Loop) Lateness() time.Duration { return l.lateness }

// PrevCompute returns the previous tick's step duration. Call it only from
// the step.
func (l *Loop) PrevCompute() time.Duration { return l.prevComp }

// Run runs the loop on the calling goroutine until ctx is done, starting at
// the first deadline not before the clock's current time. It locks the
// goroutine to its OS thread for good (see the package doc) and returns
// ctx's error, or an error if the clock cannot sleep. With a standby
// thread, Run returns only after that thread has stopped, so no tick runs
// after Run returns.
func (l *Loop) Run(ctx context.Context) error {
	runtime.LockOSThread()
	// No UnlockOSThread: a thread that may have been made real-time must
	// die with this goroutine rather than run other goroutines.
	if l.cfg.Priority > 0 {
		if err := setRealtime(l.cfg.Priority, &l.Tel.RealTime); err != nil {
			l.logf("rt: loop %s: SCHED_FIFO priority %d not permitted (%v); running at normal priority", l.cfg.Name, l.cfg.Priority, err)
		} else {
			l.Tel.RealTime.Store(true)
			if err := RaiseMonitor(); err != nil {
				l.logf("rt: loop %s: %v; a stall of the monitor can hold this loop's thread (the package doc, \"The runtime's monitor\")", l.cfg.Name, err)
			}
		}
	}
	if l.cfg.Nice != 0 && !l.Tel.RealTime.Load() {
		if err := LockThreadBatch(l.cfg.Nice); err != nil {
			l.logf("rt: loop %s: SCHED_BATCH at nice %d not permitted (%v)", l.cfg.Name, l.cfg.Nice, err)
		}
	}
	var first chan<- int64
	if l.cfg.Standby > 0 && l.Tel.RealTime.Load() {
		sctx, cancel := context.WithCancel(ctx)
		stopped, start := l.startStandby(sctx)
		if stopped != nil {
			first = start
			defer func() {
				cancel()
				<-stopped
			}()
		} else {
			cancel()
		}
	}
	defer l.off.done()
	// First tick: the next grid point at or after now, once the threads
	// are set up (a new thread can take milliseconds on a loaded machine,
	// which would make the first tick late).
	p := l.cfg.Period
	k := int64(max((l.clock.Now()-l.cfg.Offset+p-1)/p, 0))
	l.turn.Store(k)
	if first != nil {
		first <- k
	}
	return l.serve(ctx, k, 0)
}

// startStandby starts the standby thread on one core and pins the calling
// thread to another. The standby runs from the tick index sent on start
// until ctx is done. It returns a channel closed when the standby has
// stopped, or nil, having said why, when there is no standby.
func (l *Loop) startStandby(ctx context.Context) (stopped <-chan struct{}, start chan<- int64) {
	own, other, err := twoCPUs()
	if err != nil {
		l.logf("rt: loop %s: no standby thread (%v)", l.cfg.Name, err)
		return nil, nil
	}
	ready := make(chan error, 1)
	first := make(chan int64, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		// Never unlocked, as in Run.
		err := pinThread(other)
		if err == nil {
			err = setRealtime(l.cfg.Priority, nil)
		}
		if err == nil {
			defer claimStandbyCore(other)()
		}
		ready <- err
		if err != nil {
			return
		}
		if err := l.serve(ctx, <-first, l.cfg.Standby); err != nil && ctx.Err() == nil {
			l.logf("rt: loop %s: standby thread stopped: %v", l.cfg.Name, err)
		}
	}()
	if err := <-ready; err != nil {
		l.logf("rt: loop %s: no standby thread (%v)", l.cfg.Name, err)
		<-done
		return nil, nil
	}
	if err := pinThread(own); err != nil {
		// The standby still covers its own core.
		l.logf("rt: loop %s: thread not pinned (%v)", l.cfg.Name, err)
	}
	l.Tel.Standby.Store(true)
	return done, first
}

// serve is one thread of the loop from tick k on: it wakes delay after
// each deadline and runs the tick unless the loop's other thread has
// claimed it. k is never claimed, so a thread claims only a tick index.
func (l *Loop) serve(ctx context.Context, k int64, delay time.Duration) error {
	done := ctx.Done()
	p := l.cfg.Period
	var yielded time.Duration // when this thread last yielded
	// The loop's own thread may always pass through the scheduler: the
	// standby covers its ticks meanwhile. The standby may only once it has
	// found a tick claimed by the loop's thread, never while it stands in
	// for it: its goroutine comes back from the scheduler only when a
	// normal-priority thread hands it back, and with the loop's core
	// taken, that can take milliseconds behind the other core's work.
	mayYield := delay == 0
	for {
		select {
		case <-done:
			return ctx.Err()
		default:
		}
		if delay == 0 && l.cfg.OffStandby && !l.Tel.RealTime.Load() {
			if moved, err := l.off.keep(l); err != nil {
				l.logf("rt: loop %s: thread not kept off the standby's core (%v)", l.cfg.Name, err)
			} else if moved {
				l.Tel.OffStandby.Store(true)
			}
		}
		deadline := l.cfg.Offset + time.Duration(k)*p
		if err := l.sleep(deadline+delay, &yielded, mayYield); err != nil {
			return fmt.Errorf("rt: loop %s: sleep: %w", l.cfg.Name, err)
		}
		if !l.turn.CompareAndSwap(k, claimed) {
			// The other thread runs this tick or has run it: wait for the
			// next one it has not.
			k = max(k+1, l.turn.Load())
			mayYield = true
			continue
		}
		select {
		case <-done:
			// Cancelled while asleep (by the other thread's tick, say): no
			// tick starts after that.
			l.turn.Store(k)
			return ctx.Err()
		default:
		}
		k = l.tick(deadline, delay > 0)
		mayYield = delay == 0
		l.turn.Store(k)
	}
}

// sleep sleeps until wake, passing through the scheduler every yieldEvery
// on the way, if mayYield, while at least a quarter of the period (at most
// 1 ms) is left, and never while the loop's other thread does; a sleep
// longer than 1.5·yieldEvery is taken in pieces of yieldEvery. yielded is
// when this thread last yielded.
func (l *Loop) sleep(wake time.Duration, yielded *time.Duration, mayYield bool) error {
	if yieldEvery <= 0 {
		return l.clock.sleepUntil(wake)
	}
	slack := min(l.cfg.Period/4, time.Millisecond)
	for {
		now := l.clock.Now()
		if mayYield && now-*yielded >= yieldEvery && wake-now > slack && l.yielding.CompareAndSwap(false, true) {
			runtime.Gosched()
			l.yielding.Store(false)
			*yielded = now
		}
		if wake-now <= yieldEvery+yieldEvery/2 {
			return l.clock.sleepUntil(wake)
		}
		if err := l.clock.sleepUntil(now + yieldEvery); err != nil {
			return err
		}
	}
}

// tick runs the step for deadline and returns the index of the next tick.
func (l *Loop) tick(deadline time.Duration, standby bool) int64 {
	wake := l.clock.Now()
	l.lateness = wake - deadline
	l.step(deadline)
	end := l.clock.Now()
	comp := end - wake
	l.prevComp = comp

	tel := &l.Tel
	tel.Lateness.Record(l.lateness)
	tel.Compute.Record(comp)
	if tel.Ticks.Add(1) == 1 {
		tel.started.Store(int64(deadline))
	}
	tel.last.Store(int64(deadline))
	if l.lateness > time.Millisecond {
		// Each thread writes its own slot: the counter hands them out.
		if n := tel.LateOver1ms.Add(1); n <= MaxLateTicks {
			tel.late[n-1] = LateTick{Deadline: deadline, Lateness: l.lateness, Standby: standby}
		}
	}
	if standby {
		tel.Takeovers.Add(1)
	}
	p := l.cfg.Period
	next := deadline + p
	if end >= next {
		// Overrun: skip to the first grid point after now, count the
		// skipped deadlines, never burst.
		skipped := (end-next)/p + 1
		tel.Overruns.Add(uint64(skipped))
		next += skipped * p
	}
	return int64((next - l.cfg.Offset) / p)
}

func (l *Loop) logf(format string, args ...any) {
	if l.cfg.Logf != nil {
		l.cfg.Logf(format, args...)
	}
}

// ReserveProcs raises GOMAXPROCS so that each of n loop threads about to
// run (standby threads count) can keep a P of its own, with one more to
// spare, and returns a function that takes them back. Call it before
// starting the loops. The Ps add to those other calls hold (AddProcs).
//
// A loop's goroutine spends most of each period in clock_nanosleep, and
// every 10 ms the runtime's sysmon hands the P of a goroutine it finds in a
// system call to any goroutine waiting to run. With GOMAXPROCS equal to
// the core count and the simulation (or any CPU-bound goroutine) holding
// the other Ps, the woken loop then waits in the run queue until some
// goroutine yields: 1-7 ms, measured with the execution tracer. With the
// cores plus one P per loop plus one spare for the recorder and other
// short goroutines, an idle P is there when a loop wakes (the longest
// run-queue wait fell to 10-29 µs under the same load). The extra Ps add no
// CPU-bound work: they are idle while the loops sleep, and the kernel,
// where SCHED_FIFO decides, shares the cores among the threads that run.
func ReserveProcs(n int) (restore func()) {
	return adjustProcs(n + 1)
}

// LockRealtime locks the calling goroutine to its OS thread for good and
// puts that thread (only it) under SCHED_FIFO at priority, for a helper
// that must not wait behind normal threads: one that takes a lock the
// real-time loop also takes (a device link's keeper), or one that stands
// in for hardware (the device emulator). Without the permission it
// returns the error and the thread stays at normal priority.
func LockRealtime(priority int) error {
	runtime.LockOSThread()
	// No UnlockOSThread: a thread made real-time must die with its
	// goroutine rather than run other goroutines.
	return setRealtime(priority, nil)
}

// AddProcs raises GOMAXPROCS by n for threads that will sleep in the
// kernel for the life of something (a device link's keeper thread), and
// returns a function that takes them back. Such a thread keeps its P
// while it sleeps until the runtime's monitor takes it back, and then
// needs an idle one to go on: with more of them than spare Ps, one coming
// back from its sleep waited up to 210 ms.
func AddProcs(n int) (release func()) {
	return adjustProcs(n)
}

// procs is what ReserveProcs and AddProcs hold: each adds to the others,
// so that the Ps of a rig's loops and of its links' threads are all spare
// (with too few, the monitor takes the P of every thread in a system call
// and passes every 20 µs: "The runtime's monitor" in the package doc).
var procs struct {
	sync.Mutex
	base  int // GOMAXPROCS before the first of those held
	extra int // Ps held
}

// adjustProcs adds n Ps (n > 0) above the cores, or the setting before, and
// returns the function that takes them back.
func adjustProcs(n int) (release func()) {
	set := func(d int) {
		procs.Lock()
		defer procs.Unlock()
		if procs.extra == 0 {
			procs.base = runtime.GOMAXPROCS(0)
		}
		procs.extra += d
		if procs.extra == 0 {
			runtime.GOMAXPROCS(procs.base)
			return
		}
		runtime.GOMAXPROCS(max(procs.base, runtime.NumCPU()) + procs.extra)
	}
	set(n)
	var once sync.Once
	return func() { once.Do(func() { set(-n) }) }
}

// Package rt runs a loop in real time: a locked OS thread (and, when
// asked, a standby thread on another core), absolute deadlines on a fixed
// grid, and always-on telemetry. It owns the clock that every loop of a
// run shares, and the request that keeps idle cores polling.
//
// It never allocates per tick and never decides what a tick does: the step
// function is the caller's, and it receives the tick's time explicitly, so
// the same step runs unchanged under the lockstep runner in virtual time.
//
// # Scheduling on Linux
//
// The loop's goroutine locks itself to its OS thread and sleeps with
// clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME) until each absolute
// deadline start + k·period. When asked for a real-time priority it puts
// that thread alone (never the whole process) under SCHED_FIFO; when the
// system does not permit it, it says so once through Config.Logf and runs
// at normal priority. It never busy-waits: a spinning SCHED_FIFO thread is
// throttled by the kernel for ~50 ms every second (real-time tasks get
// sched_rt_runtime_us = 950000 of every sched_rt_period_us = 1000000; the
// kernel's Documentation/scheduler/sched-rt-group.rst).
//
// Sleeping in a system call lets the Go scheduler give the loop's P to
// another goroutine; a loop that then wakes with every P busy waits in the
// run queue for milliseconds. ReserveProcs, called before the loops start,
// gives each loop a P of its own.
//
// # The runtime's monitor
//
// A sleep in a system call the scheduler sees lets its monitor thread
// (sysmon) lock the sleeping goroutine's status for a moment, on each of
// its passes, to decide whether to retake its P (Go 1.26). If the
// sleeper's timer expires while a normal-priority monitor holds that lock
// on the same core, the real-time thread preempts it and then spins in
// the runtime's exitsyscall until the kernel moves the monitor to another
// core, and everything queued on that core (the kernel's tty worker,
// which carries the device lines' bytes) waits as long. So the first
// thread made real-time raises the monitor itself to SCHED_FIFO at
// MonitorPriority, above the loops (RaiseMonitor): its pass, a few µs,
// then always ends before a loop can take its core.
// TestMonitorInversion builds the case; docs/safety.md has the figures.
//
// The monitor takes a P from a sleeper, and then passes every 20 µs, when
// the goroutine on that P has not been through the scheduler for 10 ms:
// it takes that for a goroutine that ran too long. A locked goroutine that
// only sleeps in system calls never goes through it, so one such loop kept
// the monitor at its shortest interval for the life of the loop (the
// README has the figures), preempting whatever shared its core at each;
// and it takes the P of any sleep longer than 10 ms. So each
// of a loop's threads calls runtime.Gosched every 4 ms, when a quarter of
// a period (at most 1 ms) or more is left before its next wake-up, and
// never both threads at once, and sleeps longer than 6 ms in pieces: a
// real-time thread then waits for a normal one to hand its goroutine
// back, as after any preemption, and the other thread covers its tick.
// The standby yields only once it has found a tick claimed by the loop's
// thread, never while it stands in for that thread: with the loop's core
// taken, the normal thread that hands the standby back waits behind the
// other core's work, for 7 to 15 ms beside the race run's device tests.
// Standing in for longer than 10 ms without a pass, it is preempted by
// the monitor all the same, once each 10 ms.
// TestLoopLetsMonitorRest compares the monitor's passes with and without
// it.
//
// # Sleeping without the scheduler
//
// Sleep sleeps in a raw system call: the goroutine never leaves the
// running state and the monitor never takes the lock. The device
// emulator, which does not allocate while it runs, sleeps so. A process
// that collects garbage must not: each stop-the-world then preempts the
// sleeping goroutine, which needs another thread to hand its P back, so
// the loops here keep the scheduler's sleep (the host's 1 kHz loop with
// Sleep: 613 of 23,600 ticks over 1 ms late against 20 with the
// scheduler's sleep, at load 17).
//
// The thread is never unlocked: when the loop returns, its goroutine exits
// locked, so the runtime retires the thread instead of handing a real-time
// thread to other goroutines.
//
// # Watchdog
//
// The Go runtime busy-waits in a few places (the garbage collector waits
// so for a goroutine to stop), and a SCHED_FIFO thread that spins waiting
// for a thread of lower priority holds both forever. The first thread
// made real-time starts a watchdog process at the highest priority that
// puts any real-time thread of this one that runs 75 % of 500 ms back
// under normal scheduling (watchdog_linux.go, Demotions).
//
// # Standby
//
// A host (a hypervisor above all) may stop one core for milliseconds, or
// wake a halted one late. With Config.Standby, a real-time loop pins its
// thread to one core and runs a second SCHED_FIFO thread on another, which
// wakes Standby after each deadline. Whichever thread swaps the tick's
// index for "claimed" runs the tick, so no tick runs twice or two at once.
// HoldIdlePoll keeps idle cores out of halt altogether.
//
// A CPU-bound loop at normal priority can keep off the standby's core
// (Config.OffStandby), and the runtime's monitor then runs there. The
// monitor passes thousands of times a second while loop threads sleep in
// system calls, and a standby's sleeps add to that; raised above the
// loops, each pass preempts whatever runs on its core. Beside the
// standby, which only wakes, it preempts nothing that computes (the
// README has the figures).
//
// # Overruns
//
// A tick that ends after the next deadline (or wakes after it) is an
// overrun: the deadlines it missed are skipped and counted, and the next
// deadline stays on the grid. The loop never runs ticks back to back to
// catch up, so a slow tick never turns into a burst of commands.
//
// On systems other than Linux the loop sleeps with time.Sleep, which wakes
// about 0.5 ms late on average; Telemetry.RealTime reports false there.
package rt

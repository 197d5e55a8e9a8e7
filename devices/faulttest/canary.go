package faulttest

import (
	"context"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/haptex/haptex/devices/emu"
	"github.com/haptex/haptex/devices/transport"
	"github.com/haptex/haptex/internal/rt"
)

// Canaries tell a stop of the machine from a fault of the code under
// test: one thread pinned to each CPU, under SCHED_FIFO at the priority
// given (where permitted), wakes every millisecond and records when it
// woke more than Hold late. This virtual machine stops one CPU at a time
// for milliseconds (README, "Real-time timing"), and then every thread on
// that CPU stops with it, whatever its code; a canary on that CPU sees
// it. A thread of the code under test that is late while every canary ran
// on time was held by the code (or the Go runtime), not by the machine.
//
// One more canary watches the lines: every millisecond it sends a byte
// through a pseudo-terminal of its own and records when the byte took
// more than Hold to arrive. Bytes written to a terminal reach its reader
// through a kernel worker thread at normal priority, so a loaded machine
// can hold every line's bytes for tens of milliseconds while every CPU
// canary runs on time (docs/safety.md, "Scheduling on a shared machine");
// a frame so held between host and device is the machine's doing, not
// the code's.
type Canaries struct {
	clock *rt.Clock
	mu    sync.Mutex
	spans [][2]time.Duration // [from, to] on clock
	sent  time.Duration      // when the line canary's byte in flight was sent (0: none)
	n     int                // threads started
}

// Hold is the lateness a canary records as a stop of its CPU.
const Hold = 4 * time.Millisecond

// StartCanaries starts a canary on every CPU this process may use; they
// run until ctx is done. Each keeps a thread asleep in the kernel, so give
// the process a P for each (rt.ReserveProcs(c.Threads())).
func StartCanaries(ctx context.Context, clock *rt.Clock, priority int) *Canaries {
	c := &Canaries{clock: clock}
	var set unix.CPUSet
	if unix.SchedGetaffinity(0, &set) != nil {
		return c
	}
	for cpu := range 1024 {
		if !set.IsSet(cpu) {
			continue
		}
		c.n++
		go c.run(ctx, cpu, priority)
	}
	if line, err := emu.OpenLine("line canary"); err == nil {
		if rd, err := unix.Open(line.TTY(), unix.O_RDWR|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0); err == nil {
			c.n++
			go c.watchLine(ctx, line, rd, priority)
		} else {
			line.Close()
		}
	}
	return c
}

// Threads is the number of canary threads.
func (c *Canaries) Threads() int { return c.n }

func (c *Canaries) run(ctx context.Context, cpu, priority int) {
	_ = rt.LockRealtime(priority)
	var one unix.CPUSet
	one.Set(cpu)
	_ = unix.SchedSetaffinity(0, &one)
	ts := unix.NsecToTimespec(int64(time.Millisecond))
	for ctx.Err() == nil {
		t0 := c.clock.Now()
		_ = unix.ClockNanosleep(unix.CLOCK_MONOTONIC, 0, &ts, nil)
		if t1 := c.clock.Now(); t1-t0 > time.Millisecond+Hold {
			c.mu.Lock()
			c.spans = append(c.spans, [2]time.Duration{t0, t1})
			c.mu.Unlock()
		}
	}
}

// watchLine is the line canary: it writes a byte on the line's master
// every millisecond it has none in flight and takes it from the slave
// (rd) once the kernel says it has arrived (transport.ReadArrived: a
// read of the empty line would itself wait for the worker).
func (c *Canaries) watchLine(ctx context.Context, line emu.Line, rd int, priority int) {
	defer line.Close()
	defer unix.Close(rd)
	_ = rt.LockRealtime(priority)
	ts := unix.NsecToTimespec(int64(time.Millisecond))
	var b [64]byte
	for ctx.Err() == nil {
		_ = unix.ClockNanosleep(unix.CLOCK_MONOTONIC, 0, &ts, nil)
		now := c.clock.Now()
		c.mu.Lock()
		sent := c.sent
		c.mu.Unlock()
		if sent != 0 {
			if n, _ := transport.ReadArrived(rd, b[:]); n <= 0 {
				continue
			}
			c.mu.Lock()
			if now-sent > time.Millisecond+Hold {
				c.spans = append(c.spans, [2]time.Duration{sent, now})
			}
			c.sent = 0
			c.mu.Unlock()
		}
		if n, err := unix.Write(line.Fd(), []byte{0x55}); n == 1 && err == nil {
			c.mu.Lock()
			c.sent = max(c.clock.Now(), 1)
			c.mu.Unlock()
		}
	}
}

// Held reports the longest stop of a CPU, or hold of a line's bytes, that
// overlaps [from, to] on the clock, 0 if none.
func (c *Canaries) Held(from, to time.Duration) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	var worst time.Duration
	for _, sp := range c.spans {
		if sp[0] < to && sp[1] > from {
			worst = max(worst, sp[1]-sp[0]-time.Millisecond)
		}
	}
	if c.sent != 0 && c.sent < to { // a byte still held
		worst = max(worst, c.clock.Now()-c.sent-time.Millisecond)
	}
	return worst
}

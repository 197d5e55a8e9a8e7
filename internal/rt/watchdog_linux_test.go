//go:build linux

package rt

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func policy(t *testing.T) uintptr {
	p, _, errno := unix.RawSyscall(unix.SYS_SCHED_GETSCHEDULER, 0, 0, 0)
	if errno != 0 {
		t.Error(errno)
	}
	return p
}

// needFIFO skips the test where this process may not use SCHED_FIFO.
func needFIFO(t *testing.T) {
	err := make(chan error)
	go func() { err <- LockRealtime(1) }() // the thread dies with the goroutine
	if e := <-err; e != nil {
		t.Skipf("SCHED_FIFO not permitted: %v", e)
	}
}

// A real-time loop whose tick never ends is put back under normal
// scheduling, and says so; the tick sees its own thread demoted.
func TestWatchdogDemotesSpinner(t *testing.T) {
	needFIFO(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	before := Demotions()
	demoted := make(chan bool, 1)
	l := New(Config{Name: "spinner", Period: time.Millisecond, Priority: 5}, NewClock(), func(time.Duration) {
		select {
		case <-ctx.Done():
			return
		default:
		}
		// Spin as the runtime does while it waits for a thread that cannot
		// run; the bound only keeps a broken watchdog from hanging the test.
		for end := time.Now().Add(20 * time.Second); time.Now().Before(end); {
			if policy(t) != unix.SCHED_FIFO {
				demoted <- true
				cancel()
				return
			}
		}
		demoted <- false
		cancel()
	})
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	<-done
	if !<-demoted {
		t.Fatal("a real-time thread spun for 20 s and was not demoted")
	}
	// The watchdog process tells this one through a pipe, read by a
	// goroutine of its own: wait for the word.
	for end := time.Now().Add(10 * time.Second); l.Tel.RealTime.Load() || Demotions() <= before; {
		if time.Now().After(end) {
			t.Fatalf("10 s after the demotion: Telemetry.RealTime %v, Demotions() %d (was %d)",
				l.Tel.RealTime.Load(), Demotions(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

var sink atomic.Pointer[[]byte]

// The case the watchdog is for: a real-time thread that allocates helps
// the collector scan the stack of a goroutine running on a thread of lower
// real-time priority on the same core, and spins, yielding, until that
// goroutine stops, which it cannot do without the core. The whole process
// then stops at the collector's next stop-the-world: without the watchdog
// this test never ends (it hung in each of 3 tries within 3 s).
func TestWatchdogEndsInversion(t *testing.T) {
	needFIFO(t)
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Skip(err)
	}
	cpu := 0
	for !set.IsSet(cpu) {
		cpu++
	}
	before := Demotions()
	onCore := func(priority int) {
		if err := LockRealtime(priority); err != nil {
			t.Error(err)
		}
		if err := pinThread(cpu); err != nil {
			t.Error(err)
		}
	}
	var stop atomic.Bool
	done := make(chan struct{}, 2)
	go func() { // low: computes, and sleeps now and then
		onCore(20)
		for x := 0; !stop.Load(); {
			for i := range 200000 {
				x += i * i
			}
			_ = unix.ClockNanosleep(unix.CLOCK_MONOTONIC, 0, &unix.Timespec{Nsec: 200000}, nil)
		}
		done <- struct{}{}
	}()
	go func() { // high: allocates, so it assists the collector
		onCore(22)
		for !stop.Load() {
			for range 1000 {
				b := make([]byte, 4096)
				sink.Store(&b)
			}
			_ = unix.ClockNanosleep(unix.CLOCK_MONOTONIC, 0, &unix.Timespec{Nsec: 100000}, nil)
		}
		done <- struct{}{}
	}()
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	stop.Store(true)
	<-done
	<-done
	t.Logf("%d threads demoted", Demotions()-before)
}

// A real-time loop that sleeps between its ticks keeps its priority.
func TestWatchdogSparesSleeper(t *testing.T) {
	needFIFO(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var fifo bool
	l := New(Config{Name: "sleeper", Period: time.Millisecond, Priority: 5}, NewClock(), func(time.Duration) {
		fifo = policy(t) == unix.SCHED_FIFO
	})
	// Three of the watchdog's windows.
	go func() {
		for range 3 * watchWindow {
			_ = unix.ClockNanosleep(unix.CLOCK_MONOTONIC, 0, &unix.Timespec{Nsec: int64(watchEvery)}, nil)
		}
		cancel()
	}()
	if err := l.Run(ctx); err != context.Canceled {
		t.Fatal(err)
	}
	if !fifo {
		t.Error("a loop that sleeps between ticks lost SCHED_FIFO")
	}
}

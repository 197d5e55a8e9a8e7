//go:build linux

package rt

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// A higher-priority thread takes the loop's core for 20 ms, as a host does
// when it stops a virtual CPU: the standby thread on the other core runs
// the ticks meanwhile, and Run returns only once it has stopped.
func TestStandbyRunsTicksWhileTheCoreIsTaken(t *testing.T) {
	own, _, err := twoCPUs()
	if err != nil {
		t.Skipf("needs two cores: %v", err)
	}
	// A P for each of the loop's threads and the thread taking the core,
	// as the rig reserves them (see ReserveProcs).
	defer ReserveProcs(3)()
	const period = time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	var n int
	var last atomic.Int64
	var spun atomic.Bool // the core was taken for the whole 20 ms
	spunAt := 0
	taken := make(chan error, 1)
	var l *Loop
	l = New(Config{Name: "standby", Period: period, Priority: 10, Standby: 200 * time.Microsecond}, NewClock(), func(d time.Duration) {
		last.Store(int64(d))
		switch n++; n {
		case 20:
			go func() {
				runtime.LockOSThread() // never unlocked: the thread dies with it
				if err := pinThread(own); err != nil {
					taken <- err
					return
				}
				// Running on the loop's core at normal priority, this
				// thread runs only while the loop's thread is off it. Take
				// the core between ticks: taken in the middle of one (the
				// tick that starts this goroutine, its thread blocked in
				// the runtime, as under load with the race detector), the
				// tick overruns across the 20 ms and no thread may run the
				// deadlines it spans.
				for l.turn.Load() == claimed {
					time.Sleep(50 * time.Microsecond)
				}
				if err := setRealtime(20, nil); err != nil {
					taken <- err
					return
				}
				for end := time.Now().Add(20 * time.Millisecond); time.Now().Before(end); {
				}
				spun.Store(true)
				taken <- nil
			}()
		}
		// On a loaded machine the goroutine taking the core may start
		// late: stop 20 ticks after it has spun, or after 10 s without.
		if spunAt == 0 && spun.Load() {
			spunAt = n
		}
		if (spunAt > 0 && n >= spunAt+20) || n == 10000 {
			cancel()
		}
	})
	if err := l.Run(ctx); err != context.Canceled {
		t.Fatalf("Run returned %v", err)
	}
	if !l.Tel.RealTime.Load() {
		t.Skip("SCHED_FIFO not permitted: no standby")
	}
	if !l.Tel.Standby.Load() {
		t.Fatal("no standby thread on a machine with two cores and SCHED_FIFO")
	}
	if err := <-taken; err != nil {
		t.Fatalf("taking the loop's core: %v", err)
	}
	if got := l.Tel.Takeovers.Load(); got < 5 {
		t.Errorf("the standby ran %d ticks while the loop's core was taken for 20 periods", got)
	}
	// Nothing ticks after Run has returned.
	before := last.Load()
	time.Sleep(3 * period)
	if last.Load() != before {
		t.Error("a tick ran after Run returned")
	}
}

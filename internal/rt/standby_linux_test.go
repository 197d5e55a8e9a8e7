//go:build linux

package rt

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A higher-priority process takes the loop's core for 20 ms, as a host
// does when it stops a virtual CPU: the standby thread on the other core
// runs the ticks meanwhile, and Run returns only once it has stopped. The
// standby runs at the loop's priority (10): beside other real-time work
// on its core (the race run's other test binaries run device threads at
// 60-80) it can be held for part of the 20 ms too, so up to three runs
// are made, and the test fails only if none has the standby run at least
// 15 of the 20 ticks.
func TestStandbyRunsTicksWhileTheCoreIsTaken(t *testing.T) {
	own, _, err := twoCPUs()
	if err != nil {
		t.Skipf("needs two cores: %v", err)
	}
	var got []uint64
	for range 3 {
		n := standbyTakeovers(t, own)
		got = append(got, n)
		if n >= 15 {
			if len(got) > 1 {
				t.Logf("the standby ran %v ticks in the runs before the one that decided", got[:len(got)-1])
			}
			return
		}
	}
	t.Errorf("the standby ran %v ticks in three runs while the loop's core was taken for 20 periods", got)
}

// standbyTakeovers runs a 1 ms loop with a standby, takes the loop's core
// (own) for 20 ms, and returns how many ticks the standby ran.
func standbyTakeovers(t *testing.T, own int) uint64 {
	t.Helper()
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
				err := takeCore(20 * time.Millisecond)
				spun.Store(true)
				taken <- err
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
	// Run locks its thread and pins it to one core for good: on a
	// goroutine of its own, the thread ends with it, and the next run
	// starts from a thread that may use both cores.
	ran := make(chan error, 1)
	go func() { ran <- l.Run(ctx) }()
	if err := <-ran; err != context.Canceled {
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
	// Nothing ticks after Run has returned.
	before := last.Load()
	time.Sleep(3 * period)
	if last.Load() != before {
		t.Error("a tick ran after Run returned")
	}
	return l.Tel.Takeovers.Load()
}

// spinEnv, in a copy of the test binary's environment, has it spin until
// the CLOCK_MONOTONIC time it holds [ns] instead of running the tests.
const spinEnv = "HAPTEX_RT_TEST_SPIN_UNTIL"

func TestMain(m *testing.M) {
	if v, ok := os.LookupEnv(spinEnv); ok {
		os.Exit(spin(v))
	}
	os.Exit(m.Run())
}

// takeCore runs a copy of the test binary that spins until d from now,
// and waits for it. Forked from a thread pinned to one core under
// SCHED_FIFO, the copy and every thread it starts run on that core at
// that priority, so no thread of lower priority runs there until it
// exits. A spin on a thread of this process would not hold the core so:
// the runtime's monitor preempts a goroutine that has run 10 ms, and its
// locked thread then leaves the core until a normal-priority thread hands
// the goroutine back, milliseconds on a loaded machine, while the loop's
// thread runs in the gap.
func takeCore(d time.Duration) error {
	cmd := exec.Command("/proc/self/exe", "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", spinEnv, monotonicNow()+d.Nanoseconds()))
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("the copy of the test binary taking the core: %w", err)
	}
	return nil
}

// spin busy-waits until the CLOCK_MONOTONIC time v [ns], 100 ms at most,
// and returns the exit code: 2 if v is not a time.
func spin(v string) int {
	end, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 2
	}
	now := monotonicNow()
	for end = min(end, now+(100*time.Millisecond).Nanoseconds()); now < end; now = monotonicNow() {
	}
	return 0
}

func monotonicNow() int64 {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return ts.Nano()
}

// A loop with OffStandby runs off the standby's core while a standby
// runs, and the runtime's monitor runs on that core while such a loop
// does; each gets its cores back when the other stops. A standby alone
// leaves the monitor where it was. Both orders of start are run, as the
// rig's loops start in no set order.
func TestStandbyCoreKeepsMonitorAway(t *testing.T) {
	_, other, err := twoCPUs()
	if err != nil {
		t.Skipf("needs two cores: %v", err)
	}
	needFIFO(t)
	if err := RaiseMonitor(); err != nil {
		t.Fatal(err)
	}
	defer ReserveProcs(3)()
	monitorBefore := affinity(t, monitor.tid)
	clock := NewClock()
	monitorOn := func(want []int, when string) {
		t.Helper()
		if got := affinity(t, monitor.tid); !slices.Equal(got, want) {
			t.Errorf("%s the monitor may run on %v, want %v", when, got, want)
		}
	}

	t.Run("standby first", func(t *testing.T) {
		rtl := startStandby(t, clock)
		monitorOn(monitorBefore, "with a standby alone")
		allowed, offCores, stopBatch, _ := startBatch(t, clock)
		want := withoutCore(allowed, other)
		waitFor(t, "the batch loop off the standby's core", func() bool { return slices.Equal(offCores(), want) })
		monitorOn([]int{other}, "beside a loop kept off the standby's core")
		stopBatch()
		monitorOn(monitorBefore, "once the loop kept off has stopped")
		rtl.stop(t)
	})
	t.Run("batch first", func(t *testing.T) {
		allowed, offCores, stopBatch, tel := startBatch(t, clock)
		if !slices.Contains(allowed, other) {
			t.Fatalf("the batch loop may run on %v before any standby, not on the standby's core %d", allowed, other)
		}
		monitorOn(monitorBefore, "with no standby")
		if tel.OffStandby.Load() {
			t.Error("the batch loop's telemetry says it ran off a standby's core before any standby ran")
		}
		rtl := startStandby(t, clock)
		want := withoutCore(allowed, other)
		waitFor(t, "the batch loop off the standby's core", func() bool { return slices.Equal(offCores(), want) })
		monitorOn([]int{other}, "beside a loop kept off the standby's core")
		if !tel.OffStandby.Load() {
			t.Error("the batch loop ran off the standby's core and its telemetry does not say so")
		}
		rtl.stop(t)
		waitFor(t, "the batch loop back on every core", func() bool { return slices.Equal(offCores(), allowed) })
		monitorOn(monitorBefore, "once the standby has stopped")
		stopBatch()
	})
}

type runningLoop struct {
	cancel context.CancelFunc
	done   chan error
}

func (r runningLoop) stop(t *testing.T) {
	t.Helper()
	r.cancel()
	if err := <-r.done; err != context.Canceled {
		t.Fatalf("the loop returned %v", err)
	}
}

// startStandby starts a 1 kHz real-time loop with a standby thread.
func startStandby(t *testing.T, clock *Clock) runningLoop {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	l := New(Config{Name: "rt", Period: time.Millisecond, Priority: 10, Standby: 200 * time.Microsecond, Logf: t.Logf}, clock, func(time.Duration) {})
	r := runningLoop{cancel, make(chan error, 1)}
	go func() { r.done <- l.Run(ctx) }()
	t.Cleanup(cancel)
	waitFor(t, "the real-time loop's first tick", func() bool { return l.Tel.Ticks.Load() > 0 })
	if !l.Tel.RealTime.Load() {
		t.Skip("SCHED_FIFO not permitted: no standby")
	}
	if !l.Tel.Standby.Load() {
		t.Fatal("no standby thread on a machine with two cores and SCHED_FIFO")
	}
	return r
}

// startBatch starts a 1 kHz batch loop with OffStandby, and returns the
// cores its thread could run on at its first tick, a function that reads
// them at its latest, one that stops it, and its telemetry.
func startBatch(t *testing.T, clock *Clock) (first []int, latest func() []int, stop func(), tel *Telemetry) {
	t.Helper()
	var cur atomic.Pointer[[]int]
	ctx, cancel := context.WithCancel(context.Background())
	l := New(Config{Name: "batch", Period: time.Millisecond, Nice: 5, OffStandby: true, Logf: t.Logf}, clock, func(time.Duration) {
		c, _ := cores(0) // nil on an error, which no wait accepts
		cur.Store(&c)
	})
	r := runningLoop{cancel, make(chan error, 1)}
	go func() { r.done <- l.Run(ctx) }()
	t.Cleanup(cancel)
	waitFor(t, "the batch loop's first tick", func() bool { return cur.Load() != nil })
	first = *cur.Load()
	if first == nil {
		t.Fatal("the batch loop could not read its thread's cores")
	}
	return first, func() []int { return *cur.Load() }, func() { r.stop(t) }, &l.Tel
}

func withoutCore(cores []int, c int) []int {
	return slices.DeleteFunc(slices.Clone(cores), func(x int) bool { return x == c })
}

// affinity lists the cores thread tid may run on.
func affinity(t *testing.T, tid int) []int {
	c, err := cores(tid)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// cores lists the cores thread tid (0: the calling one) may run on.
func cores(tid int) ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(tid, &set); err != nil {
		return nil, err
	}
	return coresOf(&set), nil
}

// waitFor polls cond every millisecond for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("waited 10 s for %s", what)
}

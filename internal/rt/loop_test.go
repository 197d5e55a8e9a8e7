package rt

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// The step receives deadlines on the grid, in order, and the telemetry
// counts every tick. Timing itself is only checked qualitatively here: the
// machine is shared, so latency figures belong to `haptex bench loop`.
func TestLoopDeadlinesOnGrid(t *testing.T) {
	clock := NewClock()
	const period = 2 * time.Millisecond
	var ts []time.Duration
	ctx, cancel := context.WithCancel(context.Background())
	l := New(Config{Name: "grid", Period: period, Offset: 500 * time.Microsecond}, clock, func(t time.Duration) {
		ts = append(ts, t)
		if len(ts) == 50 {
			cancel()
		}
	})
	if err := l.Run(ctx); err != context.Canceled {
		t.Fatalf("Run returned %v, want context.Canceled", err)
	}
	for i, v := range ts {
		if (v-500*time.Microsecond)%period != 0 {
			t.Fatalf("tick %d at %v: not on the grid", i, v)
		}
		if i > 0 && v <= ts[i-1] {
			t.Fatalf("tick %d at %v not after %v", i, v, ts[i-1])
		}
	}
	if got := l.Tel.Ticks.Load(); got != 50 {
		t.Fatalf("telemetry counted %d ticks, want 50", got)
	}
	if l.Tel.Lateness.Count() != 50 || l.Tel.Compute.Count() != 50 {
		t.Fatalf("histograms hold %d and %d samples", l.Tel.Lateness.Count(), l.Tel.Compute.Count())
	}
}

// A tick that takes 3.5 periods makes the loop skip to the next grid point
// after it ends: three deadlines skipped and counted, no burst of ticks.
func TestLoopOverrunSkipsOnGrid(t *testing.T) {
	clock := NewClock()
	const period = 5 * time.Millisecond
	var ts []time.Duration
	ctx, cancel := context.WithCancel(context.Background())
	l := New(Config{Name: "overrun", Period: period}, clock, func(t time.Duration) {
		ts = append(ts, t)
		if len(ts) == 2 {
			time.Sleep(3*period + period/2)
		}
		if len(ts) == 4 {
			cancel()
		}
	})
	l.Run(ctx)
	gap := ts[2] - ts[1]
	// The slow tick ends 3.5 periods after its deadline (or later on a busy
	// machine): the next tick is at least 4 periods later, on the grid.
	if gap < 4*period || gap%period != 0 {
		t.Fatalf("after a 3.5-period tick the next deadline came %v later", gap)
	}
	if skipped := uint64(gap/period - 1); l.Tel.Overruns.Load() < skipped {
		t.Fatalf("overruns %d, want at least %d", l.Tel.Overruns.Load(), skipped)
	}
}

// Once running, the loop itself allocates nothing per tick.
func TestLoopAllocatesNothingPerTick(t *testing.T) {
	clock := NewClock()
	ctx, cancel := context.WithCancel(context.Background())
	var before, after runtime.MemStats
	n := 0
	l := New(Config{Name: "alloc", Period: 200 * time.Microsecond}, clock, func(time.Duration) {
		n++
		switch n {
		case 100:
			runtime.ReadMemStats(&before)
		case 1100:
			runtime.ReadMemStats(&after)
			cancel()
		}
	})
	l.Run(ctx)
	// ReadMemStats itself does not count as a malloc; anything else in the
	// 1000 ticks between the two reads would.
	if d := after.Mallocs - before.Mallocs; d > 5 {
		t.Fatalf("%d allocations over 1000 ticks", d)
	}
}

func TestNewPanicsOnBadPeriod(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("zero period did not panic")
		}
	}()
	New(Config{Name: "bad"}, NewClock(), func(time.Duration) {})
}

func TestRealtimeRefusalIsReportedOnce(t *testing.T) {
	if !RealtimeSupported() {
		t.Skip("no real-time scheduling on this platform")
	}
	var notices int
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	l := New(Config{Name: "fifo", Period: time.Millisecond, Priority: 10,
		Logf: func(string, ...any) { notices++ }}, NewClock(), func(time.Duration) {
		if n++; n == 20 {
			cancel()
		}
	})
	l.Run(ctx)
	// Either the system granted SCHED_FIFO (root) and said nothing, or it
	// refused and said so exactly once; the loop ran in both cases.
	if l.Tel.RealTime.Load() == (notices != 0) || notices > 1 {
		t.Fatalf("realtime=%v with %d notices", l.Tel.RealTime.Load(), notices)
	}
	if n != 20 {
		t.Fatalf("loop ran %d ticks", n)
	}
}

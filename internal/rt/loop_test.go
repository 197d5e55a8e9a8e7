package rt

import (
	"context"
	"runtime"
	"sync/atomic"
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
	l := New(Config{Name: "alloc", Period: 200 * time.Microsecond, OffStandby: true}, clock, func(time.Duration) {
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
	// Mallocs counts the whole process: the runtime, the race detector and
	// the test framework allocate a few times in 1000 ticks (7 seen in CI).
	// An allocation on any path taken once in 20 ticks or more often still
	// exceeds the bound.
	if d := after.Mallocs - before.Mallocs; d >= 50 {
		t.Fatalf("%d allocations over 1000 ticks", d)
	}
}

func TestNewPanicsOnBadConfig(t *testing.T) {
	for _, c := range []Config{
		{Name: "zero period"},
		{Name: "priority", Period: time.Millisecond, Priority: 100},
		{Name: "standby", Period: time.Millisecond, Standby: time.Millisecond},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", c.Name)
				}
			}()
			New(c, NewClock(), func(time.Duration) {})
		}()
	}
}

func TestRealtimeRefusalIsReportedOnce(t *testing.T) {
	if !realtimeSupported {
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

// Two threads serving one loop, the second woken later (as the standby is)
// or both at the deadline: every tick runs once, never two at a time, on
// the grid and in order, and the ticks and skipped deadlines add up to the
// grid points the run spanned.
func TestServeTwoThreadsRunEachTickOnce(t *testing.T) {
	for _, delay := range []time.Duration{0, 300 * time.Microsecond} {
		const period = time.Millisecond
		var ts []time.Duration
		var inStep atomic.Int32
		var skippedBefore uint64
		ctx, cancel := context.WithCancel(context.Background())
		var l *Loop
		l = New(Config{Name: "two", Period: period}, NewClock(), func(d time.Duration) {
			if inStep.Add(1) != 1 {
				t.Errorf("delay %v: two ticks at once at %v", delay, d)
			}
			ts = append(ts, d)
			if len(ts) == 10 {
				time.Sleep(5 * period / 2) // an overrun, taken by either thread
			}
			if len(ts) == 200 {
				// The last tick's own overrun, if it has one, skips grid
				// points after the span: count only those before it.
				skippedBefore = l.Tel.Overruns.Load()
				cancel()
			}
			inStep.Add(-1)
		})
		k := int64(l.clock.Now()/period) + 1
		l.turn.Store(k)
		done := make(chan error)
		for _, d := range []time.Duration{0, delay} {
			go func() { done <- l.serve(ctx, k, d) }()
		}
		for range 2 {
			if err := <-done; err != context.Canceled {
				t.Fatalf("serve returned %v", err)
			}
		}
		if len(ts) != 200 {
			t.Fatalf("delay %v: %d ticks", delay, len(ts))
		}
		for i := 1; i < len(ts); i++ {
			if ts[i]%period != 0 || ts[i] <= ts[i-1] {
				t.Fatalf("delay %v: tick %d at %v after %v", delay, i, ts[i], ts[i-1])
			}
		}
		tel := &l.Tel
		if span := uint64((ts[len(ts)-1]-ts[0])/period) + 1; tel.Ticks.Load()+skippedBefore != span {
			t.Errorf("delay %v: %d ticks and %d skipped over %d grid points", delay, tel.Ticks.Load(), skippedBefore, span)
		}
		if skippedBefore < 2 {
			t.Errorf("delay %v: a 2.5-period tick skipped %d deadlines", delay, skippedBefore)
		}
	}
}

// A thread that starts while the other runs a tick (the standby starting
// as the loop's first tick runs) waits for it: it runs nothing while the
// tick is claimed.
func TestServeWaitsWhileATickIsClaimed(t *testing.T) {
	const period = time.Millisecond
	ran := 0
	l := New(Config{Name: "claimed", Period: period}, NewClock(), func(time.Duration) { ran++ })
	k := int64(l.clock.Now() / period)
	l.turn.Store(claimed)
	ctx, cancel := context.WithTimeout(context.Background(), 10*period)
	defer cancel()
	if err := l.serve(ctx, k, 0); err != context.DeadlineExceeded {
		t.Fatalf("serve returned %v", err)
	}
	if ran != 0 {
		t.Fatalf("%d ticks ran while another thread held the tick", ran)
	}
}

// A tick that wakes more than 1 ms after its deadline is kept with its
// deadline, lateness and thread, the first MaxLateTicks of them in order,
// without allocating; a tick on time is not kept.
func TestLateTicksRecorded(t *testing.T) {
	clock := NewClock()
	l := New(Config{Name: "late", Period: time.Millisecond}, clock, func(time.Duration) {})
	l.tick(clock.Now(), false)
	if n := len(l.Tel.LateTicks()); n != 0 {
		t.Fatalf("a tick on time was kept as late (%d kept)", n)
	}
	var want []time.Duration
	for i := range MaxLateTicks + 6 {
		d := clock.Now() - time.Duration(2+i%3)*time.Millisecond
		want = append(want, d)
		l.tick(d, i%2 == 1)
	}
	got := l.Tel.LateTicks()
	if len(got) != MaxLateTicks || l.Tel.LateOver1ms.Load() != MaxLateTicks+6 {
		t.Fatalf("kept %d late ticks, counted %d; want %d and %d", len(got), l.Tel.LateOver1ms.Load(), MaxLateTicks, MaxLateTicks+6)
	}
	for i, g := range got {
		if g.Deadline != want[i] || g.Standby != (i%2 == 1) || g.Lateness < time.Duration(2+i%3)*time.Millisecond {
			t.Fatalf("late tick %d: %+v, want deadline %v, lateness >= %v, standby %v", i, g, want[i], time.Duration(2+i%3)*time.Millisecond, i%2 == 1)
		}
	}
	l2 := New(Config{Name: "late", Period: time.Millisecond}, clock, func(time.Duration) {})
	if a := testing.AllocsPerRun(100, func() { l2.tick(clock.Now()-2*time.Millisecond, false) }); a != 0 {
		t.Fatalf("a late tick allocates %v times", a)
	}
}

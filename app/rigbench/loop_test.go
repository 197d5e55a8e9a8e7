package rigbench

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/haptex/haptex/app/rig"
)

// The loop bench runs the haptics loop beside its load and then the empty
// loop of the host baseline; both count every tick they ran and no more
// than the 1 ms grid has room for in the time they measured. (On a loaded
// host a loop stops late: the baseline once ran 113 ms of its 100, 105
// ticks.)
func TestBenchLoop(t *testing.T) {
	b, err := Loop(context.Background(), LoopConfig{Duration: 200 * time.Millisecond, Baseline: 100 * time.Millisecond, NormalPriority: true, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v %+v", b, b.Baseline)
	room := func(s float64) uint64 { return uint64(s*1000) + 2 }
	if b.Bench != "loop" || b.RT || b.Ticks == 0 || b.Ticks > room(b.DurationS) || b.LoadRounds == 0 {
		t.Errorf("bench %q, rt %v, %d ticks, %d load rounds", b.Bench, b.RT, b.Ticks, b.LoadRounds)
	}
	if b.LateOver1ms > b.Ticks || b.LatenessUs.P50 > b.LatenessUs.Max {
		t.Errorf("%d late of %d; lateness %+v", b.LateOver1ms, b.Ticks, b.LatenessUs)
	}
	h := b.Baseline
	if h == nil {
		t.Fatal("no baseline")
	}
	if h.RT || h.Ticks == 0 || h.Ticks > room(h.DurationS) || h.LateOver1ms > h.Ticks || h.LatenessUs.P50 > h.LatenessUs.Max {
		t.Errorf("baseline: rt %v, %d ticks, %d late, lateness %+v", h.RT, h.Ticks, h.LateOver1ms, h.LatenessUs)
	}
	if h.DurationS < 0.1 || h.DurationS > 10 {
		t.Errorf("baseline ran %g s for 0.1 s", h.DurationS)
	}
	for _, c := range []struct {
		b    *HostBaseline
		want bool
	}{{h, true}, {nil, false}} {
		b.Baseline = c.b
		js, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(js), `"baseline":`); got != c.want {
			t.Errorf("baseline %v: in the JSON %v, want %v", c.b, got, c.want)
		}
	}
}

// A baseline whose context has ended returns at once, with what it measured.
func TestHostBaselineCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h, err := hostBaseline(ctx, time.Minute, 0, 0, false, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	if h.Ticks != 0 || h.DurationS > 10 {
		t.Errorf("%d ticks in %g s", h.Ticks, h.DurationS)
	}
}

// Under SCHED_FIFO (root) the loop bench runs the rig's real-time
// defaults: a standby thread where there are two cores, idle cores
// polling, and the baseline the same way; -standby 0 and -idle-sleep take
// both away.
func TestBenchLoopRealTimeDefaults(t *testing.T) {
	for _, c := range []LoopConfig{
		{Priority: 10},
		{Priority: 10, NoStandby: true, IdleSleep: true},
	} {
		c.Duration, c.Baseline, c.Logf = 100*time.Millisecond, 50*time.Millisecond, t.Logf
		b, err := Loop(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		if !b.RT {
			t.Skip("SCHED_FIFO not permitted")
		}
		// NumCPU counts the cores this process may use.
		wantStandby := !c.NoStandby && runtime.NumCPU() >= 2
		if (b.StandbyUs == float64(rig.DefaultStandby)/1e3) != wantStandby || (b.StandbyUs == 0) == wantStandby {
			t.Errorf("%+v: standby_us %g", c, b.StandbyUs)
		}
		if !wantStandby && b.Takeovers != 0 {
			t.Errorf("%+v: %d takeovers without a standby", c, b.Takeovers)
		}
		if b.IdlePoll == c.IdleSleep {
			t.Errorf("%+v: idle_poll %v", c, b.IdlePoll)
		}
		if b.Baseline == nil || !b.Baseline.RT {
			t.Errorf("%+v: baseline %+v", c, b.Baseline)
		}
	}
}

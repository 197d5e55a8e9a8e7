package rig

import (
	"testing"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/sim"
)

// goneArray is the simulated array whose writes fail from frame from on,
// as a serial array's do once its cable is pulled.
type goneArray struct {
	*twin.Tactile
	from, n int
}

func (a *goneArray) WriteFrame(f *devices.TactileFrame) error {
	a.n++
	if a.n > a.from {
		return devices.ErrDisconnected
	}
	return a.Tactile.WriteFrame(f)
}

// The run's summary counts, per finger, the frames its array did not
// take: the index's array gone after 10 frames misses the rest, the
// thumb's none.
func TestSummaryCountsFramesNotWritten(t *testing.T) {
	tac, err := twin.NewTactile(twin.DefaultTactileParams(), sim.IndexFinger)
	if err != nil {
		t.Fatal(err)
	}
	cfg := coarse(Config{Duration: time.Second})
	cfg.Tactile[sim.IndexFinger] = &goneArray{Tactile: tac, from: 10}
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := r.RunLockstep()
	if err != nil {
		t.Fatal(err)
	}
	var frames uint64
	for _, l := range sum.Loops {
		if l.Name == "tactile" {
			frames = l.Ticks
		}
	}
	th, ix := sum.Fingers[sim.Thumb].TactileNotWritten, sum.Fingers[sim.IndexFinger].TactileNotWritten
	if frames != 40 || th != 0 || ix != 30 {
		t.Errorf("of the tactile loop's %d frames, thumb %d not written, index %d; want 40, 0 and 30", frames, th, ix)
	}
}

// reportingArray is the simulated array reporting its status, as a serial
// array does: active, and the newest frame acknowledged.
type reportingArray struct {
	*twin.Tactile
	seq uint32
}

func (a *reportingArray) WriteFrame(f *devices.TactileFrame) error {
	a.seq = f.Seq
	return a.Tactile.WriteFrame(f)
}

func (a *reportingArray) Status(dst *devices.TactileStatus) error {
	*dst = devices.TactileStatus{AckSeq: a.seq, Active: true}
	return nil
}

// A tactile frame inside a traced interval, with the arrays' status read
// and kept in the trace, allocates nothing; the trace holds each frame's
// report.
func TestTracedTactileFrameAllocs(t *testing.T) {
	cfg := coarse(Config{})
	for f := range sim.NumFingers {
		tac, err := twin.NewTactile(twin.DefaultTactileParams(), f)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Tactile[f] = &reportingArray{Tactile: tac}
	}
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr := r.NewIntervalTrace(10 * time.Second)
	r.tactile.iv.begin(tr)
	tick := time.Duration(0)
	if a := testing.AllocsPerRun(200, func() {
		tick += r.cfg.TactilePeriod
		r.tactile.step(tick)
	}); a != 0 {
		t.Fatalf("a traced tactile frame allocates %v times", a)
	}
	last := tr.Tactile[len(tr.Tactile)-1]
	if rep := last.Report[sim.IndexFinger]; !rep.Written || !rep.Reported || !rep.Status.Active || rep.Status.AckSeq != last.Seq {
		t.Errorf("the last frame's report %+v (frame %d)", rep, last.Seq)
	}
}

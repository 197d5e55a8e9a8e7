package rig

import (
	"math"
	"testing"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/sim"
)

// lockstepSummary runs a rig of cfg in lockstep and returns it with its
// summary.
func lockstepSummary(t *testing.T, cfg Config) (*Rig, *Summary) {
	t.Helper()
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := r.RunLockstep()
	if err != nil {
		t.Fatal(err)
	}
	return r, sum
}

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
	_, sum := lockstepSummary(t, cfg)
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

// troubledArray is reportingArray whose status says, from frame clipFrom
// on, that it clipped, and from frame offFrom on that it silenced itself.
type troubledArray struct {
	reportingArray
	clipFrom, offFrom uint32
}

func (a *troubledArray) Status(dst *devices.TactileStatus) error {
	*dst = devices.TactileStatus{AckSeq: a.seq, Active: a.seq < a.offFrom, Clamped: a.seq >= a.clipFrom}
	return nil
}

// A run's summary counts, per finger, the frames whose array said it
// clipped them or had silenced itself, from its status read as each was
// written, in a run as in an experiment's intervals.
func TestSummaryCountsTroubledFrames(t *testing.T) {
	tac, err := twin.NewTactile(twin.DefaultTactileParams(), sim.IndexFinger)
	if err != nil {
		t.Fatal(err)
	}
	cfg := coarse(Config{Duration: time.Second})
	cfg.Tactile[sim.IndexFinger] = &troubledArray{reportingArray: reportingArray{Tactile: tac}, clipFrom: 11, offFrom: 31}
	_, sum := lockstepSummary(t, cfg)
	th, ix := sum.Fingers[sim.Thumb], sum.Fingers[sim.IndexFinger]
	if th.TactileClipped != 0 || th.TactileSilenced != 0 || ix.TactileClipped != 30 || ix.TactileSilenced != 10 {
		t.Errorf("frames clipped: thumb %d, index %d (want 0, 30); silenced: thumb %d, index %d (want 0, 10)",
			th.TactileClipped, ix.TactileClipped, th.TactileSilenced, ix.TactileSilenced)
	}
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

// gappyArray is the simulated array whose measurements of its pins stop
// for the frames in gap (counted from 1), as a serial array's do when
// its TACTILE_MEASURED stop coming.
type gappyArray struct {
	*twin.Tactile
	n   int
	gap map[int]bool
}

func (a *gappyArray) WriteFrame(f *devices.TactileFrame) error {
	a.n++
	return a.Tactile.WriteFrame(f)
}

func (a *gappyArray) Delivered(dst *devices.TactileFrame) bool {
	return !a.gap[a.n] && a.Tactile.Delivered(dst)
}

// An interval's delivered amplitude is a mean over all its frames, or
// none: an array whose measurements are missing for one frame of the
// interval gives none for it (NaN), while the other array's is kept; the
// trace says which frame was not measured.
func TestDeliveredNeedsEveryFrame(t *testing.T) {
	for _, tc := range []struct {
		name string
		gap  map[int]bool
	}{{"every frame measured", nil}, {"one frame not", map[int]bool{6: true}}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := coarse(Config{})
			for f := range sim.NumFingers {
				tac, err := twin.NewTactile(twin.DefaultTactileParams(), f)
				if err != nil {
					t.Fatal(err)
				}
				cfg.Tactile[f] = tac
			}
			tac := cfg.Tactile[sim.IndexFinger].(*twin.Tactile)
			cfg.Tactile[sim.IndexFinger] = &gappyArray{Tactile: tac, gap: tc.gap}
			r, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			r.tactile.tone, r.tactile.toneOn = Tone{A40Um: 20}, true
			tick := time.Duration(0)
			for range 3 {
				tick += r.cfg.TactilePeriod
				r.tactile.step(tick)
			}
			tr := r.NewIntervalTrace(time.Second)
			r.tactile.iv.begin(tr)
			for range 8 {
				tick += r.cfg.TactilePeriod
				r.tactile.step(tick)
			}
			s := r.tactile.iv.finish()
			th, ix := s.DeliveredA40Um[sim.Thumb], s.DeliveredA40Um[sim.IndexFinger]
			t.Logf("%d frames: thumb delivered %.3f µm, index %.3f µm of 20", s.TactileFrames, th, ix)
			if math.Abs(20*math.Log10(th/20)) > 1.5 {
				t.Errorf("thumb delivered %v µm of a 20 µm tone", th)
			}
			unmeasured := 0
			for _, smp := range tr.Tactile {
				if !smp.Measured[sim.IndexFinger] {
					unmeasured++
				}
			}
			if tc.gap == nil && (math.Abs(20*math.Log10(ix/20)) > 1.5 || unmeasured != 0) ||
				tc.gap != nil && (!math.IsNaN(ix) || unmeasured != 1) {
				t.Errorf("index delivered %v µm, %d frames of the trace not measured", ix, unmeasured)
			}
		})
	}
}

package rig

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/sim"
)

// TestPinchRefinement checks that the grading lands where the scripted
// fingers pinch: the finest grid columns and rows of the cloth's rest
// coordinates bracket the scene's pinch point.
func TestPinchRefinement(t *testing.T) {
	sc := twin.DefaultScene()
	cfg := sim.Config{NodesU: DefaultSide, NodesV: DefaultSide}
	cfg.Refine = PinchRefinement(sc, &cfg)
	c, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tp := c.Topology()
	for axis := range 2 {
		var lines []float64
		for k := range tp.Nodes {
			lines = append(lines, float64(tp.UV[2*k+axis]))
		}
		slices.Sort(lines)
		lines = slices.Compact(lines)
		at := sc.Pinch[axis] - cfg.Corner()[axis] // the pinch in rest coordinates
		finest, around := math.Inf(1), 0.0
		for i := 1; i < len(lines); i++ {
			h := lines[i] - lines[i-1]
			finest = min(finest, h)
			if lines[i-1] <= at && at <= lines[i] {
				around = h
			}
		}
		if !(around <= 1.001*finest) || finest >= c.Config().Width/float64(DefaultSide-1)/2 {
			t.Errorf("axis %d: the lines round the pinch at %.3f m are %.4f m apart, the finest %.4f m", axis, at, around, finest)
		}
	}
}

// TestSimConfigKeepsWhatIsSet checks that the rig keeps every field of its
// Sim configuration that the caller set and fills in only the others: a
// grading set alone stays, on the rig's default side, with the rig's step
// and pads.
func TestSimConfigKeepsWhatIsSet(t *testing.T) {
	ref := PinchRefinement(twin.DefaultScene(), &sim.Config{})
	r, err := New(Config{Sim: sim.Config{Refine: ref}, SimPeriod: 2 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	got := r.sim.cloth.Config()
	if got.Refine != ref || got.NodesU != DefaultSide || got.NodesV != DefaultSide {
		t.Errorf("cloth graded %+v on %d × %d nodes, want %+v on %d²", got.Refine, got.NodesU, got.NodesV, ref, DefaultSide)
	}
	if got.Dt != 2*time.Millisecond || got.PadRadius != [sim.NumFingers]float64{r.cfg.Scene.PadRadius, r.cfg.Scene.PadRadius} {
		t.Errorf("cloth step %v, pads %v: not the rig's", got.Dt, got.PadRadius)
	}
	if want := sim.DefaultConfig(); got.Width != want.Width || got.Preconditioner != want.Preconditioner || got.StrainLimit != want.StrainLimit {
		t.Errorf("cloth %+v lost sim's defaults", got)
	}
	if r.cfg.Sim.Refine != ref {
		t.Errorf("the rig's configuration (session.json) records grading %+v", r.cfg.Sim.Refine)
	}
}

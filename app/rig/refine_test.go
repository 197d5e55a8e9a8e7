package rig

import (
	"math"
	"slices"
	"testing"

	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/sim"
)

// TestPinchRefinement checks that the grading lands where the scripted
// fingers pinch: the finest grid columns and rows of the cloth's rest
// coordinates bracket the scene's pinch point.
func TestPinchRefinement(t *testing.T) {
	sc := twin.DefaultScene()
	cfg := sim.DefaultConfig()
	cfg.NodesU, cfg.NodesV = DefaultSide, DefaultSide
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
		at := sc.Pinch[axis] - cfg.Origin[axis] // the pinch in rest coordinates
		finest, around := math.Inf(1), 0.0
		for i := 1; i < len(lines); i++ {
			h := lines[i] - lines[i-1]
			finest = min(finest, h)
			if lines[i-1] <= at && at <= lines[i] {
				around = h
			}
		}
		if !(around <= 1.001*finest) || finest >= cfg.Width/float64(DefaultSide-1)/2 {
			t.Errorf("axis %d: the lines round the pinch at %.3f m are %.4f m apart, the finest %.4f m", axis, at, around, finest)
		}
	}
}

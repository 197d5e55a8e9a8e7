package tritri_test

import (
	"math"
	"testing"

	"github.com/haptex/haptex/sim/tritri"
	"github.com/haptex/haptex/sim/tritri/tritritest"
)

func TestCheckerTwoLayers(t *testing.T) {
	const h, gap = 0.01, 0.0005
	pos, _, tris := tritritest.FoldedGrid(9, h, gap)
	c := tritri.NewChecker(tris)
	if n, first := c.Intersections(pos); n != 0 {
		t.Fatalf("%d intersections in a clean fold (first %v)", n, first)
	}
	// Push one node of the upper layer through the lower one.
	k := 3*(7*9+4) + 2
	pos[k] = -gap
	n, first := c.Intersections(pos)
	if n == 0 {
		t.Fatalf("a node pushed through the other layer: no intersection found")
	}
	if first[0] < 0 || first[1] <= first[0] {
		t.Errorf("first pair %v", first)
	}
	pos[k] = math.NaN()
	if n, _ := c.Intersections(pos); n == 0 {
		t.Errorf("a NaN position counted as no intersection")
	}
}

func TestCheckerAllocatesNothing(t *testing.T) {
	pos, _, tris := tritritest.FoldedGrid(9, 0.01, 0.0005)
	c := tritri.NewChecker(tris)
	if a := testing.AllocsPerRun(10, func() { c.Intersections(pos) }); a != 0 {
		t.Errorf("%v allocations per check", a)
	}
}

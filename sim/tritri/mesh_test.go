package tritri

import (
	"math"
	"math/rand/v2"
	"testing"
)

// strip is a mesh of two layers: an n × n grid folded along its middle
// row, the upper half lying gap above the lower one; the fold's crease
// is the middle row, bent through 180° in one element row.
func foldedGrid(n int, h, gap float64) (pos, uv []float64, tris []uint32) {
	mid := n / 2
	for j := range n {
		for i := range n {
			x, y, z := float64(i)*h, float64(j)*h, 0.0
			if j > mid {
				y, z = float64(2*mid-j)*h, gap
			}
			pos = append(pos, x, y, z)
			uv = append(uv, float64(i)*h, float64(j)*h)
		}
	}
	id := func(i, j int) uint32 { return uint32(j*n + i) }
	for j := range n - 1 {
		for i := range n - 1 {
			tris = append(tris, id(i, j), id(i+1, j), id(i+1, j+1), id(i, j), id(i+1, j+1), id(i, j+1))
		}
	}
	return pos, uv, tris
}

func TestCheckerTwoLayers(t *testing.T) {
	const h, gap = 0.01, 0.0005
	pos, uv, tris := foldedGrid(9, h, gap)
	c := NewChecker(tris)
	if n, first := c.Intersections(pos); n != 0 {
		t.Fatalf("%d intersections in a clean fold (first %v)", n, first)
	}
	d, closer := c.Layers(pos, uv, 2*h, 2*gap)
	if math.Abs(d-gap) > 1e-12 || closer == 0 {
		t.Errorf("layers %g apart (%d pairs within %g), want %g", d, closer, 2*gap, gap)
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
	pos, uv, tris := foldedGrid(9, 0.01, 0.0005)
	c := NewChecker(tris)
	if a := testing.AllocsPerRun(10, func() {
		c.Intersections(pos)
		c.Layers(pos, uv, 0.02, 0.001)
	}); a != 0 {
		t.Errorf("%v allocations per check", a)
	}
}

// The quick separations Layers uses never skip a pair closer than their
// distance: over random triangle pairs, some coplanar, some far, a pair
// apartBy or besideBy calls d apart is at least d apart (triDist).
func TestSeparationsAreBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	tri := func(c [3]float64, flat bool) (p [3][3]float64) {
		for k := range 3 {
			for a := range 3 {
				p[k][a] = c[a] + rng.Float64() - 0.5
			}
			if flat {
				p[k][2] = c[2]
			}
		}
		return p
	}
	skipped := 0
	for i := range 20000 {
		flat := i%2 == 0
		p := tri([3]float64{0, 0, 0}, flat)
		q := tri([3]float64{2 * rng.Float64(), 2 * rng.Float64(), 0.5 * rng.Float64()}, flat)
		d := 0.3 * rng.Float64()
		for _, skip := range []bool{apartBy(&p, &q, d), apartBy(&q, &p, d), besideBy(&p, &q, d), besideBy(&q, &p, d)} {
			if !skip {
				continue
			}
			skipped++
			if got := triDist(&p, &q); got < d*(1-1e-12) {
				t.Fatalf("pair %d skipped as %g apart, distance %g:\n%v\n%v", i, d, got, p, q)
			}
		}
	}
	if skipped < 1000 {
		t.Errorf("only %d skips: the test exercises nothing", skipped)
	}
}

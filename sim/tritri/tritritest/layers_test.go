package tritritest

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestLayersOfAFold(t *testing.T) {
	const h, gap = 0.01, 0.0005
	pos, uv, tris := FoldedGrid(9, h, gap)
	d, closer := NewLayers(tris).Measure(pos, uv, 2*h, 2*gap)
	if math.Abs(d-gap) > 1e-12 || closer == 0 {
		t.Errorf("layers %g apart (%d pairs within %g), want %g", d, closer, 2*gap, gap)
	}
}

func TestLayersAllocateNothing(t *testing.T) {
	pos, uv, tris := FoldedGrid(9, 0.01, 0.0005)
	l := NewLayers(tris)
	l.Measure(pos, uv, 0.02, 0.001) // lists the rest surface's pairs
	if a := testing.AllocsPerRun(10, func() { l.Measure(pos, uv, 0.02, 0.001) }); a != 0 {
		t.Errorf("%v allocations per measure", a)
	}
}

// The quick separations Measure uses never skip a pair closer than their
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

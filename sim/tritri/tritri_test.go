package tritri

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/haptex/haptex/internal/vec3"
)

func tri(a, b, c [3]float64) *[3][3]float64 { return &[3][3]float64{a, b, c} }

func TestIntersectCases(t *testing.T) {
	base := tri([3]float64{0, 0, 0}, [3]float64{1, 0, 0}, [3]float64{0, 1, 0})
	for _, tc := range []struct {
		name string
		q    *[3][3]float64
		want bool
	}{
		{"piercing", tri([3]float64{0.2, 0.2, -1}, [3]float64{0.3, 0.2, 1}, [3]float64{0.2, 0.3, 1}), true},
		{"above", tri([3]float64{0, 0, 1}, [3]float64{1, 0, 1}, [3]float64{0, 1, 1}), false},
		{"parallel plane below, just", tri([3]float64{0, 0, -1e-300}, [3]float64{1, 0, -1e-300}, [3]float64{0, 1, -1e-300}), false},
		{"vertex touches the face", tri([3]float64{0.25, 0.25, 0}, [3]float64{0.3, 0.2, 1}, [3]float64{0.2, 0.3, 1}), true},
		{"vertex touches the edge", tri([3]float64{0.5, 0, 0}, [3]float64{0.5, -1, 1}, [3]float64{0.6, -1, 1}), true},
		{"vertex just off the edge", tri([3]float64{0.5, math.Nextafter(0, -1), 0}, [3]float64{0.5, -1, 1}, [3]float64{0.6, -1, 1}), false},
		{"edge crosses the edge", tri([3]float64{0.5, -0.5, 0}, [3]float64{0.5, 0.5, 0}, [3]float64{0.5, 0, 1}), true},
		{"edge-edge, skew apart", tri([3]float64{2, -1, 0.001}, [3]float64{-1, 2, 0.001}, [3]float64{0.5, 0.5, 2}), false},
		{"crossing through the hypotenuse", tri([3]float64{0.6, 0.6, -1}, [3]float64{0.4, 0.4, 1}, [3]float64{0.6, 0.6, 1}), true},
		{"coplanar overlap", tri([3]float64{0.1, 0.1, 0}, [3]float64{2, 0.1, 0}, [3]float64{0.1, 2, 0}), true},
		{"coplanar inside", tri([3]float64{0.1, 0.1, 0}, [3]float64{0.2, 0.1, 0}, [3]float64{0.1, 0.2, 0}), true},
		{"coplanar around", tri([3]float64{-1, -1, 0}, [3]float64{5, -1, 0}, [3]float64{-1, 5, 0}), true},
		{"coplanar apart", tri([3]float64{1, 1, 0}, [3]float64{2, 1, 0}, [3]float64{1, 2, 0}), false},
		{"coplanar sharing an edge line, apart", tri([3]float64{2, 0, 0}, [3]float64{3, 0, 0}, [3]float64{2, -1, 0}), false},
		{"coplanar touching at a vertex", tri([3]float64{1, 0, 0}, [3]float64{2, 0, 0}, [3]float64{1, -1, 0}), true},
		{"degenerate segment through", tri([3]float64{0.2, 0.2, -1}, [3]float64{0.2, 0.2, 1}, [3]float64{0.2, 0.2, 0}), true},
		{"degenerate segment beside", tri([3]float64{2, 2, -1}, [3]float64{2, 2, 1}, [3]float64{2, 2, 0}), false},
		{"point on the face", tri([3]float64{0.2, 0.2, 0}, [3]float64{0.2, 0.2, 0}, [3]float64{0.2, 0.2, 0}), true},
		{"NaN", tri([3]float64{math.NaN(), 0, 0}, [3]float64{5, 5, 5}, [3]float64{6, 5, 5}), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, q := range permutations(tc.q) {
				for _, p := range permutations(base) {
					if got := Intersect(p, q); got != tc.want {
						t.Fatalf("Intersect(%v, %v) = %v, want %v", *p, *q, got, tc.want)
					}
					if got := Intersect(q, p); got != tc.want {
						t.Fatalf("Intersect(%v, %v) = %v, want %v", *q, *p, got, tc.want)
					}
				}
			}
		})
	}
}

func permutations(t *[3][3]float64) []*[3][3]float64 {
	var out []*[3][3]float64
	for _, p := range [6][3]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}} {
		out = append(out, tri(t[p[0]], t[p[1]], t[p[2]]))
	}
	return out
}

func TestDegenerateSegments(t *testing.T) {
	seg := func(a, b [3]float64) *[3][3]float64 { return tri(a, b, a) }
	for _, tc := range []struct {
		name string
		p, q *[3][3]float64
		want bool
	}{
		{"crossing", seg([3]float64{-1, 0, 0}, [3]float64{1, 0, 0}), seg([3]float64{0, -1, 0}, [3]float64{0, 1, 0}), true},
		{"skew", seg([3]float64{-1, 0, 0}, [3]float64{1, 0, 0}), seg([3]float64{0, -1, 1e-9}, [3]float64{0, 1, 1e-9}), false},
		{"collinear overlapping", seg([3]float64{0, 0, 0}, [3]float64{2, 2, 2}), seg([3]float64{1, 1, 1}, [3]float64{3, 3, 3}), true},
		{"collinear apart", seg([3]float64{0, 0, 0}, [3]float64{1, 1, 1}), seg([3]float64{2, 2, 2}, [3]float64{3, 3, 3}), false},
		{"collinear along x", seg([3]float64{0, 5, 5}, [3]float64{1, 5, 5}), seg([3]float64{0.5, 5, 5}, [3]float64{3, 5, 5}), true},
		{"points apart", seg([3]float64{0, 0, 0}, [3]float64{0, 0, 0}), seg([3]float64{0, 0, 1}, [3]float64{0, 0, 1}), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Intersect(tc.p, tc.q); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestIntersectAgainstIntervals compares with the interval-overlap test
// of Möller ("A fast triangle-triangle intersection test", J. Graphics
// Tools 2(2), 1997), computed in floating point and trusted only where
// no quantity it decides on is near zero: random triangles in general
// position.
func TestIntersectAgainstIntervals(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var hits, checked int
	for range 50000 {
		var p, q [3][3]float64
		for i := range 3 {
			for k := range 3 {
				p[i][k] = rng.Float64()
				q[i][k] = rng.Float64()
			}
		}
		want, ok := moller(&p, &q)
		if !ok {
			continue
		}
		checked++
		if want {
			hits++
		}
		if got := Intersect(&p, &q); got != want {
			t.Fatalf("Intersect(%v, %v) = %v, Möller %v", p, q, got, want)
		}
	}
	if checked < 35000 || hits < checked/10 || hits > checked*9/10 {
		t.Fatalf("%d cases checked, %d intersecting: the sample tests too little", checked, hits)
	}
}

// moller is Möller's test in floating point; ok is false when a decision
// is within a margin of its rounding.
func moller(p, q *[3][3]float64) (hit, ok bool) {
	const tiny = 1e-9
	plane := func(t *[3][3]float64) ([3]float64, float64) {
		n := vec3.Cross(vec3.Sub(t[1], t[0]), vec3.Sub(t[2], t[0]))
		return n, -vec3.Dot(n, t[0])
	}
	n1, d1 := plane(p)
	var dq [3]float64
	for i := range 3 {
		dq[i] = vec3.Dot(n1, q[i]) + d1
		if math.Abs(dq[i]) < tiny {
			return false, false
		}
	}
	if dq[0]*dq[1] > 0 && dq[0]*dq[2] > 0 {
		return false, true
	}
	n2, d2 := plane(q)
	var dp [3]float64
	for i := range 3 {
		dp[i] = vec3.Dot(n2, p[i]) + d2
		if math.Abs(dp[i]) < tiny {
			return false, false
		}
	}
	if dp[0]*dp[1] > 0 && dp[0]*dp[2] > 0 {
		return false, true
	}
	dir := vec3.Cross(n1, n2)
	interval := func(t *[3][3]float64, d [3]float64) (lo, hi float64) {
		// The vertex alone on its side, then the two crossings of the
		// line through the plane of the other triangle.
		k := 0
		switch {
		case d[0]*d[1] > 0:
			k = 2
		case d[0]*d[2] > 0:
			k = 1
		}
		a, b := (k+1)%3, (k+2)%3
		pk, pa, pb := vec3.Dot(dir, t[k]), vec3.Dot(dir, t[a]), vec3.Dot(dir, t[b])
		x0 := pk + (pa-pk)*d[k]/(d[k]-d[a])
		x1 := pk + (pb-pk)*d[k]/(d[k]-d[b])
		return min(x0, x1), max(x0, x1)
	}
	lo1, hi1 := interval(p, dp)
	lo2, hi2 := interval(q, dq)
	if math.Abs(hi1-lo2) < tiny || math.Abs(hi2-lo1) < tiny {
		return false, false
	}
	return hi1 >= lo2 && hi2 >= lo1, true
}

// TestIntersectOnAGrid draws triangles with small integer coordinates,
// where coplanar, collinear and touching configurations are common, and
// checks the answer's symmetries (order of the triangles and of their
// vertices) and that a pair separated by a translation that does not
// change the exact geometry's combinatorics keeps its answer.
func TestIntersectOnAGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var hits int
	for range 10000 {
		var p, q [3][3]float64
		for i := range 3 {
			for k := range 3 {
				p[i][k] = float64(rng.IntN(4))
				q[i][k] = float64(rng.IntN(4))
			}
		}
		want := Intersect(&p, &q)
		if want {
			hits++
		}
		for _, pp := range permutations(&p) {
			if Intersect(&q, pp) != want {
				t.Fatalf("Intersect(%v, %v) = %v, but %v with %v", p, q, want, !want, *pp)
			}
		}
		// Scaled by a power of two and shifted by a float that keeps
		// every coordinate exact: the same exact geometry.
		var ps, qs [3][3]float64
		for i := range 3 {
			for k := range 3 {
				ps[i][k] = p[i][k]*0x1p-20 + 0.375
				qs[i][k] = q[i][k]*0x1p-20 + 0.375
			}
		}
		if Intersect(&ps, &qs) != want {
			t.Fatalf("Intersect(%v, %v) = %v, scaled copy disagrees", p, q, want)
		}
	}
	if hits < 500 {
		t.Fatalf("only %d intersecting pairs drawn", hits)
	}
}

func TestOrientExactNearZero(t *testing.T) {
	// Points on a line through the origin, one nudged by an ulp: the
	// floating-point determinant cannot see it, the exact one must.
	a := [2]float64{0.1, 0.1}
	b := [2]float64{0.3, 0.3}
	c := [2]float64{0.7, math.Nextafter(0.7, 1)}
	if got := Orient2D(a, b, c); got != 1 {
		t.Errorf("Orient2D = %d, want +1 (c an ulp above the line)", got)
	}
	if got := Orient2D(a, b, [2]float64{0.7, 0.7}); got != 0 {
		t.Errorf("Orient2D of three points on y = x: %d, want 0", got)
	}
	d := [3]float64{0.1, 0.2, math.Nextafter(0.3, 0)}
	if got := Orient3D([3]float64{1, 0, 0.3}, [3]float64{0, 1, 0.3}, [3]float64{0, 0, 0.3}, d); got != 1 {
		t.Errorf("Orient3D = %d, want +1 (d an ulp below the plane z = 0.3)", got)
	}
	if got := Orient3D([3]float64{1e-200, 0, 0}, [3]float64{0, 1e-200, 0}, [3]float64{0, 0, 1e-200}, [3]float64{}); got != 1 {
		t.Errorf("Orient3D with underflowing products = %d, want +1 (the origin below the plane)", got)
	}
}

// TestExpansionsMatchRationals compares the expansion arithmetic with
// exact rational arithmetic on nearly degenerate points: grid points
// nudged by a few ulps, scaled over a wide range of magnitudes.
func TestExpansionsMatchRationals(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	nudge := func(x float64) float64 {
		if x == 0 {
			return 0 // a nudged zero is subnormal: out of the expansions' range
		}
		for range rng.IntN(3) {
			x = math.Nextafter(x, math.Inf(2*rng.IntN(2)-1))
		}
		return x
	}
	var zeros int
	for range 4000 {
		s := math.Ldexp(1, rng.IntN(200)-100)
		var p [4][3]float64
		for i := range p {
			for k := range 3 {
				p[i][k] = nudge(float64(rng.IntN(3)) * s * 0.1)
			}
		}
		got, ok := expOrient3D(p[0], p[1], p[2], p[3])
		want := exactOrient3D(p[0], p[1], p[2], p[3])
		if !ok || got != want {
			t.Fatalf("orient3d%v: expansions %d (ok %v), rationals %d", p, got, ok, want)
		}
		if want == 0 {
			zeros++
		}
		a, b, c := [2]float64{p[0][0], p[0][1]}, [2]float64{p[1][0], p[1][1]}, [2]float64{p[2][0], p[2][1]}
		if g2, ok := expOrient2D(a, b, c); !ok || g2 != exactOrient2D(a, b, c) {
			t.Fatalf("orient2d(%v, %v, %v): expansions %d, rationals %d", a, b, c, g2, exactOrient2D(a, b, c))
		}
	}
	if zeros < 200 {
		t.Errorf("only %d exactly degenerate cases drawn", zeros)
	}
}

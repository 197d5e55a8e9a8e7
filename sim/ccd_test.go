package sim

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestCCDCases(t *testing.T) {
	tri0 := [3]vec{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}
	for _, tc := range []struct {
		name   string
		p0, p1 vec
		tri1   [3]vec
		want   bool
		at     float64
	}{
		{"through the middle", vec{0.2, 0.2, 1}, vec{0.2, 0.2, -3}, tri0, true, 0.25},
		{"beside", vec{1, 1, 1}, vec{1, 1, -1}, tri0, false, 0},
		{"parallel above", vec{0.2, 0.2, 0.1}, vec{0.3, 0.2, 0.1}, tri0, false, 0},
		{"triangle rises through a still point", vec{0.2, 0.2, 0.5}, vec{0.2, 0.2, 0.5},
			[3]vec{{0, 0, 1}, {1, 0, 1}, {0, 1, 1}}, true, 0.5},
		{"ends touching", vec{0.2, 0.2, 1}, vec{0.2, 0.2, 0}, tri0, true, 1},
		{"grazes the edge", vec{0.5, -1, 1}, vec{0.5, 1, -1}, tri0, true, 0.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t1 := tc.tri1
			if t1 == ([3]vec{}) {
				t1 = tri0
			}
			at, ok := ccdVT(tc.p0, tc.p1, &tri0, &t1, 1e-9)
			if ok != tc.want || (ok && math.Abs(at-tc.at) > 1e-9) {
				t.Errorf("ccdVT = %v, %v; want %v, %v", at, ok, tc.at, tc.want)
			}
		})
	}
	e0 := [2]vec{{-1, 0, 0}, {1, 0, 0}}
	if at, ok := ccdEE(&e0, &e0, &[2]vec{{0, -1, 1}, {0, 1, 1}}, &[2]vec{{0, -1, -1}, {0, 1, -1}}, 1e-9); !ok || math.Abs(at-0.5) > 1e-9 {
		t.Errorf("crossing edges: %v, %v; want 0.5", at, ok)
	}
	if _, ok := ccdEE(&e0, &e0, &[2]vec{{2, -1, 1}, {2, 1, 1}}, &[2]vec{{2, -1, -1}, {2, 1, -1}}, 1e-9); ok {
		t.Error("edges passing beside each other reported a collision")
	}
}

// TestCCDFindsCrossings draws random straight motions of a vertex and a
// triangle and of two edges, samples the motion at 400 instants, and
// wherever the four nodes' volume changes sign between two samples with
// the features well inside each other at the interpolated instant (the
// vertex inside the triangle, the edges crossing), checks that the
// continuous test reports a collision no later than the second sample.
func TestCCDFindsCrossings(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	r := func() vec { return vec{rng.Float64(), rng.Float64(), rng.Float64()} }
	var met [2]int
	for range 4000 {
		var a, b [4]vec
		for k := range a {
			a[k], b[k] = r(), r()
		}
		at := func(tt float64) (q [4]vec) {
			for k := range q {
				q[k] = lerpVec(a[k], b[k], tt)
			}
			return q
		}
		vol := func(q [4]vec) float64 { return q[1].sub(q[0]).cross(q[2].sub(q[0])).dot(q[3].sub(q[0])) }
		for edge := range 2 {
			first := -1.0
			for s := 0; s < 400 && first < 0; s++ {
				ta, tb := float64(s)/400, float64(s+1)/400
				va, vb := vol(at(ta)), vol(at(tb))
				if va*vb >= 0 {
					continue
				}
				q := at(ta + (tb-ta)*va/(va-vb))
				if edge == 0 {
					w, _ := closestOnTri(q[3], q[0], q[1], q[2])
					if min(w[0], w[1], w[2]) > 0.01 {
						first = tb
					}
					continue
				}
				s1, s2, d2 := closestOnEdgePair(q[0], q[1], q[2], q[3])
				if min(s1, s2) > 0.02 && max(s1, s2) < 0.98 && d2 < 1e-8 {
					first = tb
				}
			}
			if first < 0 {
				continue
			}
			met[edge]++
			var hit float64
			var ok bool
			if edge == 0 {
				hit, ok = ccdVT(a[3], b[3], &[3]vec{a[0], a[1], a[2]}, &[3]vec{b[0], b[1], b[2]}, 1e-9)
			} else {
				hit, ok = ccdEE(&[2]vec{a[0], a[1]}, &[2]vec{b[0], b[1]}, &[2]vec{a[2], a[3]}, &[2]vec{b[2], b[3]}, 1e-9)
			}
			if !ok || hit > first+1e-12 {
				t.Fatalf("features (edges: %v) meet by t = %g, the continuous test says %v, %v", edge == 1, first, hit, ok)
			}
		}
	}
	if met[0] < 100 || met[1] < 100 {
		t.Fatalf("only %v meetings drawn", met)
	}
}

package sim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/haptex/haptex/sim/tritri"
)

// testGrid is an n × n mesh of spacing h, its nodes flat at z = 0.
func testGrid(n int, h float64) (*mesh, []float64) {
	g := make([]float64, n)
	for i := range g {
		g[i] = float64(i) * h
	}
	m := newGridMesh(g, g, 0)
	x := make([]float64, 3*n*n)
	for j := range n {
		for i := range n {
			k := j*n + i
			x[3*k], x[3*k+1] = g[i], g[j]
		}
	}
	return m, x
}

// foldGrid lays the rows above row mid of the grid back over the rows below,
// gap above them, the crease a half circle.
func foldGrid(m *mesh, x []float64, mid int, gap float64) {
	h := m.gv[1] - m.gv[0]
	for j := mid + 1; j < m.nv; j++ {
		for i := range m.nu {
			k := 3 * (j*m.nu + i)
			ang := math.Min(float64(j-mid)*h/(math.Pi*gap/2), 1) * math.Pi
			if ang < math.Pi {
				x[k+1] = m.gv[mid] + gap/2*math.Sin(ang)
				x[k+2] = gap / 2 * (1 - math.Cos(ang))
				continue
			}
			x[k+1] = m.gv[mid] - (float64(j-mid)*h - math.Pi*gap/2)
			x[k+2] = gap
		}
	}
}

// wave adds a smooth random displacement of amplitude a to every node.
func wave(rng *rand.Rand, m *mesh, x []float64, a float64) {
	var f [3][4]float64
	for c := range f {
		for q := range f[c] {
			f[c][q] = rng.Float64()*20 + 2
		}
	}
	for k := range m.nodes() {
		u, v := m.uv[2*k], m.uv[2*k+1]
		for c := range 3 {
			x[3*k+c] += a * math.Sin(f[c][0]*u+f[c][1]) * math.Cos(f[c][2]*v+f[c][3])
		}
	}
}

func triCoords(m *mesh, x []float64, t int) [3][3]float64 {
	var p [3][3]float64
	for a, n := range m.tris[t].n {
		p[a] = at3(x, n)
	}
	return p
}

func sharesNode(m *mesh, a, b int) bool {
	for _, p := range m.tris[a].n {
		for _, q := range m.tris[b].n {
			if p == q {
				return true
			}
		}
	}
	return false
}

// TestBVHFindsEveryCrossing moves folded and crumpled sheets through
// themselves and checks, with the exact oracle at 21 instants of the
// motion, that every two triangles that intersect at one of them belong
// to squares the swept traversal reports: the continuous normal cones and
// star contours cull only what cannot intersect during the step.
func TestBVHFindsEveryCrossing(t *testing.T) {
	const n, h = 16, 0.01
	rng := rand.New(rand.NewPCG(7, 8))
	var found int
	for trial := range 12 {
		m, x0 := testGrid(n, h)
		foldGrid(m, x0, n/2, 0.002)
		if trial%3 == 2 {
			wave(rng, m, x0, 0.004)
		}
		x1 := append([]float64(nil), x0...)
		// Push a patch of the upper layer through the lower one, and
		// shake everything.
		ci, cj := 3+rng.IntN(n-6), n/2+3+rng.IntN(n/2-4)
		for j := cj - 2; j <= cj+2; j++ {
			for i := ci - 2; i <= ci+2; i++ {
				if i >= 0 && i < n && j < n {
					x1[3*(j*n+i)+2] -= 0.006 * rng.Float64()
				}
			}
		}
		wave(rng, m, x1, 0.001*float64(trial%4))
		b := newBVH(m)
		b.refit(x0, x1, 1e-6)
		pairs := map[[2]int32]bool{}
		for _, p := range b.collect(0) {
			pairs[p] = true
		}
		xt := make([]float64, len(x0))
		for s := 0; s <= 20; s++ {
			tt := float64(s) / 20
			for i := range xt {
				xt[i] = x0[i] + tt*(x1[i]-x0[i])
			}
			boxes := triBoxes(m, xt)
			for ti := range m.tris {
				for tj := ti + 1; tj < len(m.tris); tj++ {
					if !boxes[ti].meets(&boxes[tj]) || sharesNode(m, ti, tj) {
						continue
					}
					p, q := triCoords(m, xt, ti), triCoords(m, xt, tj)
					if !tritri.Intersect(&p, &q) {
						continue
					}
					found++
					sa, sb := int32(ti/2), int32(tj/2)
					if !pairs[[2]int32{min(sa, sb), max(sa, sb)}] {
						t.Fatalf("trial %d: triangles %d and %d intersect at t = %.2f, squares %d and %d not reported (%d pairs, %d culls)",
							trial, ti, tj, tt, sa, sb, len(pairs), b.culls)
					}
				}
			}
		}
	}
	if found == 0 {
		t.Fatal("no motion crossed the sheet: the test tests nothing")
	}
}

// TestBVHCullsFlatSheets: a flat or gently waved sheet is one region the
// cones and contours cull at the root, so the traversal reports nothing;
// a folded one is not.
func TestBVHCullsFlatSheets(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	m, x := testGrid(24, 0.0125)
	wave(rng, m, x, 0.002)
	b := newBVH(m)
	b.refit(x, nil, 0.001)
	if p := b.collect(0.5); len(p) != 0 || b.tests != 0 {
		t.Errorf("a gently waved sheet: %d pairs, %d node pairs tested; want none", len(p), b.tests)
	}
	x1 := append([]float64(nil), x...)
	wave(rng, m, x1, 0.002)
	b.refit(x, x1, 1e-6)
	if p := b.collect(0); len(p) != 0 {
		t.Errorf("a waved sheet moving: %d pairs; want none", len(p))
	}
	foldGrid(m, x, 12, 0.001)
	b.refit(x, nil, 0.001)
	if p := b.collect(0.5); len(p) == 0 {
		t.Error("a folded sheet: no pairs")
	}
}

// TestBVHProximity: on folded and crumpled sheets, every two triangles
// closer than r and at least 3 mm apart on the rest surface lie in
// squares the traversal at one instant reports (the 60° cones).
func TestBVHProximity(t *testing.T) {
	const n, h, r = 16, 0.01, 0.0015
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range 6 {
		m, x := testGrid(n, h)
		foldGrid(m, x, n/2, 0.001)
		wave(rng, m, x, 0.0005*float64(trial))
		b := newBVH(m)
		b.refit(x, nil, r/2)
		pairs := map[[2]int32]bool{}
		for _, p := range b.collect(0.5) {
			pairs[p] = true
		}
		boxes := triBoxes(m, x)
		for i := range boxes {
			for k := range 3 {
				boxes[i].lo[k] -= r / 2
				boxes[i].hi[k] += r / 2
			}
		}
		for ti := range m.tris {
			for tj := ti + 1; tj < len(m.tris); tj++ {
				if !boxes[ti].meets(&boxes[tj]) || sharesNode(m, ti, tj) {
					continue
				}
				p, q := triCoords(m, x, ti), triCoords(m, x, tj)
				if triDistance(&p, &q) >= r {
					continue
				}
				sa, sb := int32(ti/2), int32(tj/2)
				if !pairs[[2]int32{min(sa, sb), max(sa, sb)}] {
					t.Fatalf("trial %d: triangles %d and %d closer than %g, squares not reported", trial, ti, tj, r)
				}
			}
		}
	}
}

type aabb struct{ lo, hi [3]float64 }

func (a *aabb) meets(b *aabb) bool {
	for k := range 3 {
		if a.lo[k] > b.hi[k] || b.lo[k] > a.hi[k] {
			return false
		}
	}
	return true
}

// triBoxes returns every triangle's bounding box in x.
func triBoxes(m *mesh, x []float64) []aabb {
	bs := make([]aabb, len(m.tris))
	for i, t := range m.tris {
		b := &bs[i]
		b.lo, b.hi = at3(x, t.n[0]), at3(x, t.n[0])
		for _, n := range t.n[1:] {
			p := at3(x, n)
			for k := range 3 {
				b.lo[k], b.hi[k] = min(b.lo[k], p[k]), max(b.hi[k], p[k])
			}
		}
	}
	return bs
}

// triDistance is the distance between two triangles by the closest-point
// queries (zero when they intersect).
func triDistance(p, q *[3][3]float64) float64 {
	if tritri.Intersect(p, q) {
		return 0
	}
	v := func(a [3]float64) vec { return vec{a[0], a[1], a[2]} }
	d := math.Inf(1)
	for i := range 3 {
		_, d1 := closestOnTri(v(p[i]), v(q[0]), v(q[1]), v(q[2]))
		_, d2 := closestOnTri(v(q[i]), v(p[0]), v(p[1]), v(p[2]))
		d = min(d, d1, d2)
		for j := range 3 {
			_, _, d3 := closestOnEdgePair(v(p[i]), v(p[(i+1)%3]), v(q[j]), v(q[(j+1)%3]))
			d = min(d, d3)
		}
	}
	return math.Sqrt(d)
}

// Package tritritest measures how close a triangle mesh comes to itself,
// layer against layer: the distance the cloth's self-collision tests hold
// two layers of a fold apart by, measured independently of the
// simulation over the nearby pairs that sim/tritri's Checker lists. It is
// test equipment: nothing in haptex's running paths uses it.
package tritritest

import (
	"math"
	"slices"

	"github.com/haptex/haptex/internal/vec3"
	"github.com/haptex/haptex/sim/tritri"
)

// Layers measures one mesh. It keeps scratch space, so measuring a state
// allocates nothing once the rest surface's pairs are listed. It is not
// safe for concurrent use.
type Layers struct {
	chk *tritri.Checker
	n   int // triangles
	tp  [2][3][3]float64
	// near[i] lists the triangles within the rest distance nearApart of
	// triangle i that share no vertex with it (setRest).
	near      [][]int32
	nearApart float64
	nearUV    []float64
}

// NewLayers measures the mesh of the triangles tris (three node indices
// each, as sim.Topology lists them).
func NewLayers(tris []uint32) *Layers {
	return &Layers{chk: tritri.NewChecker(tris), n: len(tris) / 3}
}

// Measure measures how close the mesh comes to itself, layer against
// layer: over the pairs of triangles that share no vertex and lie at
// least apart from each other on the rest surface (uv: the rest
// coordinates, 2 per node), the smallest distance between the two
// triangles in space, and the number of those pairs closer than limit.
// Pairs farther apart than limit are not measured: min is +Inf when no
// pair comes within limit. The rest-distance condition leaves out the
// triangles on either side of a fold's crease, which are one layer
// bending round, not two. The first call for a uv and apart lists the
// pairs it leaves out, and allocates.
func (c *Layers) Measure(pos, uv []float64, apart, limit float64) (minDist float64, closer int) {
	c.setRest(uv, apart)
	minDist = math.Inf(1)
	c.chk.Pairs(pos, limit/2, func(i, j int32) bool {
		if slices.Contains(c.near[i], j) {
			return true
		}
		c.chk.Triangle(pos, i, &c.tp[0])
		c.chk.Triangle(pos, j, &c.tp[1])
		if apartBy(&c.tp[0], &c.tp[1], limit) || apartBy(&c.tp[1], &c.tp[0], limit) ||
			besideBy(&c.tp[0], &c.tp[1], limit) || besideBy(&c.tp[1], &c.tp[0], limit) {
			return true // not measured: at least limit apart
		}
		d := triDist(&c.tp[0], &c.tp[1])
		minDist = min(minDist, d)
		if d < limit {
			closer++
		}
		return true
	})
	return minDist, closer
}

// setRest lists, for each triangle, the others that share no vertex with
// it but lie closer than apart on the rest surface uv, unless the lists
// are for these uv and apart already.
func (c *Layers) setRest(uv []float64, apart float64) {
	if c.near != nil && c.nearApart == apart && slices.Equal(c.nearUV, uv) {
		return
	}
	c.nearApart, c.nearUV = apart, slices.Clone(uv)
	c.near = make([][]int32, c.n)
	flat := make([]float64, 0, 3*len(uv)/2)
	for k := 0; k+1 < len(uv); k += 2 {
		flat = append(flat, uv[k], uv[k+1], 0)
	}
	c.chk.Pairs(flat, apart/2, func(i, j int32) bool {
		if c.restDist(flat, i, j) < apart {
			c.near[i] = append(c.near[i], j)
			c.near[j] = append(c.near[j], i)
		}
		return true
	})
}

// apartBy reports whether every vertex of q lies at least d from p's
// plane, on one side: then the triangles are at least d apart.
func apartBy(p, q *[3][3]float64, d float64) bool {
	n := vec3.Cross(vec3.Sub(p[1], p[0]), vec3.Sub(p[2], p[0]))
	l := math.Sqrt(vec3.Dot(n, n))
	if !(l > 0) {
		return false
	}
	var lo, hi float64
	for i, v := range q {
		h := vec3.Dot(n, vec3.Sub(v, p[0])) / l
		if i == 0 {
			lo, hi = h, h
		}
		lo, hi = min(lo, h), max(hi, h)
	}
	return lo >= d || hi <= -d
}

// besideBy reports whether every vertex of q lies at least d beyond one
// of p's edges, measured in p's plane across the edge (along the edge's
// outward normal in that plane, a direction that sees all of p on the
// edge's line or behind it): then the triangles are at least d apart.
// It separates the neighbours of a flat sheet, which apartBy cannot.
func besideBy(p, q *[3][3]float64, d float64) bool {
	n := vec3.Cross(vec3.Sub(p[1], p[0]), vec3.Sub(p[2], p[0]))
	for k := range 3 {
		a, b := p[k], p[(k+1)%3]
		m := vec3.Cross(vec3.Sub(b, a), n) // outward for a counter-clockwise p about n
		l := math.Sqrt(vec3.Dot(m, m))
		if !(l > 0) {
			return false
		}
		if vec3.Dot(m, vec3.Sub(p[(k+2)%3], a)) > 0 {
			m = [3]float64{-m[0], -m[1], -m[2]}
		}
		lo := math.Inf(1)
		for _, v := range q {
			lo = min(lo, vec3.Dot(m, vec3.Sub(v, a))/l)
		}
		if lo >= d {
			return true
		}
	}
	return false
}

// restDist is the distance between triangles i and j in the rest plane
// (flat: the rest coordinates as positions at z = 0), neither of which
// overlaps the other: the least distance from a vertex of one to an edge
// of the other.
func (c *Layers) restDist(flat []float64, i, j int32) float64 {
	c.chk.Triangle(flat, i, &c.tp[0])
	c.chk.Triangle(flat, j, &c.tp[1])
	d := math.Inf(1)
	for _, pair := range [2][2]int{{0, 1}, {1, 0}} {
		t, s := &c.tp[pair[0]], &c.tp[pair[1]]
		for _, v := range t {
			p := [2]float64{v[0], v[1]}
			for k := range 3 {
				a, b := s[k], s[(k+1)%3]
				d = min(d, pointSeg2(p, [2]float64{a[0], a[1]}, [2]float64{b[0], b[1]}))
			}
		}
	}
	return d
}

func pointSeg2(p, a, b [2]float64) float64 {
	ex, ey := b[0]-a[0], b[1]-a[1]
	px, py := p[0]-a[0], p[1]-a[1]
	t := 0.0
	if l := ex*ex + ey*ey; l > 0 {
		t = min(max((px*ex+py*ey)/l, 0), 1)
	}
	return math.Hypot(px-t*ex, py-t*ey)
}

// triDist is the distance between two triangles in space: zero when they
// intersect, otherwise the least of the distances from each vertex to the
// other triangle and between each pair of edges (Ericson, "Real-Time
// Collision Detection", 2005, §5.1).
func triDist(p, q *[3][3]float64) float64 {
	if tritri.Intersect(p, q) {
		return 0
	}
	d := math.Inf(1)
	for i := range 3 {
		d = min(d, pointTri(p[i], q), pointTri(q[i], p))
		for j := range 3 {
			d = min(d, segSeg(p[i], p[(i+1)%3], q[j], q[(j+1)%3]))
		}
	}
	return d
}

func dist(a, b [3]float64) float64 { return vec3.Norm(vec3.Sub(a, b)) }

func lerp(a, b [3]float64, t float64) [3]float64 {
	return [3]float64{a[0] + t*(b[0]-a[0]), a[1] + t*(b[1]-a[1]), a[2] + t*(b[2]-a[2])}
}

// pointTri is the distance from p to the triangle t: Ericson's
// ClosestPtPointTriangle, by the Voronoi regions of t's features.
func pointTri(p [3]float64, t *[3][3]float64) float64 {
	a, b, c := t[0], t[1], t[2]
	ab, ac, ap := vec3.Sub(b, a), vec3.Sub(c, a), vec3.Sub(p, a)
	d1, d2 := vec3.Dot(ab, ap), vec3.Dot(ac, ap)
	if d1 <= 0 && d2 <= 0 {
		return dist(p, a)
	}
	bp := vec3.Sub(p, b)
	d3, d4 := vec3.Dot(ab, bp), vec3.Dot(ac, bp)
	if d3 >= 0 && d4 <= d3 {
		return dist(p, b)
	}
	vc := d1*d4 - d3*d2
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		return dist(p, lerp(a, b, d1/(d1-d3)))
	}
	cp := vec3.Sub(p, c)
	d5, d6 := vec3.Dot(ab, cp), vec3.Dot(ac, cp)
	if d6 >= 0 && d5 <= d6 {
		return dist(p, c)
	}
	vb := d5*d2 - d1*d6
	if vb <= 0 && d2 >= 0 && d6 <= 0 {
		return dist(p, lerp(a, c, d2/(d2-d6)))
	}
	va := d3*d6 - d5*d4
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		return dist(p, lerp(b, c, (d4-d3)/((d4-d3)+(d5-d6))))
	}
	den := 1 / (va + vb + vc)
	v, w := vb*den, vc*den
	q := [3]float64{a[0] + ab[0]*v + ac[0]*w, a[1] + ab[1]*v + ac[1]*w, a[2] + ab[2]*v + ac[2]*w}
	return dist(p, q)
}

// segSeg is the distance between segments p1q1 and p2q2: Ericson's
// ClosestPtSegmentSegment.
func segSeg(p1, q1, p2, q2 [3]float64) float64 {
	d1, d2, r := vec3.Sub(q1, p1), vec3.Sub(q2, p2), vec3.Sub(p1, p2)
	a, e, f := vec3.Dot(d1, d1), vec3.Dot(d2, d2), vec3.Dot(d2, r)
	var s, t float64
	switch {
	case a <= 0 && e <= 0:
		return dist(p1, p2)
	case a <= 0:
		t = min(max(f/e, 0), 1)
	default:
		c := vec3.Dot(d1, r)
		if e <= 0 {
			s = min(max(-c/a, 0), 1)
			break
		}
		b := vec3.Dot(d1, d2)
		if den := a*e - b*b; den > 0 {
			s = min(max((b*f-c*e)/den, 0), 1)
		}
		t = (b*s + f) / e
		if t < 0 {
			t, s = 0, min(max(-c/a, 0), 1)
		} else if t > 1 {
			t, s = 1, min(max((b-c)/a, 0), 1)
		}
	}
	return dist(lerp(p1, q1, s), lerp(p2, q2, t))
}

package tritri

import (
	"math"
	"slices"
)

// Checker runs the oracle over one mesh: it keeps the triangles and
// scratch space, so checking a state allocates nothing once the scratch
// has grown. It is not safe for concurrent use.
type Checker struct {
	tris  [][3]int32
	boxes []box
	cells []cellEntry
	tp    [2][3][3]float64
	// near[i] lists the triangles within the rest distance nearApart of
	// triangle i that share no vertex with it (Layers; setRest).
	near      [][]int32
	nearApart float64
	nearUV    []float64
}

// box is a triangle's bounding box, its lower and upper corners.
type box struct{ lo, hi [3]float64 }

// NewChecker builds a checker for the triangles tris (three node indices
// each, as sim.Topology lists them).
func NewChecker(tris []uint32) *Checker {
	c := &Checker{tris: make([][3]int32, len(tris)/3)}
	for i := range c.tris {
		c.tris[i] = [3]int32{int32(tris[3*i]), int32(tris[3*i+1]), int32(tris[3*i+2])}
	}
	c.boxes = make([]box, len(c.tris))
	c.cells = make([]cellEntry, 0, 8*len(c.tris))
	return c
}

// Triangles returns the number of triangles.
func (c *Checker) Triangles() int { return len(c.tris) }

// adjacent reports whether triangles i and j share a vertex.
func (c *Checker) adjacent(i, j int32) bool {
	for _, a := range c.tris[i] {
		for _, b := range c.tris[j] {
			if a == b {
				return true
			}
		}
	}
	return false
}

func (c *Checker) load(pos []float64, i int32, dst *[3][3]float64) {
	for k, n := range c.tris[i] {
		copy(dst[k][:], pos[3*n:3*n+3])
	}
}

// sweep calls pair for every two triangles that share no vertex and whose
// bounding boxes, grown by reach on every side, overlap (closed boxes:
// touching counts), each pair once. It sorts the boxes into a uniform grid
// of cells about twice the mean box's size, keyed by cell, and compares
// the boxes of each cell; a pair is compared in the cell that holds the
// lowest corner of the two boxes' overlap. It stops when pair returns
// false. A box with a coordinate that is not finite is left out.
func (c *Checker) sweep(pos []float64, reach float64, pair func(i, j int32) bool) {
	var lo, hi [3]float64
	var mean float64
	n := 0
	for i := range c.tris {
		var b box
		for k, v := range c.tris[i] {
			p := [3]float64{pos[3*v], pos[3*v+1], pos[3*v+2]}
			if k == 0 {
				b.lo, b.hi = p, p
				continue
			}
			for a := range 3 {
				b.lo[a], b.hi[a] = min(b.lo[a], p[a]), max(b.hi[a], p[a])
			}
		}
		for a := range 3 {
			b.lo[a] -= reach
			b.hi[a] += reach
		}
		c.boxes[i] = b
		if !finiteBox(&b) {
			continue
		}
		if n == 0 {
			lo, hi = b.lo, b.hi
		}
		for a := range 3 {
			lo[a], hi[a] = min(lo[a], b.lo[a]), max(hi[a], b.hi[a])
			mean += b.hi[a] - b.lo[a]
		}
		n++
	}
	if n == 0 {
		return
	}
	cell := 2 * mean / float64(3*n)
	if !(cell > 0) {
		cell = 1
	}
	var dim [3]int64
	for a := range 3 {
		dim[a] = int64((hi[a]-lo[a])/cell) + 1
	}
	at := func(x float64, a int) int64 { return min(max(int64((x-lo[a])/cell), 0), dim[a]-1) }
	key := func(i, j, k int64) int64 { return (k*dim[1]+j)*dim[0] + i }
	c.cells = c.cells[:0]
	for t := range c.tris {
		b := &c.boxes[t]
		if !finiteBox(b) {
			continue
		}
		for k := at(b.lo[2], 2); k <= at(b.hi[2], 2); k++ {
			for j := at(b.lo[1], 1); j <= at(b.hi[1], 1); j++ {
				for i := at(b.lo[0], 0); i <= at(b.hi[0], 0); i++ {
					c.cells = append(c.cells, cellEntry{key(i, j, k), int32(t)})
				}
			}
		}
	}
	slices.SortFunc(c.cells, func(a, b cellEntry) int {
		if a.key != b.key {
			return cmpInt(a.key, b.key)
		}
		return cmpInt(int64(a.tri), int64(b.tri))
	})
	for s := 0; s < len(c.cells); {
		e := s + 1
		for e < len(c.cells) && c.cells[e].key == c.cells[s].key {
			e++
		}
		run := c.cells[s:e]
		for x, ci := range run {
			bi := &c.boxes[ci.tri]
			for _, cj := range run[x+1:] {
				bj := &c.boxes[cj.tri]
				if bj.lo[0] > bi.hi[0] || bi.lo[0] > bj.hi[0] || bj.lo[1] > bi.hi[1] || bi.lo[1] > bj.hi[1] ||
					bj.lo[2] > bi.hi[2] || bi.lo[2] > bj.hi[2] {
					continue
				}
				// The overlap's lowest corner decides the one cell that
				// compares the pair.
				if key(at(max(bi.lo[0], bj.lo[0]), 0), at(max(bi.lo[1], bj.lo[1]), 1), at(max(bi.lo[2], bj.lo[2]), 2)) != ci.key {
					continue
				}
				if c.adjacent(ci.tri, cj.tri) {
					continue
				}
				if !pair(min(ci.tri, cj.tri), max(ci.tri, cj.tri)) {
					return
				}
			}
		}
		s = e
	}
}

// cellEntry is a triangle in a cell of sweep's grid.
type cellEntry struct {
	key int64
	tri int32
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func finiteBox(b *box) bool {
	for a := range 3 {
		if b.lo[a]-b.lo[a] != 0 || b.hi[a]-b.hi[a] != 0 {
			return false
		}
	}
	return true
}

// Intersections returns the number of pairs of triangles that share no
// vertex and intersect at positions pos (3 per node), and the first such
// pair (triangle indices, the lower first; both -1 when there is none).
// A position that is not finite makes every triangle it touches
// intersect all others near it (Intersect).
func (c *Checker) Intersections(pos []float64) (n int, first [2]int32) {
	first = [2]int32{-1, -1}
	for _, x := range pos {
		if x-x != 0 {
			return len(c.tris), [2]int32{0, 0}
		}
	}
	c.sweep(pos, 0, func(i, j int32) bool {
		c.load(pos, i, &c.tp[0])
		c.load(pos, j, &c.tp[1])
		if Intersect(&c.tp[0], &c.tp[1]) {
			if n == 0 {
				first = [2]int32{i, j}
			}
			n++
		}
		return true
	})
	return n, first
}

// Layers measures how close the mesh comes to itself, layer against
// layer: over the pairs of triangles that share no vertex and lie at
// least apart from each other on the rest surface (uv: the rest
// coordinates, 2 per node), the smallest distance between the two
// triangles in space, and the number of those pairs closer than limit.
// Pairs farther apart than limit are not measured: min is +Inf when no
// pair comes within limit. The rest-distance condition leaves out the
// triangles on either side of a fold's crease, which are one layer
// bending round, not two. The first call for a uv and apart lists the
// pairs it leaves out, and allocates.
func (c *Checker) Layers(pos, uv []float64, apart, limit float64) (minDist float64, closer int) {
	c.setRest(uv, apart)
	minDist = math.Inf(1)
	c.sweep(pos, limit/2, func(i, j int32) bool {
		if slices.Contains(c.near[i], j) {
			return true
		}
		c.load(pos, i, &c.tp[0])
		c.load(pos, j, &c.tp[1])
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
func (c *Checker) setRest(uv []float64, apart float64) {
	if c.near != nil && c.nearApart == apart && slices.Equal(c.nearUV, uv) {
		return
	}
	c.nearApart, c.nearUV = apart, slices.Clone(uv)
	c.near = make([][]int32, len(c.tris))
	flat := make([]float64, 0, 3*len(uv)/2)
	for k := 0; k+1 < len(uv); k += 2 {
		flat = append(flat, uv[k], uv[k+1], 0)
	}
	c.sweep(flat, apart/2, func(i, j int32) bool {
		if c.restDist(uv, i, j) < apart {
			c.near[i] = append(c.near[i], j)
			c.near[j] = append(c.near[j], i)
		}
		return true
	})
}

// apartBy reports whether every vertex of q lies at least d from p's
// plane, on one side: then the triangles are at least d apart.
func apartBy(p, q *[3][3]float64, d float64) bool {
	n := cross(sub(p[1], p[0]), sub(p[2], p[0]))
	l := math.Sqrt(dot(n, n))
	if !(l > 0) {
		return false
	}
	var lo, hi float64
	for i, v := range q {
		h := dot(n, sub(v, p[0])) / l
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
	n := cross(sub(p[1], p[0]), sub(p[2], p[0]))
	for k := range 3 {
		a, b := p[k], p[(k+1)%3]
		m := cross(sub(b, a), n) // outward for a counter-clockwise p about n
		l := math.Sqrt(dot(m, m))
		if !(l > 0) {
			return false
		}
		if dot(m, sub(p[(k+2)%3], a)) > 0 {
			m = [3]float64{-m[0], -m[1], -m[2]}
		}
		lo := math.Inf(1)
		for _, v := range q {
			lo = min(lo, dot(m, sub(v, a))/l)
		}
		if lo >= d {
			return true
		}
	}
	return false
}

func cross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// restDist is the distance between triangles i and j in the rest plane,
// neither of which overlaps the other: the least distance from a vertex
// of one to an edge of the other.
func (c *Checker) restDist(uv []float64, i, j int32) float64 {
	d := math.Inf(1)
	for _, pair := range [2][2]int32{{i, j}, {j, i}} {
		t, s := c.tris[pair[0]], c.tris[pair[1]]
		for _, v := range t {
			p := [2]float64{uv[2*v], uv[2*v+1]}
			for k := range 3 {
				a, b := s[k], s[(k+1)%3]
				d = min(d, pointSeg2(p, [2]float64{uv[2*a], uv[2*a+1]}, [2]float64{uv[2*b], uv[2*b+1]}))
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
	if Intersect(p, q) {
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

func sub(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func dot(a, b [3]float64) float64    { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func dist(a, b [3]float64) float64   { d := sub(a, b); return math.Sqrt(dot(d, d)) }

func lerp(a, b [3]float64, t float64) [3]float64 {
	return [3]float64{a[0] + t*(b[0]-a[0]), a[1] + t*(b[1]-a[1]), a[2] + t*(b[2]-a[2])}
}

// pointTri is the distance from p to the triangle t: Ericson's
// ClosestPtPointTriangle, by the Voronoi regions of t's features.
func pointTri(p [3]float64, t *[3][3]float64) float64 {
	a, b, c := t[0], t[1], t[2]
	ab, ac, ap := sub(b, a), sub(c, a), sub(p, a)
	d1, d2 := dot(ab, ap), dot(ac, ap)
	if d1 <= 0 && d2 <= 0 {
		return dist(p, a)
	}
	bp := sub(p, b)
	d3, d4 := dot(ab, bp), dot(ac, bp)
	if d3 >= 0 && d4 <= d3 {
		return dist(p, b)
	}
	vc := d1*d4 - d3*d2
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		return dist(p, lerp(a, b, d1/(d1-d3)))
	}
	cp := sub(p, c)
	d5, d6 := dot(ab, cp), dot(ac, cp)
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
	d1, d2, r := sub(q1, p1), sub(q2, p2), sub(p1, p2)
	a, e, f := dot(d1, d1), dot(d2, d2), dot(d2, r)
	var s, t float64
	switch {
	case a <= 0 && e <= 0:
		return dist(p1, p2)
	case a <= 0:
		t = min(max(f/e, 0), 1)
	default:
		c := dot(d1, r)
		if e <= 0 {
			s = min(max(-c/a, 0), 1)
			break
		}
		b := dot(d1, d2)
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

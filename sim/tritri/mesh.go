package tritri

import (
	"cmp"
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

// Triangle copies triangle i's corners at positions pos (3 per node) into
// dst.
func (c *Checker) Triangle(pos []float64, i int32, dst *[3][3]float64) {
	for k, n := range c.tris[i] {
		copy(dst[k][:], pos[3*n:3*n+3])
	}
}

// Pairs calls pair for every two triangles that share no vertex and whose
// bounding boxes, grown by reach on every side, overlap (closed boxes:
// touching counts), each pair once. It sorts the boxes into a uniform grid
// of cells about twice the mean box's size, keyed by cell, and compares
// the boxes of each cell; a pair is compared in the cell that holds the
// lowest corner of the two boxes' overlap. It stops when pair returns
// false. A box with a coordinate that is not finite is left out.
func (c *Checker) Pairs(pos []float64, reach float64, pair func(i, j int32) bool) {
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
		return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.tri, b.tri))
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

// cellEntry is a triangle in a cell of Pairs' grid.
type cellEntry struct {
	key int64
	tri int32
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
	c.Pairs(pos, 0, func(i, j int32) bool {
		c.Triangle(pos, i, &c.tp[0])
		c.Triangle(pos, j, &c.tp[1])
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

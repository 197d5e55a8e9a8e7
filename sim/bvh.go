package sim

import "math"

// The self-collision's broad phase: a bounding-volume hierarchy over the
// grid's squares (two triangles each), built once from the mesh's
// topology and refitted every step, as HAPTEX's simulation did (HAPTEX
// tutorial §3.5; k-DOPs: Klosowski, Held, Mitchell, Sowizral and Zikan,
// "Efficient collision detection using bounding volume hierarchies of
// k-DOPs", IEEE TVCG 4(1), 1998; for cloth: Mezger, Kimmerle and
// Etzmuß, "Hierarchical techniques in collision detection for cloth
// animation", WSCG 2003). Each node bounds a rectangle of squares with an
// 18-DOP (the coordinate axes and the six face diagonals) and carries the
// cone of its triangles' normals.
//
// Flat regions cannot collide with themselves (Volino and
// Magnenat-Thalmann, "Efficient self-collision detection on smoothly
// discretized surface animations using geometrical shape regularity",
// Eurographics 1994): a region is free of self-intersection when some
// direction V sees every normal at less than 90° and the region's
// contour, projected along V, does not cross itself. The contour test is
// Schvartzman, Pérez and Otaduy's star test ("Star-contours for efficient
// hierarchical self-collision detection", SIGGRAPH 2010): a projected
// contour that winds once round a point, turning the same way on every
// edge, is simple. Over a step the test must hold at every instant: a
// triangle's normal moving linearly is a quadratic in time whose
// Bernstein coefficients span a cone containing it (Tang, Curtis, Yoon and
// Manocha, "ICCD: interactive continuous collision detection between
// deformable models using connectivity-based culling", IEEE TVCG 15(4),
// 2009), and so is each contour edge's turn, so checking those
// coefficients proves the test for the whole step. A region passing both
// is skipped, and so is a pair of neighbouring regions whose union does.

// dopK is the number of directions of the k-DOPs: 9, so 18-DOPs.
const dopK = 9

// dopNorm is the length of each direction: the face diagonals are not
// unit vectors.
var dopNorm = [dopK]float64{1, 1, 1, math.Sqrt2, math.Sqrt2, math.Sqrt2, math.Sqrt2, math.Sqrt2, math.Sqrt2}

// project writes p's coordinates along the 18-DOP's directions.
func project(p vec, dst *[dopK]float64) {
	dst[0], dst[1], dst[2] = p.x, p.y, p.z
	dst[3], dst[4] = p.x+p.y, p.x-p.y
	dst[5], dst[6] = p.x+p.z, p.x-p.z
	dst[7], dst[8] = p.y+p.z, p.y-p.z
}

// cone bounds a set of unit normals: every one lies within the half-angle
// (cosine cos, sine sin) of axis. A wide cone reaches 90° or more, or
// could not be bounded.
type cone struct {
	axis     vec
	cos, sin float64
	wide     bool
}

// within reports whether the cone's half-angle is below the angle whose
// cosine is c (c ≥ 0).
func (k *cone) within(c float64) bool { return !k.wide && k.cos > c }

// coneOf returns the cone of the non-zero vectors vs (not necessarily
// unit; zero ones are left out).
func coneOf(vs []vec) cone {
	var s vec
	var n int
	for i, v := range vs {
		u, l := unitVec(v)
		if l == 0 {
			continue
		}
		vs[i] = u
		s = s.add(u)
		n++
	}
	axis, l := unitVec(s)
	if n == 0 || l == 0 {
		return cone{wide: true}
	}
	k := cone{axis: axis, cos: 1}
	for _, u := range vs {
		if u == (vec{}) {
			continue
		}
		k.cos = min(k.cos, axis.dot(u))
	}
	if !(k.cos > 0) {
		return cone{wide: true}
	}
	k.sin = math.Sqrt(max(0, 1-k.cos*k.cos))
	return k
}

// merge returns a cone containing the cones a and b: the axis between
// theirs, the half-angle the larger of each one's offset plus its own.
func merge(a, b *cone) cone {
	if a.wide || b.wide {
		return cone{wide: true}
	}
	axis, l := unitVec(a.axis.add(b.axis))
	if l == 0 {
		return cone{wide: true}
	}
	k := cone{axis: axis, cos: 1}
	for _, c := range [2]*cone{a, b} {
		// cos and sin of the offset of c's axis, plus c's half-angle.
		co := min(axis.dot(c.axis), 1)
		so := math.Sqrt(max(0, 1-co*co))
		cs := co*c.cos - so*c.sin
		if !(cs > 0) {
			return cone{wide: true}
		}
		if cs < k.cos {
			k.cos, k.sin = cs, so*c.cos+co*c.sin
		}
	}
	return k
}

// bvNode is one node of the hierarchy: the squares [i0, i1) × [j0, j1) of
// the grid (its nodes i0..i1 × j0..j1).
type bvNode struct {
	i0, i1, j0, j1 int32
	left, right    int32 // children; -1 for a leaf
	lo, hi         [dopK]float64
	cone           cone
}

func (n *bvNode) leaf() bool { return n.left < 0 }

// bvh is the hierarchy and what a traversal needs.
type bvh struct {
	m     *mesh
	nodes []bvNode // preorder: children after their parent
	leaf  []int32  // per square: its leaf
	// Per grid node: its projections (lower and upper, equal unless
	// swept); per triangle: its normal at the start of the step, and the
	// middle Bernstein coefficient and the end normal when swept.
	plo, phi     [][dopK]float64
	n0, nm, n1   []vec
	x0, x1       []float64 // the positions of the last refit (x1 nil unless swept)
	minCos       float64   // the cull's cone threshold
	pairs        [][2]int32
	edges        []int32 // a contour's edges, star's scratch
	tests, culls int     // counters of the last traversal: node pairs tested, regions culled
}

func newBVH(m *mesh) *bvh {
	b := &bvh{m: m}
	su, sv := int32(m.nu-1), int32(m.nv-1)
	b.leaf = make([]int32, su*sv)
	b.nodes = make([]bvNode, 0, 2*su*sv)
	b.build(0, su, 0, sv)
	n := m.nodes()
	b.plo, b.phi = make([][dopK]float64, n), make([][dopK]float64, n)
	nt := len(m.tris)
	b.n0, b.nm, b.n1 = make([]vec, nt), make([]vec, nt), make([]vec, nt)
	b.pairs = make([][2]int32, 0, max(1024, n))
	// Two rectangles' contours are at most the grid's: 2·(su+sv) edges
	// each, two nodes an edge.
	b.edges = make([]int32, 0, 8*(su+sv))
	return b
}

// build adds the node of the squares [i0, i1) × [j0, j1), splitting the
// longer side at its middle, and returns its index.
func (b *bvh) build(i0, i1, j0, j1 int32) int32 {
	k := int32(len(b.nodes))
	b.nodes = append(b.nodes, bvNode{i0: i0, i1: i1, j0: j0, j1: j1, left: -1, right: -1})
	switch {
	case i1-i0 == 1 && j1-j0 == 1:
		b.leaf[j0*int32(b.m.nu-1)+i0] = k
		return k
	case i1-i0 >= j1-j0:
		m := (i0 + i1) / 2
		l := b.build(i0, m, j0, j1)
		r := b.build(m, i1, j0, j1)
		b.nodes[k].left, b.nodes[k].right = l, r
	default:
		m := (j0 + j1) / 2
		l := b.build(i0, i1, j0, m)
		r := b.build(i0, i1, m, j1)
		b.nodes[k].left, b.nodes[k].right = l, r
	}
	return k
}

// squareTris returns the two triangles of square s: newGridMesh adds them
// in pairs, square by square.
func squareTris(s int32) (int32, int32) { return 2 * s, 2*s + 1 }

// refit bounds the mesh at x0 (x1 nil) or its motion from x0 to x1, each
// DOP grown by r on every side, and recomputes the normal cones.
func (b *bvh) refit(x0, x1 []float64, r float64) {
	b.x0, b.x1 = x0, x1
	phi := b.phi[:len(b.plo)]
	for k := range b.plo {
		lo, hi := &b.plo[k], &phi[k]
		project(vecAt(x0, int32(k)), lo)
		*hi = *lo
		if x1 != nil {
			var q [dopK]float64
			project(vecAt(x1, int32(k)), &q)
			dopMinMax(lo, hi, &q, &q)
		}
	}
	for i := range b.m.tris {
		t := &b.m.tris[i]
		a, c, d := vecAt(x0, t.n[0]), vecAt(x0, t.n[1]), vecAt(x0, t.n[2])
		b.n0[i] = c.sub(a).cross(d.sub(a))
		if x1 != nil {
			a1, c1, d1 := vecAt(x1, t.n[0]), vecAt(x1, t.n[1]), vecAt(x1, t.n[2])
			b.n1[i] = c1.sub(a1).cross(d1.sub(a1))
			b.nm[i] = c.sub(a).cross(d1.sub(a1)).add(c1.sub(a1).cross(d.sub(a))).scale(0.5)
		}
	}
	nu := int32(b.m.nu)
	var grow [dopK]float64
	for a := range dopK {
		grow[a] = r * dopNorm[a]
	}
	for k := len(b.nodes) - 1; k >= 0; k-- {
		n := &b.nodes[k]
		// The boxes are built in locals and stored whole: through n, the
		// compiler reloads and bounds-checks every entry.
		var lo, hi [dopK]float64
		if !n.leaf() {
			l, rr := &b.nodes[n.left], &b.nodes[n.right]
			lo, hi = l.lo, l.hi
			dopMinMax(&lo, &hi, &rr.lo, &rr.hi)
			n.lo, n.hi = lo, hi
			n.cone = merge(&l.cone, &rr.cone)
			continue
		}
		q0 := n.j0*nu + n.i0
		lo, hi = b.plo[q0], b.phi[q0]
		for _, q := range [3]int32{q0 + 1, q0 + nu, q0 + nu + 1} {
			dopMinMax(&lo, &hi, &b.plo[q], &b.phi[q])
		}
		for a := range dopK {
			lo[a] -= grow[a]
			hi[a] += grow[a]
		}
		n.lo, n.hi = lo, hi
		t0, t1 := squareTris(n.j0*(nu-1) + n.i0)
		vs := [6]vec{b.n0[t0], b.n0[t1]}
		m := 2
		if x1 != nil {
			vs[2], vs[3], vs[4], vs[5] = b.n1[t0], b.n1[t1], b.nm[t0], b.nm[t1]
			m = 6
		}
		n.cone = coneOf(vs[:m])
	}
}

// dopMinMax sets lo to min(lo, a) and hi to max(hi, b), entry by entry.
// The assembly (bvh_amd64.s) does the nine of each in three instructions;
// it may give +0 where the Go code gives -0 (or the reverse), which no
// comparison of the boxes tells apart, and no NaN comes here (a step
// that made one is undone before self-collision runs).
func dopMinMax(lo, hi, a, b *[dopK]float64) {
	if useKernelAsm {
		dopMinMaxAsm(lo, hi, a, b)
		return
	}
	for k := range dopK {
		lo[k], hi[k] = min(lo[k], a[k]), max(hi[k], b[k])
	}
}

func overlap(a, b *bvNode) bool {
	for k := range dopK {
		if a.lo[k] > b.hi[k] || b.lo[k] > a.hi[k] {
			return false
		}
	}
	return true
}

// touch reports whether two nodes' rectangles share a grid node.
func touch(a, b *bvNode) bool {
	return a.i0 <= b.i1 && b.i0 <= a.i1 && a.j0 <= b.j1 && b.j0 <= a.j1
}

// collect lists in pairs every two different squares whose DOPs overlap
// and that no culled region holds together, for the last refit; minCos is
// the cosine of the cones' largest half-angle a culled region may have.
func (b *bvh) collect(minCos float64) [][2]int32 {
	b.pairs = b.pairs[:0]
	b.minCos = minCos
	b.tests, b.culls = 0, 0
	b.self(0)
	return b.pairs
}

func (b *bvh) self(k int32) {
	n := &b.nodes[k]
	if n.leaf() {
		return // a square's own features: the fail-safe tests them (ccdSquare)
	}
	if n.cone.within(b.minCos) && b.star(&n.cone, n, nil) {
		b.culls++
		return
	}
	b.self(n.left)
	b.self(n.right)
	b.pair(n.left, n.right)
}

func (b *bvh) pair(ka, kb int32) {
	a, c := &b.nodes[ka], &b.nodes[kb]
	b.tests++
	if !overlap(a, c) {
		return
	}
	if touch(a, c) {
		if u := merge(&a.cone, &c.cone); u.within(b.minCos) && b.star(&u, a, c) {
			b.culls++
			return
		}
	}
	switch {
	case a.leaf() && c.leaf():
		sa := a.j0*int32(b.m.nu-1) + a.i0
		sc := c.j0*int32(b.m.nu-1) + c.i0
		b.pairs = append(b.pairs, [2]int32{min(sa, sc), max(sa, sc)})
	case c.leaf() || (!a.leaf() && (a.i1-a.i0)*(a.j1-a.j0) >= (c.i1-c.i0)*(c.j1-c.j0)):
		b.pair(a.left, kb)
		b.pair(a.right, kb)
	default:
		b.pair(ka, c.left)
		b.pair(ka, c.right)
	}
}

// star reports whether the contour of node a, or of the union of a and c
// (two rectangles that share a stretch of their sides; nil c for a alone)
// projected along the cone's axis winds once round the projection of its
// corners' mean, turning the same way at every edge, at the start of the
// step and, for a swept refit, throughout it. Rectangles that meet only at
// a corner do not form a disc and fail.
func (b *bvh) star(k *cone, a, c *bvNode) bool {
	sh := shared{sideA: -1, sideC: -1}
	if c != nil {
		var ok bool
		if sh, ok = sharedSide(a, c); !ok {
			return false
		}
	}
	// The centre: the mean of the corners, at both ends of the step.
	var p0, p1 vec
	nc := 0
	for _, r := range [2]*bvNode{a, c} {
		if r == nil {
			continue
		}
		for _, q := range r.corners(b.m.nu) {
			p0 = p0.add(vecAt(b.x0, q))
			if b.x1 != nil {
				p1 = p1.add(vecAt(b.x1, q))
			}
			nc++
		}
	}
	p0 = p0.scale(1 / float64(nc))
	p1 = p1.scale(1 / float64(nc))
	// The contour's edges as pairs of nodes, listed first and then tested
	// in one loop (a callback per edge cost more than its test).
	e := b.contour(a, sh, sh.sideA, b.edges[:0])
	if c != nil {
		e = b.contour(c, sh, sh.sideC, e)
	}
	b.edges = e
	// Every edge must turn the same way round the centre; then the contour
	// winds round it a whole number of times, which is how many times it
	// crosses a ray from the centre (towards the first corner): once for a
	// simple contour. The first edge that does not turn that way decides.
	var ray vec
	crossings := 0
	for q := 0; q < len(e); q += 2 {
		i, j := e[q], e[q+1]
		a0, c0 := vecAt(b.x0, i).sub(p0), vecAt(b.x0, j).sub(p0)
		s0 := a0.cross(c0).dot(k.axis)
		if !(s0 > 0) {
			return false
		}
		if q == 0 {
			ray = a0
		}
		// The edge crosses the ray when a0 lies on or after it and c0
		// before it, turning positively, on the ray's side.
		ra, rc := ray.cross(a0).dot(k.axis), ray.cross(c0).dot(k.axis)
		if ra <= 0 && rc > 0 && a0.add(c0).dot(ray) > 0 {
			crossings++
		}
		if b.x1 == nil {
			continue
		}
		a1, c1 := vecAt(b.x1, i).sub(p1), vecAt(b.x1, j).sub(p1)
		s1 := a1.cross(c1).dot(k.axis)
		sm := 0.5 * (a0.cross(c1).add(a1.cross(c0))).dot(k.axis)
		if !(s1 > 0 && sm > 0) {
			return false
		}
	}
	return crossings == 1
}

// corners returns the grid indices of the rectangle's four corner nodes.
func (n *bvNode) corners(nu int) [4]int32 {
	u := int32(nu)
	return [4]int32{n.j0*u + n.i0, n.j0*u + n.i1, n.j1*u + n.i1, n.j1*u + n.i0}
}

// shared is the stretch two touching rectangles share: on side sideA of
// the first (0 bottom, 1 right, 2 top, 3 left) and sideC of the second,
// between grid lines lo and hi of the coordinate along that side.
type shared struct {
	sideA, sideC int
	lo, hi       int32
}

// sharedSide finds the stretch of side two rectangles share, if it is
// longer than a point.
func sharedSide(a, c *bvNode) (shared, bool) {
	ov := func(a0, a1, c0, c1 int32) (int32, int32, bool) {
		lo, hi := max(a0, c0), min(a1, c1)
		return lo, hi, hi > lo
	}
	switch {
	case a.i1 == c.i0:
		lo, hi, ok := ov(a.j0, a.j1, c.j0, c.j1)
		return shared{1, 3, lo, hi}, ok
	case c.i1 == a.i0:
		lo, hi, ok := ov(a.j0, a.j1, c.j0, c.j1)
		return shared{3, 1, lo, hi}, ok
	case a.j1 == c.j0:
		lo, hi, ok := ov(a.i0, a.i1, c.i0, c.i1)
		return shared{2, 0, lo, hi}, ok
	case c.j1 == a.j0:
		lo, hi, ok := ov(a.i0, a.i1, c.i0, c.i1)
		return shared{0, 2, lo, hi}, ok
	}
	return shared{}, false
}

// skips reports whether grid line g of side lies in the stretch sh, on
// side skip (skip -1: none).
func (sh *shared) skips(side, skip int, g int32) bool {
	return side == skip && g >= sh.lo && g < sh.hi
}

// contour appends to dst the edges of r's contour as pairs of nodes,
// counter-clockwise in the rest plane (the triangles' winding), leaving
// out the edges of side skip between grid lines sh.lo and sh.hi (skip -1:
// none).
func (b *bvh) contour(r *bvNode, sh shared, skip int, dst []int32) []int32 {
	nu := int32(b.m.nu)
	for i := r.i0; i < r.i1; i++ { // bottom, left to right
		if !sh.skips(0, skip, i) {
			dst = append(dst, r.j0*nu+i, r.j0*nu+i+1)
		}
	}
	for j := r.j0; j < r.j1; j++ { // right, upwards
		if !sh.skips(1, skip, j) {
			dst = append(dst, j*nu+r.i1, (j+1)*nu+r.i1)
		}
	}
	for i := r.i1; i > r.i0; i-- { // top, right to left
		if !sh.skips(2, skip, i-1) {
			dst = append(dst, r.j1*nu+i, r.j1*nu+i-1)
		}
	}
	for j := r.j1; j > r.j0; j-- { // left, downwards
		if !sh.skips(3, skip, j-1) {
			dst = append(dst, j*nu+r.i0, (j-1)*nu+r.i0)
		}
	}
	return dst
}

package sim

import (
	"math"
	"slices"
)

// Self-collision: the cloth's contact with itself, in three parts.
//
//  1. Proximity (before the solve): the hierarchy (bvh.go), refitted at the
//     step's start, finds every vertex-triangle and edge-edge pair of
//     features that share no node, lie apart on the rest surface (not one
//     layer bending round) and come closer than the fabric's thickness
//     plus a margin. Where a pad presses (its contacts' triangles and the
//     ring round them: markPressed), the pairs are the layers of a
//     pinched stack: they enter the step's implicit solve as stiff
//     springs (stackPair), so that the pads, the layers between them and
//     the local models see one body.
//  2. Response (after the solve): the other pairs get HAPTEX's
//     geometrical correction (tutorial §3.5; Volino and Magnenat-Thalmann,
//     "Implementing fast cloth simulation with collision response", CGI
//     2000) in the form of Bridson, Fedkiw and Anderson's repulsion (2002,
//     §7.2): a pair that would end the step closer than the thickness is
//     moved apart along its normal to the thickness, its approach stopped
//     (inelastic), and its tangential relative velocity reduced by Coulomb
//     friction with the fabric's LayerFriction. The corrections run as a
//     few Gauss-Seidel sweeps, mass-weighted, pinned nodes immovable.
//  3. Fail-safe (last): continuous collision detection over the step's
//     straight-line motion (ccd.go), on a refit of the hierarchy that
//     bounds the motion, with rigid impact zones (Bridson et al. §7.4):
//     the nodes of colliding features merge into zones that move as
//     rigid translations over the step, keeping their linear momentum,
//     until no collision is left. A translation keeps every distance
//     inside the zone, so a zone cannot collide with itself; zones grow
//     until none collides with anything, and as a last resort the whole
//     cloth keeps its start-of-step shape. (Bridson et al. keep angular
//     momentum too, with a rotation; the straight-line motion a rotation
//     would be checked on is a chord, which shortens distances, so the
//     guarantee would be lost.) The step's start is intersection-free, so
//     its end is.

// stackStiffness is the layers' contact stiffness in a pinched stack, in
// units of the fabric's compression stiffness times the area a pair
// stands for: ten times the fabric's own, so that the stack's compliance is
// the pads' (contact.go divides their stiffness by the layers they press,
// so a stack of n layers renders n layers' compression).
const stackStiffness = 10

// Separation targets, in units of the fabric's thickness: the response
// moves pairs apart to one thickness; in a pinched stack, whose springs
// compress the layers, it keeps them at least minSeparation apart.
const minSeparation = 0.5

// ccdTolerance is how close, as a fraction of the thickness, features may
// come at a coplanar instant before the fail-safe calls it a collision.
const ccdTolerance = 0.01

// featPair is a vertex-triangle or edge-edge pair of nearby features: the
// gap between their closest points is Σ w[i]·x[n[i]], along nrm (unit,
// from the second feature to the first) at the step's start.
type featPair struct {
	n    [4]int32
	w    [4]float64
	nrm  vec
	dist float64 // the gap's length at the step's start
	area float64 // the area the pair stands for [m²]
	edge bool
}

// gap returns Σ w[i]·x[n[i]].
func (p *featPair) gap(x []float64) vec {
	var g vec
	for i, n := range p.n {
		g = g.add(vecAt(x, n).scale(p.w[i]))
	}
	return g
}

// stackPair is a pair of features in a pinched stack, a spring in the
// solve: energy ½k·max(0, thick - nrm·g)² along the normal and ½k·|t - a|²
// across it, t the gap's tangential part and a its anchor, which holds
// the layers' friction (stuck while the spring's force is inside the
// friction cone, dragged to its edge when it slips, as the pads'). Its
// Jacobian is taken as -k·I on the gap (exact in contact): the couplings
// are multiples of the identity, as the bending operator's are.
type stackPair struct {
	featPair
	k      float64
	anchor vec // the tangential gap the friction spring holds
	f      vec // the spring's force on the gap at the step's start
}

// ownedFeatures are the vertices and edges a grid square tests as its
// own, so that each pair of features is examined once: its lower-left
// node, bottom and left edges and diagonal, and the top and right ones of
// the grid's last row and column.
type ownedFeatures struct {
	verts  [4]int32
	edges  [5][2]int32
	nv, ne int8
}

// selfContact is the self-collision's state and scratch.
type selfContact struct {
	c   *Cloth
	bvh *bvh
	own []ownedFeatures
	// The step's proximity pairs and its pinched stack's.
	prox  []featPair
	stack []stackPair
	prev  []stackPair // last step's stack, for the friction anchors
	// touched marks the nodes of triangles a pad touched at the end of
	// the last step, pressed those and the nodes of the triangles round
	// them (markPressed).
	touched, pressed []bool
	// The stack's couplings cK·k·w_i·w_j, i ≠ j, sorted by row.
	cpl []scalarCoupling
	// Scratch of their sort (sortCouplings).
	cplTmp   []scalarCoupling
	cplCount []int32
	x0       []float64 // positions at the step's start
	zone     []int32   // impact zones: union-find parents per node
	disp     []float64 // the step's displacement before the fail-safe
	// The impact zones' result, while separateAfterZones tries to improve
	// on it.
	xz, vz []float64
	zsum   [][5]float64 // per zone: Σ m·d (3), Σ m (+Inf with a pinned node), nodes
	// mlo, mhi: per node, the box of its motion over the step, for the
	// continuous tests' cheap rejection (collisions).
	mlo, mhi []vec
	// Per step: pairs found, corrections, collisions; and the layers each
	// pad's pinch holds.
	nProx, nStack, nResp, nCCD, nZones int
	frozen                             bool
	layers                             [NumFingers]int
	// face bounds, in a pinch of several layers, the layer each pad
	// faces: the plane through faceAt[k] normal to faceDir (from the
	// thumb to the index), halfway to the next layer.
	faceAt  [NumFingers][3]float64
	faceDir [3]float64
	// restFar is the rest-surface distance below which two features are
	// one layer bending round [m].
	restFar float64
	// cand are the pairs of squares the last step's fail-safe traversal
	// found, grown by candReach/2: the next step's proximity candidates
	// while fresh (its end is the next step's start, unchanged since).
	cand      [][2]int32
	candReach float64
	fresh     bool
	// The features of cand closer than candReach as the fail-safe's last
	// separation sweep measured them (near, from nearAt[k] for cand[k]),
	// and per node the last square pair whose sweep moved it (stamp, k+1;
	// 0: not moved in that sweep). The next step's proximity takes a
	// square pair's features from there when none of its nodes moved at
	// or after its turn in that sweep and the positions are xEnd, bit for
	// bit: the same inputs to the same closest-point tests.
	near   []nearFeat
	nearAt []int32
	stamp  []int32
	xEnd   []float64
	record bool // the separation sweeps record near
}

// nearFeat is a vertex-triangle (tri ≥ 0: vertex n[0], weights w) or
// edge-edge pair (tri -1: edges n[0]-n[1] and n[2]-n[3] at parameters w[0]
// and w[1]) whose closest points lie closer than the proximity's reach.
type nearFeat struct {
	n   [4]int32
	w   [3]float64
	tri int32
}

// scalarCoupling is one off-diagonal scalar coupling of the step's matrix.
type scalarCoupling struct {
	i, j int32
	v    float64
}

func (s *selfContact) init(c *Cloth) {
	s.c = c
	m := c.m
	s.bvh = newBVH(m)
	su, sv := int32(m.nu-1), int32(m.nv-1)
	s.own = make([]ownedFeatures, su*sv)
	id := func(i, j int32) int32 { return j*int32(m.nu) + i }
	for j := range sv {
		for i := range su {
			o := &s.own[j*su+i]
			a, b, cc, d := id(i, j), id(i+1, j), id(i+1, j+1), id(i, j+1)
			o.verts[o.nv], o.nv = a, o.nv+1
			if i == su-1 {
				o.verts[o.nv], o.nv = b, o.nv+1
			}
			if j == sv-1 {
				o.verts[o.nv], o.nv = d, o.nv+1
			}
			if i == su-1 && j == sv-1 {
				o.verts[o.nv], o.nv = cc, o.nv+1
			}
			diag := [2]int32{a, cc}
			if (i+j)%2 == 1 {
				diag = [2]int32{b, d}
			}
			for _, e := range [3][2]int32{{a, b}, {a, d}, diag} {
				o.edges[o.ne], o.ne = e, o.ne+1
			}
			if i == su-1 {
				o.edges[o.ne], o.ne = [2]int32{b, cc}, o.ne+1
			}
			if j == sv-1 {
				o.edges[o.ne], o.ne = [2]int32{d, cc}, o.ne+1
			}
		}
	}
	n := c.n
	s.pressed = make([]bool, n)
	s.touched = make([]bool, n)
	s.x0 = make([]float64, 3*n)
	s.zone = make([]int32, n)
	s.disp = make([]float64, 3*n)
	s.xz = make([]float64, 3*n)
	s.vz = make([]float64, 3*n)
	s.zsum = make([][5]float64, n)
	s.mlo = make([]vec, n)
	s.mhi = make([]vec, n)
	// Room for what a fold of the whole cloth finds (the fold scene: up to
	// 272 pairs at 16², 269 at 64²), so that a handling does not grow the
	// lists in its steps; they still grow if it must.
	room := max(1024, n)
	s.prox = make([]featPair, 0, room)
	s.stack = make([]stackPair, 0, room/2)
	s.prev = make([]stackPair, 0, room/2)
	s.cpl = make([]scalarCoupling, 0, 4*room)
	s.cplTmp = make([]scalarCoupling, 0, 4*room)
	s.cplCount = make([]int32, n+1)
	s.cand = make([][2]int32, 0, room)
	s.near = make([]nearFeat, 0, room)
	s.nearAt = make([]int32, 0, room+1)
	s.stamp = make([]int32, n)
	s.xEnd = make([]float64, 3*n)
	s.layers = [NumFingers]int{1, 1}
	if c.cfg.Operator == Assembled {
		// The springs' couplings join the operator's matrices (both: a
		// trial point assembles into the second) and the smoother's lists.
		op := &c.dyn.op
		op.a.reserveMerge(cap(s.cpl))
		op.next.reserveMerge(cap(s.cpl))
		c.dyn.pc.reserveMix(cap(s.cpl))
	}
}

// reach is how far apart two features may be at the step's start to be a
// proximity pair: the thickness, and as much again for the step's motion.
func (s *selfContact) reach() float64 { return 2 * s.c.fab.thick }

// begin finds the step's proximity pairs at x (the step's start) and
// splits off the pinched stack's, with their friction anchors from the
// last step. It also counts the layers each pinch holds (padLayers).
func (s *selfContact) begin(x []float64) {
	c := s.c
	copy(s.x0, x)
	th := c.fab.thick
	s.restFar = 2 * th
	r := s.reach()
	if s.fresh && s.candReach == r {
		s.proximity(x, s.cand, r, s.replayable(x))
	} else {
		s.bvh.refit(x, nil, r/2)
		s.proximity(x, s.bvh.collect(0.5), r, false)
	}
	s.fresh = false
	s.prev, s.stack = s.stack, s.prev[:0]
	keep := s.prox[:0]
	for i := range s.prox {
		p := &s.prox[i]
		if !s.underPad(p) {
			keep = append(keep, *p)
			continue
		}
		sp := stackPair{featPair: *p, k: stackStiffness * c.fab.compression * p.area}
		g := p.gap(x)
		sp.anchor = g.sub(p.nrm.scale(g.dot(p.nrm)))
		for j := range s.prev {
			if q := &s.prev[j]; q.n == p.n && q.edge == p.edge {
				// In this step's tangent plane, so that the spring's force
				// is its energy's gradient (the step's line search descends
				// on that energy).
				sp.anchor = q.anchor.sub(p.nrm.scale(q.anchor.dot(p.nrm)))
				break
			}
		}
		s.stack = append(s.stack, sp)
	}
	s.prox = keep
	s.nProx, s.nStack = len(s.prox)+len(s.stack), len(s.stack)
	s.padLayers(x)
}

// proximity sets s.prox to the pairs of features of the squares in pairs
// closer than r at x. With replay (replayable), a square pair none of
// whose nodes the last separation sweep moved at or after its turn takes
// its features from that sweep's list instead of measuring them again:
// the sweep ran the same closest-point tests (closestOnTri,
// closestOnEdgePair) on the same square pairs (cand is the sweep's list),
// in the same order, on the same positions bit for bit (x is xEnd), so it
// found the same features with the same weights; the pairs are then built
// from x as the tests' own are (addVT, addEE).
func (s *selfContact) proximity(x []float64, pairs [][2]int32, r float64, replay bool) {
	s.prox = s.prox[:0]
	for k, sq := range pairs {
		if replay && s.settled(sq, k) {
			s.replay(x, s.near[s.nearAt[k]:s.nearAt[k+1]])
			continue
		}
		s.narrow(x, sq[0], sq[1], r)
		s.narrow(x, sq[1], sq[0], r)
		s.edgePairs(x, sq[0], sq[1], r)
	}
}

// replayable reports whether the last separation sweep's features can
// stand for the next step's proximity at x: the fail-safe ended the last
// step without moving the cloth after that sweep (fresh: no collision,
// no impact zone, no second traversal; xEnd is its end), nothing has
// moved the cloth since, and the sweep listed cand's square pairs at the
// proximity's reach.
func (s *selfContact) replayable(x []float64) bool {
	return s.fresh && s.candReach == s.reach() && len(s.nearAt) == len(s.cand)+1 && unchanged(x, s.xEnd)
}

// underPad reports whether a pair lies in a pinch: a node it weighs
// belongs to a triangle a pad touched.
func (s *selfContact) underPad(p *featPair) bool {
	for i, n := range p.n {
		if math.Abs(p.w[i]) > 0.1 && s.pressed[n] {
			return true
		}
	}
	return false
}

// restVT is the rest-surface distance from node v to triangle t.
func (s *selfContact) restVT(v int32, t *tri) float64 {
	uv := s.c.m.uv
	p := vec{uv[2*v], uv[2*v+1], 0}
	var q [3]vec
	for k, n := range t.n {
		q[k] = vec{uv[2*n], uv[2*n+1], 0}
	}
	_, d2 := closestOnTri(p, q[0], q[1], q[2])
	return math.Sqrt(d2)
}

// narrow adds the vertex-triangle pairs of square a's own vertices and
// square b's triangles closer than r.
func (s *selfContact) narrow(x []float64, a, b int32, r float64) {
	m := s.c.m
	o := &s.own[a]
	t0, t1 := squareTris(b)
	for _, ti := range [2]int32{t0, t1} {
		t := &m.tris[ti]
		va, vb, vc := vecAt(x, t.n[0]), vecAt(x, t.n[1]), vecAt(x, t.n[2])
		for _, v := range o.verts[:o.nv] {
			if v == t.n[0] || v == t.n[1] || v == t.n[2] {
				continue
			}
			w, d2 := closestOnTri(vecAt(x, v), va, vb, vc)
			if d2 < r*r {
				s.addVT(x, v, t, w)
			}
		}
	}
}

// addVT adds the vertex-triangle pair of vertex v and triangle t, whose
// closest point has the weights w, unless they lie close on the rest
// surface.
func (s *selfContact) addVT(x []float64, v int32, t *tri, w [3]float64) {
	if s.restVT(v, t) < s.restFar {
		return
	}
	va, vb, vc := vecAt(x, t.n[0]), vecAt(x, t.n[1]), vecAt(x, t.n[2])
	p := vecAt(x, v)
	q := va.scale(w[0]).add(vb.scale(w[1])).add(vc.scale(w[2]))
	nrm, d := unitVec(p.sub(q))
	if d == 0 {
		nrm, _ = unitVec(vb.sub(va).cross(vc.sub(va)))
	}
	s.prox = append(s.prox, featPair{
		n: [4]int32{v, t.n[0], t.n[1], t.n[2]}, w: [4]float64{1, -w[0], -w[1], -w[2]},
		nrm: nrm, dist: d, area: s.c.m.area[v],
	})
}

// replay adds the proximity pairs of features the last separation sweep
// measured (near) at the same positions.
func (s *selfContact) replay(x []float64, near []nearFeat) {
	for i := range near {
		f := &near[i]
		if f.tri >= 0 {
			s.addVT(x, f.n[0], &s.c.m.tris[f.tri], f.w)
		} else {
			s.addEE(x, [2]int32{f.n[0], f.n[1]}, [2]int32{f.n[2], f.n[3]}, f.w[0], f.w[1])
		}
	}
}

// settled reports whether no node of the square pair sq, the k-th of the
// last separation sweep, moved at or after its turn in that sweep.
func (s *selfContact) settled(sq [2]int32, k int) bool {
	nu := int32(s.c.m.nu)
	for _, q := range sq {
		a := q/(nu-1)*nu + q%(nu-1)
		if max(s.stamp[a], s.stamp[a+1], s.stamp[a+nu], s.stamp[a+nu+1]) > int32(k) {
			return false
		}
	}
	return true
}

// unchanged reports whether a and b hold the same bits.
func unchanged(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// edgePairs adds the edge-edge pairs of the two squares' own edges
// closer than r.
func (s *selfContact) edgePairs(x []float64, a, b int32, r float64) {
	oa, ob := &s.own[a], &s.own[b]
	for _, e := range oa.edges[:oa.ne] {
		for _, f := range ob.edges[:ob.ne] {
			if e[0] == f[0] || e[0] == f[1] || e[1] == f[0] || e[1] == f[1] {
				continue
			}
			u, v, d2 := closestOnEdgePair(vecAt(x, e[0]), vecAt(x, e[1]), vecAt(x, f[0]), vecAt(x, f[1]))
			if d2 < r*r {
				s.addEE(x, e, f, u, v)
			}
		}
	}
}

// addEE adds the edge-edge pair of edges e and f, whose closest points
// lie at parameters u and v, unless they lie close on the rest surface.
func (s *selfContact) addEE(x []float64, e, f [2]int32, u, v float64) {
	if s.restEE(e, f) < s.restFar {
		return
	}
	m := s.c.m
	p1, q1, p2, q2 := vecAt(x, e[0]), vecAt(x, e[1]), vecAt(x, f[0]), vecAt(x, f[1])
	g := p1.add(q1.sub(p1).scale(u)).sub(p2.add(q2.sub(p2).scale(v)))
	nrm, d := unitVec(g)
	if d == 0 {
		nrm, _ = unitVec(q1.sub(p1).cross(q2.sub(p2)))
	}
	s.prox = append(s.prox, featPair{
		n: [4]int32{e[0], e[1], f[0], f[1]}, w: [4]float64{1 - u, u, -(1 - v), -v},
		nrm: nrm, dist: d, edge: true,
		area: (m.area[e[0]] + m.area[e[1]] + m.area[f[0]] + m.area[f[1]]) / 8,
	})
}

// restEE is the rest-surface distance between edges e and f.
func (s *selfContact) restEE(e, f [2]int32) float64 {
	uv := s.c.m.uv
	at := func(n int32) vec { return vec{uv[2*n], uv[2*n+1], 0} }
	_, _, d2 := closestOnEdgePair(at(e[0]), at(e[1]), at(f[0]), at(f[1]))
	return math.Sqrt(d2)
}

// padLayers counts the layers of cloth between the pads of a pinch: the
// crossings of the segment between the pad centres with the cloth's
// triangles, those closer than a quarter thickness along it counted once
// (a segment through a shared edge crosses two). A pad not in a pinch
// counts one.
func (s *selfContact) padLayers(x []float64) {
	c := s.c
	s.layers = [NumFingers]int{1, 1}
	a, b := &c.pads.f[Thumb].in, &c.pads.f[IndexFinger].in
	if !a.present || !b.present {
		return
	}
	th := c.fab.thick
	d := sub3(b.c, a.c)
	l := norm3(d)
	if l > a.r+b.r+8*th || l == 0 {
		return
	}
	mid := scale3(0.5, add3(a.c, b.c))
	c.pads.search.bound(x)
	cand := c.pads.search.near(x, mid, l/2)
	var hits [16]float64
	nh := 0
	o, dir := vec{a.c[0], a.c[1], a.c[2]}, vec{d[0] / l, d[1] / l, d[2] / l}
	for _, ti := range cand {
		t := &c.m.tris[ti]
		if h, ok := rayTri(o, dir, vecAt(x, t.n[0]), vecAt(x, t.n[1]), vecAt(x, t.n[2])); ok && h >= 0 && h <= l && nh < len(hits) {
			hits[nh] = h
			nh++
		}
	}
	slices.Sort(hits[:nh])
	// The layers' positions along the segment: each the first crossing
	// of its cluster.
	var at [16]float64
	n := 0
	for i := range nh {
		if i == 0 || hits[i]-hits[i-1] > th/4 {
			at[n] = hits[i]
			n++
		}
	}
	n = max(n, 1)
	s.layers = [NumFingers]int{n, n}
	if n < 2 {
		return
	}
	// Each pad presses the layer it faces; the stack's springs carry the
	// squeeze through the others, so that n layers render in series.
	s.faceDir = dir.arr()
	s.faceAt[Thumb] = add3(a.c, scale3((at[0]+at[1])/2, s.faceDir))
	s.faceAt[IndexFinger] = add3(a.c, scale3((at[n-2]+at[n-1])/2, s.faceDir))
}

// faces reports whether point p is in the layer pad k faces (always, but
// in a pinch of several layers).
func (s *selfContact) faces(k int, p [3]float64) bool {
	if s.layers[k] < 2 {
		return true
	}
	h := dot3(sub3(p, s.faceAt[k]), s.faceDir)
	if k == Thumb {
		return h < 0
	}
	return h > 0
}

// rayTri returns where the ray o + h·dir crosses the triangle (a, b, c),
// edges included (Möller and Trumbore, "Fast, minimum storage ray-triangle
// intersection", J. Graphics Tools 2(1), 1997).
func rayTri(o, dir, a, b, c vec) (float64, bool) {
	e1, e2 := b.sub(a), c.sub(a)
	p := dir.cross(e2)
	det := e1.dot(p)
	if math.Abs(det) < 1e-30 {
		return 0, false
	}
	inv := 1 / det
	t := o.sub(a)
	u := t.dot(p) * inv
	if u < 0 || u > 1 {
		return 0, false
	}
	q := t.cross(e1)
	v := dir.dot(q) * inv
	if v < 0 || u+v > 1 {
		return 0, false
	}
	return e2.dot(q) * inv, true
}

// linearize adds the stack springs' forces at x to f and returns their
// energy.
func (s *selfContact) linearize(x, f []float64) float64 {
	th := s.c.fab.thick
	var e float64
	for i := range s.stack {
		sp := &s.stack[i]
		g := sp.gap(x)
		gn := g.dot(sp.nrm)
		t := g.sub(sp.nrm.scale(gn)).sub(sp.anchor)
		pen := max(0, th-gn)
		e += 0.5 * sp.k * (pen*pen + t.dot(t))
		sp.f = sp.nrm.scale(sp.k * pen).sub(t.scale(sp.k))
		for j, n := range sp.n {
			addVecAt(f, n, sp.f.scale(sp.w[j]))
		}
	}
	return e
}

// energy returns the stack springs' energy at x.
func (s *selfContact) energy(x []float64) float64 {
	th := s.c.fab.thick
	var e float64
	for i := range s.stack {
		sp := &s.stack[i]
		g := sp.gap(x)
		gn := g.dot(sp.nrm)
		t := g.sub(sp.nrm.scale(gn)).sub(sp.anchor)
		pen := max(0, th-gn)
		e += 0.5 * sp.k * (pen*pen + t.dot(t))
	}
	return e
}

// assemble adds cK·k·w_i² to the diagonal blocks of a and lists the
// couplings cK·k·w_i·w_j, i ≠ j, sorted by row and column.
func (s *selfContact) assemble(a *bcsr, cK float64) {
	s.cpl = s.cpl[:0]
	for i := range s.stack {
		sp := &s.stack[i]
		for r, nr := range sp.n {
			d := cK * sp.k * sp.w[r] * sp.w[r]
			b := &a.val[a.diag[nr]]
			b[0][0] += d
			b[1][1] += d
			b[2][2] += d
			for q, nq := range sp.n {
				if q != r {
					s.cpl = append(s.cpl, scalarCoupling{nr, nq, cK * sp.k * sp.w[r] * sp.w[q]})
				}
			}
		}
	}
	if cap(s.cplTmp) < len(s.cpl) {
		s.cplTmp = make([]scalarCoupling, 0, cap(s.cpl))
	}
	s.cplTmp = s.cplTmp[:len(s.cpl)]
	sortCouplings(s.cpl, s.cplTmp, s.cplCount)
}

// sortCouplings sorts cpl by row, then column, couplings of the same row
// and column in the order they came: a counting sort by column into tmp,
// then one by row back into cpl (tmp as long as cpl, count one longer
// than the rows and columns there are).
func sortCouplings(cpl, tmp []scalarCoupling, count []int32) {
	if len(cpl) < 2 {
		return // nothing to sort (no stack): the passes would only clear count
	}
	countingPass(tmp, cpl, count, false)
	countingPass(cpl, tmp, count, true)
}

// countingPass copies src to dst in the order of their rows (row) or
// columns, stably.
func countingPass(dst, src []scalarCoupling, count []int32, row bool) {
	clear(count)
	for q := range src {
		count[src[q].key(row)+1]++
	}
	for r := 1; r < len(count); r++ {
		count[r] += count[r-1]
	}
	for q := range src {
		k := src[q].key(row)
		dst[count[k]] = src[q]
		count[k]++
	}
}

func (c *scalarCoupling) key(row bool) int32 {
	if row {
		return c.i
	}
	return c.j
}

// addDiag adds the stack's diagonal blocks cK·k·w_i²·I to d (the
// matrix-free operator's block Jacobi).
func (s *selfContact) addDiag(d [][3][3]float64, cK float64) {
	for i := range s.stack {
		sp := &s.stack[i]
		for r, n := range sp.n {
			w := cK * sp.k * sp.w[r] * sp.w[r]
			d[n][0][0] += w
			d[n][1][1] += w
			d[n][2][2] += w
		}
	}
}

// mulAdd adds c·J·p of the stack springs to dst (J = -k·w·wᵀ ⊗ I).
func (s *selfContact) mulAdd(dst, p []float64, c float64) {
	for i := range s.stack {
		sp := &s.stack[i]
		g := sp.gap(p).scale(-c * sp.k)
		for j, n := range sp.n {
			addVecAt(dst, n, g.scale(sp.w[j]))
		}
	}
}

// settle updates the stack springs' friction after the step (x its end):
// a spring whose tangential force exceeds the static cone slips, its
// anchor dragged to the kinetic cone's edge.
func (s *selfContact) settle(x []float64) {
	c := s.c
	th := c.fab.thick
	mu := c.fab.layerMu
	for i := range s.stack {
		sp := &s.stack[i]
		g := sp.gap(x)
		gn := g.dot(sp.nrm)
		fn := sp.k * max(0, th-gn)
		tg := g.sub(sp.nrm.scale(gn))
		ft := tg.sub(sp.anchor).scale(sp.k)
		if l := math.Sqrt(ft.dot(ft)); l > mu*fn && l > 0 {
			// Slipping: the anchor follows to where the spring pulls with
			// the friction force.
			sp.anchor = tg.sub(ft.scale(mu * fn / (l * sp.k)))
		}
	}
}

// markPressed records, for the next step's stack, the nodes of the
// triangles the pads touch after the step and of the triangles round
// them. The ring keeps the stack steady: at the pinch's rim a pad's probes
// touch a triangle in one step and miss it in the next, and each time the
// pairs of its nodes left the stack, lost their friction anchors and were
// pushed apart to a full thickness by the response while the stack's
// springs let the layers under the pad compress. A static two-layer pinch
// then never settled (TestStaticStackSettles).
func (s *selfContact) markPressed() {
	c := s.c
	clear(s.touched)
	for k := range c.pads.f {
		for _, p := range c.pads.f[k].state {
			for _, n := range c.m.tris[p.tri].n {
				s.touched[n] = true
			}
		}
	}
	clear(s.pressed)
	for n, t := range s.touched {
		if !t {
			continue
		}
		for _, ti := range c.m.nodeTris[n] {
			for _, q := range c.m.tris[ti].n {
				s.pressed[q] = true
			}
		}
	}
}

// respond applies the geometrical correction to the proximity pairs for
// the step from x0 (s.x0) to x with velocities v: a few mass-weighted
// Gauss-Seidel sweeps that move each pair apart to the thickness along
// its normal (the stack's only to minSeparation of it), stop its
// approach and take Coulomb friction off its tangential relative
// velocity. It returns the number of corrections.
func (s *selfContact) respond(x, v []float64) int {
	c := s.c
	th := c.fab.thick
	mu := c.fab.layerMu
	count := 0
	for range 4 {
		sweep := 0
		for i := range s.prox {
			if s.correct(&s.prox[i], x, v, th, mu) {
				sweep++
			}
		}
		for i := range s.stack {
			if s.correct(&s.stack[i].featPair, x, v, minSeparation*th, 0) {
				sweep++
			}
		}
		count += sweep
		if sweep == 0 {
			break
		}
	}
	return count
}

// correct applies one pair's correction; it reports whether it changed
// anything.
func (s *selfContact) correct(p *featPair, x, v []float64, target, mu float64) bool {
	c := s.c
	var wm float64 // Σ w_i²/m_i over the free nodes
	for i, n := range p.n {
		wm += p.w[i] * p.w[i] * c.invMass(n)
	}
	if wm == 0 {
		return false
	}
	gn := p.gap(x).dot(p.nrm)
	if gn >= target {
		return false
	}
	// Positions: apart to the target along the normal.
	dp := (target - gn) / wm
	// Velocities: the approach stopped, the tangential slip reduced by
	// friction in proportion to the normal impulse.
	rel := p.gap(v)
	vn := rel.dot(p.nrm)
	jn := max(0, -vn) / wm
	vt := rel.sub(p.nrm.scale(vn))
	var jt vec
	if l := math.Sqrt(vt.dot(vt)); l > 0 && mu > 0 {
		jt = vt.scale(-min(1, mu*(jn+dp/c.dt)*wm/l) / wm)
	}
	for i, n := range p.n {
		im := c.invMass(n)
		if im == 0 {
			continue
		}
		addVecAt(x, n, p.nrm.scale(dp*p.w[i]*im))
		addVecAt(v, n, p.nrm.scale(jn*p.w[i]*im).add(jt.scale(p.w[i]*im)))
	}
	return true
}

// maxSeparationRounds bounds the fail-safe's separation sweeps. Moving
// one pair apart can push a third layer's feature towards another (in a
// fold laid over a fold), so the sweeps go on until none moves a pair by
// more than separationRest (a random fold of TestRandomFoldAndPinch
// needed 6, where 3 left a pair at 0.28 of the thickness; another, after
// the stack's blocks changed its path, still moved a pair after 20 in
// many steps and ended closer than the test allows: docs/cloth-contact.md).
const maxSeparationRounds = 100

// separationRest is the move, as a fraction of the separation, below
// which a sweep counts a pair as at rest. Moving one pair apart can push
// another back (a node held between layers by several edge pairs at
// once), and the sweeps then close the last millionths of the separation
// by a few percent a sweep; or a pair moved apart to the separation reads
// a few parts in 10¹⁵ short of it after rounding and is moved again by
// nothing. Either ran the sweeps to their cap (one of the random folds in
// 387 of its steps; the crumple at 24² in 4; docs/cloth-contact.md).
const separationRest = 1e-3

// maxZoneRounds bounds the fail-safe's rounds of detection and merging
// before it keeps the cloth's start-of-step shape.
const maxZoneRounds = 50

// failsafe keeps the layers apart at the end of the step and removes
// every collision of the step from x0 (s.x0) to x by rigid impact zones
// (see the top of the file), adjusting x and v. It first moves apart, to
// minSeparation of the thickness, the pairs of features that end the step
// closer than that (pairs that approached faster than the proximity's
// reach in one step, and edge pairs the response measured at other
// points), to the side they were on at the start: a pair that crossed is
// moved back. After impact zones it does so once more
// (separateAfterZones).
func (s *selfContact) failsafe(x, v []float64) {
	c := s.c
	th := c.fab.thick
	tol := ccdTolerance * th
	sep := minSeparation * th
	s.nCCD, s.nZones, s.frozen = 0, 0, false
	// One traversal for the separation, the collisions and the next
	// step's proximity: the motion's boxes grown by the proximity's reach,
	// the cones culled at 60°, which finds more than each needs.
	r := s.reach()
	s.bvh.refit(s.x0, x, r/2)
	pairs := s.bvh.collect(0.5)
	s.record = true
	moved := s.separateFully(x, v, pairs, sep)
	s.record = false
	if moved > (r-tol)/2 {
		// The separation moved nodes further than the boxes had room
		// for: bound the motion again.
		s.bvh.refit(s.x0, x, tol/2)
		pairs = s.bvh.collect(0)
	}
	s.cand = append(s.cand[:0], pairs...)
	s.candReach, s.fresh = r, moved <= (r-tol)/2
	merged := false
	for round := range maxZoneRounds {
		hits := s.collisions(x, pairs, tol, merged)
		if round == 0 {
			s.nCCD = hits
		}
		if hits == 0 {
			if merged {
				s.separateAfterZones(x, v, sep, tol)
			}
			if s.fresh {
				copy(s.xEnd, x)
			}
			return
		}
		s.fresh = false
		if !merged {
			merged = true
			for k := range s.zone {
				s.zone[k] = int32(k)
			}
			for i := range x {
				s.disp[i] = x[i] - s.x0[i]
			}
			// The first round only counted the collisions: run it again,
			// merging.
			s.collisions(x, pairs, tol, true)
		}
		s.moveZones(x, v)
		s.bvh.refit(s.x0, x, tol/2)
		pairs = s.bvh.collect(0)
	}
	// Still colliding: the whole cloth keeps its shape at the start of the
	// step, at rest, which was free of intersection.
	copy(x, s.x0)
	clear(v)
	s.frozen = true
}

// separateAfterZones moves apart, to sep, every pair of features the
// impact zones left closer than that: a zone moves rigidly, so a feature
// outside it can end the step next to one inside. It keeps the result only
// if the step from x0 is still free of collisions, and otherwise restores
// the zones' result.
func (s *selfContact) separateAfterZones(x, v []float64, sep, tol float64) {
	copy(s.xz, x)
	copy(s.vz, v)
	s.bvh.refit(x, nil, sep/2)
	if s.separateFully(x, v, s.bvh.collect(0.5), sep) == 0 {
		return
	}
	s.bvh.refit(s.x0, x, tol/2)
	if s.collisions(x, s.bvh.collect(0), tol, false) > 0 {
		copy(x, s.xz)
		copy(v, s.vz)
	}
}

// separateFully sweeps separate over pairs until a sweep moves no pair
// (at most maxSeparationRounds) and returns a bound on how far it moved a
// node, 0 when it moved none.
func (s *selfContact) separateFully(x, v []float64, pairs [][2]int32, sep float64) (moved float64) {
	for range maxSeparationRounds {
		n, m := s.separate(x, v, pairs, sep)
		moved += m
		if n == 0 {
			break
		}
	}
	return moved
}

// collisions runs the continuous tests over the squares of pairs, both
// ways, and returns the collisions found; with merge it merges each
// collision's nodes into one impact zone.
func (s *selfContact) collisions(x []float64, pairs [][2]int32, tol float64, merge bool) int {
	// Each node's motion box once, not once per feature pair it is in.
	for k := range s.mlo {
		a, b := vecAt(s.x0, int32(k)), vecAt(x, int32(k))
		s.mlo[k] = vec{min(a.x, b.x), min(a.y, b.y), min(a.z, b.z)}
		s.mhi[k] = vec{max(a.x, b.x), max(a.y, b.y), max(a.z, b.z)}
	}
	hits := 0
	for _, sq := range pairs {
		hits += s.ccdSquares(x, sq[0], sq[1], tol, merge)
		hits += s.ccdSquares(x, sq[1], sq[0], tol, merge)
		hits += s.ccdEdges(x, sq[0], sq[1], tol, merge)
	}
	// A square's two triangles meet only if it folds flat on itself
	// along its diagonal, and then their normals are opposite: a square
	// whose normals stay within 90° of one axis over the step cannot. Its
	// leaf's cone is from the last refit, which the separation may have
	// moved on from, as it may the traversal's: 60°, as the traversal's
	// first cull, leaves the same margin.
	b := s.bvh
	for sq, k := range b.leaf {
		if !b.nodes[k].cone.within(0.5) {
			hits += s.ccdSquare(x, int32(sq), tol, merge)
		}
	}
	return hits
}

// ccdSquare is ccdSquares for square sq's features with one another: the
// vertex of each triangle that is not the other's against the other, and
// the edges of the two triangles that share no node.
func (s *selfContact) ccdSquare(x []float64, sq int32, tol float64, merge bool) int {
	m := s.c.m
	t0, t1 := squareTris(sq)
	ta, tb := &m.tris[t0], &m.tris[t1]
	hits := 0
	for _, pr := range [2][2]*tri{{ta, tb}, {tb, ta}} {
		t, o := pr[0], pr[1]
		for _, vtx := range t.n {
			if vtx == o.n[0] || vtx == o.n[1] || vtx == o.n[2] {
				continue
			}
			hits += s.ccdVertex(x, vtx, o, tol, merge)
		}
	}
	for q := range 3 {
		e := [2]int32{ta.n[q], ta.n[(q+1)%3]}
		for r := range 3 {
			f := [2]int32{tb.n[r], tb.n[(r+1)%3]}
			if e[0] == f[0] || e[0] == f[1] || e[1] == f[0] || e[1] == f[1] {
				continue
			}
			hits += s.ccdEdge(x, e, f, tol, merge)
		}
	}
	return hits
}

// separate moves apart, to sep, the pairs of features of the squares in
// pairs that end the step closer than sep and lie apart on the rest
// surface; it returns how many it moved by more than separationRest of
// sep and a bound on how far it moved a node.
//
// With s.record it lists the features closer than the proximity's reach
// in s.near and stamps the nodes it moves (selfContact.near).
func (s *selfContact) separate(x, v []float64, pairs [][2]int32, sep float64) (n int, moved float64) {
	rec := s.record
	var r2 float64
	if rec {
		s.near, s.nearAt = s.near[:0], s.nearAt[:0]
		clear(s.stamp)
		r := s.reach()
		r2 = r * r
	}
	for k, sq := range pairs {
		if rec {
			s.nearAt = append(s.nearAt, int32(len(s.near)))
		}
		for _, ab := range [2][2]int32{{sq[0], sq[1]}, {sq[1], sq[0]}} {
			o := &s.own[ab[0]]
			t0, t1 := squareTris(ab[1])
			for _, ti := range [2]int32{t0, t1} {
				t := &s.c.m.tris[ti]
				for _, vtx := range o.verts[:o.nv] {
					if vtx == t.n[0] || vtx == t.n[1] || vtx == t.n[2] {
						continue
					}
					w, d2 := closestOnTri(vecAt(x, vtx), vecAt(x, t.n[0]), vecAt(x, t.n[1]), vecAt(x, t.n[2]))
					if rec && d2 < r2 {
						s.near = append(s.near, nearFeat{n: [4]int32{vtx}, w: w, tri: ti})
					}
					if d2 >= sep*sep || s.restVT(vtx, t) < s.restFar {
						continue
					}
					p := featPair{n: [4]int32{vtx, t.n[0], t.n[1], t.n[2]}, w: [4]float64{1, -w[0], -w[1], -w[2]}}
					if ok, m := s.separatePair(&p, x, v, sep); ok {
						n += b2i(m > separationRest*sep)
						moved += m
						if rec {
							s.stampNodes(&p.n, k)
						}
					}
				}
			}
		}
		oa, ob := &s.own[sq[0]], &s.own[sq[1]]
		for _, e := range oa.edges[:oa.ne] {
			for _, f := range ob.edges[:ob.ne] {
				if e[0] == f[0] || e[0] == f[1] || e[1] == f[0] || e[1] == f[1] {
					continue
				}
				u, w, d2 := closestOnEdgePair(vecAt(x, e[0]), vecAt(x, e[1]), vecAt(x, f[0]), vecAt(x, f[1]))
				if rec && d2 < r2 {
					s.near = append(s.near, nearFeat{n: [4]int32{e[0], e[1], f[0], f[1]}, w: [3]float64{u, w}, tri: -1})
				}
				if d2 >= sep*sep || s.restEE(e, f) < s.restFar {
					continue
				}
				p := featPair{n: [4]int32{e[0], e[1], f[0], f[1]}, w: [4]float64{1 - u, u, -(1 - w), -w}, edge: true}
				if ok, m := s.separatePair(&p, x, v, sep); ok {
					n += b2i(m > separationRest*sep)
					moved += m
					if rec {
						s.stampNodes(&p.n, k)
					}
				}
			}
		}
	}
	if rec {
		s.nearAt = append(s.nearAt, int32(len(s.near)))
	}
	return n, moved
}

// stampNodes records that the sweep moved the nodes while at its k-th
// square pair.
func (s *selfContact) stampNodes(nodes *[4]int32, k int) {
	for _, q := range nodes {
		s.stamp[q] = int32(k + 1)
	}
}

// separatePair moves one pair apart to sep along the direction between its
// closest points at the end of the step, turned to the side the pair was
// on at the start (a pair that crossed is moved back). The response
// (respond) has moved the step's proximity pairs apart already, but at
// the closest points of the step's start: an edge pair's slide along its
// edges, so its edges can end closer than the response's pair reads.
func (s *selfContact) separatePair(p *featPair, x, v []float64, sep float64) (bool, float64) {
	nrm, l := unitVec(p.gap(x))
	if l == 0 {
		a, b, d := vecAt(x, p.n[1]), vecAt(x, p.n[2]), vecAt(x, p.n[3])
		if p.edge {
			nrm, _ = unitVec(b.sub(vecAt(x, p.n[0])).cross(d.sub(b)))
		} else {
			nrm, _ = unitVec(b.sub(a).cross(d.sub(a)))
		}
	}
	// The side the pair was on at the start: a proximity pair's normal,
	// found where the features were closest then (an edge pair's closest
	// points move along its edges).
	side := p.gap(s.x0)
	if q := s.proximityPair(p); q != nil {
		side = q.nrm
	}
	if nrm.dot(side) < 0 {
		nrm = nrm.scale(-1)
	}
	p.nrm = nrm
	gn := p.gap(x).dot(nrm)
	return s.correct(p, x, v, sep, s.c.fab.layerMu), max(0, sep-gn)
}

// proximityPair returns the proximity or stack pair of p's features at
// the step's start, or nil.
func (s *selfContact) proximityPair(p *featPair) *featPair {
	for i := range s.prox {
		if q := &s.prox[i]; q.n == p.n && q.edge == p.edge {
			return q
		}
	}
	for i := range s.stack {
		if q := &s.stack[i].featPair; q.n == p.n && q.edge == p.edge {
			return q
		}
	}
	return nil
}

// find returns node k's zone.
func (s *selfContact) find(k int32) int32 {
	for s.zone[k] != k {
		s.zone[k] = s.zone[s.zone[k]]
		k = s.zone[k]
	}
	return k
}

func (s *selfContact) union(nodes *[4]int32) {
	r := s.find(nodes[0])
	for _, n := range nodes[1:] {
		if q := s.find(n); q != r {
			s.zone[q] = r
		}
	}
}

// moveZones moves every zone of more than one node as a rigid translation
// over the step: the mass-weighted mean of its nodes' displacements (zero
// when it holds a pinned node).
func (s *selfContact) moveZones(x, v []float64) {
	c := s.c
	clear(s.zsum)
	for k := range s.zone {
		z := &s.zsum[s.find(int32(k))]
		z[4]++
		if !c.cons.free[k] {
			z[3] = math.Inf(1)
			continue
		}
		m := c.fab.mass[k]
		for q := range 3 {
			z[q] += m * s.disp[3*k+q]
		}
		z[3] += m
	}
	s.nZones = 0
	for k := range s.zone {
		if r := s.find(int32(k)); r == int32(k) && s.zsum[r][4] > 1 {
			s.nZones++
		}
	}
	for k := range s.zone {
		z := &s.zsum[s.find(int32(k))]
		if z[4] < 2 || !c.cons.free[k] {
			continue
		}
		var d [3]float64
		if !math.IsInf(z[3], 1) {
			d = [3]float64{z[0] / z[3], z[1] / z[3], z[2] / z[3]}
		}
		for q := range 3 {
			x[3*k+q] = s.x0[3*k+q] + d[q]
			v[3*k+q] = d[q] / c.dt
		}
	}
}

// ccdSquares tests square a's own vertices against square b's triangles
// over the step; it returns the collisions and, with merge, merges their
// nodes' zones.
func (s *selfContact) ccdSquares(x []float64, a, b int32, tol float64, merge bool) int {
	m := s.c.m
	o := &s.own[a]
	t0, t1 := squareTris(b)
	hits := 0
	for _, ti := range [2]int32{t0, t1} {
		t := &m.tris[ti]
		tlo, thi := s.boxOf(t.n[:])
		for _, vtx := range o.verts[:o.nv] {
			if vtx == t.n[0] || vtx == t.n[1] || vtx == t.n[2] {
				continue
			}
			if !boxMeet(tlo, thi, s.mlo[vtx], s.mhi[vtx], tol) {
				continue
			}
			hits += s.ccdVertex(x, vtx, t, tol, merge)
		}
	}
	return hits
}

// ccdVertex is 1 if vertex vtx meets triangle t over the step (merged
// into one impact zone with merge), else 0.
func (s *selfContact) ccdVertex(x []float64, vtx int32, t *tri, tol float64, merge bool) int {
	var p0, p1 [3]vec
	for k, n := range t.n {
		p0[k], p1[k] = vecAt(s.x0, n), vecAt(x, n)
	}
	if _, hit := ccdVT(vecAt(s.x0, vtx), vecAt(x, vtx), &p0, &p1, tol); !hit {
		return 0
	}
	if merge {
		s.union(&[4]int32{vtx, t.n[0], t.n[1], t.n[2]})
	}
	return 1
}

// ccdEdge is 1 if edges e and f meet over the step (merged into one
// impact zone with merge), else 0.
func (s *selfContact) ccdEdge(x []float64, e, f [2]int32, tol float64, merge bool) int {
	e0 := [2]vec{vecAt(s.x0, e[0]), vecAt(s.x0, e[1])}
	e1 := [2]vec{vecAt(x, e[0]), vecAt(x, e[1])}
	f0 := [2]vec{vecAt(s.x0, f[0]), vecAt(s.x0, f[1])}
	f1 := [2]vec{vecAt(x, f[0]), vecAt(x, f[1])}
	if _, hit := ccdEE(&e0, &e1, &f0, &f1, tol); !hit {
		return 0
	}
	if merge {
		s.union(&[4]int32{e[0], e[1], f[0], f[1]})
	}
	return 1
}

// ccdEdges is ccdSquares for the two squares' own edges.
func (s *selfContact) ccdEdges(x []float64, a, b int32, tol float64, merge bool) int {
	oa, ob := &s.own[a], &s.own[b]
	// b's edges' boxes once, not once for each of a's edges.
	var flo, fhi [5]vec
	for q, f := range ob.edges[:ob.ne] {
		flo[q], fhi[q] = s.edgeBox(f)
	}
	hits := 0
	for _, e := range oa.edges[:oa.ne] {
		elo, ehi := s.edgeBox(e)
		for q, f := range ob.edges[:ob.ne] {
			if e[0] == f[0] || e[0] == f[1] || e[1] == f[0] || e[1] == f[1] {
				continue
			}
			if !boxMeet(elo, ehi, flo[q], fhi[q], tol) {
				continue
			}
			hits += s.ccdEdge(x, e, f, tol, merge)
		}
	}
	return hits
}

// boxOf returns the box of the nodes' motion over the step, from their
// boxes (collisions).
func (s *selfContact) boxOf(nodes []int32) (lo, hi vec) {
	lo, hi = s.mlo[nodes[0]], s.mhi[nodes[0]]
	for _, k := range nodes[1:] {
		l, h := s.mlo[k], s.mhi[k]
		lo = vec{min(lo.x, l.x), min(lo.y, l.y), min(lo.z, l.z)}
		hi = vec{max(hi.x, h.x), max(hi.y, h.y), max(hi.z, h.z)}
	}
	return lo, hi
}

// edgeBox returns the box of an edge's motion over the step: boxOf for
// two nodes.
func (s *selfContact) edgeBox(e [2]int32) (lo, hi vec) {
	l0, h0, l1, h1 := s.mlo[e[0]], s.mhi[e[0]], s.mlo[e[1]], s.mhi[e[1]]
	lo = vec{min(l0.x, l1.x), min(l0.y, l1.y), min(l0.z, l1.z)}
	hi = vec{max(h0.x, h1.x), max(h0.y, h1.y), max(h0.z, h1.z)}
	return lo, hi
}

// boxMeet reports whether two boxes, grown by tol, overlap: the cheap
// test before the cubic.
func boxMeet(alo, ahi, lo, hi vec, tol float64) bool {
	return alo.x <= hi.x+tol && lo.x <= ahi.x+tol && alo.y <= hi.y+tol && lo.y <= ahi.y+tol &&
		alo.z <= hi.z+tol && lo.z <= ahi.z+tol
}

package sim

import "math"

// Finger contact.
//
// Each fingertip pad is a rigid sphere; the fabric is a layer of the
// material's thickness around the mesh, so a point of the cloth touches a
// pad when it is closer to the pad centre than the pad radius plus half the
// thickness. Contact is resolved on the surface: every triangle carries a
// fixed set of probes (its barycentric subdivision, at most ProbeSpacing
// apart), each a material point with a share of the triangle's area. A
// probe inside a pad is pushed out by the fabric's compression stiffness
// (pressure = Compression × penetration), distributed to the triangle's
// nodes by its barycentric weights, so the grip and the pressure field do
// not depend on the mesh resolution.
//
// Friction is Coulomb's, per probe, as a stiff tangential spring to an
// anchor (the spring keeps friction inside the implicit solve, so it cannot
// chatter). A sticking probe's anchor is the point of the pad it touched
// and moves with the pad. After each step the spring force is projected on
// the friction cone: beyond FrictionStatic × the normal force the probe
// slips and its anchor is dragged to the cone of FrictionKinetic. While a
// probe slips its anchor stays where the last step left it (it does not
// ride along with the pad), so the spring pulls the probe with the kinetic
// force towards where the pad dragged it. It sticks again when its speed
// relative to the pad falls below 1 mm/s. A pinch is two pads pressing the
// same probes from both sides: the cloth stays trapped as long as the
// friction of both pads holds it.
//
// The contacts are linearised at the start of the step with the pad at its
// end-of-step position, so the implicit solve pushes the cloth out within
// the step; after the step they are evaluated again at the new shape, which
// gives the published force.

// fingerInput is one finger for the current step.
type fingerInput struct {
	present bool
	c, vel  [3]float64 // pad centre at the end of the step; velocity
	last    [3]float64 // pad centre at the end of the previous step
	r       float64    // contact radius: pad radius + half the thickness
}

// contactPt is one probe touching one pad.
type contactPt struct {
	probe    int32
	tri      int32
	w        [3]float64
	offset   [3]float64 // friction anchor relative to the pad centre at the end of the last step
	slipping bool
	n        [3]float64 // unit, from the pad centre to the probe: the direction the pad pushes
	pen      float64
	k        float64       // normal and tangential stiffness [N/m]
	f        [3]float64    // force of the pad on the cloth [N]
	j        [3][3]float64 // ∂f/∂x of the probe, negative semi-definite
}

type fingerContact struct {
	in     fingerInput
	lin    []contactPt // the step's linearisation
	state  []contactPt // after the step: stick/slip state carried forward
	next   []contactPt
	slot   []int32 // per probe: index into state, or -1
	sens   [3][]float64
	rhs    []float64
	sensOK bool
	sensN  int // contacts when the three solves were last all refreshed
}

type contactState struct {
	c     *Cloth
	f     [NumFingers]fingerContact
	sub   []uint16       // per triangle: its probes' subdivision (see init)
	first []int32        // per triangle: the id of its first probe; ids are first[t] + index
	bary  [][][3]float64 // per subdivision: the probes' barycentric weights
	stamp []uint32
	epoch uint32
	cand  []int32
	// rowLo, rowHi bound each grid row's nodes (see bound); collect scans
	// only the rows whose box comes near a pad.
	rowLo, rowHi [][3]float64
	reach        float64
	capac        int
	overflow     int
	sensIters    int
	bad          int
}

const stickSpeed = 0.001 // [m/s]

func (s *contactState) init(c *Cloth) {
	s.c = c
	m := c.m
	// Each triangle's edges are cut into sub parts, sub from its longest
	// edge, so graded meshes probe their small triangles no more densely
	// than their large ones.
	s.first = make([]int32, len(m.tris)+1)
	s.sub = make([]uint16, len(m.tris))
	var longest float64
	for ti, t := range m.tris {
		var l float64
		for k := range 3 {
			l = max(l, m.restDist(t.n[k], t.n[(k+1)%3]))
		}
		longest = max(longest, l)
		sub := max(1, int(math.Ceil(l/c.cfg.ProbeSpacing)))
		s.sub[ti] = uint16(sub)
		s.first[ti+1] = s.first[ti] + int32(sub*sub)
		for len(s.bary) <= sub {
			s.bary = append(s.bary, subdivide(len(s.bary)))
		}
	}
	s.stamp = make([]uint32, len(m.tris))
	// A probe inside a pad lies on a triangle with a vertex within the
	// pad radius plus the triangle's (stretched) longest edge.
	s.reach = longest * (1 + max(c.cfg.StrainLimit, 0.5))
	maxR := max(c.cfg.PadRadius[0], c.cfg.PadRadius[1]) + c.cfg.Material.Thickness
	// Room for four times a pad's hemisphere (a pad sunk to its equator
	// into a cloth folded round it).
	probeArea := math.Inf(1)
	for ti := range m.tris {
		probeArea = min(probeArea, s.probeArea(int32(ti)))
	}
	s.capac = max(256, int(8*math.Pi*maxR*maxR/probeArea))
	nProbes := s.first[len(m.tris)]
	for k := range s.f {
		fc := &s.f[k]
		fc.lin = make([]contactPt, 0, s.capac)
		fc.state = make([]contactPt, 0, s.capac)
		fc.next = make([]contactPt, 0, s.capac)
		fc.slot = make([]int32, nProbes)
		for i := range fc.slot {
			fc.slot[i] = -1
		}
		for q := range fc.sens {
			fc.sens[q] = make([]float64, 3*c.n)
		}
		fc.rhs = make([]float64, 3*c.n)
	}
	s.cand = make([]int32, 0, len(m.tris))
	s.rowLo, s.rowHi = make([][3]float64, m.nv), make([][3]float64, m.nv)
}

// subdivide returns the centroids of the sub² triangles that cutting each
// edge of a triangle into sub parts makes, as barycentric weights.
func subdivide(sub int) [][3]float64 {
	var bary [][3]float64
	if sub == 0 {
		return bary
	}
	f := float64(sub)
	for i := range sub {
		for j := range sub - i {
			a := [3]float64{1 - float64(i+j)/f, float64(i) / f, float64(j) / f}
			b := [3]float64{a[0] - 1/f, a[1] + 1/f, a[2]}
			d := [3]float64{a[0] - 1/f, a[1], a[2] + 1/f}
			bary = append(bary, [3]float64{(a[0] + b[0] + d[0]) / 3, (a[1] + b[1] + d[1]) / 3, (a[2] + b[2] + d[2]) / 3})
			if i+j < sub-1 {
				e := [3]float64{a[0] - 2/f, a[1] + 1/f, a[2] + 1/f}
				bary = append(bary, [3]float64{(b[0] + d[0] + e[0]) / 3, (b[1] + d[1] + e[1]) / 3, (b[2] + d[2] + e[2]) / 3})
			}
		}
	}
	return bary
}

// probeArea is the area each probe of triangle ti stands for.
func (s *contactState) probeArea(ti int32) float64 {
	return s.c.m.tris[ti].area / float64(len(s.bary[s.sub[ti]]))
}

// touching reports whether a pad touched the cloth after the last step.
func (s *contactState) touching() bool {
	return len(s.f[0].state) > 0 || len(s.f[1].state) > 0
}

func (s *contactState) anyPresent() bool {
	for k := range s.f {
		if s.f[k].in.present {
			return true
		}
	}
	return false
}

// bound computes the bounding box of each grid row of x, for the collects
// that follow on the same x.
func (s *contactState) bound(x []float64) {
	nu := s.c.m.nu
	for j := range s.rowLo {
		lo := at3(x, int32(j*nu))
		hi := lo
		for i := j*nu + 1; i < (j+1)*nu; i++ {
			p := x[3*i : 3*i+3 : 3*i+3]
			lo[0], hi[0] = min(lo[0], p[0]), max(hi[0], p[0])
			lo[1], hi[1] = min(lo[1], p[1]), max(hi[1], p[1])
			lo[2], hi[2] = min(lo[2], p[2]), max(hi[2], p[2])
		}
		s.rowLo[j], s.rowHi[j] = lo, hi
	}
}

// setFingers reads the finger samples for a step ending at tEnd.
func (s *contactState) setFingers(in *FingerState, tEnd float64) {
	c := s.c
	s.bad = 0
	s.sensIters = 0
	for k := range s.f {
		fi := &s.f[k].in
		fi.present = false
		if in == nil {
			continue
		}
		fg := &in.Fingers[k]
		if !fg.Valid {
			continue
		}
		ok := true
		for q := range 3 {
			ok = ok && isFinite(fg.Pos[q]) && isFinite(fg.Vel[q])
		}
		if !ok || !isFinite(in.T) {
			s.bad++
			continue
		}
		dt := min(max(tEnd-in.T, 0), c.cfg.MaxExtrapolation)
		wasPresent := len(s.f[k].state) > 0
		fi.present = true
		fi.vel = fg.Vel
		for q := range 3 {
			fi.c[q] = fg.Pos[q] + fg.Vel[q]*dt
		}
		if !wasPresent {
			fi.last = fi.c
		}
		fi.r = c.cfg.PadRadius[k] + c.fab.thick/2
	}
	for k := range s.f {
		if !s.f[k].in.present {
			s.dropState(k)
		}
	}
}

// dropState forgets finger k's contacts.
func (s *contactState) dropState(k int) {
	fc := &s.f[k]
	for _, p := range fc.state {
		fc.slot[p.probe] = -1
	}
	fc.state = fc.state[:0]
	fc.lin = fc.lin[:0]
	fc.sensOK = false
}

func (s *contactState) reset() {
	for k := range s.f {
		s.dropState(k)
	}
}

// collect fills dst with the probes of x inside finger k's pad, copying the
// friction state of those already in contact. bound must have been called
// for x.
func (s *contactState) collect(k int, x []float64, dst []contactPt) []contactPt {
	c := s.c
	fc := &s.f[k]
	in := &fc.in
	dst = dst[:0]
	s.epoch++
	s.cand = s.cand[:0]
	rr := in.r + s.reach
	r2 := rr * rr
	nu := c.m.nu
	for j := range s.rowLo {
		// Broad phase: the squared distance from the pad centre to the
		// row's box.
		lo, hi := &s.rowLo[j], &s.rowHi[j]
		var g2 float64
		for a := range 3 {
			g := max(lo[a]-in.c[a], in.c[a]-hi[a], 0)
			g2 += g * g
		}
		if g2 > r2 {
			continue
		}
		for n := j * nu; n < (j+1)*nu; n++ {
			d := sub3(at3(x, int32(n)), in.c)
			if dot3(d, d) > r2 {
				continue
			}
			for _, t := range c.m.nodeTris[n] {
				if s.stamp[t] != s.epoch {
					s.stamp[t] = s.epoch
					s.cand = append(s.cand, t)
				}
			}
		}
	}
	comp := c.fab.compression
	outer := in.r * in.r * (1 + 1e-9)
	for _, ti := range s.cand {
		t := &c.m.tris[ti]
		pa, pb, pc := at3(x, t.n[0]), at3(x, t.n[1]), at3(x, t.n[2])
		// Skip triangles whose bounding sphere misses the pad.
		var mid [3]float64
		for a := range 3 {
			mid[a] = (pa[a] + pb[a] + pc[a]) / 3
		}
		d2 := max(dist2(pa, mid), dist2(pb, mid), dist2(pc, mid))
		if lim := in.r + math.Sqrt(d2); dist2(mid, in.c) > lim*lim {
			continue
		}
		area := s.probeArea(ti)
		va, vb, vc := vecAt(x, t.n[0]), vecAt(x, t.n[1]), vecAt(x, t.n[2])
		centre := vec{in.c[0], in.c[1], in.c[2]}
		bary := s.bary[s.sub[ti]]
		rows := newProbeRows(int(s.sub[ti]), va.sub(centre), vb.sub(va), vc.sub(va), outer)
		q0 := 0
		for i := range rows.sub {
			n := rows.sub - i // up probes in the row; one fewer down
			lo, hi := rows.span(i, n)
			for jj := 2 * lo; jj <= 2*hi+1 && jj < 2*n-1; jj++ {
				q := q0 + jj
				w := bary[q]
				pv := va.scale(w[0]).add(vb.scale(w[1])).add(vc.scale(w[2]))
				dv := pv.sub(centre)
				// A squared distance with a margin rules out the probes
				// outside the pad before the root.
				if dd := dv.dot(dv); dd > outer {
					continue
				}
				p, d := pv.arr(), dv.arr()
				dist := norm3(d)
				pen := in.r - dist
				if pen <= 0 || dist < 1e-9 {
					continue
				}
				if len(dst) == cap(dst) {
					s.overflow++
					continue
				}
				id := s.first[ti] + int32(q)
				cp := contactPt{probe: id, tri: ti, w: w, n: scale3(1/dist, d), pen: pen, k: comp * area}
				if j := fc.slot[id]; j >= 0 {
					cp.offset, cp.slipping = fc.state[j].offset, fc.state[j].slipping
				} else {
					cp.offset = sub3(p, in.last)
				}
				dst = append(dst, cp)
			}
			q0 += 2*n - 1
		}
	}
	return dst
}

// probeRows finds, row by row, the probes of one triangle (laid out by
// subdivide) that may lie inside a pad, so that collect tests those
// alone. Row i's probes lie on two lines, the upward subtriangles'
// centroids at u = (i+⅓)/sub, v = (j+⅓)/sub and the downward ones' at
// u = (i+⅔)/sub, v = (j+⅔)/sub; a line meets the ball |g + u·eb + v·ec|² ≤
// r2 in an interval of v. r2 carries margins far above the rounding of
// both this and the probes' own test, which collect still applies, so the
// contacts are those of testing every probe (TestCollectEveryProbe).
type probeRows struct {
	sub                       int
	r2                        float64
	ebb, ebc, ecc, gb, gc, gg float64 // inner products of g, eb and ec
	whole                     bool    // degenerate or not finite: test every probe
}

// newProbeRows returns the rows of a triangle whose first node lies at g
// from the pad centre and whose edges from it are eb and ec, for the ball
// of squared radius r2.
func newProbeRows(sub int, g, eb, ec vec, r2 float64) probeRows {
	p := probeRows{sub: sub}
	p.ebb, p.ebc, p.ecc = eb.dot(eb), eb.dot(ec), ec.dot(ec)
	p.gb, p.gc, p.gg = g.dot(eb), g.dot(ec), g.dot(g)
	scale := p.gg + p.ebb + p.ecc
	p.whole = !(p.ecc > 1e-30) || !isFinite(scale)
	// Margins for the rounding of the probes' own test and of span's
	// quadratic, whose terms are of this size however small the pad.
	p.r2 = r2*(1+1e-6) + 1e-12*scale
	return p
}

// span returns the first and last j of row i (n upward probes) whose up or
// down probe may lie in the ball; lo > hi when none does.
func (p *probeRows) span(i, n int) (lo, hi int) {
	if p.whole {
		return 0, n - 1
	}
	f := float64(p.sub)
	lo, hi = n, -1
	for _, d := range [2]float64{1.0 / 3, 2.0 / 3} {
		u, v0 := (float64(i)+d)/f, d/f
		// |g + u·eb + (v0 + t)·ec|² ≤ r2 for v = v0 + t, t = j/sub.
		b := p.gc + u*p.ebc + v0*p.ecc
		c := p.gg + 2*u*p.gb + u*u*p.ebb + 2*v0*(p.gc+u*p.ebc) + v0*v0*p.ecc - p.r2
		disc := b*b - p.ecc*c
		if !(disc >= 0) {
			continue
		}
		sq := math.Sqrt(disc)
		t0, t1 := (-b-sq)/p.ecc*f, (-b+sq)/p.ecc*f
		if t1 < 0 || t0 > float64(n-1) {
			continue
		}
		lo = min(lo, int(math.Ceil(max(t0, 0))))
		hi = max(hi, int(math.Floor(min(t1, float64(n-1)))))
	}
	return lo, hi
}

func (s *contactState) probePos(cp *contactPt, x []float64) [3]float64 {
	t := &s.c.m.tris[cp.tri]
	var p [3]float64
	for i, n := range t.n {
		q := at3(x, n)
		for a := range 3 {
			p[a] += cp.w[i] * q[a]
		}
	}
	return p
}

// tangent removes the n component of a.
func tangent(a, n [3]float64) [3]float64 { return sub3(a, scale3(dot3(a, n), n)) }

// linearize collects the contacts at the start of the step, adds their
// forces to f and stores their Jacobians. It returns the contact energy.
func (s *contactState) linearize(x, v, f []float64) float64 {
	var e float64
	if s.anyPresent() {
		s.bound(x)
	}
	for k := range s.f {
		fc := &s.f[k]
		fc.lin = fc.lin[:0]
		if !fc.in.present {
			continue
		}
		fc.lin = s.collect(k, x, fc.lin)
		for i := range fc.lin {
			cp := &fc.lin[i]
			p := s.probePos(cp, x)
			fn := cp.k * cp.pen
			e += 0.5 * fn * cp.pen
			anchor := add3(fc.in.c, cp.offset)
			if cp.slipping {
				anchor = add3(fc.in.last, cp.offset)
			}
			cp.f = add3(scale3(fn, cp.n), scale3(-cp.k, tangent(sub3(p, anchor), cp.n)))
			for a := range 3 {
				for b := range 3 {
					cp.j[a][b] = -cp.k * identity(a, b)
				}
			}
			s.scatter(cp, f, cp.f)
		}
	}
	return e
}

func identity(a, b int) float64 {
	if a == b {
		return 1
	}
	return 0
}

func outer(a, b [3]float64) (m [3][3]float64) {
	for r := range 3 {
		for q := range 3 {
			m[r][q] = a[r] * b[q]
		}
	}
	return m
}

func scaled33(s float64, a *[3][3]float64) (m [3][3]float64) {
	for r := range 3 {
		for q := range 3 {
			m[r][q] = s * a[r][q]
		}
	}
	return m
}

// scatter adds a probe force to its triangle's nodes.
func (s *contactState) scatter(cp *contactPt, f []float64, g [3]float64) {
	t := &s.c.m.tris[cp.tri]
	for i, n := range t.n {
		addAt3(f, n, cp.w[i], g)
	}
}

// assemble adds -cK·J of every contact to the block matrix.
func (s *contactState) assemble(a *bcsr, cK float64) {
	for k := range s.f {
		for i := range s.f[k].lin {
			cp := &s.f[k].lin[i]
			blk := &a.triBlk[cp.tri]
			for r := range 3 {
				for q := range 3 {
					a.addBlock(blk[3*r+q], -cK*cp.w[r]*cp.w[q], &cp.j)
				}
			}
		}
	}
}

// addDiag adds the diagonal blocks of -cK·J to d.
func (s *contactState) addDiag(d [][3][3]float64, cK float64) {
	for k := range s.f {
		for i := range s.f[k].lin {
			cp := &s.f[k].lin[i]
			for r, n := range s.c.m.tris[cp.tri].n {
				addTo33(&d[n], -cK*cp.w[r]*cp.w[r], &cp.j)
			}
		}
	}
}

// mulAdd adds c·J·p of every contact to dst.
func (s *contactState) mulAdd(dst, p []float64, c float64) {
	for k := range s.f {
		for i := range s.f[k].lin {
			cp := &s.f[k].lin[i]
			q := s.probePos(cp, p)
			var jq [3]float64
			mul33(jq[:], &cp.j, q[:])
			s.scatter(cp, dst, scale3(c, jq))
		}
	}
}

// energy returns the contact energy of the published state.
func (s *contactState) energy() float64 {
	var e float64
	for k := range s.f {
		for _, cp := range s.f[k].state {
			e += 0.5 * cp.k * cp.pen * cp.pen
		}
	}
	return e
}

// finish evaluates finger k's contacts at the new state, updates their
// stick/slip state and fills its local model and contact patch.
func (s *contactState) finish(k int, lm *LocalModel, cp *ContactPatch) {
	c := s.c
	fc := &s.f[k]
	if !fc.in.present {
		return
	}
	x, v := c.x, c.v
	fc.next = s.collect(k, x, fc.next)
	muS, muK := c.fab.muS, c.fab.muK
	var force, nsum, uv [3]float64
	var fnSum, area, maxFn, maxPen float64
	var velSum [3]float64
	best := int32(-1)
	for i := range fc.next {
		p := &fc.next[i]
		pos := s.probePos(p, x)
		fn := p.k * p.pen
		rel := tangent(sub3(fc.in.vel, s.probePos(p, v)), p.n)
		anchor := add3(fc.in.c, p.offset)
		if p.slipping {
			anchor = add3(fc.in.last, p.offset)
		}
		ft := scale3(-p.k, tangent(sub3(pos, anchor), p.n))
		mu := muS
		if p.slipping {
			mu = muK
		}
		if l := norm3(ft); l > mu*fn {
			p.slipping = true
			ft = scale3(muK*fn/l, ft)
			anchor = add3(pos, scale3(1/p.k, ft))
		} else if p.slipping && norm3(rel) < stickSpeed {
			p.slipping = false
		}
		p.offset = sub3(anchor, fc.in.c)
		p.f = add3(scale3(fn, p.n), ft)
		force = add3(force, p.f)
		nsum = add3(nsum, scale3(fn, p.n))
		fnSum += fn
		area += s.probeArea(p.tri)
		t := &c.m.tris[p.tri]
		for a, n := range t.n {
			uv[0] += fn * p.w[a] * c.m.uv[2*n]
			uv[1] += fn * p.w[a] * c.m.uv[2*n+1]
		}
		velSum = add3(velSum, scale3(fn, s.probePos(p, v)))
		if fn > maxFn {
			maxFn, best = fn, p.tri
		}
		maxPen = max(maxPen, p.pen)
	}
	fc.in.last = fc.in.c
	for _, p := range fc.state {
		fc.slot[p.probe] = -1
	}
	fc.state, fc.next = fc.next, fc.state
	for i, p := range fc.state {
		fc.slot[p.probe] = int32(i)
	}
	if fnSum <= 0 {
		fc.sensOK = false
		return
	}
	normal, _ := unit(nsum)
	f0 := scale3(-1, force)
	lm.InContact, lm.F0, lm.Normal = true, f0, normal
	lm.V = scale3(1/fnSum, velSum)
	lm.K = s.stiffness(k)
	knn := dot3(normal, mulVec33(&lm.K, normal))
	fPress := -dot3(f0, normal)
	// Without a stiffness the region is the fabric's compression.
	lm.Depth = min(maxPen, c.cfg.MaxDepth)
	if knn < 0 && fPress > 0 {
		lm.Depth = min(max(fPress/(-knn), maxPen), c.cfg.MaxDepth)
	}

	cp.InContact = true
	cp.U, cp.V = uv[0]/fnSum, uv[1]/fnSum
	cp.NormalForce = fnSum
	cp.Area = area
	t := &c.m.tris[best]
	geo, _, _, _ := t.geom(x)
	rel := sub3(fc.in.vel, scale3(1/fnSum, velSum))
	cp.SlipU = dot3(rel, geo.uh.arr()) / max(geo.lu, 1e-9)
	cp.SlipV = dot3(rel, geo.vh.arr()) / max(geo.lv, 1e-9)
	dist := c.cfg.Distal[k]
	cp.Orientation = math.Atan2(dot3(dist, geo.vh.arr()), dot3(dist, geo.uh.arr()))
}

func dist2(a, b [3]float64) float64 {
	d0, d1, d2 := a[0]-b[0], a[1]-b[1], a[2]-b[2]
	return d0*d0 + d1*d1 + d2*d2
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func mulVec33(a *[3][3]float64, x [3]float64) [3]float64 {
	var y [3]float64
	mul33(y[:], a, x[:])
	return y
}

// stiffness returns dF/dx of the force on finger k's pad with respect to
// the pad position: the contacts' direct stiffness minus what the cloth
// gives way, from three solves of the step's system with the right-hand
// sides the pad displacement creates (the dynamic Schur complement). It is
// symmetrised and clipped to be negative semi-definite, so the local model
// is passive.
func (s *contactState) stiffness(k int) [3][3]float64 {
	c := s.c
	fc := &s.f[k]
	var kd [3][3]float64
	if len(fc.lin) == 0 {
		// A contact that began during the step: nothing is known yet of how
		// the cloth gives way, and the force is still small; no stiffness.
		return kd
	}
	ah := c.dyn.cD
	// The pad's influence on the cloth changes slowly while the contact
	// lasts: one of the three solves is refreshed per refresh interval, all
	// three when the contact starts or its size changes by a third. The two
	// fingers take turns, so a step makes one solve at most (the local
	// model's error against 1 ms steps did not change:
	// TestLocalModelExtrapolation).
	every := uint64(c.refreshSteps())
	ph := c.steps + uint64(k)*every
	every *= 2
	first, last := int(ph/every%3), int(ph/every%3)
	if ph%every != 0 {
		first, last = 0, -1
	}
	if n := len(fc.lin); !fc.sensOK || 3*abs(n-fc.sensN) > fc.sensN {
		first, last = 0, 2
		fc.sensN = n
		for q := range fc.sens {
			clear(fc.sens[q])
		}
	}
	for q := first; q <= last; q++ {
		rhs := fc.rhs
		clear(rhs)
		var e [3]float64
		e[q] = 1
		for i := range fc.lin {
			p := &fc.lin[i]
			j := padStiffness(p)
			g := mulVec33(&j, e)
			s.scatter(p, rhs, scale3(-c.it.lastH, g))
		}
		c.dyn.filter(rhs)
		if c.cfg.SensitivityIterations == 0 {
			c.dyn.precond(fc.sens[q], rhs)
		} else {
			res := c.it.cg.solve(&c.dyn, fc.sens[q], rhs, 1e-2, 0, c.cfg.SensitivityIterations, false)
			s.sensIters += res.iters
			if res.broke {
				clear(fc.sens[q])
			}
		}
	}
	fc.sensOK = true
	for i := range fc.lin {
		p := &fc.lin[i]
		j := padStiffness(p)
		// wy[a][q]: displacement of the probe along a per unit pad motion along q.
		var wy [3][3]float64
		for q := range 3 {
			y := s.probePos(p, fc.sens[q])
			for a := range 3 {
				wy[a][q] = identity(a, q) - ah*y[a]
			}
		}
		for a := range 3 {
			for q := range 3 {
				for b := range 3 {
					kd[a][q] += j[a][b] * wy[b][q]
				}
			}
		}
	}
	return negSemiDef(kd)
}

// padStiffness is how a probe's force depends on the pad position: the
// normal and friction springs of a sticking probe, only the normal one of a
// slipping probe (its friction is saturated at the kinetic force).
func padStiffness(p *contactPt) [3][3]float64 {
	if !p.slipping {
		return p.j
	}
	nn := outer(p.n, p.n)
	return scaled33(-p.k, &nn)
}

// negSemiDef returns the symmetric part of a with its positive eigenvalues
// set to zero.
func negSemiDef(a [3][3]float64) [3][3]float64 {
	var sym [3][3]float64
	for r := range 3 {
		for q := range 3 {
			sym[r][q] = (a[r][q] + a[q][r]) / 2
		}
	}
	vals, vecs := eigSym3(sym)
	var out [3][3]float64
	for e := range 3 {
		l := min(vals[e], 0)
		for r := range 3 {
			for q := range 3 {
				out[r][q] += l * vecs[r][e] * vecs[q][e]
			}
		}
	}
	return out
}

// eigSym3 diagonalises a symmetric 3×3 matrix by Jacobi rotations: a =
// V·diag(vals)·Vᵀ, eigenvectors in the columns of V.
func eigSym3(a [3][3]float64) (vals [3]float64, v [3][3]float64) {
	v = [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	for range 50 {
		off := a[0][1]*a[0][1] + a[0][2]*a[0][2] + a[1][2]*a[1][2]
		if off < 1e-30*(a[0][0]*a[0][0]+a[1][1]*a[1][1]+a[2][2]*a[2][2]) || off == 0 {
			break
		}
		for p := range 2 {
			for q := p + 1; q < 3; q++ {
				if a[p][q] == 0 {
					continue
				}
				theta := (a[q][q] - a[p][p]) / (2 * a[p][q])
				t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				cs := 1 / math.Sqrt(t*t+1)
				sn := t * cs
				for r := range 3 {
					arp, arq := a[r][p], a[r][q]
					a[r][p], a[r][q] = cs*arp-sn*arq, sn*arp+cs*arq
				}
				for r := range 3 {
					apr, aqr := a[p][r], a[q][r]
					a[p][r], a[q][r] = cs*apr-sn*aqr, sn*apr+cs*aqr
				}
				for r := range 3 {
					vrp, vrq := v[r][p], v[r][q]
					v[r][p], v[r][q] = cs*vrp-sn*vrq, sn*vrp+cs*vrq
				}
			}
		}
	}
	return [3]float64{a[0][0], a[1][1], a[2][2]}, v
}

// rodState is the stand's rod: a cylinder along x the cloth cannot enter,
// resolved at the nodes (frictionless).
type rodState struct {
	c       *Cloth
	enabled bool
	radius  float64
	y, z    float64
	list    []rodContact
}

type rodContact struct {
	node int32
	n    [3]float64
	k    float64
}

func (r *rodState) init(c *Cloth) {
	r.c = c
	if c.cfg.RodRadius <= 0 || c.cfg.Pin != PinTopEdge {
		return
	}
	r.enabled = true
	r.radius = c.cfg.RodRadius
	top := c.corner[1] + c.cfg.Height
	r.y = top + r.radius + c.cfg.Material.Thickness/2
	r.z = c.corner[2]
	r.list = make([]rodContact, 0, c.n)
}

func (r *rodState) linearize(x, f []float64) float64 {
	r.list = r.list[:0]
	if !r.enabled {
		return 0
	}
	c := r.c
	reff := r.radius + c.fab.thick/2
	var e float64
	for k := range c.n {
		if !c.free[k] {
			continue
		}
		dy, dz := x[3*k+1]-r.y, x[3*k+2]-r.z
		d := math.Hypot(dy, dz)
		pen := reff - d
		if pen <= 0 || d < 1e-9 {
			continue
		}
		kk := c.fab.compression * c.m.area[k]
		n := [3]float64{0, dy / d, dz / d}
		addAt3(f, int32(k), kk*pen, n)
		e += 0.5 * kk * pen * pen
		r.list = append(r.list, rodContact{node: int32(k), n: n, k: kk})
	}
	return e
}

func (r *rodState) assemble(a *bcsr, cK float64) {
	for _, rc := range r.list {
		nn := outer(rc.n, rc.n)
		a.addBlock(a.diag[rc.node], cK*rc.k, &nn)
	}
}

func (r *rodState) addDiag(d [][3][3]float64, cK float64) {
	for _, rc := range r.list {
		nn := outer(rc.n, rc.n)
		addTo33(&d[rc.node], cK*rc.k, &nn)
	}
}

// mulAdd adds c·J·p for the rod contacts (J = -k·n·nᵀ).
func (r *rodState) mulAdd(dst, p []float64, c float64) {
	for _, rc := range r.list {
		s := -c * rc.k * dot3(rc.n, at3(p, rc.node))
		addAt3(dst, rc.node, s, rc.n)
	}
}

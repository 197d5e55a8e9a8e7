package sim

import "math"

// Contact probes: where on the cloth finger contact is resolved. Every
// triangle carries a fixed set of probes, its barycentric subdivision at
// most ProbeSpacing apart, each a material point with a share of the
// triangle's area. The search for the probes near a pad bounds each grid
// row of nodes by a box and scans only the rows whose box comes within
// reach of the pad.

// probeSet is the probes of a mesh.
type probeSet struct {
	m     *mesh
	sub   []uint16       // per triangle: its probes' subdivision (see init)
	first []int32        // per triangle: the id of its first probe; ids are first[t] + index
	bary  [][][3]float64 // per subdivision: the probes' barycentric weights
}

// init lays out the probes of m at most spacing apart and returns the
// longest triangle edge at rest.
func (ps *probeSet) init(m *mesh, spacing float64) (longest float64) {
	ps.m = m
	// Each triangle's edges are cut into sub parts, sub from its longest
	// edge, so graded meshes probe their small triangles no more densely
	// than their large ones.
	ps.first = make([]int32, len(m.tris)+1)
	ps.sub = make([]uint16, len(m.tris))
	ps.bary = nil
	for ti, t := range m.tris {
		var l float64
		for k := range 3 {
			l = max(l, m.restDist(t.n[k], t.n[(k+1)%3]))
		}
		longest = max(longest, l)
		sub := max(1, int(math.Ceil(l/spacing)))
		ps.sub[ti] = uint16(sub)
		ps.first[ti+1] = ps.first[ti] + int32(sub*sub)
		for len(ps.bary) <= sub {
			ps.bary = append(ps.bary, subdivide(len(ps.bary)))
		}
	}
	return longest
}

// count is the number of probes.
func (ps *probeSet) count() int32 { return ps.first[len(ps.first)-1] }

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

// area is the area each probe of triangle ti stands for.
func (ps *probeSet) area(ti int32) float64 {
	return ps.m.tris[ti].area / float64(len(ps.bary[ps.sub[ti]]))
}

// pos returns the position of a touching probe in the node vectors x
// (positions, velocities or any field).
func (ps *probeSet) pos(cp *contactPt, x []float64) [3]float64 {
	t := &ps.m.tris[cp.tri]
	var p [3]float64
	for i, n := range t.n {
		q := at3(x, n)
		for a := range 3 {
			p[a] += cp.w[i] * q[a]
		}
	}
	return p
}

// scatter adds a probe force to its triangle's nodes.
func (ps *probeSet) scatter(cp *contactPt, f []float64, g [3]float64) {
	t := &ps.m.tris[cp.tri]
	for i, n := range t.n {
		addAt3(f, n, cp.w[i], g)
	}
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

// probeSearch finds the triangles that may hold probes inside a pad: the
// broad phase of the contact search.
type probeSearch struct {
	m     *mesh
	stamp []uint32
	epoch uint32
	cand  []int32
	// rowLo, rowHi bound each grid row's nodes (see bound); near scans
	// only the rows whose box comes near a pad.
	rowLo, rowHi [][3]float64
	// reach is how far from a pad's surface a triangle's vertex may lie
	// with a probe of the triangle inside the pad.
	reach float64
}

func (s *probeSearch) init(m *mesh, reach float64) {
	s.m = m
	s.stamp = make([]uint32, len(m.tris))
	s.epoch = 0
	s.reach = reach
	s.cand = make([]int32, 0, len(m.tris))
	s.rowLo, s.rowHi = make([][3]float64, m.nv), make([][3]float64, m.nv)
}

// bound computes the bounding box of each grid row of x, for the searches
// that follow on the same x.
func (s *probeSearch) bound(x []float64) {
	nu := s.m.nu
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

// near returns the triangles of x with a vertex within r plus the reach
// of centre, each once. bound must have been called for x. The slice is
// the search's own, valid until the next call.
func (s *probeSearch) near(x []float64, centre [3]float64, r float64) []int32 {
	s.epoch++
	s.cand = s.cand[:0]
	rr := r + s.reach
	r2 := rr * rr
	nu := s.m.nu
	for j := range s.rowLo {
		// Broad phase: the squared distance from the pad centre to the
		// row's box.
		lo, hi := &s.rowLo[j], &s.rowHi[j]
		var g2 float64
		for a := range 3 {
			g := max(lo[a]-centre[a], centre[a]-hi[a], 0)
			g2 += g * g
		}
		if g2 > r2 {
			continue
		}
		for n := j * nu; n < (j+1)*nu; n++ {
			d := sub3(at3(x, int32(n)), centre)
			if dot3(d, d) > r2 {
				continue
			}
			for _, t := range s.m.nodeTris[n] {
				if s.stamp[t] != s.epoch {
					s.stamp[t] = s.epoch
					s.cand = append(s.cand, t)
				}
			}
		}
	}
	return s.cand
}

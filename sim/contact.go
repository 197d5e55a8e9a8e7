package sim

import (
	"math"
	"time"
)

// Finger contact: the pads' contact model.
//
// Each fingertip pad is a rigid sphere; the fabric is a layer of the
// material's thickness around the mesh, so a point of the cloth touches a
// pad when it is closer to the pad centre than the pad radius plus half the
// thickness. Contact is resolved on the surface, at the probes (probes.go).
// A probe inside a pad is pushed out by the fabric's compression stiffness
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
// ride along with the pad, whose step would stretch the stiff spring far
// past the cone), and after each step the spring is renewed to the
// kinetic force, so that a pad sliding over the cloth feels Coulomb's
// μ_k·N however far it slides; its direction turns towards the probe's
// slip over slipTurnLength of relative travel. It sticks again when its
// speed relative to the pad falls below 1 mm/s, or when its spring pulls
// against its slide (the pad turned): its anchor then rides with the pad
// and the spring turns round through the cone. A pinch is two pads
// pressing the same probes from both sides: the cloth stays trapped as
// long as the friction of both pads holds it.
//
// The contacts are linearised at the start of the step with the pad at its
// end-of-step position, so the implicit solve pushes the cloth out within
// the step (their part of the step's system: contactsystem.go); after the
// step they are evaluated again at the new shape (settle), which gives the
// published force (coupling.go).

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

// fingerContact is one pad's contacts.
type fingerContact struct {
	in    fingerInput
	lin   []contactPt // the step's linearisation
	trial []contactPt // at the Newton iteration's last trial point (adopt makes it lin)
	probe []contactPt // scratch: the line search's
	state []contactPt // after the step: stick/slip state carried forward
	next  []contactPt
	slot  []int32 // per probe: index into state, or -1
}

// padContact is both pads' contact with the cloth.
type padContact struct {
	c        *Cloth
	probes   probeSet
	search   probeSearch
	f        [NumFingers]fingerContact
	capac    int // room in each contact list
	overflow int // probes left out because a list was full
	bad      int // finger samples of this step that were not finite
	// boundsOf says whose bounds the search holds: the last trial
	// point's, the cloth's state's (which may be the same), or neither.
	boundsOf int
	// start is the positions at the start of the step: within a step, a
	// probe that touches a pad for the first time is anchored where it
	// was then, wherever the Newton iteration evaluates it, so that its
	// friction spring has an energy (linearize).
	start []float64
}

const stickSpeed = 0.001 // [m/s]

// slipTurnLength is the relative travel over which a sliding probe's
// kinetic friction turns to the direction of its slip [m]: the finger
// pad's presliding displacement, μ·N/k_t with k_t ≈ 1 kN/m at N = 1 N
// (Pataky, Latash & Zatsiorsky, J Biomech 38:1441-1449, 2005) and μ ≈ 0.2,
// as a Dahl element's force turns in the plane (Dahl, "A solid friction
// model", Aerospace Corp. TOR-0158(3107-18)-1, 1968).
const slipTurnLength = 0.2e-3

// The bounds the contact search holds (padContact.boundsOf).
const (
	boundsNone = iota
	boundsTrial
	boundsState
)

func (s *padContact) init(c *Cloth) {
	s.c = c
	m := c.m
	longest := s.probes.init(m, c.cfg.ProbeSpacing)
	// A probe inside a pad lies on a triangle with a vertex within the
	// pad radius plus the triangle's (stretched) longest edge.
	s.search.init(m, longest*(1+max(c.cfg.StrainLimit, 0.5)))
	maxR := max(c.cfg.PadRadius[0], c.cfg.PadRadius[1]) + c.cfg.Material.Thickness
	// Room for four times a pad's hemisphere (a pad sunk to its equator
	// into a cloth folded round it).
	probeArea := math.Inf(1)
	for ti := range m.tris {
		probeArea = min(probeArea, s.probes.area(int32(ti)))
	}
	s.capac = max(256, int(8*math.Pi*maxR*maxR/probeArea))
	nProbes := s.probes.count()
	for k := range s.f {
		fc := &s.f[k]
		fc.lin = make([]contactPt, 0, s.capac)
		fc.trial = make([]contactPt, 0, s.capac)
		fc.probe = make([]contactPt, 0, s.capac)
		fc.state = make([]contactPt, 0, s.capac)
		fc.next = make([]contactPt, 0, s.capac)
		fc.slot = make([]int32, nProbes)
		for i := range fc.slot {
			fc.slot[i] = -1
		}
	}
}

// touching reports whether a pad touched the cloth after the last step.
func (s *padContact) touching() bool {
	return len(s.f[0].state) > 0 || len(s.f[1].state) > 0
}

func (s *padContact) anyPresent() bool {
	for k := range s.f {
		if s.f[k].in.present {
			return true
		}
	}
	return false
}

// setFingers reads the finger samples for a step ending at tEnd.
func (s *padContact) setFingers(in *FingerState, tEnd time.Duration) {
	c := s.c
	s.bad = 0
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
		if !ok {
			s.bad++
			continue
		}
		dt := min(max(tEnd-in.T, 0), c.cfg.MaxExtrapolation).Seconds()
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

// work estimates what the pads do to the cloth over the step [J]: each
// present pad's force after the last step (out) times how far it moves.
func (s *padContact) work(out *Output) float64 {
	var w float64
	for k := range s.f {
		if in := &s.f[k].in; in.present {
			w += norm3(out.Local[k].F0) * math.Sqrt(dist2(in.c, in.last))
		}
	}
	return w
}

// dropState forgets finger k's contacts.
func (s *padContact) dropState(k int) {
	fc := &s.f[k]
	for _, p := range fc.state {
		fc.slot[p.probe] = -1
	}
	fc.state = fc.state[:0]
	fc.lin = fc.lin[:0]
	fc.trial = fc.trial[:0]
}

func (s *padContact) reset() {
	for k := range s.f {
		s.dropState(k)
	}
}

// collect fills dst with the probes of x inside finger k's pad, copying the
// friction state of those already in contact. A probe that was not sticks
// where it is in anchor (x itself when anchor is nil), relative to the
// pad's last position. search.bound must have been called for x.
func (s *padContact) collect(k int, x, anchor []float64, dst []contactPt) []contactPt {
	c := s.c
	fc := &s.f[k]
	in := &fc.in
	dst = dst[:0]
	cand := s.search.near(x, in.c, in.r)
	comp := c.fab.compression
	if c.self != nil {
		// A pad pressing a stack of n layers compresses n layers' worth
		// of fabric: the layers between are stiff springs (selfcontact.go).
		comp /= float64(c.self.layers[k])
	}
	outer := in.r * in.r * (1 + 1e-9)
	for _, ti := range cand {
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
		area := s.probes.area(ti)
		va, vb, vc := vecAt(x, t.n[0]), vecAt(x, t.n[1]), vecAt(x, t.n[2])
		centre := vec{in.c[0], in.c[1], in.c[2]}
		bary := s.probes.bary[s.probes.sub[ti]]
		rows := newProbeRows(int(s.probes.sub[ti]), va.sub(centre), vb.sub(va), vc.sub(va), outer)
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
				if pen <= 0 || dist < 1e-9 || (c.self != nil && !c.self.faces(k, p)) {
					continue
				}
				if len(dst) == cap(dst) {
					s.overflow++
					continue
				}
				id := s.probes.first[ti] + int32(q)
				cp := contactPt{probe: id, tri: ti, w: w, n: scale3(1/dist, d), pen: pen, k: comp * area}
				switch j := fc.slot[id]; {
				case j >= 0:
					cp.offset, cp.slipping = fc.state[j].offset, fc.state[j].slipping
				case anchor != nil:
					cp.offset = sub3(s.probes.pos(&cp, anchor), in.last)
				default:
					cp.offset = sub3(p, in.last)
				}
				dst = append(dst, cp)
			}
			q0 += 2*n - 1
		}
	}
	return dst
}

// linearize collects the contacts at x, adds their forces to f and stores
// their Jacobians: at the start of the step into each pad's lin, at a
// trial point of the step's Newton iteration (trial) into its trial list.
// Every probe keeps the friction anchor the last step left it, so within a
// step the contacts are springs with an energy. It returns that energy:
// the normal springs' ½·k·pen² and the friction springs' ½·k·|t|².
//
// fresh says the search's bounds are already those of x: x is the state
// the last trial point left, bounded then or after the last step
// (boundsOf).
func (s *padContact) linearize(x, f []float64, trial, fresh bool) float64 {
	var e float64
	if !trial {
		s.start = x
	}
	if s.anyPresent() && !(fresh && s.boundsOf != boundsNone) {
		s.search.bound(x)
		s.boundsOf = boundsState
		if trial {
			s.boundsOf = boundsTrial
		}
	}
	for k := range s.f {
		fc := &s.f[k]
		list := &fc.lin
		if trial {
			list = &fc.trial
		}
		*list = (*list)[:0]
		if !fc.in.present {
			continue
		}
		*list = s.collect(k, x, s.start, *list)
		for i := range *list {
			cp := &(*list)[i]
			t := s.spring(fc, cp, x)
			fn := cp.k * cp.pen
			e += 0.5 * cp.k * (cp.pen*cp.pen + dot3(t, t))
			cp.f = add3(scale3(fn, cp.n), scale3(-cp.k, t))
			for a := range 3 {
				for b := range 3 {
					cp.j[a][b] = -cp.k * identity(a, b)
				}
			}
			s.probes.scatter(cp, f, cp.f)
		}
	}
	return e
}

// spring returns the stretch of probe cp's friction spring at x: its
// offset from the anchor, across the normal.
func (s *padContact) spring(fc *fingerContact, cp *contactPt, x []float64) [3]float64 {
	anchor := add3(fc.in.c, cp.offset)
	if cp.slipping {
		anchor = add3(fc.in.last, cp.offset)
	}
	return tangent(sub3(s.probes.pos(cp, x), anchor), cp.n)
}

// potential returns the contacts' energy at y as linearize counts it,
// without touching the step's lists.
func (s *padContact) potential(y []float64) float64 {
	var e float64
	if !s.anyPresent() {
		return 0
	}
	s.search.bound(y)
	s.boundsOf = boundsNone
	for k := range s.f {
		fc := &s.f[k]
		if !fc.in.present {
			continue
		}
		fc.probe = s.collect(k, y, s.start, fc.probe)
		for i := range fc.probe {
			cp := &fc.probe[i]
			t := s.spring(fc, cp, y)
			e += 0.5 * cp.k * (cp.pen*cp.pen + dot3(t, t))
		}
	}
	return e
}

// adopt makes the trial points' contacts the step's linearisation.
func (s *padContact) adopt() {
	for k := range s.f {
		fc := &s.f[k]
		fc.lin, fc.trial = fc.trial, fc.lin
	}
}

// energy returns the contact energy of the published state.
func (s *padContact) energy() float64 {
	var e float64
	for k := range s.f {
		for _, cp := range s.f[k].state {
			e += 0.5 * cp.k * cp.pen * cp.pen
		}
	}
	return e
}

// padSummary is what a pad's contacts add up to after a step: the sums
// the coupling publishes.
type padSummary struct {
	force  [3]float64 // of the pad on the cloth [N]
	nsum   [3]float64 // Σ normal force × normal
	uv     [2]float64 // Σ normal force × rest coordinates (u, v)
	velSum [3]float64 // Σ normal force × cloth velocity at the probe
	fnSum  float64    // Σ normal force [N]
	area   float64    // of the probes in contact [m²]
	maxPen float64    // deepest penetration [m]
	best   int32      // triangle of the probe with the largest normal force; -1 for none
	curv   curvatureSums
}

// settle evaluates finger k's contacts at the new state (x, v), updates
// their stick/slip state and returns their sums. search.bound must have
// been called for x.
func (s *padContact) settle(k int) padSummary {
	c := s.c
	fc := &s.f[k]
	x, v := c.x, c.v
	fc.next = s.collect(k, x, nil, fc.next)
	muS, muK := c.fab.muS, c.fab.muK
	var force, nsum [3]float64
	var uv [2]float64
	var fnSum, area, maxFn, maxPen float64
	var velSum [3]float64
	var curv curvatureSums
	best := int32(-1)
	lastTri := int32(-1)
	var nodeN [3][3]float64 // smooth normals of lastTri's nodes
	for i := range fc.next {
		p := &fc.next[i]
		pos := s.probes.pos(p, x)
		fn := p.k * p.pen
		if p.tri != lastTri {
			lastTri = p.tri
			for a, n := range c.m.tris[p.tri].n {
				nodeN[a] = c.nodeNormal(n, x)
			}
		}
		var m [3]float64
		for a := range 3 {
			m = add3(m, scale3(p.w[a], nodeN[a]))
		}
		if dot3(m, p.n) < 0 { // oriented away from the pad
			m = scale3(-1, m)
		}
		if u, l := unit(m); l > 0 {
			curv.add(fn, sub3(pos, fc.in.c), u)
		}
		rel := tangent(sub3(fc.in.vel, s.probes.pos(p, v)), p.n)
		anchor := add3(fc.in.c, p.offset)
		if p.slipping {
			anchor = add3(fc.in.last, p.offset)
		}
		ft := scale3(-p.k, tangent(sub3(pos, anchor), p.n))
		mu := muS
		if p.slipping {
			mu = muK
		}
		l := norm3(ft)
		if p.slipping && !(l > mu*fn) && (norm3(rel) < stickSpeed || !(dot3(ft, rel) > 0)) {
			// It sticks again when it stops sliding, or when its spring
			// pulls against its slide (the pad turned, or the cloth under
			// it overtook it): its anchor then rides with the pad and the
			// spring turns round through the cone, rather than holding
			// the cloth back the old way for as long as it touches.
			p.slipping = false
		} else if p.slipping || l > mu*fn {
			// Past the cone, or still sliding: Coulomb's kinetic force,
			// renewed every step. Left at the last step's anchor, a
			// sliding probe's spring eased off as the cloth gave towards
			// it, and a pad drawn over a held cloth felt a third of
			// μ_k·N or less.
			p.slipping = true
			// Its direction turns towards the slip over slipTurnLength
			// of relative travel, as a Dahl element's in the plane does.
			// Kept in the spring's direction alone, it held a cloth that
			// narrows under the pads sideways, and a knit drawn between
			// them felt 0.65 of μ_k·N along the draw.
			if u, lu := unit(ft); lu > 0 {
				w := tangent(add3(u, scale3(c.dt/slipTurnLength, rel)), p.n)
				if lw := norm3(w); lw > 0 {
					ft, l = w, lw
				}
			}
			ft = scale3(muK*fn/l, ft)
			anchor = add3(pos, scale3(1/p.k, ft))
		}
		p.offset = sub3(anchor, fc.in.c)
		p.f = add3(scale3(fn, p.n), ft)
		force = add3(force, p.f)
		nsum = add3(nsum, scale3(fn, p.n))
		fnSum += fn
		area += s.probes.area(p.tri)
		t := &c.m.tris[p.tri]
		for a, n := range t.n {
			uv[0] += fn * p.w[a] * c.m.uv[2*n]
			uv[1] += fn * p.w[a] * c.m.uv[2*n+1]
		}
		velSum = add3(velSum, scale3(fn, s.probes.pos(p, v)))
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
	return padSummary{force: force, nsum: nsum, uv: uv, velSum: velSum, fnSum: fnSum, area: area, maxPen: maxPen, best: best, curv: curv}
}

// nodeNormal returns node n's smooth normal in x: the unit sum of its
// triangles' normals weighted by their areas (zero for a node whose
// triangles have none).
func (c *Cloth) nodeNormal(n int32, x []float64) [3]float64 {
	var s [3]float64
	for _, ti := range c.m.nodeTris[n] {
		t := &c.m.tris[ti]
		a, b, d := at3(x, t.n[0]), at3(x, t.n[1]), at3(x, t.n[2])
		s = add3(s, cross3(sub3(b, a), sub3(d, a)))
	}
	u, _ := unit(s)
	return u
}

// curvatureSums accumulates the weighted regression of the cloth's normal
// on position over one pad's contacts, from which the cloth's mean
// curvature under the pad follows: for a surface with unit normals m at
// points x, Σ w (m - m̄)·(x - x̄) / Σ w |x - x̄|⊥² is its mean curvature
// (1/ρ on a sphere of radius ρ, 1/(2ρ) on a cylinder, 0 on a plane), |·|⊥
// measured in the plane across m̄. Positions are relative to the pad's
// centre, so the sums of squares do not cancel.
type curvatureSums struct {
	w    float64
	x, m [3]float64    // Σ w x, Σ w m
	mx   float64       // Σ w m·x
	xx   [3][3]float64 // Σ w x xᵀ
}

// curvatureSpread is added to the contacts' spread in the regression's
// denominator [m]: a contact smaller than it has no curvature to speak of,
// and its estimate shrinks towards a flat cloth.
const curvatureSpread = 0.5e-3

func (s *curvatureSums) add(w float64, x, m [3]float64) {
	s.w += w
	s.x = add3(s.x, scale3(w, x))
	s.m = add3(s.m, scale3(w, m))
	s.mx += w * dot3(m, x)
	for a := range 3 {
		for b := range 3 {
			s.xx[a][b] += w * x[a] * x[b]
		}
	}
}

// curvature returns the mean curvature [1/m], positive where the normals
// (oriented away from the pad) spread apart: the cloth curves round the
// pad.
func (s *curvatureSums) curvature() float64 {
	if !(s.w > 0) {
		return 0
	}
	xb := scale3(1/s.w, s.x)
	mb, l := unit(s.m)
	if l == 0 {
		return 0
	}
	num := s.mx - dot3(s.m, xb)
	// Σ w |x - x̄|² - Σ w ((x - x̄)·m̄)²: the trace and the m̄ m̄ᵀ part of
	// the scatter matrix Σ w x xᵀ - W x̄ x̄ᵀ.
	var tr, nn float64
	for a := range 3 {
		for b := range 3 {
			c := s.xx[a][b] - s.w*xb[a]*xb[b]
			if a == b {
				tr += c
			}
			nn += mb[a] * c * mb[b]
		}
	}
	return num / (tr - nn + s.w*curvatureSpread*curvatureSpread)
}

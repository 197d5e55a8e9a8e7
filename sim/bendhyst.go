package sim

import "sort"

// The bending friction (Hysteresis.BendWeft, BendWarp: Kawabata's 2HB)
// lives on the bending operator's weft and warp edges, the hinges. Each
// carries the curvature of its dual cell as the bending operator measures
// it, κ = n·R/(h₁·h₂/2) with R = Σ α_k·x_k the edge's bending vector
// (mesh.bendStencils) and n the surface's normal there, and a Dahl element
// (dahl.go) whose friction moment z follows κ. Within a step n is the
// normal at the step's start, so κ is linear in the positions, the
// element's moment a function of them alone (Dahl.Step) and its work the
// potential of its forces -A·z·∂κ/∂x: it joins the step's incremental
// potential as the triangles' friction does (hysteresis.go). The step's
// matrix takes its stiffness A·dz/dκ·∂κ/∂x⊗∂κ/∂x on every coordinate,
// not on the normal's alone: the bending operator's couplings are
// multiples of the identity (the scalar couplings of bcsr), and the
// isotropic form bounds the exact one from above by the tangential part,
// which the in-plane elements, far stiffer there, dominate. The products
// with the Jacobian the integrator forms apart from the matrix (mulK,
// mulKv) take the exact one: they are the linear model of the forces.
// Between steps each hinge's moment moves to the accepted state, and the
// normal and the curvature along it are taken there for the next step.

// hinge is one weft or warp edge of the bending operator.
type hinge struct {
	n    [6]int32   // the stencil: two nodes before the edge, the edge's two, two after (bendStencils)
	a    [6]float64 // κ = n·Σ a_k·x_k [1/m²]: α_k·2/(h₁·h₂)
	area float64    // the edge's dual cell [m²]
	fam  uint8      // 0: curvature along u (weft), 1: along v (warp)
	pos  [36]int32  // the bending operator's entry of (n[r], n[c]) at 6r+c
}

// newHinge makes the hinge of the edge of length l between node lines h1
// and h2 apart from the lines either side, with the stencil's
// coefficients acc. On a plate bent to the curvature κ the bending vector
// is κ·h₁·h₂/2 along the normal, so that its energy ½λ|R|² is the plate's
// ½B·κ²·area (bendStencils).
func newHinge(acc map[int32]float64, fam int, n [6]int32, l, h1, h2 float64) hinge {
	h := hinge{n: n, area: l * (h1 + h2) / 2, fam: uint8(fam)}
	g := 2 / (h1 * h2)
	for k, id := range n {
		h.a[k] = g * acc[id]
	}
	return h
}

// locate finds the hinge's entries in the bending operator.
func (h *hinge) locate(s *scalarCSR) {
	for r, i := range h.n {
		lo, hi := int(s.rowPtr[i]), int(s.rowPtr[i+1])
		for c, j := range h.n {
			k := lo + sort.Search(hi-lo, func(k int) bool { return s.col[lo+k] >= j })
			if k == hi || s.col[k] != j {
				panic("sim: a hinge outside the bending pattern") // construction invariant
			}
			h.pos[6*r+c] = int32(k)
		}
	}
}

// vector returns Σ a_k·x_k: the curvature vector.
func (h *hinge) vector(x []float64) vec {
	var r vec
	for k, n := range h.n {
		r = r.add(vecAt(x, n).scale(h.a[k]))
	}
	return r
}

// normal returns the surface's unit normal at the hinge (u × v), or prev
// where the stencil is degenerate.
func (h *hinge) normal(x []float64, prev vec) vec {
	a := vecAt(x, h.n[4]).add(vecAt(x, h.n[5])).sub(vecAt(x, h.n[0])).sub(vecAt(x, h.n[1]))
	b := vecAt(x, h.n[3]).sub(vecAt(x, h.n[2]))
	if h.fam == 1 {
		a, b = b, a
	}
	n, l := unitVec(vec{a.y*b.z - a.z*b.y, a.z*b.x - a.x*b.z, a.x*b.y - a.y*b.x})
	if l < 1e-12 {
		return prev
	}
	return n
}

// hingeHyst is one hinge's friction state at the start of the step.
type hingeHyst struct {
	nrm   vec     // the normal the step measures the curvature along
	k0, z float64 // the curvature along it [1/m], the friction moment [N]
}

// hingeNext is what the last pass with forces found at a hinge: the
// curvature vector, the friction moment and its work there (a step that
// ends at that pass's positions commits them, commitHinges).
type hingeNext struct {
	r    vec
	z, w float64
}

// hingeDahl returns the Dahl elements of the fabric's weft and warp
// hinges.
func (f *fabric) hingeDahl() [2]Dahl {
	h := &f.hyst
	return [2]Dahl{{Saturation: h.BendWeft, Strain: h.BendCurvature}, {Saturation: h.BendWarp, Strain: h.BendCurvature}}
}

// hingePass returns the bending friction's work since the step's start at
// x [J] and, with f, adds its forces to f and records each hinge's
// stiffness A·dz/dκ for the step's matrix.
func (fo *forces) hingePass(x, f []float64) (work float64) {
	c := fo.c
	d := c.fab.hingeDahl()
	for i := range c.m.hinges {
		h := &c.m.hinges[i]
		s := &fo.hinge[i]
		r := h.vector(x)
		z, dz, w := d[h.fam].Step(s.z, s.nrm.dot(r)-s.k0)
		work += h.area * w
		if f == nil {
			continue
		}
		fo.hingeN[i] = hingeNext{r: r, z: z, w: w}
		fo.hingeK[i] = h.area * max(dz, 0)
		g := s.nrm.scale(-h.area * z)
		for k, n := range h.n {
			addVecAt(f, n, g.scale(h.a[k]))
		}
	}
	return work
}

// initHinges starts every hinge's friction afresh at x.
func (fo *forces) initHinges(x []float64) {
	c := fo.c
	if len(fo.hinge) != len(c.m.hinges) {
		fo.hinge = make([]hingeHyst, len(c.m.hinges))
		fo.hingeN = make([]hingeNext, len(c.m.hinges))
		fo.hingeK = make([]float64, len(c.m.hinges))
	}
	if len(fo.hingeB) != len(c.m.bend.col) {
		fo.hingeB = make([]float64, len(c.m.bend.col))
	}
	for i := range c.m.hinges {
		h := &c.m.hinges[i]
		n := h.normal(x, vec{})
		fo.hinge[i] = hingeHyst{nrm: n, k0: n.dot(h.vector(x))}
	}
	fo.hingeLive = c.fab.hyst.bendOn()
}

// commitHinges moves every hinge's friction to the accepted positions x
// and returns its work over the step [J]. At the last trial point
// (atTrial) it takes the curvature vectors and moments its pass found,
// the same bits.
func (fo *forces) commitHinges(x []float64, atTrial bool) (work float64) {
	c := fo.c
	if !c.fab.hyst.bendOn() {
		fo.hingeLive = false
		return 0
	}
	if !fo.hingeLive {
		fo.initHinges(x)
		return 0
	}
	d := c.fab.hingeDahl()
	for i := range c.m.hinges {
		h := &c.m.hinges[i]
		s := &fo.hinge[i]
		var r vec
		var w float64
		if atTrial {
			n := &fo.hingeN[i]
			r, s.z, w = n.r, n.z, n.w
		} else {
			r = h.vector(x)
			s.z, _, w = d[h.fam].Step(s.z, s.nrm.dot(r)-s.k0)
		}
		work += h.area * w
		s.nrm = h.normal(x, s.nrm)
		s.k0 = s.nrm.dot(r)
	}
	return work
}

// hingeEntries returns the hinges' stiffnesses of the last pass at the
// bending operator's entries (what setBending adds to them before scaling
// by cK), or nil when no hinge is live.
func (fo *forces) hingeEntries() []float64 {
	if !fo.hingeLive {
		return nil
	}
	hb := fo.hingeB
	clear(hb)
	for i := range fo.c.m.hinges {
		h := &fo.c.m.hinges[i]
		k := fo.hingeK[i]
		if k == 0 {
			continue
		}
		for r := range 6 {
			kr := k * h.a[r]
			pos := h.pos[6*r : 6*r+6]
			for q, p := range pos {
				hb[p] += kr * h.a[q]
			}
		}
	}
	return hb
}

// mulAddHinges adds c times the hinges' stiffness matrix of the step
// times p to dst: the isotropic form the assembled matrix holds, or, with
// exact, the exact one, along each hinge's normal (the Jacobian ∂f/∂x
// the integrator's products need).
func (fo *forces) mulAddHinges(dst, p []float64, c float64, exact bool) {
	for i := range fo.c.m.hinges {
		h := &fo.c.m.hinges[i]
		if fo.hingeK[i] == 0 {
			continue
		}
		r := h.vector(p)
		if exact {
			n := fo.hinge[i].nrm
			r = n.scale(n.dot(r))
		}
		g := r.scale(c * fo.hingeK[i])
		for k, n := range h.n {
			addVecAt(dst, n, g.scale(h.a[k]))
		}
	}
}

// exactHinges adds to dst, K·p by the assembled matrix, what its
// isotropic hinge stiffness left out of the exact Jacobian: the
// stiffness's tangential part times p.
func (fo *forces) exactHinges(dst, p []float64) {
	for i := range fo.c.m.hinges {
		h := &fo.c.m.hinges[i]
		if fo.hingeK[i] == 0 {
			continue
		}
		n := fo.hinge[i].nrm
		r := h.vector(p)
		g := r.sub(n.scale(n.dot(r))).scale(fo.hingeK[i])
		for k, nd := range h.n {
			addVecAt(dst, nd, g.scale(h.a[k]))
		}
	}
}

// addHingeDiag adds the hinges' diagonal blocks times cK to d (the
// matrix-free operator's block Jacobi).
func (fo *forces) addHingeDiag(d [][3][3]float64, cK float64) {
	for i := range fo.c.m.hinges {
		h := &fo.c.m.hinges[i]
		for k, n := range h.n {
			w := cK * fo.hingeK[i] * h.a[k] * h.a[k]
			d[n][0][0] += w
			d[n][1][1] += w
			d[n][2][2] += w
		}
	}
}

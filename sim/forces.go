package sim

// forces is the cloth's force model as a step evaluates it: gravity, the
// elements' tensile and viscous forces with their linearisations, the
// bending forces and the contacts' (pads, rod and the pinched stack's
// springs), and the energy of a state. With the assembled operator the
// element pass also adds each triangle's blocks to the step's matrix
// while the element is at hand.
type forces struct {
	c     *Cloth
	op    *operator // the step's system, whose matrix the element pass assembles
	lin   []triLin
	rest  []float64 // rest positions, for the gravity potential
	tmp   []float64 // bending forces' negatives K_b·x
	v     []float64 // velocities of the last eval
	fVisc []float64 // their viscous forces, D·v

	// The element pass in three parts (see splitTris): parts 0 and 1
	// touch disjoint nodes and run side by side on the cloth's team; the
	// seam (part 2) runs after them.
	parts       [3][]int32
	psi, strain [3]float64   // per part: tensile energy, largest strain
	diss        [3]float64   // per part: dissipation rate
	bendE       [2]float64   // per part: bending energy of its rows
	fric        [3]float64   // per part: the friction's work since the step's start
	work        float64      // the last pass's friction work, all parts [J]
	hyst        []triHyst    // the elements' friction state (hysteresis.go)
	hystNext    []triHyst    // the state the last pass with forces would commit
	hystWork    [][3]float64 // and the work of each element's modes to there [J/m²]
	hystLive    bool         // hyst holds the state of the cloth's last accepted positions
	hinge       []hingeHyst  // the bending friction's state (bendhyst.go)
	hingeN      []hingeNext  // per hinge: what the last pass with forces found
	hingeK      []float64    // per hinge: A·dz/dκ of the last pass with forces [N·m]
	hingeB      []float64    // hingeK summed at the bending operator's entries (hingeEntries)
	hingeLive   bool         // hinge holds the state of the cloth's last accepted positions
	px, pv, pf  []float64    // the arguments of the pass in progress
	asm         *bcsr        // the matrix the pass assembles into; nil: none
	job         func(part int)
	asmJob      func(part int) // assemblePart
	aCK, aCD    float64        // the coefficients assemble uses
	half        int            // the bending forces' rows split at half, as the parts' nodes
}

func (fo *forces) init(c *Cloth, op *operator) {
	fo.c, fo.op = c, op
	n3 := 3 * c.n
	fo.lin = make([]triLin, len(c.m.tris))
	fo.rest = append([]float64(nil), c.x...)
	fo.tmp = make([]float64, n3)
	fo.fVisc = make([]float64, n3)
	fo.parts = splitTris(c.m)
	fo.job = fo.part
	fo.asmJob = fo.assemblePart
	fo.half = c.n / 2
	fo.initHyst(c.x)
	fo.initHinges(c.x)
}

// rows returns part p's rows of the bending forces.
func (fo *forces) rows(p int) (i0, i1 int) {
	if p == 0 {
		return 0, fo.half
	}
	return fo.half, fo.c.n
}

// splitTris splits the triangles into two parts on either side of the
// middle row of nodes, which share no node, and the seam: the triangles
// touching that row. The split depends on the mesh alone, so the order of
// every sum, and so the result, is the same whether or not the parts run
// in parallel.
func splitTris(m *mesh) [3][]int32 {
	var parts [3][]int32
	mid := int32(m.nv / 2)
	nu := int32(m.nu)
	for i, t := range m.tris {
		lo, hi := t.n[0]/nu, t.n[0]/nu
		for _, n := range t.n[1:] {
			lo, hi = min(lo, n/nu), max(hi, n/nu)
		}
		p := 2
		switch {
		case hi < mid:
			p = 0
		case lo > mid:
			p = 1
		}
		parts[p] = append(parts[p], int32(i))
	}
	return parts
}

// elastic sets f to gravity and the elements' and bending forces at
// (x, v), fills every element's linearisation and, with asm, assembles
// the elements' blocks of the step's matrix into asm (after the mass,
// startAssembly). It returns the energy of the state but its contacts,
// its largest principal strain and its dissipation rate Vᵀ·C·V, C the
// viscous forces' -∂f/∂v (zero without viscosity).
func (fo *forces) elastic(x, v, f []float64, asm *bcsr) (e Energy, strain, diss float64) {
	c := fo.c
	fo.v = v
	g := c.cfg.Gravity
	for k := range c.n {
		m := c.fab.mass[k]
		f[3*k], f[3*k+1], f[3*k+2] = m*g[0], m*g[1], m*g[2]
		e.Gravity -= m * (g[0]*(x[3*k]-fo.rest[3*k]) + g[1]*(x[3*k+1]-fo.rest[3*k+1]) + g[2]*(x[3*k+2]-fo.rest[3*k+2]))
		e.Kinetic += 0.5 * m * (v[3*k]*v[3*k] + v[3*k+1]*v[3*k+1] + v[3*k+2]*v[3*k+2])
	}
	clear(fo.fVisc)
	fo.asm = asm
	if asm != nil {
		fo.op.startAssembly(asm)
	}
	fo.px, fo.pv, fo.pf = x, v, f
	c.team.run(fo.job)
	fo.part(2)
	fo.px, fo.pv, fo.pf, fo.asm = nil, nil, nil, nil
	e.Tensile = fo.psi[0] + fo.psi[1] + fo.psi[2]
	e.Bending = fo.bendE[0] + fo.bendE[1]
	strain = max(fo.strain[0], fo.strain[1], fo.strain[2])
	diss = fo.diss[0] + fo.diss[1] + fo.diss[2]
	fo.work = fo.fric[0] + fo.fric[1] + fo.fric[2]
	if fo.hingeLive {
		fo.work += fo.hingePass(x, f)
	}
	return e, strain, diss
}

// contacts adds the contacts' forces at x to f (the pads' with the step's
// friction anchors, the pinched stack's springs with theirs) and returns
// their energy. trial keeps the pads' linearisation apart from the step's,
// fresh says the pads' search holds x's bounds (padContact.linearize).
func (fo *forces) contacts(x, f []float64, trial, fresh bool) float64 {
	c := fo.c
	e := c.pads.linearize(x, f, trial, fresh) + c.rod.linearize(x, f)
	if c.self != nil {
		e += c.self.linearize(x, f)
	}
	return e
}

// part runs the forces pass over the triangles of one part and, with the
// assembled operator, scatters their blocks of the step's matrix while the
// element is at hand.
func (fo *forces) part(p int) {
	c := fo.c
	x, v, f := fo.px, fo.pv, fo.pf
	eta := &c.fab.eta
	op := fo.op
	asm := fo.asm
	var psi, strain, diss, fric float64
	for _, i := range fo.parts[p] {
		t := &c.m.tris[i]
		lin := &fo.lin[i]
		h, next, hw := fo.hystFor(i)
		w, s, d, fw := t.pass(x, v, f, fo.fVisc, &c.fab, h, next, hw, lin, min(c.fab.mass[t.n[0]], min(c.fab.mass[t.n[1]], c.fab.mass[t.n[2]])))
		psi += w
		strain = max(strain, s)
		diss += d
		fric += fw
		if asm != nil {
			lin.assemble(asm, &asm.triBlk[i], t, op.cK, op.cD, eta)
		}
	}
	fo.psi[p], fo.strain[p], fo.diss[p], fo.fric[p] = psi, strain, diss, fric
	if p < 2 {
		// The bending forces of the part's rows of nodes: no triangle of
		// the other part touches them (splitTris), and the seam's come
		// after the join.
		i0, i1 := fo.rows(p)
		fo.bendE[p] = fo.bending(x, i0, i1)
		for i := 3 * i0; i < 3*i1; i++ {
			f[i] -= fo.tmp[i]
		}
	}
}

// assemble adds the elements' blocks of the last pass's linearisations,
// for the coefficients cK and cD, to a after startAssembly, triangle by
// triangle in the pass's order, so that a holds what a pass assembling
// into it would have left, bit for bit (a trial point's blocks are
// assembled only if the step takes them over: clothDynamics.trialBlocks).
func (fo *forces) assemble(a *bcsr, cK, cD float64) {
	fo.op.startAssembly(a)
	fo.asm, fo.aCK, fo.aCD = a, cK, cD
	fo.c.team.run(fo.asmJob)
	fo.assemblePart(2)
	fo.asm = nil
}

// assemblePart is assemble's work on one part of the triangles (parts 0
// and 1 touch disjoint blocks, as in the pass).
func (fo *forces) assemblePart(p int) {
	c := fo.c
	a := fo.asm
	eta := &c.fab.eta
	for _, i := range fo.parts[p] {
		fo.lin[i].assemble(a, &a.triBlk[i], &c.m.tris[i], fo.aCK, fo.aCD, eta)
	}
}

// bending sets rows i0 to i1-1 of tmp to the bending forces' negatives
// K_b·x and returns those rows' bending energy.
func (fo *forces) bending(x []float64, i0, i1 int) float64 {
	tmp := fo.tmp[3*i0 : 3*i1]
	fo.c.m.bend.setRows(fo.tmp, x, i0, i1)
	var e float64
	for i, t := range tmp {
		e += 0.5 * x[3*i0+i] * t
	}
	return e
}

// mulK sets dst = ∂f/∂x·y with the Jacobians of the last eval (the
// clamped elastic part, bending and contact), for the step coefficient
// cK.
func (fo *forces) mulK(dst, y []float64, cK float64) {
	c := fo.c
	clear(dst)
	eta := &c.fab.eta
	for i := range c.m.tris {
		fo.lin[i].mulAdd(&c.m.tris[i], dst, y, -1, 0, cK, eta)
	}
	c.m.bend.mulAdd(dst, y, -1)
	if fo.hingeLive {
		fo.mulAddHinges(dst, y, -1, true)
	}
	c.pads.mulAdd(dst, y, 1)
	c.rod.mulAdd(dst, y, 1)
	if c.self != nil {
		c.self.mulAdd(dst, y, 1)
	}
}

// potential returns the energy at positions y but the kinetic, with the
// contacts' as the step's trial points see them, the dissipation rate at
// velocities V and the friction's work since the step's start (a forces
// pass without forces or linearisations, for the Newton iteration's line
// search).
func (fo *forces) potential(y, V []float64) (e Energy, diss, work float64) {
	c := fo.c
	g := c.cfg.Gravity
	for k := range c.n {
		m := c.fab.mass[k]
		e.Gravity -= m * (g[0]*(y[3*k]-fo.rest[3*k]) + g[1]*(y[3*k+1]-fo.rest[3*k+1]) + g[2]*(y[3*k+2]-fo.rest[3*k+2]))
	}
	eta := &c.fab.eta
	visc := *eta != (Viscosity{})
	var st stress
	for i := range c.m.tris {
		t := &c.m.tris[i]
		g, eu, ev, es := t.geom(y)
		c.fab.eval(eu, ev, es, &st)
		e.Tensile += t.area * st.psi
		if visc {
			diss += t.area * g.dissipation(t, V, eta)
		}
		if h, _, _ := fo.hystFor(int32(i)); h != nil {
			work += t.area * h.apply(&c.fab, eu, ev, es, &st, nil, nil)
		}
	}
	for p := range 2 {
		i0, i1 := fo.rows(p)
		e.Bending += fo.bending(y, i0, i1)
	}
	if fo.hingeLive {
		work += fo.hingePass(y, nil)
	}
	e.Contact = c.pads.potential(y) + c.rod.energyAt(y)
	if c.self != nil {
		e.Contact += c.self.energy(y)
	}
	return e, diss, work
}

// dissipation returns the dissipation rate Vᵀ·C·V at the positions of the
// last elastic pass.
func (fo *forces) dissipation(V []float64) float64 {
	c := fo.c
	eta := &c.fab.eta
	if *eta == (Viscosity{}) {
		return 0
	}
	var diss float64
	for i := range c.m.tris {
		t := &c.m.tris[i]
		diss += t.area * fo.lin[i].g.dissipation(t, V, eta)
	}
	return diss
}

// energy evaluates the energy at (x, v) without touching the step's state.
func (fo *forces) energy(x, v []float64) Energy {
	c := fo.c
	var e Energy
	g := c.cfg.Gravity
	for k := range c.n {
		m := c.fab.mass[k]
		e.Gravity -= m * (g[0]*(x[3*k]-fo.rest[3*k]) + g[1]*(x[3*k+1]-fo.rest[3*k+1]) + g[2]*(x[3*k+2]-fo.rest[3*k+2]))
		e.Kinetic += 0.5 * m * (v[3*k]*v[3*k] + v[3*k+1]*v[3*k+1] + v[3*k+2]*v[3*k+2])
	}
	var st stress
	for i := range c.m.tris {
		t := &c.m.tris[i]
		_, eu, ev, es := t.geom(x)
		c.fab.eval(eu, ev, es, &st)
		e.Tensile += t.area * st.psi
	}
	for p := range 2 {
		i0, i1 := fo.rows(p)
		e.Bending += fo.bending(x, i0, i1)
	}
	e.Contact = c.pads.energy()
	if c.self != nil {
		e.Contact += c.self.energy(x)
	}
	return e
}

package sim

// operator is the step's system matrix A = M - cD·D - cK·K for the
// coefficients the integrator chose: assembled in a 3×3-block sparse
// matrix (Assembled; see the package documentation for why), or applied
// from the elements' linearisations (MatrixFree). Its products leave the
// constrained components out (Baraff & Witkin's filter).
type operator struct {
	c *Cloth
	a *bcsr // assembled operator (Assembled)
	// next is the matrix a trial point of the step's Newton iteration is
	// assembled into (Assembled), when it is taken over
	// (clothDynamics.trialBlocks): the operator's own stays in use (by the
	// local models) unless the iteration goes on from there (swap).
	next   *bcsr
	mf     [][4][3][3]float64 // per triangle: uu, uv, vv, uvᵀ of triLin.mats (MatrixFree)
	cK, cD float64
	split  rowSplit
	job    func(part int)
	job3   func(part int)
}

func (op *operator) init(c *Cloth) {
	op.c = c
	op.a = newBCSR(c.m)
	op.next = op.a.twin()
	if c.cfg.Operator == MatrixFree {
		op.mf = make([][4][3][3]float64, len(c.m.tris))
	}
	op.split.init(c.n)
	op.job = op.mulPart
	op.job3 = op.mulPart3
}

// startAssembly clears a (the operator's matrix or next) and puts the
// mass on its diagonal, for the forces pass to add the elements to.
func (op *operator) startAssembly(a *bcsr) {
	c := op.c
	a.zero()
	for k := range c.n {
		m := c.fab.mass[k]
		b := &a.val[a.diag[k]]
		b[0][0], b[1][1], b[2][2] = m, m, m
	}
}

// finish completes the operator after the forces pass: the contacts and
// the bending operator into the assembled matrix, or the elements'
// weft-warp matrices for the matrix-free products.
func (op *operator) finish() {
	c := op.c
	cK, cD := op.cK, op.cD
	if c.cfg.Operator == Assembled {
		// The mass and the elements are in already (forces.part).
		a := op.a
		c.pads.assemble(a, cK)
		c.rod.assemble(a, cK)
		a.setBending(&c.m.bend, c.dyn.force.hingeEntries(), cK, c.m.bendGen)
		if c.self != nil {
			c.self.assemble(a, cK)
			a.merge(c.self.cpl)
		}
		return
	}
	eta := &c.fab.eta
	lin := c.dyn.force.lin
	for i := range c.m.tris {
		lin[i].mats(&op.mf[i], &c.m.tris[i], cK, cD, cK, eta)
	}
}

// swap makes next, assembled at a trial point, the operator's matrix.
func (op *operator) swap() { op.a, op.next = op.next, op.a }

func (op *operator) mulPart(p int) {
	i0, i1 := op.split.rows(p)
	op.a.mulRange(op.split.dst, op.split.x, i0, i1)
}

func (op *operator) mulPart3(p int) {
	i0, i1 := op.split.rows(p)
	d := op.split.part3(i0, i1)
	op.a.mulRange3(&d, op.split.x3, i0, i1)
}

// mulA3 sets dst[v] = A·p[v], filtered, for three vectors: bit for bit
// three calls of mulA, the assembled operator's rows read once for the
// three.
func (op *operator) mulA3(dst, p *[3][]float64) {
	c := op.c
	if c.cfg.Operator != Assembled {
		for v := range 3 {
			op.mulA(dst[v], p[v])
		}
		return
	}
	op.split.run3(c.team, op.job3, dst, p)
	for v := range 3 {
		c.cons.filter(dst[v])
	}
}

// mulA sets dst = A·p, filtered.
func (op *operator) mulA(dst, p []float64) {
	c := op.c
	if c.cfg.Operator == Assembled {
		op.split.run(c.team, op.job, dst, p)
		c.cons.filter(dst)
		return
	}
	for k := range c.n {
		m := c.fab.mass[k]
		dst[3*k], dst[3*k+1], dst[3*k+2] = m*p[3*k], m*p[3*k+1], m*p[3*k+2]
	}
	for i := range c.m.tris {
		c.m.tris[i].mulMats(dst, p, &op.mf[i])
	}
	c.pads.mulAdd(dst, p, -op.cK)
	c.rod.mulAdd(dst, p, -op.cK)
	if c.self != nil {
		c.self.mulAdd(dst, p, -op.cK)
	}
	c.m.bend.mulAdd(dst, p, op.cK)
	if fo := &c.dyn.force; fo.hingeLive {
		fo.mulAddHinges(dst, p, op.cK, false)
	}
	c.cons.filter(dst)
}

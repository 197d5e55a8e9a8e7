package sim

// clothDynamics is the cloth as the integrator sees it (the dynamics
// interface): the force model (forces), the step's system matrix
// (operator) and its preconditioner, with the constraints filtered out.
//
// A step ends at the last trial point of its Newton iteration, where the
// forces and the elements' linearisations were just evaluated (trial): the
// next step's linearisation at the same state takes them over instead of
// a second pass (linearize), and only the contacts, whose pads have moved,
// are evaluated again. So a step that converges at its first trial point
// costs one forces pass, as a single linearised solve did. The elements'
// blocks of the matrix there are assembled only when they are taken over
// (trialBlocks): a step whose end the self-collision's response moves
// starts from another state, and the blocks would go unused.
type clothDynamics struct {
	c     *Cloth
	force forces
	op    operator
	pc    preconditioner

	// The last trial point: its state and what its pass evaluated. pending
	// says the elements' linearisations are its; owed, that their blocks
	// are not in op.next yet.
	tx, tv  []float64
	fEl     []float64 // gravity, the elements' and the bending forces there
	tE      Energy    // its energy but the contacts'
	tStrain float64
	tGen    uint64 // fabric.gen of the pass
	tCK     float64
	tCD     float64
	pending bool
	owed    bool
}

func (d *clothDynamics) init(c *Cloth) {
	d.c = c
	d.op.init(c)
	d.force.init(c, &d.op)
	d.pc.init(c, &d.op)
	n3 := 3 * c.n
	d.tx, d.tv, d.fEl = make([]float64, n3), make([]float64, n3), make([]float64, n3)
	d.pending = false
}

// linearize evaluates the forces and their Jacobians at (x, v), records
// the state's energy and strain in the step's statistics, prepares the
// operator and the preconditioner for cK, cD and returns the potential
// and the kinetic energy of the state. At the state the last trial point
// left, with the same coefficients and fabric, it takes over that pass.
func (d *clothDynamics) linearize(x, v, f []float64, cK, cD float64) (pot, kin float64) {
	fo := &d.force
	var e Energy
	var strain float64
	hit := d.pending && d.tCK == cK && d.tCD == cD && d.tGen == d.c.fab.gen && same(x, d.tx) && same(v, d.tv)
	if hit {
		if d.c.cfg.Operator == Assembled {
			d.trialBlocks()
			d.op.swap()
		}
		copy(f, d.fEl)
		fo.v = v
		e, strain = d.tE, d.tStrain
	} else {
		var asm *bcsr
		if d.c.cfg.Operator == Assembled {
			asm = d.op.a
		}
		d.op.cK, d.op.cD = cK, cD
		e, strain, _ = fo.elastic(x, v, f, asm)
	}
	d.pending, d.owed = false, false
	d.op.cK, d.op.cD = cK, cD
	e.Contact = fo.contacts(x, f, false, hit)
	d.c.stats.Energy, d.c.stats.MaxStrain = e, strain
	d.op.finish()
	d.pc.setup()
	return e.Tensile + e.Bending + e.Gravity + e.Contact, e.Kinetic
}

// trial evaluates the forces at the trial point (y, V) of the step's
// Newton iteration into f, with the contacts' anchors of the step, and
// the linearisation there, which adopt makes the operator's. It returns
// the potential energy at y and the dissipation rate at (y, V).
func (d *clothDynamics) trial(y, V, f []float64) (pot, diss float64) {
	fo := &d.force
	e, strain, diss := fo.elastic(y, V, d.fEl, nil)
	d.owed = d.c.cfg.Operator == Assembled
	copy(f, d.fEl)
	cont := fo.contacts(y, f, true, false)
	d.tE, d.tStrain, d.tGen, d.tCK, d.tCD = e, strain, d.c.fab.gen, d.op.cK, d.op.cD
	copy(d.tx, y)
	copy(d.tv, V)
	d.pending = true
	return e.Tensile + e.Bending + e.Gravity + cont + fo.work, diss
}

// atTrial reports whether the state (x, v) is the last trial point's,
// bit for bit: what its pass evaluated holds for it.
func (d *clothDynamics) atTrial(x, v []float64) bool {
	return d.pending && same(x, d.tx) && same(v, d.tv)
}

// touching reports whether a pad touched the cloth at the step's start or
// its last trial point.
func (d *clothDynamics) touching() bool {
	for k := range d.c.pads.f {
		if fc := &d.c.pads.f[k]; len(fc.lin) > 0 || len(fc.trial) > 0 {
			return true
		}
	}
	return false
}

// adopt makes the last trial point's linearisation the step's operator and
// preconditioner: the Newton iteration goes on from there.
func (d *clothDynamics) adopt() {
	if d.c.cfg.Operator == Assembled {
		d.trialBlocks()
		d.op.swap()
	}
	d.pending = false
	d.c.pads.adopt()
	d.op.finish()
	d.pc.setup()
}

// trialBlocks assembles the elements' blocks at the last trial point into
// op.next, if they are owed.
func (d *clothDynamics) trialBlocks() {
	if d.owed {
		d.force.assemble(d.op.next, d.tCK, d.tCD)
		d.owed = false
	}
}

// potential returns the potential energy at y and the dissipation rate at
// (y, V), as trial would, without forces or linearisations.
func (d *clothDynamics) potential(y, V []float64) (pot, diss float64) {
	e, diss, work := d.force.potential(y, V)
	return e.Tensile + e.Bending + e.Gravity + e.Contact + work, diss
}

// dissipation returns the dissipation rate for the velocities V at the
// positions of the step's linearisation.
func (d *clothDynamics) dissipation(V []float64) float64 { return d.force.dissipation(V) }

func (d *clothDynamics) mulA(dst, p []float64)         { d.op.mulA(dst, p) }
func (d *clothDynamics) precond(dst, r []float64)      { d.pc.apply(dst, r) }
func (d *clothDynamics) mulA3(dst, p *[3][]float64)    { d.op.mulA3(dst, p) }
func (d *clothDynamics) precond3(dst, r *[3][]float64) { d.pc.apply3(dst, r) }
func (d *clothDynamics) mulK(dst, y []float64)         { d.force.mulK(dst, y, d.op.cK) }
func (d *clothDynamics) filter(p []float64)            { d.c.cons.filter(p) }
func (d *clothDynamics) energy(x, v []float64) Energy  { return d.force.energy(x, v) }

// mulKv sets dst = ∂f/∂x·v for the velocities of the last linearize. With
// the assembled operator it is one product instead of a pass over the
// elements: A = M - cD·D - cK·K and the viscous forces are exactly D·v, so
// K·v = (M·v - cD·D·v - A·v)/cK; A·v goes to av too.
func (d *clothDynamics) mulKv(dst, av []float64) bool {
	fo, op := &d.force, &d.op
	if d.c.cfg.Operator != Assembled {
		d.mulK(dst, fo.v)
		return false
	}
	op.a.mul(av, fo.v)
	s := 1 / op.cK
	for k, m := range d.c.fab.mass {
		for q := 3 * k; q < 3*k+3; q++ {
			dst[q] = (m*fo.v[q] - op.cD*fo.fVisc[q] - av[q]) * s
		}
	}
	if fo.hingeLive {
		fo.exactHinges(dst, fo.v)
	}
	d.filter(av)
	return true
}

func (d *clothDynamics) mulM(dst, p []float64) {
	for k, m := range d.c.fab.mass {
		dst[3*k], dst[3*k+1], dst[3*k+2] = m*p[3*k], m*p[3*k+1], m*p[3*k+2]
	}
}

func (d *clothDynamics) constrain(dv, b, x, base []float64, ah float64) (still bool) {
	return d.c.cons.prescribe(dv, b, x, base, ah)
}

// same reports whether a and b hold the same bits.
func same(a, b []float64) bool {
	for i, x := range a {
		if x != b[i] {
			return false
		}
	}
	return true
}

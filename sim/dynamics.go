package sim

// clothDynamics is the cloth as the integrator sees it (the dynamics
// interface): the force model (forces), the step's system matrix
// (operator) and its preconditioner, with the constraints filtered out.
type clothDynamics struct {
	c     *Cloth
	force forces
	op    operator
	pc    preconditioner
}

func (d *clothDynamics) init(c *Cloth) {
	d.c = c
	d.op.init(c)
	d.force.init(c, &d.op)
	d.pc.init(c, &d.op)
}

// linearize evaluates the forces and their Jacobians at (x, v), records
// the state's energy and strain in the step's statistics, and prepares
// the operator and the preconditioner for cK, cD.
func (d *clothDynamics) linearize(x, v, f []float64, cK, cD float64) {
	d.op.cK, d.op.cD = cK, cD
	e, strain := d.force.eval(x, v, f)
	d.c.stats.Energy, d.c.stats.MaxStrain = e, strain
	d.op.finish()
	d.pc.setup()
}

func (d *clothDynamics) mulA(dst, p []float64)        { d.op.mulA(dst, p) }
func (d *clothDynamics) precond(dst, r []float64)     { d.pc.apply(dst, r) }
func (d *clothDynamics) mulK(dst, y []float64)        { d.force.mulK(dst, y, d.op.cK) }
func (d *clothDynamics) filter(p []float64)           { d.c.cons.filter(p) }
func (d *clothDynamics) energy(x, v []float64) Energy { return d.force.energy(x, v) }

// mulKv sets dst = ∂f/∂x·v for the velocities of the last linearize. With
// the assembled operator it is one product instead of a pass over the
// elements: A = M - cD·D - cK·K and the viscous forces are exactly D·v, so
// K·v = (M·v - cD·D·v - A·v)/cK.
func (d *clothDynamics) mulKv(dst []float64) {
	fo, op := &d.force, &d.op
	if d.c.cfg.Operator != Assembled {
		d.mulK(dst, fo.v)
		return
	}
	op.a.mul(dst, fo.v)
	s := 1 / op.cK
	for k, m := range d.c.fab.mass {
		for q := 3 * k; q < 3*k+3; q++ {
			dst[q] = (m*fo.v[q] - op.cD*fo.fVisc[q] - dst[q]) * s
		}
	}
}

func (d *clothDynamics) mulM(dst, p []float64) {
	for k, m := range d.c.fab.mass {
		dst[3*k], dst[3*k+1], dst[3*k+2] = m*p[3*k], m*p[3*k+1], m*p[3*k+2]
	}
}

func (d *clothDynamics) constrain(dv, b, x, base []float64, ah float64) (still bool) {
	return d.c.cons.prescribe(dv, b, x, base, ah)
}

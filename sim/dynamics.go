package sim

import "math"

// clothDynamics is the cloth as the integrator sees it: forces, their
// linearisation and the products of the step's system matrix.
type clothDynamics struct {
	c         *Cloth
	lin       []triLin
	mf        [][4][3][3]float64 // per triangle: uu, uv, vv, uvᵀ of triLin.mats (MatrixFree)
	a         *bcsr              // assembled operator (Assembled)
	dinv      [][3][3]float64
	co        *coarse // nil without the coarse level
	cK, cD    float64
	rest      []float64 // rest positions, for the gravity potential
	tmp       []float64
	v         []float64 // velocities of the last linearize
	fVisc     []float64 // their viscous forces, D·v
	gs        []float64 // two-grid residual
	lumped    []bool    // rows whose bending-only couplings are weak
	normals   []float64
	planned   bool // the coarse plan matches the constraints
	coarseAge int  // steps since the coarse factorisation

	// The scalar couplings the smoother keeps (not both rows lumped):
	// row i has smRow[i]..smRow[i+1], those to higher rows from smMid[i].
	smRow, smMid []int32
	smCol        []int32
	smVal        []float64
	exAbs        []float64 // per row: Σ|coupling| of its bending-only couplings
	exDrop       []float64 // per row: Σ|coupling| of those the smoother drops
	sm           struct {  // what the lists were built for
		ok  bool
		cK  float64
		gen uint64 // mesh.bendGen
	}

	// The element pass in three parts (see splitTris): parts 0 and 1
	// touch disjoint nodes and run side by side on the cloth's team; the
	// seam (part 2) runs after them.
	parts       [3][]int32
	psi, strain [3]float64 // per part: tensile energy, largest strain
	bendE       [2]float64 // per part: bending energy of its rows
	px, pv, pf  []float64  // the arguments of the forces pass in progress
	forcesJob   func(part int)

	// With a team, the products split their rows at half: rows are
	// independent, so the result is the same either way.
	half          int
	mdst, mx      []float64 // the arguments of the product in progress
	mulJob, upJob func(part int)
}

func (d *clothDynamics) init(c *Cloth) {
	d.c = c
	n3 := 3 * c.n
	d.lin = make([]triLin, len(c.m.tris))
	d.dinv = make([][3][3]float64, c.n)
	d.a = newBCSR(c.m)
	if c.cfg.Operator == MatrixFree {
		d.mf = make([][4][3][3]float64, len(c.m.tris))
	}
	if c.cfg.Preconditioner != BlockJacobi {
		size := c.cfg.CoarseSize
		if size == 0 {
			// A coarse grid of a third of the mesh side, 8 to 16
			// aggregates: finer grids save iterations but their banded
			// factorisation grows as the fourth power of the side.
			n := max(c.cfg.NodesU, c.cfg.NodesV)
			side := min(max(n/3, 8), 16)
			size = max(2, (n+side-1)/side)
		}
		d.co = newCoarse(c.m, size)
	}
	d.gs = make([]float64, n3)
	d.lumped = make([]bool, c.n)
	d.smRow = make([]int32, c.n+1)
	d.smMid = make([]int32, c.n)
	d.smCol = make([]int32, 0, len(d.a.exCol))
	d.smVal = make([]float64, 0, len(d.a.exCol))
	d.exAbs = make([]float64, c.n)
	d.exDrop = make([]float64, c.n)
	d.sm.ok = false
	d.rest = append([]float64(nil), c.x...)
	d.tmp = make([]float64, n3)
	d.fVisc = make([]float64, n3)
	d.normals = make([]float64, n3)
	d.parts = splitTris(c.m)
	d.forcesJob = d.forcesPart
	d.half = c.n / 2
	d.mulJob, d.upJob = d.mulPart, d.mulUpperPart
}

// rows returns part p's rows of a split product.
func (d *clothDynamics) rows(p int) (i0, i1 int) {
	if p == 0 {
		return 0, d.half
	}
	return d.half, d.c.n
}

func (d *clothDynamics) mulPart(p int) {
	i0, i1 := d.rows(p)
	d.a.mulRange(d.mdst, d.mx, i0, i1)
}

func (d *clothDynamics) mulUpperPart(p int) {
	i0, i1 := d.rows(p)
	a := d.a
	mulRows(d.mdst[3*i0:3*i1], d.mx, a.diag1[i0:i1], a.rowPtr[i0+1:i1+1], a.col, a.val, d.smMid[i0:i1], d.smRow[i0+1:i1+1], d.smCol, d.smVal)
}

// split runs a product's job, its two halves side by side on the team if
// there is one.
func (d *clothDynamics) split(job func(part int), dst, x []float64) {
	d.mdst, d.mx = dst, x
	d.c.team.run(job)
	d.mdst, d.mx = nil, nil
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

func (d *clothDynamics) linearize(x, v, f []float64, cK, cD float64) {
	d.cK, d.cD = cK, cD
	d.v = v
	d.forces(x, v, f)
	d.prepare()
}

// forces evaluates f(x, v) and every element's and contact's
// linearisation, and the energy and strain statistics of the state.
func (d *clothDynamics) forces(x, v, f []float64) {
	c := d.c
	var e Energy
	g := c.cfg.Gravity
	for k := range c.n {
		m := c.fab.mass[k]
		f[3*k], f[3*k+1], f[3*k+2] = m*g[0], m*g[1], m*g[2]
		e.Gravity -= m * (g[0]*(x[3*k]-d.rest[3*k]) + g[1]*(x[3*k+1]-d.rest[3*k+1]) + g[2]*(x[3*k+2]-d.rest[3*k+2]))
		e.Kinetic += 0.5 * m * (v[3*k]*v[3*k] + v[3*k+1]*v[3*k+1] + v[3*k+2]*v[3*k+2])
	}
	clear(d.fVisc)
	if c.cfg.Operator == Assembled {
		a := d.a
		a.zero()
		for k := range c.n {
			m := c.fab.mass[k]
			b := &a.val[a.diag[k]]
			b[0][0], b[1][1], b[2][2] = m, m, m
		}
	}
	d.px, d.pv, d.pf = x, v, f
	c.team.run(d.forcesJob)
	d.forcesPart(2)
	d.px, d.pv, d.pf = nil, nil, nil
	e.Tensile = d.psi[0] + d.psi[1] + d.psi[2]
	e.Bending = d.bendE[0] + d.bendE[1]
	strain := max(d.strain[0], d.strain[1], d.strain[2])
	e.Contact = c.contact.linearize(x, v, f)
	e.Contact += c.rod.linearize(x, f)
	c.stats.Energy, c.stats.MaxStrain = e, strain
}

// forcesPart runs the forces pass over the triangles of one part and,
// with the assembled operator, scatters their blocks of the step's matrix
// while the element is at hand.
func (d *clothDynamics) forcesPart(p int) {
	c := d.c
	x, v, f := d.px, d.pv, d.pf
	eta := &c.fab.eta
	assemble := c.cfg.Operator == Assembled
	var psi, strain float64
	for _, i := range d.parts[p] {
		t := &c.m.tris[i]
		lin := &d.lin[i]
		w, s := t.pass(x, v, f, d.fVisc, &c.fab, lin, min(c.fab.mass[t.n[0]], min(c.fab.mass[t.n[1]], c.fab.mass[t.n[2]])))
		psi += w
		strain = max(strain, s)
		if assemble {
			lin.assemble(d.a, &d.a.triBlk[i], t, d.cK, d.cD, eta)
		}
	}
	d.psi[p], d.strain[p] = psi, strain
	if p < 2 {
		// The bending forces of the part's rows of nodes: no triangle of
		// the other part touches them (splitTris), and the seam's come
		// after the join.
		i0, i1 := d.rows(p)
		d.bendE[p] = d.bending(x, i0, i1)
		for i := 3 * i0; i < 3*i1; i++ {
			f[i] -= d.tmp[i]
		}
	}
}

// bending sets rows i0 to i1-1 of tmp to the bending forces' negatives
// K_b·x and returns those rows' bending energy.
func (d *clothDynamics) bending(x []float64, i0, i1 int) float64 {
	tmp := d.tmp[3*i0 : 3*i1]
	d.c.m.bend.setRows(d.tmp, x, i0, i1)
	var e float64
	for i, t := range tmp {
		e += 0.5 * x[3*i0+i] * t
	}
	return e
}

// prepare assembles the operator and the preconditioner for cK, cD.
func (d *clothDynamics) prepare() {
	c := d.c
	eta := &c.fab.eta
	cK, cD := d.cK, d.cD
	if c.cfg.Operator == Assembled {
		// The mass and the elements are in already (forcesPart).
		a := d.a
		c.contact.assemble(a, cK)
		c.rod.assemble(a, cK)
		a.setBending(&c.m.bend, cK, c.m.bendGen)
		// Where the bending-only couplings are small against a row's
		// weakest diagonal entry, the smoother leaves them out and adds
		// their magnitudes to the diagonal instead, which keeps its matrix
		// symmetric and above A (so positive definite) at a third less
		// work. A coupling is dropped only if both its rows are lumped.
		// The couplings are cK times the bending operator, so the lists
		// are rebuilt only when cK, the operator or a row's choice changes.
		fresh := !d.sm.ok || d.sm.cK != cK || d.sm.gen != c.m.bendGen
		if fresh {
			d.sm.ok, d.sm.cK, d.sm.gen = true, cK, c.m.bendGen
			for k := range c.n {
				var s float64
				for q := a.exRow[k]; q < a.exRow[k+1]; q++ {
					s += math.Abs(a.exVal[q])
				}
				d.exAbs[k] = s
			}
		}
		for k := range c.n {
			d.dinv[k] = a.val[a.diag[k]]
			b := &d.dinv[k]
			l := d.exAbs[k] < 0.25*min(b[0][0], min(b[1][1], b[2][2]))
			fresh = fresh || l != d.lumped[k]
			d.lumped[k] = l
		}
		if fresh {
			d.smCol, d.smVal = d.smCol[:0], d.smVal[:0]
			for k := range c.n {
				var lump float64
				d.smMid[k] = int32(len(d.smCol))
				for q := a.exRow[k]; q < a.exRow[k+1]; q++ {
					j := a.exCol[q]
					if d.lumped[k] && d.lumped[j] {
						lump += math.Abs(a.exVal[q])
						continue
					}
					if j < int32(k) {
						d.smMid[k]++
					}
					d.smCol = append(d.smCol, j)
					d.smVal = append(d.smVal, a.exVal[q])
				}
				d.smRow[k+1] = int32(len(d.smCol))
				d.exDrop[k] = lump
			}
		}
		for k := range c.n {
			b, lump := &d.dinv[k], d.exDrop[k]
			b[0][0] += lump
			b[1][1] += lump
			b[2][2] += lump
		}
	} else {
		for k := range c.n {
			m := c.fab.mass[k]
			d.dinv[k] = [3][3]float64{{m, 0, 0}, {0, m, 0}, {0, 0, m}}
		}
		for i := range c.m.tris {
			t := &c.m.tris[i]
			mm := &d.mf[i]
			d.lin[i].mats(mm, t, cK, cD, cK, eta)
			for r, n := range t.n {
				a, b, f := t.area*t.ru[r]*t.ru[r], t.area*t.ru[r]*t.rv[r], t.area*t.rv[r]*t.rv[r]
				for i := range 3 {
					for j := range 3 {
						d.dinv[n][i][j] += a*mm[0][i][j] + b*(mm[1][i][j]+mm[1][j][i]) + f*mm[2][i][j]
					}
				}
			}
		}
		c.contact.addDiag(d.dinv, cK)
		c.rod.addDiag(d.dinv, cK)
		bend := &c.m.bend
		for k := range c.n {
			for q := bend.rowPtr[k]; q < bend.rowPtr[k+1]; q++ {
				if int(bend.col[q]) == k {
					w := cK * bend.val[q]
					d.dinv[k][0][0] += w
					d.dinv[k][1][1] += w
					d.dinv[k][2][2] += w
				}
			}
		}
	}
	for k := range c.n {
		inv, ok := inv3(&d.dinv[k])
		if !ok {
			m := c.fab.mass[k]
			inv = [3][3]float64{{1 / m, 0, 0}, {0, 1 / m, 0}, {0, 0, 1 / m}}
		}
		if dir := c.proj[k]; dir != ([3]float64{}) {
			inv = project33(&inv, dir)
		}
		if c.pinned[k] {
			inv = [3][3]float64{}
		}
		d.dinv[k] = inv
	}
	if d.co != nil {
		if !d.planned {
			d.co.plan(d.a, c.free)
			d.planned = true
			d.coarseAge = math.MaxInt32
		}
		// At short steps the matrix barely changes from one step to the
		// next: the coarse factor is renewed every refresh interval (a
		// slightly old one is still a fixed positive definite part of the
		// V-cycle, which stays symmetric), always when it failed.
		if d.coarseAge++; d.coarseAge >= c.refreshSteps() || !d.co.ok {
			d.co.build(d.a)
			d.coarseAge = 0
		}
	}
}

func addTo33(dst *[3][3]float64, s float64, b *[3][3]float64) {
	for r := range 3 {
		for q := range 3 {
			dst[r][q] += s * b[r][q]
		}
	}
}

// project33 returns P·a·P with P = I - dir·dirᵀ.
func project33(a *[3][3]float64, dir [3]float64) [3][3]float64 {
	var p, t, out [3][3]float64
	for r := range 3 {
		for q := range 3 {
			p[r][q] = -dir[r] * dir[q]
		}
		p[r][r]++
	}
	for r := range 3 {
		for q := range 3 {
			for k := range 3 {
				t[r][q] += p[r][k] * a[k][q]
			}
		}
	}
	for r := range 3 {
		for q := range 3 {
			for k := range 3 {
				out[r][q] += t[r][k] * p[k][q]
			}
		}
	}
	return out
}

func (d *clothDynamics) mulA(dst, p []float64) {
	c := d.c
	if c.cfg.Operator == Assembled {
		d.split(d.mulJob, dst, p)
		d.filter(dst)
		return
	} else {
		for k := range c.n {
			m := c.fab.mass[k]
			dst[3*k], dst[3*k+1], dst[3*k+2] = m*p[3*k], m*p[3*k+1], m*p[3*k+2]
		}
		for i := range c.m.tris {
			c.m.tris[i].mulMats(dst, p, &d.mf[i])
		}
		c.contact.mulAdd(dst, p, -d.cK)
		c.rod.mulAdd(dst, p, -d.cK)
	}
	c.m.bend.mulAdd(dst, p, d.cK)
	d.filter(dst)
}

func (d *clothDynamics) precond(dst, r []float64) {
	c := d.c
	if c.cfg.Preconditioner == TwoGrid {
		d.vcycle(dst, r)
		return
	}
	for k := range c.n {
		if c.pinned[k] {
			dst[3*k], dst[3*k+1], dst[3*k+2] = 0, 0, 0
			continue
		}
		mul33(dst[3*k:3*k+3], &d.dinv[k], r[3*k:3*k+3])
	}
	if d.co != nil && d.co.ok {
		d.co.addCorrection(dst, r)
	}
}

// mulK sets dst = ∂f/∂x·y (the clamped elastic part, bending and contact).
func (d *clothDynamics) mulK(dst, y []float64) {
	c := d.c
	clear(dst)
	eta := &c.fab.eta
	for i := range c.m.tris {
		d.lin[i].mulAdd(&c.m.tris[i], dst, y, -1, 0, d.cK, eta)
	}
	c.m.bend.mulAdd(dst, y, -1)
	c.contact.mulAdd(dst, y, 1)
	c.rod.mulAdd(dst, y, 1)
}

// mulKv sets dst = ∂f/∂x·v for the velocities of the last linearize. With
// the assembled operator it is one product instead of a pass over the
// elements: A = M - cD·D - cK·K and the viscous forces are exactly D·v, so
// K·v = (M·v - cD·D·v - A·v)/cK.
func (d *clothDynamics) mulKv(dst []float64) {
	if d.c.cfg.Operator != Assembled {
		d.mulK(dst, d.v)
		return
	}
	d.a.mul(dst, d.v)
	s := 1 / d.cK
	for k, m := range d.c.fab.mass {
		for q := 3 * k; q < 3*k+3; q++ {
			dst[q] = (m*d.v[q] - d.cD*d.fVisc[q] - dst[q]) * s
		}
	}
}

func (d *clothDynamics) mulM(dst, p []float64) {
	for k, m := range d.c.fab.mass {
		dst[3*k], dst[3*k+1], dst[3*k+2] = m*p[3*k], m*p[3*k+1], m*p[3*k+2]
	}
}

// filter zeroes the constrained components of a vector.
func (d *clothDynamics) filter(p []float64) {
	c := d.c
	for _, n := range c.fixed {
		k := int(n)
		if c.pinned[k] {
			p[3*k], p[3*k+1], p[3*k+2] = 0, 0, 0
			continue
		}
		dir := c.proj[k]
		s := p[3*k]*dir[0] + p[3*k+1]*dir[1] + p[3*k+2]*dir[2]
		p[3*k] -= s * dir[0]
		p[3*k+1] -= s * dir[1]
		p[3*k+2] -= s * dir[2]
	}
}

func (d *clothDynamics) constrain(dv, b, x, base []float64, ah float64) (still bool) {
	c := d.c
	d.filter(b)
	still = true
	for _, n := range c.fixed {
		k := int(n)
		var need [3]float64
		for q := range 3 {
			need[q] = (c.target[3*k+q] - x[3*k+q] - base[3*k+q]) / ah
		}
		if c.pinned[k] {
			copy(dv[3*k:3*k+3], need[:])
			still = still && need == [3]float64{}
			continue
		}
		dir := c.proj[k]
		s := dv[3*k]*dir[0] + dv[3*k+1]*dir[1] + dv[3*k+2]*dir[2]
		t := dot3(need, dir)
		for q := range 3 {
			dv[3*k+q] += (t - s) * dir[q]
		}
		still = still && t == 0
	}
	return still
}

// energy evaluates the energy at (x, v) without touching the step's state.
func (d *clothDynamics) energy(x, v []float64) Energy {
	c := d.c
	var e Energy
	g := c.cfg.Gravity
	for k := range c.n {
		m := c.fab.mass[k]
		e.Gravity -= m * (g[0]*(x[3*k]-d.rest[3*k]) + g[1]*(x[3*k+1]-d.rest[3*k+1]) + g[2]*(x[3*k+2]-d.rest[3*k+2]))
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
		i0, i1 := d.rows(p)
		e.Bending += d.bending(x, i0, i1)
	}
	e.Contact = c.contact.energy()
	return e
}

// vcycle applies the two-grid V(1,1) preconditioner: a forward block
// Gauss-Seidel sweep from zero, the coarse correction of its residual, a
// backward sweep. After a forward sweep from zero, (D+L)·z = r, so the
// residual is -U·z (U the strictly upper blocks): half a product.
func (d *clothDynamics) vcycle(z, r []float64) {
	d.sweepFromZero(z, r)
	if d.co.ok {
		d.mulUpper(d.gs, z)
		for i := range d.gs {
			d.gs[i] = -d.gs[i]
		}
		d.filter(d.gs)
		d.co.addCorrection(z, d.gs)
	}
	d.sweepBack(z, r)
	d.filter(z)
}

// mulUpper sets dst = Ũ·z for the strictly upper part Ũ of the smoother's
// matrix.
func (d *clothDynamics) mulUpper(dst, z []float64) { d.split(d.upJob, dst, z) }

// sweepFromZero is a forward sweep from z = 0: the blocks above the
// diagonal would multiply entries still zero, so only the lower part
// (and the scalar couplings to lower rows) enters.
func (d *clothDynamics) sweepFromZero(z, r []float64) {
	a, n := d.a, d.c.n
	gsSweep(z, r, a.rowPtr[:n], a.diag, a.diag, a.col, a.val, d.smRow[:n], d.smMid, d.smCol, d.smVal, d.dinv, false)
}

// sweepBack is one backward block Gauss-Seidel sweep for Ã·z = r, Ã
// being the assembled matrix with the bending-only couplings of lumped
// rows moved to the diagonal (see prepare).
func (d *clothDynamics) sweepBack(z, r []float64) {
	a, n := d.a, d.c.n
	gsSweep(z, r, a.rowPtr[:n], a.diag, a.rowPtr[1:], a.col, a.val, d.smRow[:n], d.smRow[1:], d.smCol, d.smVal, d.dinv, true)
}

package sim

import "math"

// preconditioner is the CG's preconditioner for the operator (see the
// package documentation): block Jacobi; block Jacobi plus the additive
// coarse correction (TwoLevel); or the two-grid V(1,1) cycle, a symmetric
// block Gauss-Seidel sweep pair around the coarse correction (TwoGrid).
type preconditioner struct {
	c         *Cloth
	op        *operator
	dinv      [][3][3]float64 // per node: the inverse of its diagonal block (the smoother's, with TwoGrid)
	co        *coarse         // nil without the coarse level
	gs        []float64       // two-grid residual
	gs3       [3][]float64    // those of a three-vector V-cycle (gs the first)
	lumped    []bool          // rows whose bending-only couplings are weak
	planGen   uint64          // constraints.gen + 1 of the coarse plan; 0: none
	coarseAge int             // steps since the coarse factorisation

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

	// plain: the smoother keeps every coupling of the operator (while the
	// bending friction lives, see setup); exMid[i] is the first of row i's
	// to a higher row in the operator's lists.
	plain bool
	exMid []int32

	// With self-contact springs in the step, the smoother's couplings are
	// its bending ones plus the springs', which it never lumps: xmRow,
	// xmMid, xmCol, xmVal replace smRow, smMid, smCol, smVal (see mixIn).
	mixed        bool
	xmRow, xmMid []int32
	xmCol        []int32
	xmVal        []float64

	split  rowSplit
	upJob  func(part int)
	upJob3 func(part int)

	// dsm is the smoother's diagonal blocks before inversion, kept on
	// the pinched stack's nodes, and sb the stack's blocks (TwoGrid with
	// the assembled operator).
	dsm [][3][3]float64
	sb  stackBlocks
}

func (pc *preconditioner) init(c *Cloth, op *operator) {
	pc.c, pc.op = c, op
	pc.dinv = make([][3][3]float64, c.n)
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
		pc.co = newCoarse(c.m, size, op.a)
	}
	pc.gs = make([]float64, 3*c.n)
	pc.gs3 = [3][]float64{pc.gs, make([]float64, 3*c.n), make([]float64, 3*c.n)}
	pc.lumped = make([]bool, c.n)
	pc.smRow = make([]int32, c.n+1)
	pc.smMid = make([]int32, c.n)
	pc.smCol = make([]int32, 0, len(op.a.exCol))
	pc.smVal = make([]float64, 0, len(op.a.exCol))
	pc.exAbs = make([]float64, c.n)
	pc.exDrop = make([]float64, c.n)
	a := op.a
	pc.exMid = make([]int32, c.n)
	for i := range c.n {
		q := a.exRow[i]
		for q < a.exRow[i+1] && a.exCol[q] < int32(i) {
			q++
		}
		pc.exMid[i] = q
	}
	pc.sm.ok = false
	pc.split.init(c.n)
	pc.upJob = pc.mulUpperPart
	pc.upJob3 = pc.mulUpperPart3
	pc.dsm = make([][3][3]float64, c.n)
	pc.sb.init(c.n)
}

// setup builds the preconditioner for the operator just finished: the
// diagonal blocks' inverses (the smoother's, with its lists of couplings,
// for the assembled operator) and the coarse level's factor.
func (pc *preconditioner) setup() {
	c, op := pc.c, pc.op
	cK := op.cK
	if c.cfg.Operator == Assembled {
		a := op.a
		if c.dyn.force.hingeLive {
			// The bending friction's stiffness (bendhyst.go) changes the
			// couplings at every pass and makes them uneven, up to several
			// times the elastic bending at a reversal: lumping them then
			// left a patchwork of lumped and kept rows whose smoother
			// doubled the CG iterations at 64² (docs/cloth.md, section 8).
			// The smoother keeps every coupling: it reads the operator's.
			pc.plain, pc.sm.ok = true, false
			for k := range c.n {
				pc.dinv[k] = a.val[a.diag[k]]
			}
		} else {
			pc.plain = false
			pc.setupLumped(cK)
		}
		pc.mixIn()
	} else {
		for k := range c.n {
			m := c.fab.mass[k]
			pc.dinv[k] = [3][3]float64{{m, 0, 0}, {0, m, 0}, {0, 0, m}}
		}
		for i := range c.m.tris {
			t := &c.m.tris[i]
			mm := &op.mf[i]
			for r, n := range t.n {
				a, b, f := t.area*t.ru[r]*t.ru[r], t.area*t.ru[r]*t.rv[r], t.area*t.rv[r]*t.rv[r]
				for i := range 3 {
					for j := range 3 {
						pc.dinv[n][i][j] += a*mm[0][i][j] + b*(mm[1][i][j]+mm[1][j][i]) + f*mm[2][i][j]
					}
				}
			}
		}
		c.pads.addDiag(pc.dinv, cK)
		c.rod.addDiag(pc.dinv, cK)
		if c.self != nil {
			c.self.addDiag(pc.dinv, cK)
		}
		bend := &c.m.bend
		for k := range c.n {
			for q := bend.rowPtr[k]; q < bend.rowPtr[k+1]; q++ {
				if int(bend.col[q]) == k {
					w := cK * bend.val[q]
					pc.dinv[k][0][0] += w
					pc.dinv[k][1][1] += w
					pc.dinv[k][2][2] += w
				}
			}
		}
		if fo := &c.dyn.force; fo.hingeLive {
			fo.addHingeDiag(pc.dinv, cK)
		}
	}
	cons := &c.cons
	pc.sb.ok = false
	if c.cfg.Operator == Assembled && c.cfg.Preconditioner == TwoGrid && pc.co != nil {
		pc.buildStack()
	}
	for k := range c.n {
		inv, ok := inv3(&pc.dinv[k])
		if !ok {
			m := c.fab.mass[k]
			inv = [3][3]float64{{1 / m, 0, 0}, {0, 1 / m, 0}, {0, 0, 1 / m}}
		}
		if dir := cons.proj[k]; dir != ([3]float64{}) {
			inv = project33(&inv, dir)
		}
		if cons.pinned[k] {
			inv = [3][3]float64{}
		}
		pc.dinv[k] = inv
	}
	if pc.co != nil {
		if pc.planGen != cons.gen+1 {
			pc.co.plan(op.a, cons.free)
			pc.planGen = cons.gen + 1
			pc.coarseAge = math.MaxInt32
		}
		// At short steps the matrix barely changes from one step to the
		// next: the coarse factor is renewed every refresh interval (a
		// slightly old one is still a fixed positive definite part of the
		// V-cycle, which stays symmetric), always when it failed.
		if pc.coarseAge++; pc.coarseAge >= c.refreshSteps() || !pc.co.ok {
			var extra []scalarCoupling
			if op.a.merged {
				extra = c.self.cpl
			}
			pc.co.build(op.a, extra)
			pc.coarseAge = 0
		}
	}
}

// setupLumped sets the smoother's diagonal blocks (not yet inverted) and
// coupling lists for the assembled operator without the bending friction.
func (pc *preconditioner) setupLumped(cK float64) {
	c, a := pc.c, pc.op.a
	// Where the bending-only couplings are small against a row's
	// weakest diagonal entry, the smoother leaves them out and adds
	// their magnitudes to the diagonal instead, which keeps its matrix
	// symmetric and above A (so positive definite) at a third less
	// work. A coupling is dropped only if both its rows are lumped.
	// The couplings are cK times the bending operator, so the lists
	// are rebuilt only when cK, the operator or a row's choice changes.
	fresh := !pc.sm.ok || pc.sm.cK != cK || pc.sm.gen != c.m.bendGen
	if fresh {
		pc.sm.ok, pc.sm.cK, pc.sm.gen = true, cK, c.m.bendGen
		for k := range c.n {
			var s float64
			for q := a.exRow[k]; q < a.exRow[k+1]; q++ {
				s += math.Abs(a.exVal[q])
			}
			pc.exAbs[k] = s
		}
	}
	for k := range c.n {
		pc.dinv[k] = a.val[a.diag[k]]
		b := &pc.dinv[k]
		l := pc.exAbs[k] < 0.25*min(b[0][0], min(b[1][1], b[2][2]))
		fresh = fresh || l != pc.lumped[k]
		pc.lumped[k] = l
	}
	if fresh {
		pc.smCol, pc.smVal = pc.smCol[:0], pc.smVal[:0]
		for k := range c.n {
			var lump float64
			pc.smMid[k] = int32(len(pc.smCol))
			for q := a.exRow[k]; q < a.exRow[k+1]; q++ {
				j := a.exCol[q]
				if pc.lumped[k] && pc.lumped[j] {
					lump += math.Abs(a.exVal[q])
					continue
				}
				if j < int32(k) {
					pc.smMid[k]++
				}
				pc.smCol = append(pc.smCol, j)
				pc.smVal = append(pc.smVal, a.exVal[q])
			}
			pc.smRow[k+1] = int32(len(pc.smCol))
			pc.exDrop[k] = lump
		}
	}
	for k := range c.n {
		b, lump := &pc.dinv[k], pc.exDrop[k]
		b[0][0] += lump
		b[1][1] += lump
		b[2][2] += lump
	}
}

// reserveMix gives mixIn room as bcsr.reserveMerge does.
func (pc *preconditioner) reserveMix(room int) {
	n, a := pc.c.n, pc.op.a
	pc.xmRow, pc.xmMid = make([]int32, n+1), make([]int32, n)
	pc.xmCol = make([]int32, 0, len(a.exCol)+room)
	pc.xmVal = make([]float64, 0, len(a.exCol)+room)
}

// mixIn builds the smoother's coupling lists with the self-contact
// springs' (the operator's merged couplings), or turns them off.
// reserveMix comes first.
func (pc *preconditioner) mixIn() {
	a := pc.op.a
	pc.mixed = a.merged
	if !pc.mixed {
		return
	}
	n := pc.c.n
	cpl := pc.c.self.cpl
	smRow, smMid, smCol, smVal := pc.base()
	pc.xmCol, pc.xmVal = pc.xmCol[:0], pc.xmVal[:0]
	// The rows without springs are copied whole, run by run (a stack's
	// springs fall on a few rows).
	var done, off int32 // rows [0, done) are in place; springs' couplings inserted so far
	for q := 0; ; {
		end := int32(n)
		if q < len(cpl) {
			end = cpl[q].i
		}
		lo, hi := smRow[done], smRow[end]
		pc.xmCol = append(pc.xmCol, smCol[lo:hi]...)
		pc.xmVal = append(pc.xmVal, smVal[lo:hi]...)
		for r := done; r < end; r++ {
			pc.xmMid[r] = smMid[r] + off
			pc.xmRow[r+1] = smRow[r+1] + off
		}
		if q == len(cpl) {
			return
		}
		// Row k with springs: its lower couplings first, then the upper
		// ones (the forward sweep from zero reads only the first).
		k := end
		first := q
		for ; q < len(cpl) && cpl[q].i == k; q++ {
		}
		row := cpl[first:q]
		pc.xmCol = append(pc.xmCol, smCol[smRow[k]:smMid[k]]...)
		pc.xmVal = append(pc.xmVal, smVal[smRow[k]:smMid[k]]...)
		for _, cp := range row {
			if cp.j < k {
				pc.xmCol, pc.xmVal = append(pc.xmCol, cp.j), append(pc.xmVal, cp.v)
			}
		}
		pc.xmMid[k] = int32(len(pc.xmCol))
		pc.xmCol = append(pc.xmCol, smCol[smMid[k]:smRow[k+1]]...)
		pc.xmVal = append(pc.xmVal, smVal[smMid[k]:smRow[k+1]]...)
		for _, cp := range row {
			if cp.j > k {
				pc.xmCol, pc.xmVal = append(pc.xmCol, cp.j), append(pc.xmVal, cp.v)
			}
		}
		pc.xmRow[k+1] = int32(len(pc.xmCol))
		off = pc.xmRow[k+1] - smRow[k+1]
		done = k + 1
	}
}

// smoother returns the smoother's coupling lists in use.
func (pc *preconditioner) smoother() (row, mid, col []int32, val []float64) {
	if pc.mixed {
		return pc.xmRow, pc.xmMid, pc.xmCol, pc.xmVal
	}
	return pc.base()
}

// base returns the smoother's bending couplings: the operator's own, or
// the lists setupLumped built.
func (pc *preconditioner) base() (row, mid, col []int32, val []float64) {
	if pc.plain {
		a := pc.op.a
		return a.exRow, pc.exMid, a.exCol, a.exVal
	}
	return pc.smRow, pc.smMid, pc.smCol, pc.smVal
}

// apply sets dst to the preconditioned r, filtered.
func (pc *preconditioner) apply(dst, r []float64) {
	c := pc.c
	if c.cfg.Preconditioner == TwoGrid {
		pc.vcycle(dst, r)
		return
	}
	for k := range c.n {
		if c.cons.pinned[k] {
			dst[3*k], dst[3*k+1], dst[3*k+2] = 0, 0, 0
			continue
		}
		mul33(dst[3*k:3*k+3], &pc.dinv[k], r[3*k:3*k+3])
	}
	if pc.co != nil && pc.co.ok {
		pc.co.addCorrection(dst, r)
	}
}

// vcycle applies the two-grid V(1,1) preconditioner: a forward block
// Gauss-Seidel sweep from zero, the coarse correction of its residual, a
// backward sweep. After a forward sweep from zero, (D+L)·z = r, so the
// residual is -U·z (U the strictly upper blocks): half a product. With a
// pinched stack, its blocks are solved on either side of the coarse
// correction, forward then backward (stackBlocks), so the cycle stays
// symmetric.
func (pc *preconditioner) vcycle(z, r []float64) {
	cons := &pc.c.cons
	pc.sweepFromZero(z, r)
	stack := pc.sb.ok
	if pc.co.ok {
		pc.mulUpper(pc.gs, z)
		neg(pc.gs)
		if stack {
			pc.stackPass(z, r, pc.gs, false)
		}
		cons.filter(pc.gs)
		pc.co.addCorrection(z, pc.gs)
	} else if stack {
		pc.stackPass(z, r, nil, false)
	}
	if stack {
		pc.stackPass(z, r, nil, true)
	}
	pc.sweepBack(z, r)
	cons.filter(z)
}

// mulUpper sets dst = Ũ·z for the strictly upper part Ũ of the smoother's
// matrix.
func (pc *preconditioner) mulUpper(dst, z []float64) { pc.split.run(pc.c.team, pc.upJob, dst, z) }

func (pc *preconditioner) mulUpperPart(p int) {
	i0, i1 := pc.split.rows(p)
	a := pc.op.a
	row, mid, col, val := pc.smoother()
	mulRows(pc.split.dst[3*i0:3*i1], pc.split.x, a.diag1[i0:i1], a.rowPtr[i0+1:i1+1], a.col, a.val, mid[i0:i1], row[i0+1:i1+1], col, val)
}

// sweepFromZero is a forward sweep from z = 0: the blocks above the
// diagonal would multiply entries still zero, so only the lower part
// (and the scalar couplings to lower rows) enters.
func (pc *preconditioner) sweepFromZero(z, r []float64) {
	a, n := pc.op.a, pc.c.n
	row, mid, col, val := pc.smoother()
	gsSweep(z, r, a.rowPtr[:n], a.diag, a.diag, a.col, a.val, row[:n], mid, col, val, pc.dinv, false)
}

// sweepBack is one backward block Gauss-Seidel sweep for Ã·z = r, Ã
// being the assembled matrix with the bending-only couplings of lumped
// rows moved to the diagonal (see setup).
func (pc *preconditioner) sweepBack(z, r []float64) {
	a, n := pc.op.a, pc.c.n
	row, _, col, val := pc.smoother()
	gsSweep(z, r, a.rowPtr[:n], a.diag, a.rowPtr[1:], a.col, a.val, row[:n], row[1:], col, val, pc.dinv, true)
}

// apply3 is apply for three vectors at once, bit for bit three calls of
// it: the two-grid V-cycle's sweeps and products read each row once for
// the three (vcycle3).
func (pc *preconditioner) apply3(dst, r *[3][]float64) {
	if pc.c.cfg.Preconditioner != TwoGrid {
		for v := range 3 {
			pc.apply(dst[v], r[v])
		}
		return
	}
	pc.vcycle3(dst, r)
}

// vcycle3 is vcycle for three vectors, each vector's operations those of
// vcycle in the same order; the sweeps and the upper product run on the
// three at once, the stack's blocks and the coarse correction on each in
// turn.
func (pc *preconditioner) vcycle3(z, r *[3][]float64) {
	cons := &pc.c.cons
	a, n := pc.op.a, pc.c.n
	row, mid, col, val := pc.smoother()
	gsSweep3(z, r, a.rowPtr[:n], a.diag, a.diag, a.col, a.val, row[:n], mid, col, val, pc.dinv, false)
	stack := pc.sb.ok
	if pc.co.ok {
		pc.split.run3(pc.c.team, pc.upJob3, &pc.gs3, z)
		for v, gs := range pc.gs3 {
			neg(gs)
			if stack {
				pc.stackPass(z[v], r[v], gs, false)
			}
			cons.filter(gs)
			pc.co.addCorrection(z[v], gs)
		}
	} else if stack {
		for v := range 3 {
			pc.stackPass(z[v], r[v], nil, false)
		}
	}
	if stack {
		for v := range 3 {
			pc.stackPass(z[v], r[v], nil, true)
		}
	}
	gsSweep3(z, r, a.rowPtr[:n], a.diag, a.rowPtr[1:], a.col, a.val, row[:n], row[1:], col, val, pc.dinv, true)
	for v := range 3 {
		cons.filter(z[v])
	}
}

func (pc *preconditioner) mulUpperPart3(p int) {
	i0, i1 := pc.split.rows(p)
	a := pc.op.a
	row, mid, col, val := pc.smoother()
	d := pc.split.part3(i0, i1)
	mulRows3(&d, pc.split.x3, a.diag1[i0:i1], a.rowPtr[i0+1:i1+1], a.col, a.val, mid[i0:i1], row[i0+1:i1+1], col, val)
}

package sim

import "math"

// coarse is the second level of the two-level preconditioner: the grid's
// nodes are aggregated in squares of side agg nodes; the coarse space moves
// each aggregate rigidly (translations only), and its matrix Aᶜ = Pᵀ·A·P is
// the sum of A's blocks over pairs of aggregates. Aᶜ is small and banded
// (aggregates numbered row by row), so it is factorised directly.
//
// Block Jacobi alone needs O(grid size) iterations for a stiff membrane
// (the smooth, long-wave modes converge slowest); the coarse correction
// removes them, so the iteration count stays flat as the fabric gets
// stiffer or the step longer (BenchmarkPreconditioner).
type coarse struct {
	agg    []int32   // coarse node of each fine node
	sel    []int32   // agg for the free nodes, nc (a spare slot) for the others
	cu, nc int       // aggregates along u; number of aggregates
	bw     int       // half bandwidth in unknowns
	band   []float64 // row p holds L[p][p-bw..p] (see factor)
	ut     []float64 // row p holds Lᵀ[p][p+1..p+bw], for the backward solve
	dinv   []float64 // 1/L[p][p]
	rc, zc []float64
	ok     bool    // the last factorisation succeeded
	off    []int32 // see plan
	same   []bool
	exOff  []int32 // the same for the scalar couplings
}

func newCoarse(m *mesh, size int) *coarse {
	c := &coarse{cu: (m.nu + size - 1) / size}
	cv := (m.nv + size - 1) / size
	c.nc = c.cu * cv
	c.agg = make([]int32, m.nodes())
	for j := range m.nv {
		for i := range m.nu {
			c.agg[j*m.nu+i] = int32((j/size)*c.cu + i/size)
		}
	}
	c.bw = 3*(c.cu+1) + 2
	c.band = make([]float64, 3*c.nc*(c.bw+1))
	c.ut = make([]float64, 3*c.nc*(c.bw+1))
	c.dinv = make([]float64, 3*c.nc)
	// One spare slot past the aggregates: restriction sums the constrained
	// nodes' residuals there, and the solves leave its zero correction.
	c.rc = make([]float64, 3*c.nc+3)
	c.zc = make([]float64, 3*c.nc+3)
	c.sel = make([]int32, m.nodes())
	return c
}

// plan precomputes, for each fine block, where it lands in the band: the
// offset of its (0, 0) entry, or -1 when it is skipped (a constrained node,
// or the upper triangle). diag marks blocks within one aggregate, of which
// only the lower triangle is kept.
func (c *coarse) plan(a *bcsr, free []bool) {
	for i, ci := range c.agg {
		c.sel[i] = ci
		if !free[i] {
			c.sel[i] = int32(c.nc)
		}
	}
	c.off = resizeInt(c.off, len(a.col))
	c.same = make([]bool, len(a.col))
	w := c.bw + 1
	for i := range len(a.rowPtr) - 1 {
		ci := int(c.agg[i])
		for k := a.rowPtr[i]; k < a.rowPtr[i+1]; k++ {
			j := a.col[k]
			cj := int(c.agg[j])
			c.off[k] = -1
			if !free[i] || !free[j] || cj > ci {
				continue
			}
			p, q := 3*ci, 3*cj
			c.off[k] = int32(p*w + c.bw - p + q)
			c.same[k] = ci == cj
		}
	}
	c.exOff = resizeInt(c.exOff, len(a.exCol))
	for i := range len(a.exRow) - 1 {
		ci := int(c.agg[i])
		for k := a.exRow[i]; k < a.exRow[i+1]; k++ {
			j := a.exCol[k]
			cj := int(c.agg[j])
			c.exOff[k] = -1
			if free[i] && free[j] && cj <= ci {
				// Diagonal entries only: (3ci+r, 3cj+r).
				p, q := 3*ci, 3*cj
				c.exOff[k] = int32(p*w + c.bw - p + q)
			}
		}
	}
}

func resizeInt(s []int32, n int) []int32 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]int32, n)
}

// build assembles Aᶜ from the fine block matrix and factorises it
// (Cholesky). plan must have been called for the current constraints.
func (c *coarse) build(a *bcsr) {
	clear(c.band)
	bw := c.bw
	for k, o := range c.off {
		if o < 0 {
			continue
		}
		b := &a.val[k]
		row := c.band[o : int(o)+2*bw+3]
		if !c.same[k] {
			for r := range 3 {
				x := row[r*bw : r*bw+3]
				x[0] += b[r][0]
				x[1] += b[r][1]
				x[2] += b[r][2]
			}
			continue
		}
		row[0] += b[0][0]
		row[bw] += b[1][0]
		row[bw+1] += b[1][1]
		row[2*bw] += b[2][0]
		row[2*bw+1] += b[2][1]
		row[2*bw+2] += b[2][2]
	}
	for k, o := range c.exOff {
		if o >= 0 {
			w := a.exVal[k]
			c.band[o] += w
			c.band[int(o)+c.bw+1] += w
			c.band[int(o)+2*c.bw+2] += w
		}
	}
	c.ok = c.factor()
}

// factor computes the banded Cholesky factor L in place (row p of the band
// holds L[p][p-bw..p]), the rows of its strict upper transpose in ut and
// its diagonal's inverses. Every entry is one inner product (dot8), rows being
// contiguous in both copies.
func (c *coarse) factor() bool {
	n := 3 * c.nc
	bw, w := c.bw, c.bw+1
	for i := range n {
		if c.band[i*w+bw] == 0 {
			c.band[i*w+bw] = 1 // an aggregate with no free node
		}
	}
	for i := range n {
		bandFactorRow(c.band, c.ut, c.dinv, i, bw)
		lo := max(0, i-bw)
		ri := c.band[i*w+bw-i : (i+1)*w] // ri[j] = L[i][j], j in [lo, i]
		s := ri[i] - dot8(ri[lo:i], ri[lo:i])
		if !(s > 0) {
			return false
		}
		ri[i] = math.Sqrt(s)
		c.dinv[i] = 1 / ri[i]
	}
	return true
}

// addCorrection adds P·Aᶜ⁻¹·Pᵀ·r to z (free nodes only).
func (c *coarse) addCorrection(z, r []float64) {
	clear(c.rc)
	restrict(c.rc, r, c.sel)
	bandSolve(c.zc, c.rc, c.band, c.ut, c.dinv, c.bw)
	prolong(z, c.zc, c.sel)
}

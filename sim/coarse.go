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
	ok     bool // the last factorisation succeeded
	// Where the fine matrix lands in the band (see plan): blocks between
	// two aggregates, blocks within one (lower triangle only), and scalar
	// couplings.
	full, lower, cpl []coarseEntry
}

// coarseEntry is fine block (or coupling) k landing in the coarse band
// with its (0, 0) entry at band[o].
type coarseEntry struct{ k, o int32 }

// newCoarse builds the coarse level of mesh m in aggregates of size²
// nodes; its plan's lists get room for every block and coupling of a, so
// that no change of the constraints makes a step allocate.
func newCoarse(m *mesh, size int, a *bcsr) *coarse {
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
	c.full = make([]coarseEntry, 0, len(a.col))
	c.lower = make([]coarseEntry, 0, len(a.col))
	c.cpl = make([]coarseEntry, 0, len(a.exCol))
	return c
}

// plan lists, for each fine block and coupling that reaches the coarse
// matrix's lower triangle between free nodes, where it lands in the band,
// in the fine matrix's order: blocks between two aggregates in full,
// blocks within one (of which only the lower triangle is kept) in lower,
// and the couplings (the diagonal entries (3ci+r, 3cj+r) only) in cpl.
// A band entry gets blocks of one list only, so the lists add in the
// order of one pass over the fine matrix.
func (c *coarse) plan(a *bcsr, free []bool) {
	for i, ci := range c.agg {
		c.sel[i] = ci
		if !free[i] {
			c.sel[i] = int32(c.nc)
		}
	}
	c.full, c.lower, c.cpl = c.full[:0], c.lower[:0], c.cpl[:0]
	w := c.bw + 1
	at := func(ci, cj int) int32 { p, q := 3*ci, 3*cj; return int32(p*w + c.bw - p + q) }
	for i := range len(a.rowPtr) - 1 {
		ci := int(c.agg[i])
		for k := a.rowPtr[i]; k < a.rowPtr[i+1]; k++ {
			j := a.col[k]
			cj := int(c.agg[j])
			if !free[i] || !free[j] || cj > ci {
				continue
			}
			e := coarseEntry{k, at(ci, cj)}
			if ci == cj {
				c.lower = append(c.lower, e)
			} else {
				c.full = append(c.full, e)
			}
		}
	}
	for i := range len(a.exRow) - 1 {
		ci := int(c.agg[i])
		for k := a.exRow[i]; k < a.exRow[i+1]; k++ {
			j := a.exCol[k]
			if cj := int(c.agg[j]); free[i] && free[j] && cj <= ci {
				c.cpl = append(c.cpl, coarseEntry{k, at(ci, cj)})
			}
		}
	}
}

// build assembles Aᶜ from the fine block matrix and the extra scalar
// couplings (the self-contact springs'; each pair listed both ways) and
// factorises it (Cholesky). plan must have been called for the current
// constraints. An extra coupling between aggregates further apart than
// the band is moved to their diagonals as its magnitude, which keeps Aᶜ
// above the exact one, and so positive definite.
func (c *coarse) build(a *bcsr, extra []scalarCoupling) {
	clear(c.band)
	coarseAdd(c.band, a.val, a.exVal, c.full, c.lower, c.cpl, c.bw)
	w := c.bw + 1
	at := func(p, q int) int { return p*w + c.bw - p + q }
	for _, e := range extra {
		ci, cj := int(c.sel[e.i]), int(c.sel[e.j])
		if ci == c.nc || cj == c.nc || cj > ci {
			continue
		}
		for r := range 3 {
			switch p, q := 3*ci+r, 3*cj+r; {
			case p-q <= c.bw:
				c.band[at(p, q)] += e.v
			default:
				c.band[at(p, p)] += math.Abs(e.v)
				c.band[at(q, q)] += math.Abs(e.v)
			}
		}
	}
	c.ok = c.factor()
}

// factor computes the banded Cholesky factor L in place (row p of the band
// holds L[p][p-bw..p]), the rows of its strict upper transpose in ut and
// its diagonal's inverses (bandFactor).
func (c *coarse) factor() bool {
	bw, w := c.bw, c.bw+1
	for i := range 3 * c.nc {
		if c.band[i*w+bw] == 0 {
			c.band[i*w+bw] = 1 // an aggregate with no free node
		}
	}
	return bandFactor(c.band, c.ut, c.dinv, bw)
}

// addCorrection adds P·Aᶜ⁻¹·Pᵀ·r to z (free nodes only).
func (c *coarse) addCorrection(z, r []float64) {
	clear(c.rc)
	aggAdd(c.rc, r, c.sel, true)
	bandSolve(c.zc, c.rc, c.band, c.ut, c.dinv, c.bw)
	aggAdd(z, c.zc, c.sel, false)
}

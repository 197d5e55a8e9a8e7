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
	agg    []int32 // coarse node of each fine node; -1 for constrained nodes
	cu, nc int     // aggregates along u; number of aggregates
	bw     int     // half bandwidth in unknowns
	band   []float64
	rc, zc []float64
	ok     bool // the last factorisation succeeded
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
	c.rc = make([]float64, 3*c.nc)
	c.zc = make([]float64, 3*c.nc)
	return c
}

// at returns the storage of the lower-triangle entry (p, q), p >= q.
func (c *coarse) at(p, q int) *float64 { return &c.band[p*(c.bw+1)+q-p+c.bw] }

// build assembles Aᶜ from the fine block matrix plus cK times the bending
// operator, skipping constrained nodes, and factorises it (Cholesky).
func (c *coarse) build(a *bcsr, bend *scalarCSR, cK float64, free []bool) {
	clear(c.band)
	for i := range len(a.rowPtr) - 1 {
		ci := c.agg[i]
		if !free[i] {
			continue
		}
		for k := a.rowPtr[i]; k < a.rowPtr[i+1]; k++ {
			j := a.col[k]
			cj := c.agg[j]
			if !free[j] || cj > ci {
				continue
			}
			b := &a.val[k]
			for r := range 3 {
				for s := range 3 {
					p, q := 3*int(ci)+r, 3*int(cj)+s
					if p >= q {
						*c.at(p, q) += b[r][s]
					}
				}
			}
		}
		for k := bend.rowPtr[i]; k < bend.rowPtr[i+1]; k++ {
			j := bend.col[k]
			cj := c.agg[j]
			if !free[j] || cj > ci {
				continue
			}
			w := cK * bend.val[k]
			for r := range 3 {
				*c.at(3*int(ci)+r, 3*int(cj)+r) += w
			}
		}
	}
	c.ok = c.factor()
}

func (c *coarse) factor() bool {
	n := 3 * c.nc
	for i := range n {
		if *c.at(i, i) == 0 {
			*c.at(i, i) = 1 // an aggregate with no free node
		}
	}
	for i := range n {
		lo := max(0, i-c.bw)
		for k := lo; k <= i; k++ {
			s := *c.at(i, k)
			for j := max(lo, k-c.bw); j < k; j++ {
				s -= *c.at(i, j) * *c.at(k, j)
			}
			if k < i {
				*c.at(i, k) = s / *c.at(k, k)
				continue
			}
			if !(s > 0) {
				return false
			}
			*c.at(i, i) = math.Sqrt(s)
		}
	}
	return true
}

// addCorrection adds P·Aᶜ⁻¹·Pᵀ·r to z (free nodes only).
func (c *coarse) addCorrection(z, r []float64, free []bool) {
	clear(c.rc)
	for i, ci := range c.agg {
		if free[i] {
			c.rc[3*ci] += r[3*i]
			c.rc[3*ci+1] += r[3*i+1]
			c.rc[3*ci+2] += r[3*i+2]
		}
	}
	n := 3 * c.nc
	y := c.zc
	for i := range n {
		s := c.rc[i]
		for k := max(0, i-c.bw); k < i; k++ {
			s -= *c.at(i, k) * y[k]
		}
		y[i] = s / *c.at(i, i)
	}
	for i := n - 1; i >= 0; i-- {
		s := y[i]
		for k := i + 1; k <= min(n-1, i+c.bw); k++ {
			s -= *c.at(k, i) * y[k]
		}
		y[i] = s / *c.at(i, i)
	}
	for i, ci := range c.agg {
		if free[i] {
			z[3*i] += y[3*ci]
			z[3*i+1] += y[3*ci+1]
			z[3*i+2] += y[3*ci+2]
		}
	}
}

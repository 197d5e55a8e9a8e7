package sim

import "math"

// The two kernels of the solve: the product of rows of the assembled
// matrix with a vector (mulRows) and a block Gauss-Seidel sweep (gsSweep).
// Both read a row as 3×3 blocks val[k] (columns col[k]) plus scalar
// couplings exVal[e] (times the identity; columns exCol[e]), and both fix
// the order of every operation, fused multiply-adds included, so their
// results are the same on every machine: on amd64 with AVX2 and FMA
// assembly computes them (kernels_amd64.s), one block row per vector
// instruction; elsewhere the Go code below does.
//
// A row's blocks are summed entry by entry with fused multiply-adds into
// two partial sums, even and odd places of each range taking turns (so two
// chains of dependent additions run side by side), its couplings likewise
// into four:
//
//	p[t%2][r][c] = fma(val[k][r][c], x[col[k]][c], p[t%2][r][c])  block k, t-th of its range,
//	e[t%4][r]    = fma(exVal[e], x[exCol[e]][r], e[t%4][r])       coupling e, t-th of its range,
//
// from zero; then P = p[0] + p[1], E = (e[0] + e[1]) + (e[2] + e[3]), and
// row r of the blocks' part is (P[r][0] + P[r][1]) + P[r][2].

// mulRows sets, for every row i < len(lo), dst[i] = Σ val[k]·x[col[k]] over
// k in [lo[i], hi[i]) plus Σ exVal[e]·x[exCol[e]] over e in [exLo[i], exHi[i])
// (row r: blocks' part + e[r]); dst and x are node triples.
func mulRows(dst, x []float64, lo, hi, col []int32, val [][3][3]float64, exLo, exHi, exCol []int32, exVal []float64) {
	n := len(lo)
	if useKernelAsm && len(hi) >= n && len(exLo) >= n && len(exHi) >= n && len(dst) >= 3*n &&
		len(val) >= len(col) && len(exVal) >= len(exCol) &&
		mulRowsAsm(dst, x, lo, hi, col, val[:len(col)], exLo, exHi, exCol, exVal[:len(exCol)]) {
		return
	}
	// Without the kernel, or for an index out of range, which the Go code
	// reports as Go does.
	for i := range n {
		var p [2][3][3]float64
		rowBlocks(&p, x, col[lo[i]:hi[i]], val[lo[i]:hi[i]])
		a := rowTotal(&p)
		e := rowCouplings(x, exCol[exLo[i]:exHi[i]], exVal[exLo[i]:exHi[i]])
		d := dst[3*i : 3*i+3 : 3*i+3]
		d[0], d[1], d[2] = a[0]+e[0], a[1]+e[1], a[2]+e[2]
	}
}

// gsSweep is one block Gauss-Seidel sweep over rows 0..len(lo)-1, forward
// or backward: for row i, with the blocks k in [lo[i], mid[i]) and then in
// [mid[i]+1, hi[i]) (mid[i] is the diagonal block, left out; an empty
// range is allowed) and the couplings e in [exLo[i], exHi[i]),
//
//	s[r] = (rhs[i][r] - blocks' part[r]) - e[r],
//	z[i][r] = fma(m[r][2], s[2], fma(m[r][1], s[1], m[r][0]·s[0])),  m = dinv[i]
//
// (the conversions keep the compiler from fusing the product).
func gsSweep(z, rhs []float64, lo, mid, hi, col []int32, val [][3][3]float64, exLo, exHi, exCol []int32, exVal []float64, dinv [][3][3]float64, backward bool) {
	n := len(lo)
	if useKernelAsm && len(mid) >= n && len(hi) >= n && len(exLo) >= n && len(exHi) >= n &&
		len(z) >= 3*n && len(rhs) >= 3*n && len(dinv) >= n &&
		len(val) >= len(col) && len(exVal) >= len(exCol) &&
		gsSweepAsm(z, rhs, lo, mid, hi, col, val[:len(col)], exLo, exHi, exCol, exVal[:len(exCol)], dinv, backward) {
		return
	}
	for step := range n {
		i := step
		if backward {
			i = n - 1 - step
		}
		var p [2][3][3]float64
		rowBlocks(&p, z, col[lo[i]:mid[i]], val[lo[i]:mid[i]])
		if m1 := mid[i] + 1; m1 < hi[i] {
			rowBlocks(&p, z, col[m1:hi[i]], val[m1:hi[i]])
		}
		a := rowTotal(&p)
		e := rowCouplings(z, exCol[exLo[i]:exHi[i]], exVal[exLo[i]:exHi[i]])
		s0 := (rhs[3*i] - a[0]) - e[0]
		s1 := (rhs[3*i+1] - a[1]) - e[1]
		s2 := (rhs[3*i+2] - a[2]) - e[2]
		m := &dinv[i]
		z[3*i] = math.FMA(m[0][2], s2, math.FMA(m[0][1], s1, float64(m[0][0]*s0)))
		z[3*i+1] = math.FMA(m[1][2], s2, math.FMA(m[1][1], s1, float64(m[1][0]*s0)))
		z[3*i+2] = math.FMA(m[2][2], s2, math.FMA(m[2][1], s1, float64(m[2][0]*s0)))
	}
}

// rowBlocks adds the blocks val with columns col to p.
func rowBlocks(p *[2][3][3]float64, x []float64, col []int32, val [][3][3]float64) {
	for k, j := range col {
		b, q := &val[k], &p[k&1]
		v := x[3*int(j) : 3*int(j)+3 : 3*int(j)+3]
		for r := range 3 {
			q[r][0] = math.FMA(b[r][0], v[0], q[r][0])
			q[r][1] = math.FMA(b[r][1], v[1], q[r][1])
			q[r][2] = math.FMA(b[r][2], v[2], q[r][2])
		}
	}
}

// rowTotal returns the blocks' part of a row from its partial sums.
func rowTotal(p *[2][3][3]float64) (a [3]float64) {
	for r := range 3 {
		a[r] = ((p[0][r][0] + p[1][r][0]) + (p[0][r][1] + p[1][r][1])) + (p[0][r][2] + p[1][r][2])
	}
	return a
}

// rowCouplings returns the scalar couplings' part of a row.
func rowCouplings(x []float64, col []int32, w []float64) [3]float64 {
	var e [4][3]float64
	for k, j := range col {
		q := &e[k&3]
		v := x[3*int(j) : 3*int(j)+3 : 3*int(j)+3]
		q[0] = math.FMA(w[k], v[0], q[0])
		q[1] = math.FMA(w[k], v[1], q[1])
		q[2] = math.FMA(w[k], v[2], q[2])
	}
	var t [3]float64
	for r := range 3 {
		t[r] = (e[0][r] + e[1][r]) + (e[2][r] + e[3][r])
	}
	return t
}

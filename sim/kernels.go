package sim

import "math"

// The kernels of the solve: the product of rows of the assembled matrix
// with a vector (mulRows), a block Gauss-Seidel sweep (gsSweep), the
// inner product (dot8), the conjugate gradient's vector updates (axpy),
// the coarse level's restriction and prolongation
// (aggAdd), assembly (coarseAdd) and banded factorisation and solves
// (bandFactorCol, bandSolve; all seven dot_amd64.s), and, for the
// assembly of the matrix, an element's weft-warp matrices (triMats) and
// the scatter of its blocks (addTriBlocks; both tri_amd64.s). The last
// nine are at the end, each with its own order of operations. The first two read a row as 3×3
// blocks val[k] (columns col[k]) plus scalar couplings exVal[e] (times
// the identity; columns exCol[e]). On amd64 with AVX2 and FMA, assembly
// computes them (kernels_amd64.s), one block row per vector instruction;
// elsewhere the plain Go code below does, to round-off the same.
// mulRows3 and gsSweep3 are the first two for three vectors at once (the
// local models' sensitivity solves), each vector's arithmetic that of the
// one-vector kernel, and neg negates a vector.
//
// The assembly fixes the order of every operation, so that its results do
// not depend on the machine (kernels_ref_test.go spells it out in Go, and
// TestKernelsMatchReference checks it bit for bit). A row's blocks are
// summed entry by entry with fused multiply-adds into two partial sums,
// even and odd places of each range taking turns (so two chains of
// dependent additions run side by side), its couplings likewise into four:
//
//	p[t%2][r][c] = fma(val[k][r][c], x[col[k]][c], p[t%2][r][c])  block k, t-th of its range,
//	e[t%4][r]    = fma(exVal[e], x[exCol[e]][r], e[t%4][r])       coupling e, t-th of its range,
//
// from zero; then P = p[0] + p[1], E = (e[0] + e[1]) + (e[2] + e[3]), and
// row r of the blocks' part is (P[r][0] + P[r][1]) + P[r][2]. The sweep
// sets s[r] = (rhs[i][r] - blocks' part[r]) - E[r] and
// z[i][r] = fma(m[r][2], s[2], fma(m[r][1], s[1], m[r][0]·s[0])), m = dinv[i].
//
// The Go code does not follow that order: math.FMA is a function call on
// amd64 without FMA instructions, emulated in software, and even where it
// is an instruction the partial sums do not fit the registers, which made
// it two to three times slower than plain sums. So a machine without AVX2
// and FMA computes the last bits differently from one with them.

// mulRows sets, for every row i < len(lo), dst[i] = Σ val[k]·x[col[k]] over
// k in [lo[i], hi[i]) plus Σ exVal[e]·x[exCol[e]] over e in [exLo[i], exHi[i]);
// dst and x are node triples.
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
		a0, a1, a2 := rowSum(x, col[lo[i]:hi[i]], val[lo[i]:hi[i]])
		e0, e1, e2 := couplingSum(x, exCol[exLo[i]:exHi[i]], exVal[exLo[i]:exHi[i]])
		d := dst[3*i : 3*i+3 : 3*i+3]
		d[0], d[1], d[2] = a0+e0, a1+e1, a2+e2
	}
}

// gsSweep is one block Gauss-Seidel sweep over rows 0..len(lo)-1, forward
// or backward: for row i, with the blocks k in [lo[i], mid[i]) and in
// [mid[i]+1, hi[i]) (mid[i] is the diagonal block, left out; an empty
// range is allowed) and the couplings e in [exLo[i], exHi[i]),
// z[i] = dinv[i]·(rhs[i] - Σ val[k]·z[col[k]] - Σ exVal[e]·z[exCol[e]]).
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
		s0, s1, s2 := rhs[3*i], rhs[3*i+1], rhs[3*i+2]
		a0, a1, a2 := rowSum(z, col[lo[i]:mid[i]], val[lo[i]:mid[i]])
		s0, s1, s2 = s0-a0, s1-a1, s2-a2
		if m1 := mid[i] + 1; m1 < hi[i] {
			a0, a1, a2 = rowSum(z, col[m1:hi[i]], val[m1:hi[i]])
			s0, s1, s2 = s0-a0, s1-a1, s2-a2
		}
		a0, a1, a2 = couplingSum(z, exCol[exLo[i]:exHi[i]], exVal[exLo[i]:exHi[i]])
		s0, s1, s2 = s0-a0, s1-a1, s2-a2
		m := &dinv[i]
		z[3*i] = m[0][0]*s0 + m[0][1]*s1 + m[0][2]*s2
		z[3*i+1] = m[1][0]*s0 + m[1][1]*s1 + m[1][2]*s2
		z[3*i+2] = m[2][0]*s0 + m[2][1]*s1 + m[2][2]*s2
	}
}

// mulRows3 is mulRows for three vectors at once, dst[v] from x[v]: bit
// for bit what three calls give. The assembly (mulRows3Asm) reads each
// block once for the three, which saves about a third of a product's
// instructions.
func mulRows3(dst, x *[3][]float64, lo, hi, col []int32, val [][3][3]float64, exLo, exHi, exCol []int32, exVal []float64) {
	n := len(lo)
	if useKernelAsm && len(hi) >= n && len(exLo) >= n && len(exHi) >= n &&
		len(val) >= len(col) && len(exVal) >= len(exCol) {
		var dp, xp [3]*float64
		nx, ok := vectors3(&xp, x, 0)
		if ok {
			_, ok = vectors3(&dp, dst, 3*n)
		}
		if ok && mulRows3Asm(&dp, &xp, nx, lo, hi, col, val[:len(col)], exLo, exHi, exCol, exVal[:len(exCol)]) {
			return
		}
	}
	for v := range 3 {
		mulRows(dst[v], x[v], lo, hi, col, val, exLo, exHi, exCol, exVal)
	}
}

// gsSweep3 is gsSweep for three vectors at once, z[v] with rhs[v]: bit
// for bit what three calls give (gsSweep3Asm).
func gsSweep3(z, rhs *[3][]float64, lo, mid, hi, col []int32, val [][3][3]float64, exLo, exHi, exCol []int32, exVal []float64, dinv [][3][3]float64, backward bool) {
	n := len(lo)
	if useKernelAsm && len(mid) >= n && len(hi) >= n && len(exLo) >= n && len(exHi) >= n &&
		len(dinv) >= n && len(val) >= len(col) && len(exVal) >= len(exCol) {
		var zp, rp [3]*float64
		nz, ok := vectors3(&zp, z, 3*n)
		if ok {
			_, ok = vectors3(&rp, rhs, 3*n)
		}
		if ok && gsSweep3Asm(&zp, &rp, nz, lo, mid, hi, col, val[:len(col)], exLo, exHi, exCol, exVal[:len(exCol)], dinv, backward) {
			return
		}
	}
	for v := range 3 {
		gsSweep(z[v], rhs[v], lo, mid, hi, col, val, exLo, exHi, exCol, exVal, dinv, backward)
	}
}

// vectors3 sets p to the three vectors' first entries and returns the
// shortest one's length; false if one is shorter than least entries, or
// empty.
func vectors3(p *[3]*float64, v *[3][]float64, least int) (int, bool) {
	n := len(v[0])
	for k := range 3 {
		if len(v[k]) < max(least, 1) {
			return 0, false
		}
		p[k] = &v[k][0]
		n = min(n, len(v[k]))
	}
	return n, true
}

// rowSum returns Σ val[k]·x[col[k]].
func rowSum(x []float64, col []int32, val [][3][3]float64) (a0, a1, a2 float64) {
	val = val[:len(col)]
	for k, j := range col {
		b := &val[k]
		q := 3 * int(j)
		v := x[q : q+3 : q+3]
		x0, x1, x2 := v[0], v[1], v[2]
		a0 += b[0][0]*x0 + b[0][1]*x1 + b[0][2]*x2
		a1 += b[1][0]*x0 + b[1][1]*x1 + b[1][2]*x2
		a2 += b[2][0]*x0 + b[2][1]*x1 + b[2][2]*x2
	}
	return a0, a1, a2
}

// couplingSum returns Σ w[k]·x[col[k]].
func couplingSum(x []float64, col []int32, w []float64) (a0, a1, a2 float64) {
	w = w[:len(col)]
	for k, j := range col {
		q := 3 * int(j)
		v := x[q : q+3 : q+3]
		a0 += w[k] * v[0]
		a1 += w[k] * v[1]
		a2 += w[k] * v[2]
	}
	return a0, a1, a2
}

// dot8 returns Σ a[k]·b[k] over k < len(a), b being at least as long:
// the conjugate gradient's inner products and those of the coarse level's
// banded Cholesky factorisation and solves (coarse.go), where the scalar
// loop's one chain of dependent additions, not the arithmetic, set the
// pace. The assembly sums with fused multiply-adds into eight partial
// sums, s[k%8] = fma(a[k], b[k], s[k%8]) from zero, and returns
// ((s0+s4) + (s2+s6)) + ((s1+s5) + (s3+s7)); the Go code is dot.
func dot8(a, b []float64) float64 {
	if !useKernelAsm || len(b) < len(a) {
		return dot(a, b) // a short b panics there, as Go does
	}
	return dot8Asm(a, b[:len(a)])
}

// axpy sets dst = y + s·x entry by entry, a product and a sum (unfused,
// as Go computes y[i] + s*x[i] on amd64): the conjugate gradient's
// updates x += a·p, r -= a·q (as r + (-a)·q, the same bits) and
// p = z + β·p. dst may be x or y. The assembly does the same operations
// four entries at a time, so it agrees with the Go code bit for bit.
func axpy(dst, y, x []float64, s float64) {
	n := len(dst)
	if len(y) < n || len(x) < n {
		panic("sim: axpy: vectors shorter than dst")
	}
	if useKernelAsm && n > 0 {
		axpyAsm(&dst[0], &y[0], &x[0], n, s)
		return
	}
	for i := range dst {
		dst[i] = y[i] + s*x[i]
	}
}

// neg negates p entry by entry: the V-cycle's residual after its forward
// sweep. The assembly flips the sign bits four at a time, as Go's
// negation flips one.
func neg(p []float64) {
	if useKernelAsm && len(p) > 0 {
		negAsm(&p[0], len(p))
		return
	}
	for i := range p {
		p[i] = -p[i]
	}
}

// aggAdd adds node triples between the fine level and the coarse one's
// aggregates: with restrict, dst[sel[i]] += src[i] for i = 0, 1, … (the
// coarse level's Pᵀ·r); without, dst[i] += src[sel[i]] (P·y). The
// assembly does the same additions in the same order, two entries and one
// at a time, so it agrees with the Go code bit for bit; an aggregate out of
// range panics, after the assembly has added what came before it.
func aggAdd(dst, src []float64, sel []int32, restrict bool) {
	fine, coarse := src, dst
	if !restrict {
		fine, coarse = dst, src
	}
	if len(fine) < 3*len(sel) {
		panic("sim: aggAdd: the fine vector is shorter than sel")
	}
	if useKernelAsm && len(sel) > 0 && len(coarse) >= 3 && aggAddAsm(&dst[0], &src[0], &sel[0], len(sel), len(coarse)/3, restrict) {
		return
	}
	for i, ci := range sel {
		a, b := 3*int(ci), 3*i
		if !restrict {
			a, b = b, a
		}
		d, v := dst[a:a+3:a+3], src[b:b+3:b+3]
		d[0] += v[0]
		d[1] += v[1]
		d[2] += v[2]
	}
}

// coarseAdd adds the fine matrix to the coarse band as coarse.plan listed
// it (rows of the band bw apart in the block's rows): for each entry of
// full, block val[k] to band[o + r·bw + c]; of lower, the block's lower
// triangle likewise; of cpl, exVal[k] to band[o], band[o+bw+1] and
// band[o+2bw+2]; each list in order. The assembly makes the same additions
// in the same order, so it agrees with the Go code bit for bit; an entry
// out of range panics, after the assembly has added what came before it.
func coarseAdd(band []float64, val [][3][3]float64, exVal []float64, full, lower, cpl []coarseEntry, bw int) {
	if useKernelAsm && coarseAddAsm(band, val, exVal, full, lower, cpl, bw) {
		return
	}
	band = band[:len(band):len(band)] // slicing checks against the capacity
	for _, e := range full {
		b := &val[e.k]
		row := band[e.o : int(e.o)+2*bw+3]
		for r := range 3 {
			x := row[r*bw : r*bw+3]
			x[0] += b[r][0]
			x[1] += b[r][1]
			x[2] += b[r][2]
		}
	}
	for _, e := range lower {
		b := &val[e.k]
		row := band[e.o : int(e.o)+2*bw+3]
		row[0] += b[0][0]
		row[bw] += b[1][0]
		row[bw+1] += b[1][1]
		row[2*bw] += b[2][0]
		row[2*bw+1] += b[2][1]
		row[2*bw+2] += b[2][2]
	}
	for _, e := range cpl {
		w := exVal[e.k]
		row := band[e.o : int(e.o)+2*bw+3]
		row[0] += w
		row[bw+1] += w
		row[2*bw+2] += w
	}
}

// bandFactor computes the banded Cholesky factor L of the symmetric
// positive definite band matrix in band (n = len(dinv) rows of w = bw+1,
// row p holding A[p][p-bw..p]) in place, column by column (the
// right-looking order): for column j, L[j][j] = √A[j][j], then
// bandFactorCol. It also fills ut (row p holding Lᵀ[p][p+1..p+bw] from
// ut[p·w+1] on) and dinv[p] = 1/L[p][p], and reports false if a pivot is
// not positive.
func bandFactor(band, ut, dinv []float64, bw int) bool {
	n, w := len(dinv), bw+1
	for j := range n {
		d := band[j*w+bw]
		if !(d > 0) {
			return false
		}
		d = math.Sqrt(d)
		band[j*w+bw] = d
		dinv[j] = 1 / d
		bandFactorCol(band, ut, j, n, bw, dinv[j])
	}
	return true
}

// bandFactorCol finishes column j of the factor and updates the rows
// below it: for t < m = min(bw, n-1-j) and i = j+1+t,
//
//	L[i][j] = A[i][j] · dj                                 (also to ut row j),
//	A[i][k] = fma(-L[i][j], L[k][j], A[i][k])   for k = j+1 … i.
//
// Every update of a row is independent of the others, so the assembly
// (dot_amd64.s) streams them four at a time; an entry gets the same fused
// operations in the same order as in this Go code, so the two agree bit
// for bit. (Row by row, as inner products, each entry would wait for the
// one before it.)
func bandFactorCol(band, ut []float64, j, n, bw int, dj float64) {
	w := bw + 1
	if j < 0 || j >= n || len(band) < n*w || len(ut) < n*w {
		panic("sim: bandFactorCol: column or band out of range")
	}
	if useKernelAsm {
		bandFactorColAsm(&band[0], &ut[0], j, n, bw, dj)
		return
	}
	bandFactorColGo(band, ut, j, n, bw, dj)
}

func bandFactorColGo(band, ut []float64, j, n, bw int, dj float64) {
	w := bw + 1
	m := min(bw, n-1-j)
	u := ut[j*w+1 : j*w+1+m] // u[t] = L[j+1+t][j]
	for t := range u {
		p := (j+1+t)*w + bw - t - 1
		band[p] *= dj
		u[t] = band[p]
	}
	for t, l := range u {
		i := j + 1 + t
		row := band[i*w+bw-t : i*w+bw+1] // A[i][j+1..i]
		for q := range row {
			row[q] = math.FMA(-l, u[q], row[q])
		}
	}
}

// bandSolve sets y[:n] = L⁻ᵀ·L⁻¹·rc[:n] for the factor of bandFactor
// (n = len(dinv)), column by column like the factor: y = rc; forward, for
// j = 0, 1, …, y[j] = y[j]·dinv[j] and y[j+1..j+m] = fma(-y[j],
// Lᵀ[j][j+1..j+m], y[j+1..j+m]) (m = min(bw, n-1-j), the transposed copy
// in ut); then backward, for i = n-1, n-2, …, y[i] = y[i]·dinv[i] and
// y[lo..i-1] = fma(-y[i], L[i][lo..i-1], y[lo..i-1]) (lo = max(0, i-bw)).
// Each entry then waits for one fused multiply-add of the entry before it,
// not for a whole inner product. The assembly matches this Go code bit
// for bit.
func bandSolve(y, rc, band, ut, dinv []float64, bw int) {
	n := len(dinv)
	if n == 0 {
		return
	}
	if len(y) < n || len(rc) < n || len(band) < n*(bw+1) || len(ut) < n*(bw+1) {
		panic("sim: bandSolve: slices shorter than the factor")
	}
	if useKernelAsm {
		bandSolveAsm(&y[0], &rc[0], &band[0], &ut[0], &dinv[0], n, bw)
		return
	}
	bandSolveGo(y, rc, band, ut, dinv, bw)
}

func bandSolveGo(y, rc, band, ut, dinv []float64, bw int) {
	n, w := len(dinv), bw+1
	copy(y[:n], rc[:n])
	for j := range n {
		yj := y[j] * dinv[j]
		y[j] = yj
		m := min(bw, n-1-j)
		col := ut[j*w+1 : j*w+1+m]
		for q, l := range col {
			y[j+1+q] = math.FMA(-yj, l, y[j+1+q])
		}
	}
	for i := n - 1; i >= 0; i-- {
		yi := y[i] * dinv[i]
		y[i] = yi
		lo := max(0, i-bw)
		row := band[i*w+bw-(i-lo) : i*w+bw]
		for q, l := range row {
			y[lo+q] = math.FMA(-yi, l, y[lo+q])
		}
	}
}

// addTriBlocks adds an element's nine blocks to val, blocks tb[0..8] being
// those of its vertex pairs (0,0), (0,1), (0,2), (1,0), … (2,2): with
// u = m[0], w = m[1], v = m[2], wᵀ = m[3] (weft-weft, weft-warp, warp-warp
// and the transpose of weft-warp; see triLin.mats) and c = (p1, q1, s1,
// p2, q2, s2, e, f, h, k), entry by entry
//
//	c11 = (p1·u + q1·(w + wᵀ)) + s1·v,   c22 likewise with p2, q2, s2,
//	c12 = ((e·u + f·w) + h·wᵀ) + k·v,    c21 = ((e·u + f·wᵀ) + h·w) + k·v,
//
// b11 += c11, b22 += c22, b12 += c12, b21 += c21, b01 -= c11 + c21,
// b10 -= c11 + c12, b02 -= c12 + c22, b20 -= c21 + c22 and
// b00 += (c11 + c22) + (c12 + c21), in that order. The assembly
// (tri_amd64.s) does the same operations without fusing any, four and
// four and one entries at a time, so its results are the Go code's bit
// for bit.
func addTriBlocks(val [][3][3]float64, tb *[9]int32, m *[4][3][3]float64, c *[10]float64) {
	for _, k := range tb {
		_ = val[k] // an index out of range panics here, before any write
	}
	if useKernelAsm {
		addTriBlocksAsm(&val[0], tb, m, c)
		return
	}
	u, w, v, wt := &m[0], &m[1], &m[2], &m[3]
	p1, q1, s1, p2, q2, s2 := c[0], c[1], c[2], c[3], c[4], c[5]
	e, f, h, k := c[6], c[7], c[8], c[9]
	b00, b01, b02 := &val[tb[0]], &val[tb[1]], &val[tb[2]]
	b10, b11, b12 := &val[tb[3]], &val[tb[4]], &val[tb[5]]
	b20, b21, b22 := &val[tb[6]], &val[tb[7]], &val[tb[8]]
	for i := range 3 {
		for j := range 3 {
			sym := w[i][j] + wt[i][j]
			c11 := p1*u[i][j] + q1*sym + s1*v[i][j]
			c22 := p2*u[i][j] + q2*sym + s2*v[i][j]
			c12 := e*u[i][j] + f*w[i][j] + h*wt[i][j] + k*v[i][j]
			c21 := e*u[i][j] + f*wt[i][j] + h*w[i][j] + k*v[i][j]
			b11[i][j] += c11
			b22[i][j] += c22
			b12[i][j] += c12
			b21[i][j] += c21
			b01[i][j] -= c11 + c21
			b10[i][j] -= c11 + c12
			b02[i][j] -= c12 + c22
			b20[i][j] -= c21 + c22
			b00[i][j] += (c11 + c22) + (c12 + c21)
		}
	}
}

// triMats sets m to an element's weft-warp matrices uu, uv, vv and uvᵀ
// (triLin.mats) from g's unit vectors û, v̂, ŵ, ẑ and the coefficients
// k = (ku, kv, css, cgw, cgz, cuv, du, dv, duv): with eu = (ŵ - ẑ)·√½ and
// ev = (ŵ + ẑ)·√½, entry by entry
//
//	ww = cgw·(ŵa·ŵd),  zz = cgz·(ẑa·ẑd),  wz = ww + zz,
//	uu = (ku·(ûa·ûd) + css·(eu_a·eu_d)) - wz,
//	vv = (kv·(v̂a·v̂d) + css·(ev_a·ev_d)) - wz,
//	uv = ((cuv·(ûa·v̂d) + css·(eu_a·ev_d)) - ww) + zz,
//
// uvᵀ likewise with the factors of each product swapped, and du, dv, duv
// added to the diagonals last. Every product of two vector components
// is formed first, so uu and vv are exactly symmetric and uvᵀ exactly
// uv's transpose. The assembly (tri_amd64.s) does the same operations,
// unfused, so its results are the Go code's bit for bit.
func triMats(m *[4][3][3]float64, g *triGeom, k *[9]float64) {
	if useKernelAsm {
		triMatsAsm(m, g, k)
		return
	}
	ku, kv, css, cgw, cgz, cuv, du, dv, duv := k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7], k[8]
	uh, vh, wh, zh := g.uh.arr(), g.vh.arr(), g.wh.arr(), g.zh.arr()
	var eu, ev [3]float64
	for a := range 3 {
		eu[a] = (wh[a] - zh[a]) * sqrt1_2
		ev[a] = (wh[a] + zh[a]) * sqrt1_2
	}
	for a := range 3 {
		for d := range 3 {
			ww, zz := cgw*(wh[a]*wh[d]), cgz*(zh[a]*zh[d])
			wz := ww + zz
			uu := (ku*(uh[a]*uh[d]) + css*(eu[a]*eu[d])) - wz
			vv := (kv*(vh[a]*vh[d]) + css*(ev[a]*ev[d])) - wz
			uv := ((cuv*(uh[a]*vh[d]) + css*(eu[a]*ev[d])) - ww) + zz
			vu := ((cuv*(vh[a]*uh[d]) + css*(ev[a]*eu[d])) - ww) + zz
			if a == d {
				uu += du
				vv += dv
				uv += duv
				vu += duv
			}
			m[0][a][d], m[1][a][d], m[2][a][d], m[3][a][d] = uu, uv, vv, vu
		}
	}
}

package sim

import "math"

// The reference for the assembly kernels: the order of operations
// kernels.go sets out, in Go with math.FMA. TestKernelsMatchReference
// checks the kernels against it bit for bit.

func mulRowsRef(dst, x []float64, lo, hi, col []int32, val [][3][3]float64, exLo, exHi, exCol []int32, exVal []float64) {
	n := len(lo)
	for i := range n {
		var p [2][3][3]float64
		rowBlocksRef(&p, x, col[lo[i]:hi[i]], val[lo[i]:hi[i]])
		a := rowTotalRef(&p)
		e := rowCouplingsRef(x, exCol[exLo[i]:exHi[i]], exVal[exLo[i]:exHi[i]])
		d := dst[3*i : 3*i+3 : 3*i+3]
		d[0], d[1], d[2] = a[0]+e[0], a[1]+e[1], a[2]+e[2]
	}
}

func gsSweepRef(z, rhs []float64, lo, mid, hi, col []int32, val [][3][3]float64, exLo, exHi, exCol []int32, exVal []float64, dinv [][3][3]float64, backward bool) {
	n := len(lo)
	for step := range n {
		i := step
		if backward {
			i = n - 1 - step
		}
		var p [2][3][3]float64
		rowBlocksRef(&p, z, col[lo[i]:mid[i]], val[lo[i]:mid[i]])
		if m1 := mid[i] + 1; m1 < hi[i] {
			rowBlocksRef(&p, z, col[m1:hi[i]], val[m1:hi[i]])
		}
		a := rowTotalRef(&p)
		e := rowCouplingsRef(z, exCol[exLo[i]:exHi[i]], exVal[exLo[i]:exHi[i]])
		s0 := (rhs[3*i] - a[0]) - e[0]
		s1 := (rhs[3*i+1] - a[1]) - e[1]
		s2 := (rhs[3*i+2] - a[2]) - e[2]
		m := &dinv[i]
		z[3*i] = math.FMA(m[0][2], s2, math.FMA(m[0][1], s1, float64(m[0][0]*s0)))
		z[3*i+1] = math.FMA(m[1][2], s2, math.FMA(m[1][1], s1, float64(m[1][0]*s0)))
		z[3*i+2] = math.FMA(m[2][2], s2, math.FMA(m[2][1], s1, float64(m[2][0]*s0)))
	}
}

// rowBlocksRef adds the blocks val with columns col to p.
func rowBlocksRef(p *[2][3][3]float64, x []float64, col []int32, val [][3][3]float64) {
	for k, j := range col {
		b, q := &val[k], &p[k&1]
		v := x[3*int(j) : 3*int(j)+3 : 3*int(j)+3]
		for r := range 3 {
			for c := range 3 {
				q[r][c] = math.FMA(b[r][c], v[c], q[r][c])
			}
		}
	}
}

// rowTotalRef returns the blocks' part of a row from its partial sums.
func rowTotalRef(p *[2][3][3]float64) (a [3]float64) {
	for r := range 3 {
		a[r] = ((p[0][r][0] + p[1][r][0]) + (p[0][r][1] + p[1][r][1])) + (p[0][r][2] + p[1][r][2])
	}
	return a
}

// rowCouplingsRef returns the scalar couplings' part of a row.
func rowCouplingsRef(x []float64, col []int32, w []float64) (t [3]float64) {
	var e [4][3]float64
	for k, j := range col {
		for r := range 3 {
			e[k&3][r] = math.FMA(w[k], x[3*int(j)+r], e[k&3][r])
		}
	}
	for r := range 3 {
		t[r] = (e[0][r] + e[1][r]) + (e[2][r] + e[3][r])
	}
	return t
}

// dot8Ref is dot8 in the assembly's order: eight partial sums of
// fused multiply-adds, then ((s0+s4) + (s2+s6)) + ((s1+s5) + (s3+s7)).
func dot8Ref(a, b []float64) float64 {
	var s [8]float64
	for k := range a {
		s[k%8] = math.FMA(a[k], b[k], s[k%8])
	}
	return ((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7]))
}

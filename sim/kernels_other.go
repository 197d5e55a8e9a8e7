//go:build !amd64

package sim

var useKernelAsm = false

func mulRowsAsm(dst, x []float64, lo, hi, col []int32, val [][3][3]float64, exLo, exHi, exCol []int32, exVal []float64) bool {
	return false
}

func gsSweepAsm(z, rhs []float64, lo, mid, hi, col []int32, val [][3][3]float64, exLo, exHi, exCol []int32, exVal []float64, dinv [][3][3]float64, backward bool) bool {
	return false
}

func dot8Asm(a, b []float64) float64 { return 0 }

func axpyAsm(dst, y, x *float64, n int, s float64) {}

func aggAddAsm(dst, src *float64, sel *int32, n, m int, restrict bool) bool { return false }

func coarseAddAsm(band []float64, val [][3][3]float64, exVal []float64, full, lower, cpl []coarseEntry, bw int) bool {
	return false
}

func bandFactorColAsm(band, ut *float64, j, n, bw int, dj float64) {}

func bandSolveAsm(y, rc, band, ut, dinv *float64, n, bw int) {}

func addTriBlocksAsm(val *[3][3]float64, tb *[9]int32, m *[4][3][3]float64, c *[10]float64) {}

func triMatsAsm(m *[4][3][3]float64, geo *triGeom, k *[9]float64) {}

func mulRows3Asm(dst, x *[3]*float64, nx int, lo, hi, col []int32, val [][3][3]float64, exLo, exHi, exCol []int32, exVal []float64) bool {
	return false
}

func gsSweep3Asm(z, rhs *[3]*float64, nz int, lo, mid, hi, col []int32, val [][3][3]float64, exLo, exHi, exCol []int32, exVal []float64, dinv [][3][3]float64, backward bool) bool {
	return false
}

func dopMinMaxAsm(lo, hi, a, b *[dopK]float64) {}

func negAsm(p *float64, n int) {}

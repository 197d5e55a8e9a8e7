package sim

import "golang.org/x/sys/cpu"

// useKernelAsm selects the assembly kernels (kernels_amd64.s).
var useKernelAsm = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// mulRowsAsm is mulRows; len(val) = len(col) and len(exVal) = len(exCol).
// It returns false, having written some rows, if an index is out of range.
//
//go:noescape
func mulRowsAsm(dst, x []float64, lo, hi, col []int32, val [][3][3]float64, exLo, exHi, exCol []int32, exVal []float64) (ok bool)

// gsSweepAsm is gsSweep, with the same conventions as mulRowsAsm.
//
//go:noescape
func gsSweepAsm(z, rhs []float64, lo, mid, hi, col []int32, val [][3][3]float64, exLo, exHi, exCol []int32, exVal []float64, dinv [][3][3]float64, backward bool) (ok bool)

// dot8Asm is dot8; len(b) = len(a).
//
//go:noescape
func dot8Asm(a, b []float64) float64

// axpyAsm is axpy for n > 0 entries; the caller has checked the lengths.
//
//go:noescape
func axpyAsm(dst, y, x *float64, n int, s float64)

// aggAddAsm is aggAdd for n > 0 nodes and m triples in the coarse vector;
// it returns false at the first aggregate not below m.
//
//go:noescape
func aggAddAsm(dst, src *float64, sel *int32, n, m int, restrict bool) bool

// coarseAddAsm is coarseAdd; it returns false at the first entry out of
// range.
//
//go:noescape
func coarseAddAsm(band []float64, val [][3][3]float64, exVal []float64, full, lower, cpl []coarseEntry, bw int) bool

// bandFactorColAsm is bandFactorCol on the first entries of band and ut;
// the caller has checked the lengths.
//
//go:noescape
func bandFactorColAsm(band, ut *float64, j, n, bw int, dj float64)

// bandSolveAsm is bandSolve for n > 0 rows; the caller has checked the
// lengths.
//
//go:noescape
func bandSolveAsm(y, rc, band, ut, dinv *float64, n, bw int)

// addTriBlocksAsm is addTriBlocks, val pointing at the first block; the
// caller has checked tb's indices.
//
//go:noescape
func addTriBlocksAsm(val *[3][3]float64, tb *[9]int32, m *[4][3][3]float64, c *[10]float64)

// triMatsAsm is triMats.
//
//go:noescape
func triMatsAsm(m *[4][3][3]float64, geo *triGeom, k *[9]float64)

// mulRows3Asm is mulRowsAsm for the three vectors x[0], x[1], x[2] into
// dst[0], dst[1], dst[2], each of x's nx entries and of dst's 3·len(lo)
// at least.
//
//go:noescape
func mulRows3Asm(dst, x *[3]*float64, nx int, lo, hi, col []int32, val [][3][3]float64, exLo, exHi, exCol []int32, exVal []float64) (ok bool)

// gsSweep3Asm is gsSweepAsm for the three vectors z[0], z[1], z[2] (nz
// entries each) and their right-hand sides rhs[0], rhs[1], rhs[2].
//
//go:noescape
func gsSweep3Asm(z, rhs *[3]*float64, nz int, lo, mid, hi, col []int32, val [][3][3]float64, exLo, exHi, exCol []int32, exVal []float64, dinv [][3][3]float64, backward bool) (ok bool)

// dopMinMaxAsm is dopMinMax.
//
//go:noescape
func dopMinMaxAsm(lo, hi, a, b *[dopK]float64)

// negAsm is neg for n > 0 entries.
//
//go:noescape
func negAsm(p *float64, n int)

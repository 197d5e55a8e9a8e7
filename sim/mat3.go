package sim

import "math"

// 3×3 matrix helpers: the blocks of the step's matrix, the contacts'
// Jacobians and the local model's stiffness.

func identity(a, b int) float64 {
	if a == b {
		return 1
	}
	return 0
}

func outer(a, b [3]float64) (m [3][3]float64) {
	for r := range 3 {
		for q := range 3 {
			m[r][q] = a[r] * b[q]
		}
	}
	return m
}

func scaled33(s float64, a *[3][3]float64) (m [3][3]float64) {
	for r := range 3 {
		for q := range 3 {
			m[r][q] = s * a[r][q]
		}
	}
	return m
}

func mulVec33(a *[3][3]float64, x [3]float64) [3]float64 {
	var y [3]float64
	mul33(y[:], a, x[:])
	return y
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

// inv3 inverts a symmetric positive definite 3×3 matrix; ok is false when
// it is singular or indefinite.
func inv3(a *[3][3]float64) (inv [3][3]float64, ok bool) {
	c00 := a[1][1]*a[2][2] - a[1][2]*a[2][1]
	c01 := a[1][2]*a[2][0] - a[1][0]*a[2][2]
	c02 := a[1][0]*a[2][1] - a[1][1]*a[2][0]
	det := a[0][0]*c00 + a[0][1]*c01 + a[0][2]*c02
	if !(det > 0) || a[0][0] <= 0 {
		return inv, false
	}
	d := 1 / det
	inv[0][0] = c00 * d
	inv[0][1] = (a[0][2]*a[2][1] - a[0][1]*a[2][2]) * d
	inv[0][2] = (a[0][1]*a[1][2] - a[0][2]*a[1][1]) * d
	inv[1][0] = c01 * d
	inv[1][1] = (a[0][0]*a[2][2] - a[0][2]*a[2][0]) * d
	inv[1][2] = (a[0][2]*a[1][0] - a[0][0]*a[1][2]) * d
	inv[2][0] = c02 * d
	inv[2][1] = (a[0][1]*a[2][0] - a[0][0]*a[2][1]) * d
	inv[2][2] = (a[0][0]*a[1][1] - a[0][1]*a[1][0]) * d
	return inv, true
}

func mul33(dst []float64, a *[3][3]float64, x []float64) {
	x0, x1, x2 := x[0], x[1], x[2]
	dst[0] = a[0][0]*x0 + a[0][1]*x1 + a[0][2]*x2
	dst[1] = a[1][0]*x0 + a[1][1]*x1 + a[1][2]*x2
	dst[2] = a[2][0]*x0 + a[2][1]*x1 + a[2][2]*x2
}

// negSemiDef returns the symmetric part of a with its positive eigenvalues
// set to zero.
func negSemiDef(a [3][3]float64) [3][3]float64 {
	var sym [3][3]float64
	for r := range 3 {
		for q := range 3 {
			sym[r][q] = (a[r][q] + a[q][r]) / 2
		}
	}
	vals, vecs := eigSym3(sym)
	var out [3][3]float64
	for e := range 3 {
		l := min(vals[e], 0)
		for r := range 3 {
			for q := range 3 {
				out[r][q] += l * vecs[r][e] * vecs[q][e]
			}
		}
	}
	return out
}

// eigSym3 diagonalises a symmetric 3×3 matrix by Jacobi rotations: a =
// V·diag(vals)·Vᵀ, eigenvectors in the columns of V.
func eigSym3(a [3][3]float64) (vals [3]float64, v [3][3]float64) {
	v = [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	for range 50 {
		off := a[0][1]*a[0][1] + a[0][2]*a[0][2] + a[1][2]*a[1][2]
		if off < 1e-30*(a[0][0]*a[0][0]+a[1][1]*a[1][1]+a[2][2]*a[2][2]) || off == 0 {
			break
		}
		for p := range 2 {
			for q := p + 1; q < 3; q++ {
				if a[p][q] == 0 {
					continue
				}
				theta := (a[q][q] - a[p][p]) / (2 * a[p][q])
				t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				cs := 1 / math.Sqrt(t*t+1)
				sn := t * cs
				for r := range 3 {
					arp, arq := a[r][p], a[r][q]
					a[r][p], a[r][q] = cs*arp-sn*arq, sn*arp+cs*arq
				}
				for r := range 3 {
					apr, aqr := a[p][r], a[q][r]
					a[p][r], a[q][r] = cs*apr-sn*aqr, sn*apr+cs*aqr
				}
				for r := range 3 {
					vrp, vrq := v[r][p], v[r][q]
					v[r][p], v[r][q] = cs*vrp-sn*vrq, sn*vrp+cs*vrq
				}
			}
		}
	}
	return [3]float64{a[0][0], a[1][1], a[2][2]}, v
}

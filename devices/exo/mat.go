package exo

import (
	"math"

	"github.com/haptex/haptex/internal/vec3"
)

// Mat3 is a 3x3 matrix, row-major: m[row][col].
type Mat3 [3][3]float64

// Identity returns the 3x3 identity.
func Identity() Mat3 {
	return Mat3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
}

// MulVec returns m v.
func (m *Mat3) MulVec(v [3]float64) [3]float64 {
	return [3]float64{
		m[0][0]*v[0] + m[0][1]*v[1] + m[0][2]*v[2],
		m[1][0]*v[0] + m[1][1]*v[1] + m[1][2]*v[2],
		m[2][0]*v[0] + m[2][1]*v[1] + m[2][2]*v[2],
	}
}

// MulTransVec returns mᵀ v.
func (m *Mat3) MulTransVec(v [3]float64) [3]float64 {
	return [3]float64{
		m[0][0]*v[0] + m[1][0]*v[1] + m[2][0]*v[2],
		m[0][1]*v[0] + m[1][1]*v[1] + m[2][1]*v[2],
		m[0][2]*v[0] + m[1][2]*v[1] + m[2][2]*v[2],
	}
}

// Mul returns a b.
func (a *Mat3) Mul(b *Mat3) Mat3 {
	var c Mat3
	for i := range 3 {
		for j := range 3 {
			c[i][j] = a[i][0]*b[0][j] + a[i][1]*b[1][j] + a[i][2]*b[2][j]
		}
	}
	return c
}

// T returns mᵀ.
func (m *Mat3) T() Mat3 {
	return Mat3{
		{m[0][0], m[1][0], m[2][0]},
		{m[0][1], m[1][1], m[2][1]},
		{m[0][2], m[1][2], m[2][2]},
	}
}

// Det returns the determinant of m.
func (m *Mat3) Det() float64 {
	return m[0][0]*(m[1][1]*m[2][2]-m[1][2]*m[2][1]) -
		m[0][1]*(m[1][0]*m[2][2]-m[1][2]*m[2][0]) +
		m[0][2]*(m[1][0]*m[2][1]-m[1][1]*m[2][0])
}

// Inverse returns m⁻¹ and false when m is singular to working precision.
func (m *Mat3) Inverse() (Mat3, bool) {
	var inv Mat3
	inv[0][0] = m[1][1]*m[2][2] - m[1][2]*m[2][1]
	inv[0][1] = m[0][2]*m[2][1] - m[0][1]*m[2][2]
	inv[0][2] = m[0][1]*m[1][2] - m[0][2]*m[1][1]
	inv[1][0] = m[1][2]*m[2][0] - m[1][0]*m[2][2]
	inv[1][1] = m[0][0]*m[2][2] - m[0][2]*m[2][0]
	inv[1][2] = m[0][2]*m[1][0] - m[0][0]*m[1][2]
	inv[2][0] = m[1][0]*m[2][1] - m[1][1]*m[2][0]
	inv[2][1] = m[0][1]*m[2][0] - m[0][0]*m[2][1]
	inv[2][2] = m[0][0]*m[1][1] - m[0][1]*m[1][0]
	det := m[0][0]*inv[0][0] + m[0][1]*inv[1][0] + m[0][2]*inv[2][0]
	scale := 0.0 // the largest |entry|; a NaN entry makes det NaN
	for i := range 3 {
		for j := range 3 {
			if a := math.Abs(m[i][j]); a > scale {
				scale = a
			}
		}
	}
	if det == 0 || math.Abs(det) <= 1e-14*scale*scale*scale || math.IsNaN(det) {
		return Mat3{}, false
	}
	for i := range 3 {
		for j := range 3 {
			inv[i][j] /= det
		}
	}
	return inv, true
}

// SymEigMin returns the smallest eigenvalue of the symmetric matrix s
// (closed form for 3x3, Smith 1961).
func SymEigMin(s *Mat3) float64 {
	p1 := s[0][1]*s[0][1] + s[0][2]*s[0][2] + s[1][2]*s[1][2]
	q := (s[0][0] + s[1][1] + s[2][2]) / 3
	if p1 == 0 {
		return math.Min(s[0][0], math.Min(s[1][1], s[2][2]))
	}
	p2 := (s[0][0]-q)*(s[0][0]-q) + (s[1][1]-q)*(s[1][1]-q) + (s[2][2]-q)*(s[2][2]-q) + 2*p1
	p := math.Sqrt(p2 / 6)
	var b Mat3
	for i := range 3 {
		for j := range 3 {
			b[i][j] = s[i][j] / p
		}
		b[i][i] -= q / p
	}
	r := b.Det() / 2
	var phi float64
	switch {
	case r <= -1:
		phi = math.Pi / 3
	case r >= 1:
		phi = 0
	default:
		phi = math.Acos(r) / 3
	}
	return q + 2*p*math.Cos(phi+2*math.Pi/3)
}

// Pose is a rigid transform: a point x in the local frame is R x + P in the
// parent frame.
type Pose struct {
	R Mat3       // rotation, columns are the local axes in the parent frame
	P [3]float64 // origin of the local frame in the parent frame [m]
}

// PoseFromAxes builds a pose from the local x and z axes expressed in the
// parent frame (y = z × x) and the origin. x and z must be orthonormal.
func PoseFromAxes(x, z, origin [3]float64) Pose {
	y := vec3.Cross(z, x)
	return Pose{
		R: Mat3{{x[0], y[0], z[0]}, {x[1], y[1], z[1]}, {x[2], y[2], z[2]}},
		P: origin,
	}
}

// Point maps a point from the local frame to the parent frame.
func (p *Pose) Point(x [3]float64) [3]float64 { return vec3.Add(p.R.MulVec(x), p.P) }

// Vec rotates a free vector from the local frame to the parent frame.
func (p *Pose) Vec(v [3]float64) [3]float64 { return p.R.MulVec(v) }

// InvPoint maps a point from the parent frame to the local frame.
func (p *Pose) InvPoint(x [3]float64) [3]float64 { return p.R.MulTransVec(vec3.Sub(x, p.P)) }

// InvVec rotates a free vector from the parent frame to the local frame.
func (p *Pose) InvVec(v [3]float64) [3]float64 { return p.R.MulTransVec(v) }

// Orthonormal reports whether R is a rotation to within tol.
func (p *Pose) Orthonormal(tol float64) bool {
	rtr := p.R.T()
	rtr = rtr.Mul(&p.R)
	id := Identity()
	for i := range 3 {
		for j := range 3 {
			if math.Abs(rtr[i][j]-id[i][j]) > tol {
				return false
			}
		}
	}
	return math.Abs(p.R.Det()-1) <= tol
}

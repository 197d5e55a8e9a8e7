package haptics

import (
	"math"

	"github.com/haptex/haptex/sim"
)

// evalLocal evaluates the cloth's force on a fingertip at x per
// sim/exchange.go: F0 + K (x - X0) while Depth + Normal·(x - X0) > 0, zero
// outside the contact half-space, before the first step, or when the step
// saw no contact. K is scaled down so its Frobenius norm (an upper bound on
// the stiffness in any direction) stays within kMax.
func evalLocal(m *sim.LocalModel, x [3]float64, kMax float64) (f [3]float64, contact bool) {
	if !m.Valid || !m.InContact {
		return f, false
	}
	dx := [3]float64{x[0] - m.X0[0], x[1] - m.X0[1], x[2] - m.X0[2]}
	if m.Depth+m.Normal[0]*dx[0]+m.Normal[1]*dx[1]+m.Normal[2]*dx[2] <= 0 {
		return f, false
	}
	s := 1.0
	if fro := frobenius(&m.K); kMax > 0 && fro > kMax {
		s = kMax / fro
	}
	for i := range 3 {
		f[i] = m.F0[i] + s*(m.K[i][0]*dx[0]+m.K[i][1]*dx[1]+m.K[i][2]*dx[2])
	}
	return f, true
}

// localFinite reports whether every number of a valid model is finite (an
// invalid model is never evaluated, so its fields do not matter).
func localFinite(m *sim.LocalModel) bool {
	if !m.Valid {
		return true
	}
	s := m.Depth
	for i := range 3 {
		s += m.X0[i] + m.F0[i] + m.Normal[i] + m.K[i][0] + m.K[i][1] + m.K[i][2]
	}
	// A NaN or an infinity anywhere makes the sum NaN or infinite, and
	// s - s is NaN exactly then.
	return !math.IsNaN(s - s)
}

// frobenius returns the Frobenius norm of k, an upper bound on its
// spectral norm (the largest stiffness in any direction).
func frobenius(k *[3][3]float64) float64 {
	var s float64
	for i := range 3 {
		for j := range 3 {
			s += k[i][j] * k[i][j]
		}
	}
	return math.Sqrt(s)
}

package haptics

import (
	"math"

	"github.com/haptex/haptex/sim"
)

// capStiffness scales m.K down so its Frobenius norm (an upper bound on the
// stiffness in any direction) stays within kMax, the stiffness the device
// can render; the simulation's force F0 is kept. kMax <= 0 leaves K alone.
// It returns the norm asked for.
func capStiffness(m *sim.LocalModel, kMax float64) float64 {
	fro := frobenius(&m.K)
	if kMax > 0 && fro > kMax {
		s := kMax / fro
		for i := range 3 {
			for j := range 3 {
				m.K[i][j] *= s
			}
		}
	}
	return fro
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

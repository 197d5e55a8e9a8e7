package haptics

import (
	"math"
	"time"

	"github.com/haptex/haptex/devices/exo"
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

// localCheck checks a valid model against its contract (sim.LocalModel):
// every number finite, else ReasonModelNaN; in contact, a normal of unit
// length (or zero: a model without a region's boundary, which touches the
// pad wherever it is, as the benches' walls do), a symmetric, negative
// semi-definite K and a drift V no faster than maxSpeed [m/s] (the pad's
// own speed limit: the cloth under a pad moves with it), else
// ReasonModelInvalid. An invalid model is never evaluated, so its fields
// do not matter, nor are the normal, K and V of a model without contact.
func localCheck(m *sim.LocalModel, maxSpeed float64) Reason {
	if !m.Valid {
		return ReasonNone
	}
	s := m.Depth
	for i := range 3 {
		s += m.X0[i] + m.F0[i] + m.Normal[i] + m.V[i] + m.K[i][0] + m.K[i][1] + m.K[i][2]
	}
	// A NaN or an infinity anywhere makes the sum NaN or infinite, and
	// s - s is NaN exactly then.
	if math.IsNaN(s - s) {
		return ReasonModelNaN
	}
	if !m.InContact {
		return ReasonNone // never evaluated for a force (sim.LocalModel.EvalAt)
	}
	n := &m.Normal
	if n2 := n[0]*n[0] + n[1]*n[1] + n[2]*n[2]; n2 != 0 && math.Abs(n2-1) > unitTol {
		return ReasonModelInvalid
	}
	if v := &m.V; v[0]*v[0]+v[1]*v[1]+v[2]*v[2] > maxSpeed*maxSpeed {
		return ReasonModelInvalid
	}
	// The simulation symmetrises K and clips it to be negative
	// semi-definite: what is left of either is rounding. An antisymmetric
	// part would circulate the finger, a positive eigenvalue push it away.
	k := exo.Mat3(m.K)
	tol := kTol * frobenius(&m.K)
	var neg exo.Mat3
	for i := range 3 {
		for j := range 3 {
			if math.Abs(k[i][j]-k[j][i]) > tol {
				return ReasonModelInvalid
			}
			neg[i][j] = -(k[i][j] + k[j][i]) / 2
		}
	}
	if exo.SymEigMin(&neg) < -tol {
		return ReasonModelInvalid
	}
	return ReasonNone
}

// Tolerances of localCheck: of a normal's squared length from 1, and of
// K's asymmetry and positive eigenvalue relative to its Frobenius norm
// (the closed-form eigenvalue's rounding reaches a few 1e-9 of it).
const (
	unitTol = 1e-6
	kTol    = 1e-6
)

// maxModelGap is how far a touching pad may be from the drifting
// linearisation point of a model with a stiffness [m]: a model linearises
// the cloth's force where the pad was at its step, and the pad moves
// millimetres between steps. Farther, its stiffness would extrapolate a
// force the cloth never computed (ReasonModelInvalid). A model without
// stiffness extrapolates nothing.
const maxModelGap = 0.05

// maxModelAge is how long a model's drift V (t - T) is extrapolated: a
// simulation that stalls leaves its last model standing where the drift
// had carried it by then, instead of dragging the rendered force on.
const maxModelAge = 50 * time.Millisecond

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

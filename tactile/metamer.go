package tactile

import "math"

// Metamer is a two-sine stimulus A40 sin(2π 40 t) + A320 sin(2π 320 t).
type Metamer struct {
	A40, A320 float64 // [µm peak], >= 0
	// Exact is true when the two sines reproduce both channel excitations:
	// a non-negative solution existed.
	Exact bool
}

// SolveMetamer returns the non-negative amplitudes whose two-sine stimulus,
// through the drive thresholds d, best reproduces the channel excitations e
// (power re threshold, see ChannelModel).
//
// The system is M [A40², A320²]ᵀ = e with M[c] = (W_c(40)², W_c(320)²). When
// its solution is non-negative it is returned exactly. Otherwise (a fabric
// so rich in low frequencies that the 40 Hz sine needed for NP I already
// over-drives P through the cross term M[P][0]) the problem is solved as
// non-negative least squares in relative error, each channel's residual
// divided by its target, so that the compromise splits the error in dB
// rather than favouring the numerically larger channel.
func SolveMetamer(d DriveThresholds, e [NumChannels]float64) Metamer {
	x, y, exact := solveMetamer(d.matrix(), e)
	return Metamer{A40: math.Sqrt(x), A320: math.Sqrt(y), Exact: exact}
}

// solveMetamer solves the 2 x 2 non-negative least-squares problem for
// x = A40², y = A320². The feasible optimum is either the unconstrained
// solution or lies on one of the two axes; M and e are non-negative, so the
// one-dimensional fits on the axes are non-negative too. The solution is
// continuous in e: where the unconstrained solution leaves the quadrant it
// crosses an axis with zero residual, and so does the axis fit.
func solveMetamer(m [NumChannels][2]float64, e [NumChannels]float64) (x, y float64, exact bool) {
	e0, e1 := e[NonPacinian], e[Pacinian]
	if !(e0 > 0) && !(e1 > 0) {
		return 0, 0, true
	}
	a, b := m[NonPacinian][0], m[NonPacinian][1]
	c, d := m[Pacinian][0], m[Pacinian][1]
	if det := a*d - b*c; det != 0 {
		x = (d*e0 - b*e1) / det
		y = (a*e1 - c*e0) / det
		if x >= 0 && y >= 0 {
			return x, y, true
		}
	}
	// Relative weights 1/e_c², floored so that a channel with no
	// excitation still counts (as a target of zero) without dividing by 0.
	floor := 1e-12 * math.Max(e0, e1)
	w0 := 1 / sq(math.Max(e0, floor))
	w1 := 1 / sq(math.Max(e1, floor))

	// y = 0: fit x.
	xa := (w0*a*e0 + w1*c*e1) / (w0*a*a + w1*c*c)
	ra := w0*sq(a*xa-e0) + w1*sq(c*xa-e1)
	// x = 0: fit y.
	yb := (w0*b*e0 + w1*d*e1) / (w0*b*b + w1*d*d)
	rb := w0*sq(b*yb-e0) + w1*sq(d*yb-e1)
	if ra <= rb {
		return xa, 0, false
	}
	return 0, yb, false
}

func sq(x float64) float64 { return x * x }

package tactile

import "math"

// solveMetamer returns the squared amplitudes x = A40², y = A320² of the
// two-sine stimulus A40 sin(2π 40 t) + A320 sin(2π 320 t) that, through the
// drive thresholds (m[c] = (W_c(40)², W_c(320)²)), best reproduces the
// channel excitations e (power re threshold, see ChannelModel), and
// whether it reproduces them exactly.
//
// The system is m [x, y]ᵀ = e. When its solution is non-negative it is
// returned exactly. Otherwise (a fabric so rich in low frequencies that
// the 40 Hz sine needed for NP I already over-drives P through the cross
// term m[P][0]) the problem is solved as non-negative least squares in
// relative error, each channel's residual divided by its target, so that
// the compromise splits the error in dB rather than favouring the
// numerically larger channel.
//
// The feasible optimum is either the unconstrained solution or lies on one
// of the two axes; m and e are non-negative, so the one-dimensional fits
// on the axes are non-negative too. The solution is continuous in e: where
// the unconstrained solution leaves the quadrant it crosses an axis with
// zero residual, and so does the axis fit.
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

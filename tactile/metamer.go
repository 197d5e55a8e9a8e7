package tactile

import "math"

// solveMetamer returns the squared amplitudes x = A40², y = A320² of the
// two-sine stimulus A40 sin(2π 40 t) + A320 sin(2π 320 t) that, through the
// drive thresholds (m[c] = (W_c(40)², W_c(320)²)), reproduces the channel
// excitations e (power re threshold, see ChannelModel), and whether it
// reproduces them exactly.
//
// The system is m [x, y]ᵀ = e. When its solution is non-negative it is
// returned, and both channels are exact. Otherwise no pair of non-negative
// amplitudes reproduces e: the ratio of P to NP I excitation it asks for
// lies outside what the two sines can make, between m[P][0]/m[NP][0]
// (40 Hz alone) and m[P][1]/m[NP][1] (320 Hz alone). The usual case is a
// slow stroke whose energy lies below 40 Hz, where P is far less sensitive
// than NP I: the 40 Hz sine that NP I needs over-drives P through the
// cross term m[P][0].
//
// Then solveMetamer minimises the larger of the two channels' errors in
// sensation level, the level a channel is felt at: |T'_c - T_c| with T =
// max(10 log10 E, 0) dB SL, since a channel excited below its detection
// threshold is not felt at all, however far below. The optimum lies on the
// edge on e's side, one sine alone (adding the other sine moves the ratio
// further from e's): 40 Hz when e asks for too little P, 320 Hz when it
// asks for too little NP I. There both levels rise dB for dB with the
// sine's. Call the sine's own channel (NP I at 40 Hz, P at 320 Hz) o and
// the other q, and g how many dB more the sine excites o than q
// (10 log10(m[NP][0]/m[P][0]) at 40 Hz). Meeting o exactly leaves q at
// T_o - g, above its target; lowering the sine trades o's deficit against
// q's excess until they balance, or until o is no longer felt. The larger
// felt error left is
//
//	max(0, min(T_o, (T_o - g - T_q) / 2)) dB,
//
// which is the bound: no choice of amplitudes does better. Where both
// channels are felt it is half the distance in dB of e's channel ratio
// from the sine's own; it is 0 where meeting o leaves q unfelt. Among
// equally good levels the one nearest to meeting o is taken, so the
// solution is continuous in e, across the edge of the exact region too.
func solveMetamer(m [NumChannels][2]float64, e [NumChannels]float64) (x, y float64, exact bool) {
	e0, e1 := e[NonPacinian], e[Pacinian]
	if !(e0 > 0) && !(e1 > 0) {
		return 0, 0, true
	}
	a, b := m[NonPacinian][0], m[NonPacinian][1]
	c, d := m[Pacinian][0], m[Pacinian][1]
	det := a*d - b*c // > 0: ChannelModel.Validate
	x = (d*e0 - b*e1) / det
	y = (a*e1 - c*e0) / det
	if x >= 0 && y >= 0 {
		return x, y, true
	}
	if y < 0 { // too little P: 40 Hz alone, its own channel NP I
		return edge(dBOf(a), dBOf(c), dBOf(e0), dBOf(e1)), 0, false
	}
	return 0, edge(dBOf(d), dBOf(b), dBOf(e1), dBOf(e0)), false
}

// dBOf is 10 log10 p, -Inf for no power.
func dBOf(p float64) float64 {
	if !(p > 0) {
		return math.Inf(-1)
	}
	return 10 * math.Log10(p)
}

// edge returns the squared amplitude of one sine alone that excites its own
// channel at level u = s + ko and the other at u - g, g = ko - kq [dB] (s =
// 10 log10 of the squared amplitude), for targets lo and lq [dB SL]
// (solveMetamer).
func edge(ko, kq, lo, lq float64) float64 {
	g := ko - kq
	to, tq := math.Max(lo, 0), math.Max(lq, 0)
	var u float64
	switch balance := (to + g + tq) / 2; {
	case math.Min(to, (to-g-tq)/2) <= 0: // no felt error
		switch {
		case to > 0:
			u = to // o met, q unfelt
		case tq > 0:
			u = tq + g // q met, o unfelt
		default:
			u = math.Min(lo, g) // neither felt
		}
	case balance >= 0: // errors equal and opposite
		u = balance
	default: // o unfelt at best: q as close as that allows
		u = to + g + tq
	}
	return math.Pow(10, (u-ko)/10)
}

func sq(x float64) float64 { return x * x }

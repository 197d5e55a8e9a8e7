package sim

import "math"

// Dahl is one internal-friction element of the fabric: Dahl's friction
// model with exponent one (Dahl, "A solid friction model", Aerospace
// Corp. TOR-0158(3107-18)-1, 1968), in the augmented form Miguel,
// Tamstorf, Bradley, Schvartzman, Thomaszewski, Bickel, Matusik, Marschner
// and Otaduy use for cloth ("Modeling and estimation of internal friction
// in cloth", ACM TOG 32(6):212, 2013): a friction stress z that follows a
// deformation ε,
//
//	dz/dε = (S(ε) - sign(dε/dt)·z) / Strain,
//
// so that z approaches ±S(ε), over the characteristic deformation Strain,
// whichever way ε moves, whatever its rate. The stress felt is the elastic
// one plus z; a deformation cycle that saturates both ways traces a loop
// of width 2·S(ε). The saturation S depends on the deformation (Miguel et
// al.'s augmentation); a step takes it as linear over its move, S(ε₀ + δ)
// = Saturation + Slope·δ, from its value and slope at the start of the
// step, so that within the step z is a function of the deformation alone,
// in closed form, and the gradient of the work ∫z dε (Step).
//
// Units are the caller's: a strain and a force per width for stretch and
// shear.
type Dahl struct {
	Saturation float64 // S at the start of the move, ≥ 0
	Slope      float64 // dS/dε there
	Strain     float64 // the characteristic deformation, > 0
}

// Step returns the friction stress after the deformation moves by de from
// a state where it is z, its derivative dz/dε at the end of the move and
// the work ∫z dε done over it. With p = |de|, s = sign(de), c = s·S and b
// = Slope the equation along p is dz/dp = (c + b·p - z)/Strain, whose
// solution is
//
//	z(p) = c + b·(p - Strain) + (z - c + b·Strain)·exp(-p/Strain),
//
// which is the model exactly while S is linear (constant: b = 0). The
// work is the friction's part of the step's incremental potential: within
// a step the friction stress is its derivative.
//
// At de = 0 the derivative jumps: a reversal meets the stiffness (S +
// |z|)/Strain, a move on the way z already goes (S - |z|)/Strain, less.
// Step returns the larger there, so that the first Newton iteration of a
// step, which starts at de = 0, never overshoots the friction's reversal;
// the next iteration, at de ≠ 0, has the side's own. (With the last
// move's side instead, quasi-static specimens settled by overshooting and
// coming back, each time tracing a small loop that lost friction stress:
// a four-element tensile strip read WT 17 % high.)
//
// S never falls below zero: where a move towards a smaller S would carry
// its linear form below zero (at p₀ = S/|Slope|), S is zero beyond, and z
// decays there to nothing, z(p) = z(p₀)·exp(-(p - p₀)/Strain). A negative
// S would turn the friction round against the move, and its work,
// −|Slope|·p²/2 for large moves, would make the step's incremental
// potential unbounded below: Newton's iterations followed it, and a cloth
// dropped from horizontal rose to 28 times its drop energy in a 10 ms
// step.
func (d Dahl) Step(z, de float64) (zNew, dz, work float64) {
	if de == 0 {
		return z, (d.Saturation + math.Abs(z)) / d.Strain, 0
	}
	s := math.Copysign(1, de)
	p := math.Abs(de)
	if sb := s * d.Slope; sb < 0 && d.Saturation+sb*p < 0 {
		p0 := d.Saturation / -sb
		z0, _, w0 := d.linear(z, s, p0)
		// Past p₀ the element with S = 0 throughout.
		zNew, dz, work = Dahl{Strain: d.Strain}.linear(z0, s, p-p0)
		return zNew, dz, w0 + work
	}
	return d.linear(z, s, p)
}

// linear is Step for a move of p > 0 along s = ±1 over which S stays
// linear.
func (d Dahl) linear(z, s, p float64) (zNew, dz, work float64) {
	l, b := d.Strain, d.Slope
	c := s * d.Saturation
	a := p / l
	// gone = 1 - keep, accurate for small moves; one transcendental a
	// call (the steps' moves are mostly under a hundredth of Strain),
	// keep = 1 - gone exact to rounding while gone ≤ ½.
	gone := -math.Expm1(-a)
	keep := 1 - gone // what remains of the transient
	if a > math.Ln2 {
		keep = math.Exp(-a)
	}
	z0 := z - c + b*l
	zNew = c + b*(p-l) + z0*keep
	dz = s * (c + b*p - zNew) / l
	work = s * ((c-b*l)*p + b*p*p/2 + z0*l*gone)
	return zNew, dz, work
}

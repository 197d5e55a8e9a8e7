package filter

import (
	"fmt"
	"math"
	"math/cmplx"
)

// Section is one second-order section (biquad):
//
//	H(z) = (B0 + B1 z⁻¹ + B2 z⁻²) / (1 + A1 z⁻¹ + A2 z⁻²)
//
// A first-order section has A2 = B2 = 0.
type Section struct{ B0, B1, B2, A1, A2 float64 }

// SOS is a cascade of sections, applied in order. As in SciPy, the overall
// gain is folded into the first section's numerator. An empty cascade is
// the identity.
type SOS []Section

// Validate reports whether every coefficient is finite and every pole lies
// strictly inside the unit circle; New panics on a cascade that fails it.
// Designs returned by Butterworth and ChebyshevI always pass.
func (s SOS) Validate() error {
	if i, why := s.check(); why != "" {
		return fmt.Errorf("filter: section %d %s: %w", i, why, ErrUnstable)
	}
	return nil
}

// check returns the first section that is non-finite or not strictly
// stable, and why; why is empty if all pass.
func (s SOS) check() (int, string) {
	for i, c := range s {
		for _, v := range [...]float64{c.B0, c.B1, c.B2, c.A1, c.A2} {
			if !finite(v) {
				return i, fmt.Sprintf("%+v has a non-finite coefficient", c)
			}
		}
		// Stability triangle of z² + A1 z + A2 (Jury's test for degree 2),
		// and the computed roots too: within an ulp of the circle the two
		// can disagree, and Poles must never report |p| >= 1.
		stable := math.Abs(c.A2) < 1 && math.Abs(c.A1) < 1+c.A2
		for _, p := range quadRoots(1, c.A1, c.A2) {
			stable = stable && cmplx.Abs(p) < 1
		}
		if !stable {
			return i, fmt.Sprintf("(A1 %g, A2 %g) has a pole on or outside the unit circle", c.A1, c.A2)
		}
	}
	return 0, ""
}

// Response returns the complex frequency response H(e^{jω}) at fHz, with
// ω = 2π fHz/sampleHz.
func (s SOS) Response(fHz, sampleHz float64) complex128 {
	e1 := cmplx.Exp(complex(0, -2*math.Pi*fHz/sampleHz))
	e2 := e1 * e1
	h := complex(1, 0)
	for _, c := range s {
		num := complex(c.B0, 0) + complex(c.B1, 0)*e1 + complex(c.B2, 0)*e2
		den := 1 + complex(c.A1, 0)*e1 + complex(c.A2, 0)*e2
		h *= num / den
	}
	return h
}

// GroupDelay returns the group delay -dφ/dω of the cascade at fHz, in
// seconds. It is the sum over the zeros q = r e^{jθ} of each section of
//
//	τ_q(ω) = (r² - r cos(ω-θ)) / (1 - 2r cos(ω-θ) + r²)  samples
//
// minus the same sum over the poles. At a zero on the unit circle (for
// example z = -1 of a low-pass at Nyquist) the phase jumps by π; there the
// smooth limit 1/2 sample per such zero is returned, unlike SciPy's
// group_delay which returns 0. A section whose numerator is identically
// zero has no phase; the result is then NaN.
func (s SOS) GroupDelay(fHz, sampleHz float64) float64 {
	w := 2 * math.Pi * fHz / sampleHz
	var tau float64
	for _, c := range s {
		delay, zeros, n := polyRoots(c.B0, c.B1, c.B2)
		if delay < 0 {
			return math.NaN()
		}
		tau += float64(delay)
		for _, q := range zeros[:n] {
			tau += rootDelay(q, w)
		}
		for _, p := range quadRoots(1, c.A1, c.A2) {
			tau -= rootDelay(p, w)
		}
	}
	return tau / sampleHz
}

// rootDelay is the group delay, in samples, of the factor (1 - q e^{-jω}),
// written with sin²((ω-θ)/2) so that it stays accurate near |q| = 1.
func rootDelay(q complex128, w float64) float64 {
	r := cmplx.Abs(q)
	if r == 0 {
		return 0
	}
	sn := math.Sin((w - cmplx.Phase(q)) / 2)
	s2 := sn * sn
	num := r * ((r - 1) + 2*s2)
	den := (1-r)*(1-r) + 4*r*s2
	if den == 0 {
		return 0.5
	}
	return num / den
}

// polyRoots factors c0 + c1 z⁻¹ + c2 z⁻² as z^-delay times a constant
// times the product of (1 - q z⁻¹) over the first n roots q. Delay is -1
// if the polynomial is identically zero.
func polyRoots(c0, c1, c2 float64) (delay int, roots [2]complex128, n int) {
	switch {
	case c0 != 0:
		return 0, quadRoots(c0, c1, c2), 2
	case c1 != 0:
		return 1, [2]complex128{complex(-c2/c1, 0)}, 1
	case c2 != 0:
		return 2, roots, 0
	}
	return -1, roots, 0
}

// quadRoots returns the two roots of a z² + b z + c (a ≠ 0).
func quadRoots(a, b, c float64) [2]complex128 {
	disc := b*b - 4*a*c
	if disc < 0 {
		re, im := -b/(2*a), math.Sqrt(-disc)/(2*a)
		return [2]complex128{complex(re, im), complex(re, -im)}
	}
	// Numerically stable form: no cancellation between -b and the root.
	q := -0.5 * (b + math.Copysign(math.Sqrt(disc), b))
	if q == 0 {
		return [2]complex128{}
	}
	return [2]complex128{complex(q/a, 0), complex(c/q, 0)}
}

// Poles returns the poles of the cascade other than those at the origin,
// section by section: the roots of z² + A1 z + A2. Poles at the origin are
// pure delays; in odd-order designs SciPy pads with one, cancelled by a zero
// there. A design of prototype order N has N poles (2N for band-pass),
// fewer only if one falls exactly on the origin.
func (s SOS) Poles() []complex128 {
	var p []complex128
	for _, c := range s {
		for _, r := range quadRoots(1, c.A1, c.A2) {
			if r != 0 {
				p = append(p, r)
			}
		}
	}
	return p
}

// DCGain returns H(1), the gain for a constant input.
func (s SOS) DCGain() float64 {
	g := 1.0
	for _, c := range s {
		g *= (c.B0 + c.B1 + c.B2) / (1 + c.A1 + c.A2)
	}
	return g
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

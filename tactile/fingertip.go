package tactile

import (
	"fmt"
	"math"
)

// Fingertip model defaults. The pulp's force law and the pad's radii
// describe an adult index finger; they are population-typical values of
// the order the cited studies report, not a fit to one of them, and a lab
// that measures its users' fingers (an ink print under known loads) should
// set its own.
const (
	// DefaultPadRadiusDistal and DefaultPadRadiusLateral are the pad's
	// radii of curvature along and across the finger [m].
	DefaultPadRadiusDistal  = 12e-3
	DefaultPadRadiusLateral = 8e-3
	// DefaultPulpStiffness and DefaultPulpStiffening are b and m of the
	// pulp's force law F = (b/m)(exp(m δ) - 1) (Serina, Mote & Rempel
	// 1997): 0.8 mm of compression at 0.1 N and 1.8 mm at 1 N.
	DefaultPulpStiffness  = 49.0   // [N/m], the slope at δ = 0
	DefaultPulpStiffening = 2100.0 // [1/m]
	// DefaultMaxPatchArea bounds the contact area [m²]: the whole pad of
	// a fingertip pressed flat.
	DefaultMaxPatchArea = 200e-6
	// DefaultShearStiffness is the pad's tangential stiffness at 1 N
	// normal force [N/m], of the order Pataky, Latash & Zatsiorsky 2005
	// measured.
	DefaultShearStiffness = 1000.0
	// DefaultShearCornerHz is where the pad's tangential impedance turns
	// from elastic to viscous (Wiertlewski & Hayward 2012: elastic up to
	// about 100 Hz, viscous above) [Hz].
	DefaultShearCornerHz = 100.0
	// maxCurvatureShare bounds how far a cloth curving round the pad
	// flattens the contact: the effective radius is at most 1/(1 - 0.75) =
	// 4 times the pad's own.
	maxCurvatureShare = 0.75
)

// Fingertip is the mechanics of one finger pad touching the fabric: the
// contact patch and its pressure under a normal force, and the pad's
// tangential impedance, which turns the fabric's friction fluctuations
// into skin displacement. Zero fields take the defaults above.
//
// The model:
//   - The pulp compresses by δ under normal force F as Serina, Mote &
//     Rempel (J Biomech 30:1035-1040, 1997) and Pawluk & Howe (J Biomech
//     Eng 121:605-611, 1999) measured it, exponentially stiffening:
//     F = (b/m)(exp(m δ) - 1).
//   - The patch is the pad's section at the depth δ: an ellipse of
//     semi-axes a = √(2 R_d* δ) along the finger and b = √(2 R_l* δ)
//     across it. Against a cloth whose surface curves with curvature κ
//     (positive where it curves round the pad), each effective radius is
//     R* = 1/(1/R - κ), so a cloth wrapped round the pad widens the
//     patch and one bulging towards it narrows it, as for two curved
//     bodies in Hertz contact. The area is bounded by MaxAreaM2.
//   - The pressure over the patch is an inverted paraboloid,
//     p = 2F/(π a b) (1 - ρ²) with ρ the elliptic radius (Pawluk & Howe
//     1999).
//   - The pad's tangential impedance is a spring and a damper in
//     parallel, |Z(f)| = k_t √(1 + (f/f_c)²), elastic below f_c and
//     viscous above it (Wiertlewski & Hayward, J Biomech 45:1869-1874,
//     2012). k_t grows with the contact's size as a Mindlin contact's
//     does (k_t ∝ a): k_t(F) = ShearStiffness √(A(F)/A(1 N)), so that
//     k_t(1 N) is the pad's stiffness at 1 N (Pataky, Latash &
//     Zatsiorsky, J Biomech 38:1441-1449, 2005).
type Fingertip struct {
	PadRadiusDistalM  float64 // R_d [m] (0: DefaultPadRadiusDistal)
	PadRadiusLateralM float64 // R_l [m] (0: DefaultPadRadiusLateral)
	PulpStiffness     float64 // b [N/m] (0: DefaultPulpStiffness)
	PulpStiffening    float64 // m [1/m] (0: DefaultPulpStiffening)
	MaxAreaM2         float64 // [m²] (0: DefaultMaxPatchArea)
	ShearStiffness    float64 // k_t at 1 N [N/m] (0: DefaultShearStiffness)
	ShearCornerHz     float64 // f_c [Hz] (0: DefaultShearCornerHz)
}

func (ft Fingertip) withDefaults() Fingertip {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&ft.PadRadiusDistalM, DefaultPadRadiusDistal)
	def(&ft.PadRadiusLateralM, DefaultPadRadiusLateral)
	def(&ft.PulpStiffness, DefaultPulpStiffness)
	def(&ft.PulpStiffening, DefaultPulpStiffening)
	def(&ft.MaxAreaM2, DefaultMaxPatchArea)
	def(&ft.ShearStiffness, DefaultShearStiffness)
	def(&ft.ShearCornerHz, DefaultShearCornerHz)
	return ft
}

func (ft Fingertip) validate() error {
	switch {
	case !inRange(ft.PadRadiusDistalM, 2e-3, 50e-3) || !inRange(ft.PadRadiusLateralM, 2e-3, 50e-3):
		return fmt.Errorf("tactile: pad radii %g m (distal), %g m (lateral) must be in [2, 50] mm", ft.PadRadiusDistalM, ft.PadRadiusLateralM)
	case !inRange(ft.PulpStiffness, 1, 1e5) || !inRange(ft.PulpStiffening, 10, 1e5):
		return fmt.Errorf("tactile: pulp law b = %g N/m (want [1, 1e5]), m = %g 1/m (want [10, 1e5])", ft.PulpStiffness, ft.PulpStiffening)
	case !inRange(ft.MaxAreaM2, 1e-6, 1e-3):
		return fmt.Errorf("tactile: largest patch %g m² must be in [1, 1000] mm²", ft.MaxAreaM2)
	case !inRange(ft.ShearStiffness, 10, 1e6) || !inRange(ft.ShearCornerHz, 1, 1e4):
		return fmt.Errorf("tactile: pad shear stiffness %g N/m (want [10, 1e6]) or corner %g Hz (want [1, 1e4]) out of range", ft.ShearStiffness, ft.ShearCornerHz)
	}
	return nil
}

// Patch is a finger pad's contact with the fabric: an ellipse centred on
// the contact point.
type Patch struct {
	Depth    float64 // the pulp's compression δ [m]
	A, B     float64 // semi-axes along and across the finger [m]
	Area     float64 // π A B [m²]
	Pressure float64 // mean pressure F / Area [Pa]; the peak is twice it
}

// Patch returns the contact patch under normal force [N] against a cloth
// of curvature [1/m] (positive where the cloth curves round the pad). A
// force that is not positive gives no patch; NaN counts as none.
func (ft Fingertip) Patch(force, curvature float64) Patch {
	ft = ft.withDefaults()
	return ft.patch(force, curvature)
}

// patch is Patch for a Fingertip with its defaults filled in.
func (ft *Fingertip) patch(force, curvature float64) Patch {
	if !(force > 0) {
		return Patch{}
	}
	force = math.Min(force, MaxNormalForce)
	m := ft.PulpStiffening
	depth := math.Log1p(m*force/ft.PulpStiffness) / m
	if curvature != curvature { // NaN
		curvature = 0
	}
	eff := func(r float64) float64 {
		return r / (1 - clamp(curvature*r, -1e3, maxCurvatureShare))
	}
	p := Patch{Depth: depth, A: math.Sqrt(2 * eff(ft.PadRadiusDistalM) * depth), B: math.Sqrt(2 * eff(ft.PadRadiusLateralM) * depth)}
	if area := math.Pi * p.A * p.B; area > ft.MaxAreaM2 {
		s := math.Sqrt(ft.MaxAreaM2 / area)
		p.A, p.B = p.A*s, p.B*s
	}
	p.Area = math.Pi * p.A * p.B
	p.Pressure = force / p.Area
	return p
}

// shearStiffness is the pad's tangential stiffness k_t for a patch of area
// a, ref being the area at 1 N on a flat cloth: ShearStiffness scaled with
// the contact's size (Mindlin: k_t ∝ a), never below 1 % of it, so that a
// vanishing force cannot make the pad limp.
func (ft *Fingertip) shearStiffness(a, ref float64) float64 {
	return ft.ShearStiffness * math.Max(math.Sqrt(a/ref), 0.01)
}

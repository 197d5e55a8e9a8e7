package kes

import (
	"fmt"
	"math"
)

// Pure-data helpers: KES values turned into SI curves and constants that the
// simulation and tactile mappings consume. Nothing here imports sim or
// tactile; the types are this package's own.

// initialTangent is the fraction of the secant stiffness F_m/ε_m that a
// convex (LT < 1) curve keeps as its slope at zero strain. A pure power law
// has zero slope there, which leaves an unstretched membrane without
// stiffness; a floor of 5-10 % of the secant keeps the simulation stable.
// It is part of the curve, not a clamp added after, so the curve still
// reproduces EMT and WT exactly.
const initialTangent = 0.1

// shape is a normalised loading curve g on [0, 1]: g(0) = 0, g(1) = 1,
// increasing, with ∫₀¹ g = mean. The KES linearity of such a curve is
// 2·mean (LT = WT / (F_m·ε_m/2)). Three forms, chosen by mean:
//
//	mean < 1/2 (convex):  g = a·x + (1−a)·x^m, a = min(initialTangent, mean),
//	                      m = (1−a)/(mean − a/2) − 1 > 1
//	mean = 1/2 (linear):  g = x
//	mean > 1/2 (concave): g = 1 − (1−x)^p,  p = mean/(1−mean) > 1
//
// Each integral is elementary (a/2 + (1−a)/(m+1); p/(p+1)), so mean is met
// exactly. Outside [0, 1] g continues linearly: below 0 with g'(0), above 1
// with max(g'(1), 1) so that a concave curve does not lose all stiffness
// past the measured maximum load.
type shape struct {
	form    int // 0 linear, 1 convex, 2 concave
	a, m, p float64
}

func newShape(mean float64) (shape, error) {
	switch {
	case !(mean > 0 && mean < 1):
		return shape{}, fmt.Errorf("kes: curve area fraction %v outside (0, 1): linearity must lie in (0, 2)", mean)
	case math.Abs(mean-0.5) < 1e-12:
		return shape{form: 0}, nil
	case mean < 0.5:
		a := math.Min(initialTangent, mean)
		return shape{form: 1, a: a, m: (1-a)/(mean-a/2) - 1}, nil
	default:
		return shape{form: 2, p: mean / (1 - mean)}, nil
	}
}

// g evaluates the shape.
func (s shape) g(x float64) float64 {
	switch {
	case x < 0:
		return s.dg(0) * x
	case x > 1:
		return 1 + math.Max(s.dg(1), 1)*(x-1)
	}
	switch s.form {
	case 1:
		return s.a*x + (1-s.a)*math.Pow(x, s.m)
	case 2:
		return 1 - math.Pow(1-x, s.p)
	}
	return x
}

// dg is the slope of g.
func (s shape) dg(x float64) float64 {
	switch {
	case x < 0:
		x = 0
	case x > 1:
		d1 := s.dg(1)
		return math.Max(d1, 1)
	}
	switch s.form {
	case 1:
		return s.a + (1-s.a)*s.m*math.Pow(x, s.m-1)
	case 2:
		return s.p * math.Pow(1-x, s.p-1)
	}
	return 1
}

// mean is ∫₀¹ g, in closed form.
func (s shape) mean() float64 {
	switch s.form {
	case 1:
		return s.a/2 + (1-s.a)/(s.m+1)
	case 2:
		return s.p / (s.p + 1)
	}
	return 0.5
}

// TensileCurve is a KES-FB1 loading curve, force per unit width against
// strain, in SI. It passes through (ε_m, F_m) with ε_m = EMT/100, and the
// area under it up to ε_m is WT exactly; its linearity WT/(F_m·ε_m/2) is
// then the file's LT to within the identity tolerance validation enforces
// (exactly, when the file's values satisfy the identity exactly). The form
// is shape's, chosen by LT: convex below 1, linear at 1, concave above.
type TensileCurve struct {
	StrainMax float64 // ε_m = EMT/100 [1]
	ForceMax  float64 // F_m, the instrument's maximum load [N/m]
	Energy    float64 // WT [J/m²]
	shape     shape
}

// NewTensileCurve builds the loading curve from KES values: emt [%], wt
// [gf·cm/cm²] and the maximum load fm [gf/cm] of the test. WT and EMT are the
// instrument's primary readings (LT is defined from them), so the curve
// honours them exactly.
func NewTensileCurve(emt, wt, fm float64) (TensileCurve, error) {
	if !(emt > 0) || !(wt > 0) || !(fm > 0) || math.IsInf(emt+wt+fm, 0) {
		return TensileCurve{}, fmt.Errorf("kes: tensile curve needs positive finite EMT, WT and F_m; got EMT %v %%, WT %v gf·cm/cm², F_m %v gf/cm", emt, wt, fm)
	}
	em := emt / 100
	s, err := newShape(wt / (fm * em))
	if err != nil {
		return TensileCurve{}, fmt.Errorf("kes: tensile curve (EMT %v %%, WT %v, F_m %v): %w", emt, wt, fm, err)
	}
	conv := units[kindForcePerWidth].siFactor
	return TensileCurve{StrainMax: em, ForceMax: fm * conv, Energy: wt * units[kindEnergyPerArea].siFactor, shape: s}, nil
}

// Force is the force per unit width [N/m] at strain e.
func (c TensileCurve) Force(e float64) float64 {
	return c.ForceMax * c.shape.g(e/c.StrainMax)
}

// Stiffness is the tangent dF/dε [N/m] at strain e.
func (c TensileCurve) Stiffness(e float64) float64 {
	return c.ForceMax / c.StrainMax * c.shape.dg(e/c.StrainMax)
}

// SecantStiffness is F_m/ε_m [N/m] (490.33/(EMT/100) at the standard
// F_m of 500 gf/cm).
func (c TensileCurve) SecantStiffness() float64 { return c.ForceMax / c.StrainMax }

// Linearity is the curve's KES LT, WT/(F_m·ε_m/2).
func (c TensileCurve) Linearity() float64 { return 2 * c.shape.mean() }

// Points samples the curve at n ≥ 2 strains evenly spaced over [0, ε_m],
// appending to dst.
func (c TensileCurve) Points(dst []Point, n int) []Point {
	return sample(dst, n, 0, c.StrainMax, c.Force)
}

func sample(dst []Point, n int, x0, x1 float64, f func(float64) float64) []Point {
	if n < 2 {
		n = 2
	}
	for i := range n {
		x := x0 + (x1-x0)*float64(i)/float64(n-1)
		dst = append(dst, Point{x, f(x)})
	}
	return dst
}

// ShearLoop is the KES-FB1 shear hysteresis loop, force per unit width
// against shear angle, in SI. Each branch is G·φ ± h(|φ|): the upper sign
// while the angle increases, the lower while it decreases. h is the loop's
// half-width, linear in |φ| through (0.5°, 2HG/2) and (5°, 2HG5/2), never
// negative. So the mean slope of the two branches over 0.5-5° is G, and the
// loop's width is 2HG at 0.5° and 2HG5 at 5°, as KES defines them. The
// reversal at ±MaxAngle is a step of 2h (Coulomb-like); the instrument's
// short steep reversal segment is not modelled.
type ShearLoop struct {
	G        float64 // shear stiffness [N/(m·rad)]
	H05, H5  float64 // half-widths at 0.5° and 5° [N/m]
	MaxAngle float64 // [rad], ±8° on the standard instrument
}

// NewShearLoop builds the loop from KES values: g [gf/(cm·deg)], twoHG and
// twoHG5 [gf/cm], maxAngle [deg].
func NewShearLoop(g, twoHG, twoHG5, maxAngle float64) (ShearLoop, error) {
	if !(g > 0) || !(twoHG >= 0) || !(twoHG5 >= 0) || !(maxAngle > 0) || math.IsInf(g+twoHG+twoHG5+maxAngle, 0) {
		return ShearLoop{}, fmt.Errorf("kes: shear loop needs G > 0, 2HG ≥ 0, 2HG5 ≥ 0, max angle > 0, all finite; got %v, %v, %v, %v", g, twoHG, twoHG5, maxAngle)
	}
	fw := units[kindForcePerWidth].siFactor
	return ShearLoop{
		G:        g * units[kindShearStiffness].siFactor,
		H05:      twoHG / 2 * fw,
		H5:       twoHG5 / 2 * fw,
		MaxAngle: maxAngle * math.Pi / 180,
	}, nil
}

const (
	halfDegree  = 0.5 * math.Pi / 180
	fiveDegrees = 5 * math.Pi / 180
)

// HalfWidth is h(|φ|) [N/m].
func (s ShearLoop) HalfWidth(angle float64) float64 {
	a := math.Abs(angle)
	return math.Max(0, s.H05+(s.H5-s.H05)*(a-halfDegree)/(fiveDegrees-halfDegree))
}

// Force is the shear force per unit width [N/m] at angle [rad], on the
// branch of increasing angle when increasing is true.
func (s ShearLoop) Force(angle float64, increasing bool) float64 {
	if increasing {
		return s.G*angle + s.HalfWidth(angle)
	}
	return s.G*angle - s.HalfWidth(angle)
}

// Loop samples both branches at n ≥ 2 angles over [−MaxAngle, MaxAngle]:
// up in increasing order, down in decreasing order (the order the instrument
// traverses them), appending to the given slices.
func (s ShearLoop) Loop(up, down []Point, n int) ([]Point, []Point) {
	up = sample(up, n, -s.MaxAngle, s.MaxAngle, func(a float64) float64 { return s.Force(a, true) })
	down = sample(down, n, s.MaxAngle, -s.MaxAngle, func(a float64) float64 { return s.Force(a, false) })
	return up, down
}

// BendingLoop is the KES-FB2 pure-bending loop, moment per unit width
// against curvature, in SI: M = B·K ± HB, the upper sign while curvature
// increases. The half-width HB = 2HB/2 is constant (a Coulomb friction
// moment between yarns), so the slope of each branch is B and the width at
// K = ±1 cm⁻¹ is 2HB, as KES defines them. Linear bending is what garment
// simulators use and is precise enough (Lyard, Luible, Volino et al.,
// "Advanced Topics in Virtual Garment Simulation", Eurographics 2007
// tutorial, part 2).
type BendingLoop struct {
	B            float64 // bending rigidity [N·m] (N·m²/m)
	HB           float64 // half-width of the loop [N] (N·m/m)
	MaxCurvature float64 // [1/m], ±2.5 cm⁻¹ = ±250 m⁻¹ on the standard instrument
}

// NewBendingLoop builds the loop from KES values: b [gf·cm²/cm], twoHB
// [gf·cm/cm], maxCurvature [1/cm].
func NewBendingLoop(b, twoHB, maxCurvature float64) (BendingLoop, error) {
	if !(b > 0) || !(twoHB >= 0) || !(maxCurvature > 0) || math.IsInf(b+twoHB+maxCurvature, 0) {
		return BendingLoop{}, fmt.Errorf("kes: bending loop needs B > 0, 2HB ≥ 0, max curvature > 0, all finite; got %v, %v, %v", b, twoHB, maxCurvature)
	}
	return BendingLoop{
		B:            b * units[kindBendRigidity].siFactor,
		HB:           twoHB / 2 * units[kindBendMoment].siFactor,
		MaxCurvature: maxCurvature * units[kindCurvature].siFactor,
	}, nil
}

// Moment is the bending moment per unit width [N] at curvature k [1/m].
func (l BendingLoop) Moment(k float64, increasing bool) float64 {
	if increasing {
		return l.B*k + l.HB
	}
	return l.B*k - l.HB
}

// Loop samples both branches at n ≥ 2 curvatures over ±MaxCurvature, in
// traversal order, appending to the given slices.
func (l BendingLoop) Loop(up, down []Point, n int) ([]Point, []Point) {
	up = sample(up, n, -l.MaxCurvature, l.MaxCurvature, func(k float64) float64 { return l.Moment(k, true) })
	down = sample(down, n, l.MaxCurvature, -l.MaxCurvature, func(k float64) float64 { return l.Moment(k, false) })
	return up, down
}

// PressureT0 is the pressure at which KES-FB3 reads T0: 0.5 gf/cm² (49.03 Pa).
const PressureT0 = 0.5

// CompressionCurve is the KES-FB3 loading curve, pressure against
// thickness, in SI. It runs from (T0, P0) to (TM, P_m), with P0 the 0.5
// gf/cm² at which T0 is read, and the area under it, WC = ∫ P dT from TM to
// T0, is the file's WC exactly: P = P0 + (P_m − P0)·g(δ/δ_m) with δ = T0 − T
// and g the shape of the same family as the tensile curve. Its linearity
// WC/(P_m·(T0−TM)/2) is the file's LC to within the identity tolerance.
type CompressionCurve struct {
	T0, TM float64 // thickness at P0 and at P_m [m]
	P0, Pm float64 // [Pa]
	Energy float64 // WC [J/m²]
	shape  shape
}

// NewCompressionCurve builds the curve from KES values: wc [gf·cm/cm²], t0
// and tm [mm], pm [gf/cm²].
func NewCompressionCurve(wc, t0, tm, pm float64) (CompressionCurve, error) {
	if !(wc > 0) || !(t0 > tm) || !(tm > 0) || !(pm > PressureT0) || math.IsInf(wc+t0+tm+pm, 0) {
		return CompressionCurve{}, fmt.Errorf("kes: compression curve needs WC > 0, T0 > TM > 0, P_m > %v gf/cm², all finite; got WC %v, T0 %v mm, TM %v mm, P_m %v", PressureT0, wc, t0, tm, pm)
	}
	dm := (t0 - tm) / 10 // cm
	s, err := newShape((wc/dm - PressureT0) / (pm - PressureT0))
	if err != nil {
		return CompressionCurve{}, fmt.Errorf("kes: compression curve (WC %v, T0 %v mm, TM %v mm, P_m %v): %w", wc, t0, tm, pm, err)
	}
	p := units[kindPressure].siFactor
	return CompressionCurve{T0: t0 * 1e-3, TM: tm * 1e-3, P0: PressureT0 * p, Pm: pm * p,
		Energy: wc * units[kindEnergyPerArea].siFactor, shape: s}, nil
}

// Pressure [Pa] at thickness t [m]; thicker than T0 continues the curve's
// initial slope (so it goes below P0 and reaches zero: the fabric lifts off).
func (c CompressionCurve) Pressure(t float64) float64 {
	p := c.P0 + (c.Pm-c.P0)*c.shape.g((c.T0-t)/(c.T0-c.TM))
	return math.Max(p, 0)
}

// Stiffness is the tangent −dP/dT [Pa/m] at thickness t.
func (c CompressionCurve) Stiffness(t float64) float64 {
	return (c.Pm - c.P0) / (c.T0 - c.TM) * c.shape.dg((c.T0-t)/(c.T0-c.TM))
}

// SecantStiffness is (P_m − P0)/(T0 − TM) [Pa/m].
func (c CompressionCurve) SecantStiffness() float64 { return (c.Pm - c.P0) / (c.T0 - c.TM) }

// Linearity is the curve's KES LC, WC/(P_m·(T0−TM)/2).
func (c CompressionCurve) Linearity() float64 {
	return c.Energy / (c.Pm * (c.T0 - c.TM) / 2)
}

// Points samples the curve at n ≥ 2 thicknesses from T0 down to TM,
// appending to dst.
func (c CompressionCurve) Points(dst []Point, n int) []Point {
	return sample(dst, n, c.T0, c.TM, c.Pressure)
}

// Friction is the KES-FB4 friction of one stroke direction. Mu and MuDev are
// KES MIU and MMD; MuSigma = √(π/2)·MMD ≈ 1.2533·MMD is the standard
// deviation of a Gaussian friction trace whose mean absolute deviation is
// MMD. These are steel wire on fabric, not skin on fabric.
type Friction struct {
	Mu, MuDev, MuSigma float64
}

// Roughness is the KES-FB4 geometrical roughness of one stroke direction:
// SMD [m] and SigmaH = √(π/2)·SMD [m], the standard deviation of a Gaussian
// height profile with mean absolute deviation SMD. The Ø0.5 mm
// probe low-passes the profile: wavelengths below about 1 mm are attenuated.
type Roughness struct {
	SMD, SigmaH float64
}

// gaussMADToSigma is σ/MAD for a Gaussian, √(π/2).
var gaussMADToSigma = math.Sqrt(math.Pi / 2)

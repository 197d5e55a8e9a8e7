package sim

import (
	"fmt"
	"math"
)

// Material is a fabric's mechanical description, in SI units, as the
// simulation uses it. calib/kes fills it from Kawabata (KES-F) data; the
// doc of each field says which KES quantity it corresponds to.
//
// In-plane behaviour follows Volino's accurate triangle element: three
// independent nonlinear curves for weft, warp and shear, an optional Poisson
// coupling and Kelvin-Voigt viscosity per direction. Bending is linear
// (Volino's linear bending), anisotropic between weft and warp.
type Material struct {
	Name string

	// Weft and Warp are the uniaxial tensile curves: engineering strain [-]
	// against force per unit width [N/m] (KES tensile test; gf/cm × 0.980665).
	// The strain range should reach the strains the cloth sees (the curve
	// continues linearly beyond it); including compression points (negative
	// strain) sets the in-plane compression stiffness, otherwise the slope at
	// the first point is used.
	Weft, Warp Curve
	// Shear is the shear curve: shear angle [rad] against shear force per
	// unit width [N/m] (KES shear test; gf/cm against degrees). The element
	// measures shear from the diagonal lengths, εuv = (|U+V| - |U-V|)/√2,
	// which equals 2·sin(γ/2) for a shear angle γ (within 0.05 % of γ up to
	// 0.1 rad).
	Shear Curve
	// Poisson is the geometric mean √(νuv·νvu) of the two Poisson ratios
	// [-], in [0, 0.9). 0 (the default, and what KES data imply: KES does not
	// measure it) keeps weft and warp independent. With Poisson > 0 a linear
	// material behaves exactly as the classical orthotropic plane-stress law;
	// a nonlinear one reproduces its tensile curves within ν²/(1-ν²) of their
	// departure from the initial slope.
	Poisson float64
	// Viscosity holds the Kelvin-Voigt coefficients: stress per strain rate
	// [N·s/m] for weft, warp and shear.
	Viscosity Viscosity

	// BendWeft and BendWarp are the bending rigidities [N·m]: moment per unit
	// width per unit curvature (KES B in gf·cm²/cm × 9.80665e-5). BendWeft
	// resists curvature along the weft (u), i.e. folds whose line runs along
	// the warp; BendWarp resists curvature along the warp (v).
	BendWeft, BendWarp float64
	// BendTwist is the twisting rigidity [N·m] (energy BendTwist·κuv² per
	// area). 0 selects √(BendWeft·BendWarp), the value of a plate with no
	// bending Poisson effect.
	BendTwist float64

	ArealMass float64 // mass per area [kg/m²] (KES W in mg/cm² × 0.01)
	Thickness float64 // [m] (KES T0, at 0.5 gf/cm²)
	// Compression is the contact pressure per metre of thickness compression
	// [Pa/m] at the finger pads (from KES: (50 - 0.5 gf/cm²)·98.0665/(T0 -
	// TM) Pa/m).
	Compression float64
	// FrictionStatic and FrictionKinetic are the Coulomb coefficients between
	// fingertip and fabric [-]; 0 <= kinetic <= static.
	FrictionStatic, FrictionKinetic float64
	// LayerFriction is the Coulomb coefficient between two layers of the
	// fabric in self-contact [-] (0: FrictionKinetic).
	LayerFriction float64
	// Hysteresis is the fabric's internal friction (the zero value: none,
	// the fabric is elastic and steps exactly as one without the field).
	Hysteresis Hysteresis
}

// Hysteresis is the internal friction of the fabric's in-plane modes and
// of its bending, the augmented Dahl model of Miguel et al. ("Modeling and estimation of
// internal friction in cloth", ACM TOG 32(6):212, 2013; see Dahl): per
// element and mode a friction stress z added to the elastic one, which
// approaches ±S(ε) over the characteristic deformation whichever way the
// deformation ε moves, whatever its rate. A loading-unloading cycle that
// saturates traces a loop of width 2·S(ε). A mode whose saturation is zero
// has no friction.
type Hysteresis struct {
	// Weft and Warp are the tensile saturations as fractions of the
	// elastic stress of their direction [-], in [0, 1): S = r·|σ(ε)|, so
	// a tensile cycle loads along (1+r)·σ and unloads along (1-r)·σ and
	// recovers (1-r)/(1+r) of its work (KES RT).
	Weft, Warp float64
	// TensileStrain is the tensile modes' characteristic strain [-] (> 0
	// when Weft or Warp is).
	TensileStrain float64
	// Shear05 and Shear5 are the shear saturations [N/m] at 0.5° and 5° of
	// shear angle; between and beyond them S is linear in |γ|, never
	// negative (the half-widths of KES's shear loop, 2HG/2 and 2HG5/2).
	Shear05, Shear5 float64
	// ShearAngle is the shear mode's characteristic angle [rad] (> 0 when
	// Shear05 or Shear5 is).
	ShearAngle float64
	// BendWeft and BendWarp are the bending saturations [N·m/m = N]: the
	// friction moment per width that curvature along u (BendWeft) and
	// along v (BendWarp) saturates at, constant (half KES's bending loop
	// width, 2HB/2).
	BendWeft, BendWarp float64
	// BendCurvature is the bending modes' characteristic curvature [1/m]
	// (> 0 when BendWeft or BendWarp is).
	BendCurvature float64
}

// tensileOn and shearOn report which modes have friction.
func (h *Hysteresis) tensileOn() bool { return h.Weft > 0 || h.Warp > 0 }
func (h *Hysteresis) shearOn() bool   { return h.Shear05 > 0 || h.Shear5 > 0 }
func (h *Hysteresis) bendOn() bool    { return h.BendWeft > 0 || h.BendWarp > 0 }

func (h *Hysteresis) validate() error {
	for _, p := range []struct {
		name   string
		v, max float64
	}{
		{"weft", h.Weft, 1}, {"warp", h.Warp, 1}, {"tensile strain", h.TensileStrain, math.Inf(1)},
		{"shear at 0.5°", h.Shear05, math.Inf(1)}, {"shear at 5°", h.Shear5, math.Inf(1)}, {"shear angle", h.ShearAngle, math.Inf(1)},
		{"weft bending", h.BendWeft, math.Inf(1)}, {"warp bending", h.BendWarp, math.Inf(1)}, {"bending curvature", h.BendCurvature, math.Inf(1)},
	} {
		if !isFinite(p.v) || p.v < 0 || p.v >= p.max {
			return fmt.Errorf("hysteresis: %s %g outside [0, %g)", p.name, p.v, p.max)
		}
	}
	if h.tensileOn() && h.TensileStrain == 0 {
		return fmt.Errorf("hysteresis: tensile saturation without a characteristic strain")
	}
	if h.shearOn() && h.ShearAngle == 0 {
		return fmt.Errorf("hysteresis: shear saturation without a characteristic angle")
	}
	if h.bendOn() && h.BendCurvature == 0 {
		return fmt.Errorf("hysteresis: bending saturation without a characteristic curvature")
	}
	return nil
}

// Viscosity holds Kelvin-Voigt coefficients, stress per strain rate [N·s/m].
type Viscosity struct {
	Weft, Warp, Shear float64
}

// Validate reports the first reason m cannot be simulated.
func (m *Material) Validate() error {
	for _, c := range []struct {
		name string
		c    Curve
	}{{"weft", m.Weft}, {"warp", m.Warp}, {"shear", m.Shear}} {
		if err := c.c.Validate(); err != nil {
			return fmt.Errorf("sim: material %q: %s curve: %w", m.Name, c.name, err)
		}
	}
	for _, p := range []struct {
		name     string
		v        float64
		lo, hi   float64
		openHigh bool
	}{
		{"poisson", m.Poisson, 0, 0.9, true},
		{"weft viscosity", m.Viscosity.Weft, 0, math.Inf(1), false},
		{"warp viscosity", m.Viscosity.Warp, 0, math.Inf(1), false},
		{"shear viscosity", m.Viscosity.Shear, 0, math.Inf(1), false},
		{"bend twist", m.BendTwist, 0, math.Inf(1), false},
		{"static friction", m.FrictionStatic, 0, 10, false},
		{"kinetic friction", m.FrictionKinetic, 0, m.FrictionStatic, false},
		{"layer friction", m.LayerFriction, 0, 10, false},
	} {
		if !isFinite(p.v) || p.v < p.lo || p.v > p.hi || (p.openHigh && p.v == p.hi) {
			return fmt.Errorf("sim: material %q: %s %g outside [%g, %g]", m.Name, p.name, p.v, p.lo, p.hi)
		}
	}
	if err := m.Hysteresis.validate(); err != nil {
		return fmt.Errorf("sim: material %q: %w", m.Name, err)
	}
	for _, p := range []struct {
		name string
		v    float64
	}{
		{"weft bending rigidity", m.BendWeft}, {"warp bending rigidity", m.BendWarp},
		{"areal mass", m.ArealMass}, {"thickness", m.Thickness}, {"compression", m.Compression},
	} {
		if !isFinite(p.v) || p.v <= 0 {
			return fmt.Errorf("sim: material %q: %s %g, want > 0", m.Name, p.name, p.v)
		}
	}
	return nil
}

// isZero reports whether m is the zero Material, which a Config takes
// as DefaultMaterial.
func (m *Material) isZero() bool {
	return m.Name == "" && m.Weft.isZero() && m.Warp.isZero() && m.Shear.isZero() && m.Poisson == 0 &&
		m.Viscosity == (Viscosity{}) && m.BendWeft == 0 && m.BendWarp == 0 && m.BendTwist == 0 &&
		m.ArealMass == 0 && m.Thickness == 0 && m.Compression == 0 && m.FrictionStatic == 0 && m.FrictionKinetic == 0 &&
		m.LayerFriction == 0 && m.Hysteresis == (Hysteresis{})
}

// DefaultMaterial returns a plausible medium-weight cotton plain weave
// (130 g/m², 0.45 mm), so the system runs before measured fabrics are
// loaded. Its curves have the J shape of KES tensile data (a soft crimp
// region, then the yarns' stiffness), B = 0.10 gf·cm²/cm weft and 0.13
// warp, G ≈ 1 gf/cm/deg. Its Peirce bending length is about 2 cm.
func DefaultMaterial() Material {
	return Material{
		Name: "cotton (built-in)",
		Weft: Curve{
			Strain: []float64{0, 0.005, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06},
			Stress: []float64{0, 4, 12, 42, 95, 180, 300, 460},
		},
		Warp: Curve{
			Strain: []float64{0, 0.005, 0.01, 0.02, 0.03, 0.04, 0.05},
			Stress: []float64{0, 7, 22, 75, 170, 320, 500},
		},
		Shear: Curve{
			Strain: []float64{0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3},
			Stress: []float64{0, 1.1, 2.9, 6.3, 10.5, 16, 30},
		},
		Viscosity: Viscosity{Weft: 0.2, Warp: 0.2, Shear: 0.02},
		BendWeft:  0.10 * kesBend,
		BendWarp:  0.13 * kesBend,
		ArealMass: 0.130,
		Thickness: 0.00045,
		// (4903 - 49) Pa over T0 - TM = 0.2 mm.
		Compression:     2.4e7,
		FrictionStatic:  0.5,
		FrictionKinetic: 0.4,
	}
}

// kesBend converts a KES bending rigidity from gf·cm²/cm to N·m.
const kesBend = 9.80665e-5

// layerFriction returns the Coulomb coefficient between layers in use.
func (m *Material) layerFriction() float64 {
	if m.LayerFriction > 0 {
		return m.LayerFriction
	}
	return m.FrictionKinetic
}

// twist returns the twisting rigidity in use.
func (m *Material) twist() float64 {
	if m.BendTwist > 0 {
		return m.BendTwist
	}
	return math.Sqrt(m.BendWeft * m.BendWarp)
}

// law is a compiled Material: the curves as PCHIP tables and the derived
// constants of the in-plane energy density
//
//	ψ(εu, εv, εs) = (Φu(εu) + Φv(εv))/(1 - ν²) + C12·εu·εv + Φs(εs),
//
// where Φ is the integral of a curve's stress. With linear curves this is
// the orthotropic plane-stress law with √(νuv·νvu) = ν.
type law struct {
	m          Material
	u, v, s    pchip
	scale, c12 float64 // 1/(1-ν²) and the Poisson coupling [N/m]
}

func (l *law) set(m Material) {
	l.m = m
	l.u.set(m.Weft)
	l.v.set(m.Warp)
	l.s.set(m.Shear)
	nu := m.Poisson
	l.scale = 1 / (1 - nu*nu)
	_, eu, _ := l.u.eval(0)
	_, ev, _ := l.v.eval(0)
	l.c12 = nu * math.Sqrt(eu*ev) * l.scale
}

// stress is the elastic state of one element: the energy density, its
// gradient (generalised stresses) and Hessian with respect to the three
// strains.
type stress struct {
	psi                float64
	su, sv, ss         float64 // ∂ψ/∂ε
	kuu, kvv, kuv, kss float64 // ∂²ψ/∂ε²
}

func (l *law) eval(eu, ev, es float64, dst *stress) {
	fu, du, pu := l.u.eval(eu)
	fv, dv, pv := l.v.eval(ev)
	fs, ds, ps := l.s.eval(es)
	dst.psi = (pu+pv)*l.scale + l.c12*eu*ev + ps
	dst.su = fu*l.scale + l.c12*ev
	dst.sv = fv*l.scale + l.c12*eu
	dst.ss = fs
	dst.kuu, dst.kvv, dst.kuv, dst.kss = du*l.scale, dv*l.scale, l.c12, ds
}

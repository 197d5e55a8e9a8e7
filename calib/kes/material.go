package kes

import (
	"errors"
	"fmt"
	"math"

	"github.com/haptex/haptex/sim"
)

// Material maps the fabric to the cloth simulation's material (sim.Material,
// SI units). Every field comes from the file's KES values by the formulas
// below; nothing else feeds the simulation.
//
// Axes. The cloth hangs with the warp vertical: sim's v is the warp, u the
// weft. A KES "warp" specimen has its length along the warp, so its tensile
// curve is sim's Warp curve and its bending rigidity resists curvature along
// the warp, sim's BendWarp; "weft" likewise gives Weft and BendWeft.
//
//   - Tensile (Weft, Warp): the raw tensile curve of the direction when the
//     file has one (its loading branch, up to its largest strain, see
//     LoadingBranch), otherwise TensileCurve: through (EMT, F_m), enclosing
//     WT, so its LT is the file's (FORMAT.md, "Curves and constants"). It is
//     sampled at tensileSamples strains over [0, ε_m] and three beyond (1.25,
//     1.5 and 2 ε_m, on its linear continuation), and sim interpolates the
//     samples with PCHIP. Below zero strain sim continues with the slope at
//     the origin (10 % of the secant F_m/ε_m for LT < 1, initialTangent): KES
//     does not measure in-plane compression.
//   - Shear: the straight line of slope G - T [N/(m·rad)], G = 56.188·G
//     [gf/(cm·deg)] (0.980665 × 180/π) the mean of the warp and weft
//     values (sim has one in-plane shear curve), T the test's tension
//     [N/m] (shear.tension, 10 gf/cm = 9.807 N/m). KES-FB1 measures G
//     under that tension, and the force it measures includes the
//     tension's sideways pull on the tilted specimen, T·tan φ: G is the
//     fabric's own shear stiffness plus T per radian. sim's element adds
//     that part itself wherever the cloth is under tension (its stresses
//     act along the deformed directions), so the mapping gives it the
//     fabric's own part, G - T, and the virtual shear test, run under the
//     tension, reads G back (virtualShear). G - T is the mid-line of the
//     KES loop F = G·φ ± h(φ) (ShearLoop) less the tension's part: the
//     loop's elastic part. The hysteresis (2HG, 2HG5) is friction between
//     yarns, a force of about ±h whatever the rate, which sim's Kelvin-Voigt
//     viscosity cannot represent (matched at the instrument's 0.48°/s it
//     would be 10-100 times too strong at handling rates): it goes to sim's
//     internal friction (Hysteresis).
//   - Hysteresis: sim's augmented Dahl model (Miguel et al., ACM TOG
//     32(6):212, 2013; sim.Hysteresis), one friction stress per mode that
//     saturates at ±S(ε) and traces loops of width 2S.
//     Tension: S = r·σ(ε), r = (1 - RT)/(1 + RT) per direction, and the
//     elastic curve σ is the loading curve above divided by 1 + r: loading
//     follows (1+r)·σ, the file's curve, unloading (1-r)·σ, which gives
//     back (1-r)/(1+r) of the work, RT. The characteristic strain is
//     tensileFrictionStrain of the smaller EMT.
//     Shear: S at 0.5° and 5° = 2HG/2 and 2HG5/2 (mean of warp and weft),
//     linear in the angle between, as ShearLoop; characteristic angle
//     shearFrictionAngle. The loop's mid-line stays the elastic curve, so G
//     is the mean slope of the two branches, as KES reads it.
//     A file without RT (or 2HG and 2HG5) has no friction in that mode and
//     Bending: S = 2HB/2 per direction, constant (KES's loop M = B·K ±
//     2HB/2), on sim's weft and warp bending hinges; characteristic
//     curvature bendFrictionCurvature.
//     A file without RT (or 2HG and 2HG5, or 2HB) has no friction in that
//     mode and maps exactly as a purely elastic fabric.
//   - Viscosity: zero. KES measures no rate dependence, and no standard
//     measurement of textile viscosity exists (Lyard, Luible, Volino et
//     al., "Advanced Topics in Virtual Garment Simulation", Eurographics
//     2007 tutorial, part 2); the implicit integrator's own dissipation
//     damps the cloth.
//   - Poisson: zero; KES does not measure it (sim.Material's default).
//   - BendWarp, BendWeft: B of the warp and weft [N·m] = 9.80665e-5·B
//     [gf·cm²/cm], the slope of the KES loop's mid-line M = B·K ± 2HB/2.
//     BendTwist is left to sim (√(BendWeft·BendWarp), no bending Poisson
//     effect).
//   - ArealMass: W [kg/m²] = 0.01·W [mg/cm²].
//   - Thickness: T0 [m], the thickness at 0.5 gf/cm², which is where a
//     finger first touches.
//   - Compression: the secant (P_m − P0)/(T0 − TM) [Pa/m] of the KES-FB3
//     curve from (T0, P0 = 0.5 gf/cm²) to (TM, P_m) (sim's documented
//     formula). Fingertip pressures (1 N on 1 cm² is 10 kPa)
//     exceed P_m (4.9 kPa at 50 gf/cm²), so the whole curve is in use.
//   - FrictionKinetic, FrictionStatic: see FingerFriction.
//
// Material returns an error, naming the file and the field, only when a raw
// tensile curve cannot be used (validation already rejects those) or sim
// rejects the result.
func (f *Fabric) Material() (sim.Material, error) {
	m := sim.Material{Name: f.Name}
	var err error
	if m.Warp, err = f.simTensile(Warp); err != nil {
		return sim.Material{}, err
	}
	if m.Weft, err = f.simTensile(Weft); err != nil {
		return sim.Material{}, err
	}
	m.Hysteresis = f.hysteresis()
	divide(&m.Warp, 1+m.Hysteresis.Warp)
	divide(&m.Weft, 1+m.Hysteresis.Weft)
	g, t := f.ShearModulus(Bias), f.Shear.Tension.SI
	if !(g > t) {
		return sim.Material{}, fmt.Errorf("kes: %s: shear G %.4g gf/(cm·deg) is no more than the part of it the test's tension of %.4g gf/cm makes (%.4g gf/(cm·deg)): the fabric would have no shear stiffness of its own",
			f.File, f.ShearModulus(Bias)/units[kindShearStiffness].siFactor, f.Shear.Tension.Value, t/units[kindShearStiffness].siFactor)
	}
	m.Shear = sim.LinearCurve(g - t)
	m.BendWarp = f.BendingRigidity(Warp)
	m.BendWeft = f.BendingRigidity(Weft)
	m.ArealMass = f.ArealMass()
	m.Thickness, _ = f.Thickness()
	cc, err := f.CompressionCurve()
	if err != nil {
		return sim.Material{}, err
	}
	m.Compression = cc.SecantStiffness()
	m.FrictionStatic, m.FrictionKinetic = f.FingerFriction()
	if err := m.Validate(); err != nil {
		return sim.Material{}, fmt.Errorf("kes: %s: %w", f.File, err)
	}
	return m, nil
}

// The characteristic deformations of the friction (sim.Hysteresis): a
// hundredth of the smaller EMT in tension, a quarter of a degree in shear,
// a tenth of 1/cm in bending. KES records no loop's reversal, so these are
// choices: small enough that the loops saturate well within the
// instrument's readings (KES reads 2HG5 3° after the reversal at 8°, where
// a quarter degree leaves e^-12 of the transient; 2HB 1.5 1/cm after the
// reversal at 2.5 1/cm, e^-15), large enough to keep the friction's
// initial stiffness, S over the characteristic deformation, within about
// ten times the elastic stiffness (in bending 2HB/(0.2 1/cm) is 2.0 to
// 4.8 times B for the built-in fabrics).
const (
	tensileFrictionStrain = 0.01
	shearFrictionAngle    = 0.25 * math.Pi / 180
	bendFrictionCurvature = 0.1 / 0.01 // 0.1 1/cm [1/m]
)

// hysteresis is the fabric's internal friction for sim (see Material).
func (f *Fabric) hysteresis() sim.Hysteresis {
	var h sim.Hysteresis
	ratio := func(t *TensileValues) float64 {
		if t == nil || t.RT == nil {
			return 0
		}
		return (1 - t.RT.SI) / (1 + t.RT.SI)
	}
	h.Warp, h.Weft = ratio(f.Tensile.Warp), ratio(f.Tensile.Weft)
	if h.Warp > 0 || h.Weft > 0 {
		h.TensileStrain = tensileFrictionStrain * math.Min(f.Tensile.Warp.EMT.SI, f.Tensile.Weft.EMT.SI)
	}
	w, e := f.Shear.Warp, f.Shear.Weft
	if w.TwoHG != nil && e.TwoHG != nil && w.TwoHG5 != nil && e.TwoHG5 != nil {
		h.Shear05 = (w.TwoHG.SI + e.TwoHG.SI) / 4
		h.Shear5 = (w.TwoHG5.SI + e.TwoHG5.SI) / 4
		if h.Shear05 > 0 || h.Shear5 > 0 {
			h.ShearAngle = shearFrictionAngle
		}
	}
	half := func(b *BendingValues) float64 {
		if b == nil || b.TwoHB == nil {
			return 0
		}
		return b.TwoHB.SI / 2
	}
	h.BendWarp, h.BendWeft = half(f.Bending.Warp), half(f.Bending.Weft)
	if h.BendWarp > 0 || h.BendWeft > 0 {
		h.BendCurvature = bendFrictionCurvature
	}
	return h
}

// divide divides a curve's stresses by k.
func divide(c *sim.Curve, k float64) {
	if k == 1 {
		return
	}
	for i := range c.Stress {
		c.Stress[i] /= k
	}
}

// tensileSamples is the number of strains at which a KES-consistent tensile
// curve is sampled over [0, ε_m]. With 33 the PCHIP interpolant of the
// sampled curve encloses WT within 0.1 % for every LT of the physical range
// (TestMaterialTensileCurves).
const tensileSamples = 33

// simTensile is the sim curve of direction d.
func (f *Fabric) simTensile(d Direction) (sim.Curve, error) {
	if i, ok := f.rawTensile(d); ok {
		c, err := LoadingBranch(f.Curves[i].SI)
		if err != nil {
			return sim.Curve{}, fmt.Errorf("kes: %s: curves[%d] (tensile %s): %w", f.File, i, f.Curves[i].Direction, err)
		}
		return c, nil
	}
	tc, err := f.TensileCurve(d)
	if err != nil {
		return sim.Curve{}, err
	}
	var c sim.Curve
	for i := range tensileSamples {
		e := tc.StrainMax * float64(i) / (tensileSamples - 1)
		c.Strain = append(c.Strain, e)
		c.Stress = append(c.Stress, tc.Force(e))
	}
	for _, x := range []float64{1.25, 1.5, 2} {
		c.Strain = append(c.Strain, x*tc.StrainMax)
		c.Stress = append(c.Stress, tc.Force(x*tc.StrainMax))
	}
	return c, nil
}

// rawTensile returns the index of the raw tensile curve that applies to
// direction d: the direction's own, or a mean curve (validation allows at
// most one of them).
func (f *Fabric) rawTensile(d Direction) (int, bool) {
	for i, c := range f.Curves {
		if c.Test == "tensile" && (c.Direction == d.String() || c.Direction == "mean") {
			return i, true
		}
	}
	return 0, false
}

// LoadingBranch turns a raw KES-FB1 tensile trace (SI points in recorded
// order, loading then unloading) into a sim curve: the points up to the
// first of largest strain, with the origin prepended when the trace starts
// at a positive strain (slack taken up). The strain must increase along the branch and the
// force must not fall and must start at zero: the trace is the instrument's
// record, so a dip is an error in the file, not something to smooth over.
func LoadingBranch(pts []Point) (sim.Curve, error) {
	if len(pts) < 2 {
		return sim.Curve{}, fmt.Errorf("%d points, want at least 2", len(pts))
	}
	end := 0
	for i, p := range pts {
		if p.X > pts[end].X {
			end = i
		}
	}
	br := pts[:end+1]
	var c sim.Curve
	switch {
	case br[0].X < 0:
		return sim.Curve{}, fmt.Errorf("the loading branch starts at strain %.4g %%, below zero", 100*br[0].X)
	case br[0].X == 0 && br[0].Y != 0, br[0].Y < 0:
		return sim.Curve{}, fmt.Errorf("the loading branch starts at %.4g gf/cm, want 0 at zero strain (the trace starts unloaded)", br[0].Y/units[kindForcePerWidth].siFactor)
	case br[0].X > 0:
		c.Strain, c.Stress = append(c.Strain, 0), append(c.Stress, 0)
	}
	for i, p := range br {
		if i > 0 && !(p.X > br[i-1].X) {
			return sim.Curve{}, fmt.Errorf("point %d: strain %.4g %% does not increase from %.4g %% along the loading branch", i, 100*p.X, 100*br[i-1].X)
		}
		if i > 0 && p.Y < br[i-1].Y {
			return sim.Curve{}, fmt.Errorf("point %d: force %.4g gf/cm falls from %.4g gf/cm along the loading branch", i,
				p.Y/units[kindForcePerWidth].siFactor, br[i-1].Y/units[kindForcePerWidth].siFactor)
		}
		c.Strain, c.Stress = append(c.Strain, p.X), append(c.Stress, p.Y)
	}
	if len(c.Strain) < 2 {
		return sim.Curve{}, errors.New("the loading branch has a single point")
	}
	if err := c.Validate(); err != nil {
		return sim.Curve{}, fmt.Errorf("loading branch: %w", err)
	}
	return c, nil
}

// staticExcess is how far the static friction coefficient lies above the
// kinetic one, in standard deviations of the friction trace: 2σ, the 97.7th
// percentile of a Gaussian trace.
const staticExcess = 2

// FingerFriction returns the Coulomb coefficients (static, kinetic) between
// fingertip and fabric that the simulation's contact uses.
//
// Kinetic: the measured skin-on-fabric coefficient when the file has one,
// else KES MIU (mean of the warp and weft strokes), as the tactile mapping
// does (SurfaceParams). MIU is the mean friction of steel wires sliding on
// the fabric (KES-FB4), not skin: skin friction differs and depends on
// moisture, so a file with [skin] is better.
//
// Static: KES measures no static friction (the FB4 probe is always
// sliding); sliding starts at a higher coefficient than it continues at
// (Lyard, Luible, Volino et al., "Advanced Topics in Virtual Garment
// Simulation", Eurographics 2007 tutorial, part 2). haptex puts the onset
// where the sliding trace's peaks reach: μ_s = μ_k + 2σ,
// σ = √(π/2)·MMD·μ_k/MIU the standard deviation of a Gaussian friction
// trace whose mean deviation is MMD, scaled from the wire to the finger as
// the tactile renderer scales it.
// This is a modelling choice, not a KES result; MIU 0.2 and MMD 0.02 give
// μ_s = 0.25 against μ_k = 0.2.
func (f *Fabric) FingerFriction() (static, kinetic float64) {
	fr := f.Friction(Bias)
	kinetic = fr.Mu
	if mu, ok := f.SkinFriction(); ok {
		kinetic = mu
	}
	sigma := fr.MuSigma * kinetic / fr.Mu
	return kinetic + staticExcess*sigma, kinetic
}

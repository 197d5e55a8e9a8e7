package kes

import (
	"fmt"
	"math"
)

// The fabric's physical quantities in SI units. The methods below read a
// loaded Fabric (from Parse, LoadFile, Builtin or Library.Load: every
// required value present and in canonical units). Bias asks for the mean of
// warp and weft where KES measures no bias value.

func (f *Fabric) tensileValues(d Direction) (*TensileValues, error) {
	switch d {
	case Warp:
		return f.Tensile.Warp, nil
	case Weft:
		return f.Tensile.Weft, nil
	case Bias:
		if f.Tensile.Bias != nil {
			return f.Tensile.Bias, nil
		}
		return nil, fmt.Errorf("kes: %s: tensile.bias: the file gives no bias tensile values", f.Name)
	}
	return nil, fmt.Errorf("kes: %s: direction %d is not warp, weft or bias", f.Name, int(d))
}

// TensileCurve is the loading curve of direction d (see TensileCurve).
func (f *Fabric) TensileCurve(d Direction) (TensileCurve, error) {
	t, err := f.tensileValues(d)
	if err != nil {
		return TensileCurve{}, err
	}
	c, err := NewTensileCurve(t.EMT.Value, t.WT.Value, f.Tensile.MaxLoad.Value)
	if err != nil {
		return TensileCurve{}, fmt.Errorf("kes: %s: tensile.%s: %w", f.Name, d, err)
	}
	return c, nil
}

// TensileLoss is the fraction of the tensile work lost per load-unload
// cycle, 1 − RT/100 (RT is the share of the tensile work recovered).
func (f *Fabric) TensileLoss(d Direction) (float64, error) {
	t, err := f.tensileValues(d)
	if err != nil {
		return 0, err
	}
	return 1 - t.RT.SI, nil
}

// dirMean returns warp's or weft's value of a quantity, or their mean for
// Bias.
func dirMean(d Direction, warp, weft float64) float64 {
	switch d {
	case Warp:
		return warp
	case Weft:
		return weft
	}
	return (warp + weft) / 2
}

// ShearLoop is the shear hysteresis loop of direction d (see ShearLoop).
func (f *Fabric) ShearLoop(d Direction) (ShearLoop, error) {
	w, e := f.Shear.Warp, f.Shear.Weft
	l, err := NewShearLoop(dirMean(d, w.G.Value, e.G.Value), dirMean(d, w.TwoHG.Value, e.TwoHG.Value),
		dirMean(d, w.TwoHG5.Value, e.TwoHG5.Value), f.Shear.MaxAngle.Value)
	if err != nil {
		return ShearLoop{}, fmt.Errorf("kes: %s: shear.%s: %w", f.Name, d, err)
	}
	return l, nil
}

// ShearModulus is the membrane shear stiffness 56.188·G [N/(m·rad)] of
// direction d (0.980665 × 180/π per gf/(cm·deg)). KES measures it under
// 10 gf/cm tension, so it overstates the shear stiffness of an unloaded
// fabric.
func (f *Fabric) ShearModulus(d Direction) float64 {
	return dirMean(d, f.Shear.Warp.G.SI, f.Shear.Weft.G.SI)
}

// BendingLoop is the bending hysteresis loop of direction d (see
// BendingLoop).
func (f *Fabric) BendingLoop(d Direction) (BendingLoop, error) {
	w, e := f.Bending.Warp, f.Bending.Weft
	l, err := NewBendingLoop(dirMean(d, w.B.Value, e.B.Value), dirMean(d, w.TwoHB.Value, e.TwoHB.Value), f.Bending.MaxCurvature.Value)
	if err != nil {
		return BendingLoop{}, fmt.Errorf("kes: %s: bending.%s: %w", f.Name, d, err)
	}
	return l, nil
}

// BendingRigidity is B of direction d in N·m (N·m²/m): B [gf·cm²/cm] ×
// 9.80665e-5.
func (f *Fabric) BendingRigidity(d Direction) float64 {
	return dirMean(d, f.Bending.Warp.B.SI, f.Bending.Weft.B.SI)
}

// ArealMass is W in kg/m²: W [mg/cm²] × 0.01.
func (f *Fabric) ArealMass() float64 { return f.Mass.W.SI }

// Thickness returns T0 (at 0.5 gf/cm²) and TM (at P_m) in metres.
func (f *Fabric) Thickness() (t0, tm float64) {
	return f.Compression.T0.SI, f.Compression.TM.SI
}

// CompressionCurve is the compression loading curve (see CompressionCurve).
func (f *Fabric) CompressionCurve() (CompressionCurve, error) {
	m := f.Compression
	c, err := NewCompressionCurve(m.WC.Value, m.T0.Value, m.TM.Value, m.MaxPressure.Value)
	if err != nil {
		return CompressionCurve{}, fmt.Errorf("kes: %s: compression: %w", f.Name, err)
	}
	return c, nil
}

// BendingLength is Peirce's cantilever bending length c = (B/(W·g))^(1/3)
// [m] of direction d (Peirce 1930: B = 0.1 gf·cm²/cm and W = 20 mg/cm²
// give 1.71 cm). The virtual cantilever test checks the simulation against
// it.
func (f *Fabric) BendingLength(d Direction) float64 {
	return math.Cbrt(f.BendingRigidity(d) / (f.ArealMass() * StandardGravity))
}

// Friction is the KES wire-on-fabric friction of stroke direction d.
func (f *Fabric) Friction(d Direction) Friction {
	w, e := f.Surface.Warp, f.Surface.Weft
	mmd := dirMean(d, w.MMD.Value, e.MMD.Value)
	return Friction{Mu: dirMean(d, w.MIU.Value, e.MIU.Value), MuDev: mmd, MuSigma: gaussMADToSigma * mmd}
}

// Roughness is the KES geometrical roughness of stroke direction d.
func (f *Fabric) Roughness(d Direction) Roughness {
	smd := dirMean(d, f.Surface.Warp.SMD.SI, f.Surface.Weft.SMD.SI)
	return Roughness{SMD: smd, SigmaH: gaussMADToSigma * smd}
}

// SkinFriction is the measured skin-on-fabric friction coefficient, when
// the file has one.
func (f *Fabric) SkinFriction() (mu float64, ok bool) {
	if f.Skin == nil || f.Skin.Mu == nil {
		return 0, false
	}
	return f.Skin.Mu.Value, true
}

// ThreadSpacing returns the distance between warp yarns (1/ends) and between
// weft yarns (1/picks) in metres; for knits, between wales and courses.
func (f *Fabric) ThreadSpacing() (warp, weft float64) {
	return 1 / f.Weave.EndsPerCm.SI, 1 / f.Weave.PicksPerCm.SI
}

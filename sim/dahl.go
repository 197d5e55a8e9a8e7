package sim

import "math"

// Dahl is one internal-friction element of the fabric: Dahl's friction
// model with exponent one (Dahl, "A solid friction model", Aerospace
// Corp. TOR-0158(3107-18)-1, 1968), in the form Miguel, Tamstorf,
// Bradley, Schvartzman, Thomaszewski, Bickel, Matusik, Marschner and
// Otaduy use for cloth ("Modeling and estimation of internal friction in
// cloth", ACM TOG 32(6):212, 2013): a friction stress z that follows a
// deformation ε,
//
//	dz/dε = (Saturation - sign(dε/dt)·z) / Strain,
//
// so that z approaches ±Saturation exponentially, over the
// characteristic deformation Strain, whichever way ε moves, whatever its
// rate. The stress felt is the elastic one plus z; a deformation cycle
// that saturates both ways traces a loop of width 2·Saturation. Miguel et
// al. augment the model by letting the saturation depend on the
// deformation; the cloth evaluates it at the start of each step (see
// Hysteresis), so within a step it is constant and Step is exact.
//
// Units are the caller's: a strain and a force per width for stretch and
// shear, a curvature [1/m] and a moment per width [N] for bending.
type Dahl struct {
	Saturation float64 // the stress z approaches, ≥ 0
	Strain     float64 // the characteristic deformation over which it does, > 0
}

// Step returns the friction stress after the deformation moves by de from
// a state where it is z, its derivative dz/dε at the end of the move and
// the work ∫z dε done over it: exactly, for z relaxing from z towards
// sign(de)·Saturation with decay length Strain,
//
//	z(de) = zt + (z - zt)·exp(-|de|/Strain),   zt = sign(de)·Saturation.
//
// The work is the friction's part of the step's incremental potential:
// within a step the friction stress is the derivative of it. dir (+1 or
// -1) is the direction the deformation last moved, which gives the
// derivative when de is zero.
func (d Dahl) Step(z, de, dir float64) (zNew, dz, work float64) {
	if de == 0 {
		return z, (d.Saturation - dir*z) / d.Strain, 0
	}
	s := math.Copysign(1, de)
	zt := s * d.Saturation
	a := math.Abs(de) / d.Strain
	keep := math.Exp(-a)    // what remains of the distance to zt
	gone := -math.Expm1(-a) // 1 - keep, accurate for small moves
	zNew = zt + (z-zt)*keep
	dz = (d.Saturation - s*zNew) / d.Strain
	work = zt*de + (z-zt)*d.Strain*gone*s
	return zNew, dz, work
}

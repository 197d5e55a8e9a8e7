package sim

import (
	"fmt"
	"math"
	"time"
)

// fabric is the material in effect: normally one compiled law; during a
// SetMaterial ramp a blend of the old and the new one, with every quantity
// (energy density, stresses, stiffnesses, masses, bending rigidities,
// contact and friction parameters) interpolated with the same weight, so
// the blended forces stay the exact gradient of the blended energy.
type fabric struct {
	cur, old law
	w        float64 // weight of old, ramps from 1 to 0
	rate     float64 // its decrease per second

	m                            *mesh
	mass                         []float64 // per node [kg]
	eta                          Viscosity
	bend                         [3]float64 // rigidities in effect: weft, warp, twist
	areal                        float64
	thick, compression, muS, muK float64
	layerMu                      float64 // Coulomb coefficient between layers
	hyst                         Hysteresis
	hystOn                       bool   // some in-plane mode of hyst has friction (the triangles')
	gen                          uint64 // counts the updates
}

func (f *fabric) init(mat *Material, m *mesh) {
	f.m = m
	f.mass = make([]float64, m.nodes())
	f.cur.set(*mat)
	f.w = 0
	f.update()
}

// set replaces the material, blending from the one in effect over ramp
// seconds (0 switches at once).
func (f *fabric) set(mat *Material, ramp float64) {
	if f.w > 0 {
		// A ramp still running ends now: its target becomes the old law.
		f.w = 0
	}
	f.old, f.cur = f.cur, f.old
	f.cur.set(*mat)
	if ramp > 0 {
		f.w, f.rate = 1, 1/ramp
	}
	f.update()
}

// advance moves a running ramp forward by dt.
func (f *fabric) advance(dt float64) {
	if f.w == 0 {
		return
	}
	f.w = math.Max(0, f.w-f.rate*dt)
	f.update()
}

func (f *fabric) mix(a, b float64) float64 { return (1-f.w)*a + f.w*b }

func (f *fabric) update() {
	f.gen++
	c, o := &f.cur.m, &f.old.m
	if f.w == 0 {
		o = c
	}
	f.areal = f.mix(c.ArealMass, o.ArealMass)
	for k, a := range f.m.area {
		f.mass[k] = a * f.areal
	}
	f.eta = Viscosity{
		Weft:  f.mix(c.Viscosity.Weft, o.Viscosity.Weft),
		Warp:  f.mix(c.Viscosity.Warp, o.Viscosity.Warp),
		Shear: f.mix(c.Viscosity.Shear, o.Viscosity.Shear),
	}
	f.bend = [3]float64{f.mix(c.BendWeft, o.BendWeft), f.mix(c.BendWarp, o.BendWarp), f.mix(c.twist(), o.twist())}
	f.m.setBending(f.bend[0], f.bend[1], f.bend[2])
	f.thick = f.mix(c.Thickness, o.Thickness)
	f.compression = f.mix(c.Compression, o.Compression)
	f.muS = f.mix(c.FrictionStatic, o.FrictionStatic)
	f.muK = f.mix(c.FrictionKinetic, o.FrictionKinetic)
	f.layerMu = f.mix(c.layerFriction(), o.layerFriction())
	ch, oh := &c.Hysteresis, &o.Hysteresis
	f.hyst = Hysteresis{
		Weft: f.mix(ch.Weft, oh.Weft), Warp: f.mix(ch.Warp, oh.Warp), TensileStrain: f.mix(ch.TensileStrain, oh.TensileStrain),
		Shear05: f.mix(ch.Shear05, oh.Shear05), Shear5: f.mix(ch.Shear5, oh.Shear5), ShearAngle: f.mix(ch.ShearAngle, oh.ShearAngle),
		BendWeft: f.mix(ch.BendWeft, oh.BendWeft), BendWarp: f.mix(ch.BendWarp, oh.BendWarp), BendCurvature: f.mix(ch.BendCurvature, oh.BendCurvature),
	}
	f.hystOn = f.hyst.tensileOn() || f.hyst.shearOn()
}

// eval is law.eval for the material in effect.
func (f *fabric) eval(eu, ev, es float64, dst *stress) {
	f.cur.eval(eu, ev, es, dst)
	if f.w == 0 {
		return
	}
	var o stress
	f.old.eval(eu, ev, es, &o)
	dst.psi = f.mix(dst.psi, o.psi)
	dst.su, dst.sv, dst.ss = f.mix(dst.su, o.su), f.mix(dst.sv, o.sv), f.mix(dst.ss, o.ss)
	dst.kuu, dst.kvv = f.mix(dst.kuu, o.kuu), f.mix(dst.kvv, o.kvv)
	dst.kuv, dst.kss = f.mix(dst.kuv, o.kuv), f.mix(dst.kss, o.kss)
}

// MaterialRamp is the blending time SetMaterial is tested with.
const MaterialRamp = 250 * time.Millisecond

// SetMaterial changes the fabric between trials without a jerk. Positions
// and velocities are kept; the old material blends into the new one over
// ramp of simulation time (every quantity interpolated alike), so
// the cloth drifts to its new equilibrium instead of being kicked. With the
// cloth at rest and ramp = MaterialRamp, the kinetic energy the switch
// releases stays below 1 % of the cloth's elastic and bending energy, far
// below an instant switch's (TestSetMaterialSmooth). ramp = 0 switches at
// once. A
// ramp still running ends at once when a new one starts. SetMaterial
// allocates only when the new curves have more points than any before.
func (c *Cloth) SetMaterial(m Material, ramp time.Duration) error {
	if err := m.Validate(); err != nil {
		return err
	}
	if ramp < 0 {
		return fmt.Errorf("sim: material ramp %v, want >= 0", ramp)
	}
	c.fab.set(&m, ramp.Seconds())
	c.it.forget()
	return nil
}

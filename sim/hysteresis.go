package sim

import "math"

// The fabric's internal friction (Material.Hysteresis) lives on the
// elements: each triangle carries a Dahl element per in-plane mode, weft,
// warp and shear, whose friction stress adds to the elastic stress of the
// mode (triHyst.apply). Within a step a Dahl element's stress is a
// function of its strain alone, the derivative of its work (Dahl.Step), so
// the friction forces are the gradient of a potential, the work, which
// joins the step's incremental potential Φ (integrator): the Newton
// iteration and its line search treat it as they treat the elastic
// energy, its stiffness dz/dε ≥ 0 joins the element's strain-space
// stiffness, and backward Euler's guarantee covers it. Between steps the
// state moves on (forces.commitHyst): each element's stress and strain
// become those at the accepted state, and its saturation and slope are
// evaluated there for the next step. A failed step commits nothing, so the
// recovered state keeps the friction state of the last good one. A
// regrade starts the friction afresh on the new mesh (no pad touches then).

// triHyst is one element's friction state at the start of the step: per
// mode (weft, warp, shear) the strain, the friction stress and the Dahl
// element of the step.
type triHyst struct {
	e0, z [3]float64
	d     [3]Dahl
}

// hystModes returns which of the fabric's modes have friction: the
// tensile pair and shear.
func (f *fabric) hystModes() (tensile, shear bool) {
	return f.hyst.tensileOn(), f.hyst.shearOn()
}

// apply adds the friction stresses at the strains (eu, ev, es) to st, the
// elastic stress there, and their stiffnesses (never negative, to keep the
// step's matrix positive definite), and returns the friction's work per
// rest area since the start of the step. With next it also records there
// the state an accepted step at these strains commits, and in w each
// mode's work (commitTris).
func (h *triHyst) apply(f *fabric, eu, ev, es float64, st *stress, next *triHyst, w *[3]float64) (work float64) {
	tensile, shear := f.hystModes()
	if next != nil {
		next.e0 = [3]float64{eu, ev, es}
		next.setFrom(f, st, es)
		next.z, *w = [3]float64{}, [3]float64{}
	}
	var z [3]float64
	var wk [3]float64
	if tensile {
		var dz float64
		z[0], dz, wk[0] = h.d[0].Step(h.z[0], eu-h.e0[0])
		st.su += z[0]
		st.kuu += max(dz, 0)
		work += wk[0]
		z[1], dz, wk[1] = h.d[1].Step(h.z[1], ev-h.e0[1])
		st.sv += z[1]
		st.kvv += max(dz, 0)
		work += wk[1]
	}
	if shear {
		var dz float64
		z[2], dz, wk[2] = h.d[2].Step(h.z[2], es-h.e0[2])
		st.ss += z[2]
		st.kss += max(dz, 0)
		work += wk[2]
	}
	if next != nil {
		next.z, *w = z, wk
	}
	return work
}

// shearSaturation is the shear mode's saturation and its slope at the
// shear strain es (Hysteresis.Shear05, Shear5).
func (h *Hysteresis) shearSaturation(es float64) (s, slope float64) {
	const a05, a5 = 0.5 * math.Pi / 180, 5 * math.Pi / 180
	k := (h.Shear5 - h.Shear05) / (a5 - a05)
	s = h.Shear05 + k*(math.Abs(es)-a05)
	if s <= 0 {
		return 0, 0
	}
	return s, math.Copysign(k, es)
}

// set prepares the step's Dahl elements at the strains (eu, ev, es) with
// the material in effect.
func (h *triHyst) set(f *fabric, eu, ev, es float64) {
	var st stress
	f.eval(eu, ev, es, &st)
	h.setFrom(f, &st, es)
}

// setFrom prepares the step's Dahl elements from st, the material's
// elastic stress at strains whose shear strain is es.
func (h *triHyst) setFrom(f *fabric, st *stress, es float64) {
	hy := &f.hyst
	l := hy.TensileStrain
	h.d[0] = Dahl{Saturation: hy.Weft * math.Abs(st.su), Slope: hy.Weft * math.Copysign(st.kuu, st.su), Strain: l}
	h.d[1] = Dahl{Saturation: hy.Warp * math.Abs(st.sv), Slope: hy.Warp * math.Copysign(st.kvv, st.sv), Strain: l}
	s, k := hy.shearSaturation(es)
	h.d[2] = Dahl{Saturation: s, Slope: k, Strain: hy.ShearAngle}
}

// initHyst starts every element's friction afresh at the positions x: no
// friction stress, the strains of x.
func (fo *forces) initHyst(x []float64) {
	c := fo.c
	if len(fo.hyst) != len(c.m.tris) {
		fo.hyst = make([]triHyst, len(c.m.tris))
		fo.hystNext = make([]triHyst, len(c.m.tris))
		fo.hystWork = make([][3]float64, len(c.m.tris))
	}
	for i := range c.m.tris {
		_, eu, ev, es := c.m.tris[i].geom(x)
		h := &fo.hyst[i]
		*h = triHyst{e0: [3]float64{eu, ev, es}}
		h.set(&c.fab, eu, ev, es)
	}
	fo.hystLive = c.fab.hystOn
}

// commitHyst moves the friction state of every element and hinge to the
// accepted positions x and returns the friction's work over the step [J].
// atTrial says x is the last trial point's, whose forces pass recorded
// the state to commit there (the usual end of a step).
func (fo *forces) commitHyst(x []float64, atTrial bool) (work float64) {
	return fo.commitTris(x, atTrial) + fo.commitHinges(x, atTrial)
}

// commitTris moves every element's friction state to the accepted
// positions x: the stresses the step's Dahl elements reach there, the
// strains of x, and the Dahl elements of the next step. It returns the
// friction's work over the step [J]. At the last trial point (atTrial)
// its pass computed all of it from the same operands: the state it
// recorded is taken over, bit for bit what the pass below would give.
func (fo *forces) commitTris(x []float64, atTrial bool) (work float64) {
	c := fo.c
	if !c.fab.hystOn {
		fo.hystLive = false
		return 0
	}
	if !fo.hystLive {
		fo.initHyst(x)
		return 0
	}
	if atTrial {
		for i := range c.m.tris {
			a, w := c.m.tris[i].area, &fo.hystWork[i]
			work += a * w[0]
			work += a * w[1]
			work += a * w[2]
		}
		fo.hyst, fo.hystNext = fo.hystNext, fo.hyst
		return work
	}
	tensile, shear := c.fab.hystModes()
	for i := range c.m.tris {
		t := &c.m.tris[i]
		_, eu, ev, es := t.geom(x)
		h := &fo.hyst[i]
		e := [3]float64{eu, ev, es}
		for k := range 3 {
			if k < 2 && !tensile || k == 2 && !shear {
				h.z[k] = 0
				continue
			}
			var w float64
			h.z[k], _, w = h.d[k].Step(h.z[k], e[k]-h.e0[k])
			work += t.area * w
		}
		h.e0 = e
		h.set(&c.fab, eu, ev, es)
	}
	return work
}

// hystFor returns element i's friction state for a forces pass, nil when
// the fabric has none, and where the pass records the state to commit
// and its work.
func (fo *forces) hystFor(i int32) (h, next *triHyst, w *[3]float64) {
	if !fo.hystLive {
		return nil, nil, nil
	}
	return &fo.hyst[i], &fo.hystNext[i], &fo.hystWork[i]
}

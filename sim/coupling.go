package sim

import "math"

// The haptic coupling: after each step every finger's contact force is
// linearised into the LocalModel that the 1 kHz loop evaluates between
// steps, and described as the ContactPatch the tactile renderer reads.
// The LocalModel's stiffness K is the dynamic Schur complement of the
// step's system with respect to the pad position, approximated by one
// V-cycle per direction (stiffness); the contact's drift velocity V lets
// the 1 kHz loop follow a contact that moves with the cloth. Only contacts
// the step's solve included are published as LocalModels (publish).

// coupling holds what the local models carry from step to step: per
// finger, the cloth's response to a unit pad motion along each axis.
type coupling struct {
	c     *Cloth
	f     [NumFingers]fingerSens
	rhs   []float64 // scratch: a right-hand side of the sensitivity solves
	iters int       // CG iterations of this step's sensitivity solves
}

// fingerSens is one finger's sensitivities.
type fingerSens struct {
	sens [3][]float64 // velocity change of the cloth per unit pad motion along x, y, z
	ok   bool         // sens belongs to the contact in progress
	n    int          // contacts when the three solves were last all refreshed
}

func (cp *coupling) init(c *Cloth) {
	cp.c = c
	for k := range cp.f {
		fs := &cp.f[k]
		for q := range fs.sens {
			fs.sens[q] = make([]float64, 3*c.n)
		}
		fs.ok = false
	}
	cp.rhs = make([]float64, 3*c.n)
}

// forget drops finger k's sensitivities: its contact ended.
func (cp *coupling) forget(k int) { cp.f[k].ok = false }

// publish fills finger k's local model and contact patch (already reset
// to no contact at the step's time) from the sums of its contacts after
// the step.
func (cp *coupling) publish(k int, sum *padSummary, lm *LocalModel, patch *ContactPatch) {
	c := cp.c
	in := &c.pads.f[k].in
	if sum.fnSum <= 0 {
		cp.forget(k)
		return
	}
	fnSum := sum.fnSum
	normal, _ := unit(sum.nsum)
	patch.InContact = true
	patch.U, patch.V = sum.uv[0]/fnSum, sum.uv[1]/fnSum
	patch.NormalForce = fnSum
	patch.Area = sum.area
	patch.Curvature = sum.curv.curvature()
	t := &c.m.tris[sum.best]
	geo, _, _, _ := t.geom(c.x)
	rel := sub3(in.vel, scale3(1/fnSum, sum.velSum))
	patch.SlipU = dot3(rel, geo.uh.arr()) / max(geo.lu, 1e-9)
	patch.SlipV = dot3(rel, geo.vh.arr()) / max(geo.lv, 1e-9)
	dist := c.cfg.Distal[k]
	patch.Orientation = math.Atan2(dot3(dist, geo.vh.arr()), dot3(dist, geo.uh.arr()))
	if len(c.pads.f[k].lin) == 0 {
		// The cloth ran into the pad during the step (it springs back
		// after a pad that withdraws): the step's solve did not include
		// this contact, so it exerted no force on the cloth, and the
		// penetration it shows is no force the cloth exerts either. The
		// next step resolves it, if the pad is still there.
		cp.forget(k)
		return
	}
	f0 := scale3(-1, sum.force)
	lm.InContact, lm.F0, lm.Normal = true, f0, normal
	lm.V = scale3(1/fnSum, sum.velSum)
	lm.K = cp.stiffness(k)
	knn := dot3(normal, mulVec33(&lm.K, normal))
	fPress := -dot3(f0, normal)
	// Without a stiffness the region is the fabric's compression.
	lm.Depth = min(sum.maxPen, c.cfg.MaxDepth)
	if knn < 0 && fPress > 0 {
		lm.Depth = min(max(fPress/(-knn), sum.maxPen), c.cfg.MaxDepth)
	}
}

// stiffness returns dF/dx of the force on finger k's pad with respect to
// the pad position: the contacts' direct stiffness minus what the cloth
// gives way, from three solves of the step's system with the right-hand
// sides the pad displacement creates (the dynamic Schur complement). It is
// symmetrised and clipped to be negative semi-definite, so the local model
// is passive.
func (cp *coupling) stiffness(k int) [3][3]float64 {
	c := cp.c
	fc := &c.pads.f[k]
	fs := &cp.f[k]
	probes := &c.pads.probes
	var kd [3][3]float64
	ah := c.dyn.op.cD
	// The pad's influence on the cloth changes slowly while the contact
	// lasts: one of the three solves is refreshed per refresh interval, all
	// three when the contact starts or its size changes by a third. The two
	// fingers take turns, so a step makes one solve at most (the local
	// model's error against 1 ms steps did not change:
	// TestLocalModelExtrapolation).
	every := uint64(c.refreshSteps())
	ph := c.steps + uint64(k)*every
	every *= 2
	first, last := int(ph/every%3), int(ph/every%3)
	if ph%every != 0 {
		first, last = 0, -1
	}
	if n := len(fc.lin); !fs.ok || 3*abs(n-fs.n) > fs.n {
		first, last = 0, 2
		fs.n = n
		for q := range fs.sens {
			clear(fs.sens[q])
		}
	}
	for q := first; q <= last; q++ {
		rhs := cp.rhs
		clear(rhs)
		var e [3]float64
		e[q] = 1
		for i := range fc.lin {
			p := &fc.lin[i]
			j := padStiffness(p)
			g := mulVec33(&j, e)
			probes.scatter(p, rhs, scale3(-c.it.lastH, g))
		}
		c.dyn.filter(rhs)
		if c.cfg.SensitivityIterations == 0 {
			c.dyn.precond(fs.sens[q], rhs)
		} else {
			res := c.it.cg.solve(&c.dyn, fs.sens[q], rhs, 1e-2, 0, c.cfg.SensitivityIterations, false)
			cp.iters += res.iters
			if res.broke {
				clear(fs.sens[q])
			}
		}
	}
	fs.ok = true
	for i := range fc.lin {
		p := &fc.lin[i]
		j := padStiffness(p)
		// wy[a][q]: displacement of the probe along a per unit pad motion along q.
		var wy [3][3]float64
		for q := range 3 {
			y := probes.pos(p, fs.sens[q])
			for a := range 3 {
				wy[a][q] = identity(a, q) - ah*y[a]
			}
		}
		for a := range 3 {
			for q := range 3 {
				for b := range 3 {
					kd[a][q] += j[a][b] * wy[b][q]
				}
			}
		}
	}
	return negSemiDef(kd)
}

// padStiffness is how a probe's force depends on the pad position: the
// normal and friction springs of a sticking probe, only the normal one of a
// slipping probe (its friction is saturated at the kinetic force).
func padStiffness(p *contactPt) [3][3]float64 {
	if !p.slipping {
		return p.j
	}
	nn := outer(p.n, p.n)
	return scaled33(-p.k, &nn)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

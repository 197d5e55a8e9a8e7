package sim

import (
	"math"
	"time"
)

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
	rhs   [3][]float64 // scratch: the right-hand sides of the sensitivity solves
	w     *cg3         // their workspace
	iters int          // CG iterations of this step's sensitivity solves
}

// fingerSens is one finger's sensitivities.
type fingerSens struct {
	sens [3][]float64 // velocity change of the cloth per unit pad motion along x, y, z
	ok   bool         // sens belongs to the contact in progress
	sig  uint64       // contactSignature of the contacts sens was solved for
	// due says a renewal was put off to the next step (only while ok:
	// forget clears both); renewed is the step of the last iterated
	// renewal plus one (zero: none yet).
	due     bool
	renewed uint64
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
	for q := range cp.rhs {
		cp.rhs[q] = make([]float64, 3*c.n)
	}
	// The step's solve is over when the sensitivities are solved.
	cp.w = newCG3(c.it.cg)
}

// forget drops finger k's sensitivities: its contact ended.
func (cp *coupling) forget(k int) { cp.f[k].ok, cp.f[k].due = false, false }

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
	fc := &cp.c.pads.f[k]
	fs := &cp.f[k]
	// The three solves are renewed together, so that K is that of one
	// state: every three refresh intervals while the contact lasts (the
	// two fingers half a period apart), and when the contacts in the solve
	// or their stick/slip state change. The sensitivities' right-hand
	// sides are the contacts' stiffnesses, so a probe that starts or stops
	// slipping changes them as much as one that comes or goes; renewing
	// one direction at a time mixed the old contacts' sensitivity with the
	// new ones' direct stiffness for up to 30 ms (TestLocalModelAtRest).
	//
	// A step makes one finger's iterated solves at most (a pad holding a
	// stack: stackSensitivityIterations), unless a contact begins. When
	// both fingers' contacts change in the same step (a pinched fold that
	// slides, its probes slipping and sticking under both pads), the
	// finger that has waited longer renews, and the other in the next
	// step; until then its stiffness is its new contacts' with the
	// sensitivities a step old. Such steps are the slowest of the fold's
	// slide, and the solves a large part of them. A solve of one V-cycle
	// (a single layer's, by default) is never put off.
	every := uint64(cp.c.refreshSteps())
	period := 6 * every
	steps := cp.c.steps
	ph := steps + uint64(k)*period/2
	sig := contactSignature(fc.lin)
	if fs.ok && !fs.due && sig == fs.sig && ph%period != 0 {
		return cp.assemble(k)
	}
	iters := cp.iterations(k)
	if fs.ok && !fs.due && iters > 0 {
		o := &cp.f[1-k]
		if o.renewed == steps+1 || o.due && o.renewed < fs.renewed {
			fs.due = true
			return cp.assemble(k)
		}
	}
	if !fs.ok {
		for q := range fs.sens {
			clear(fs.sens[q])
		}
	}
	fs.sig = sig
	cp.solve(k, iters)
	fs.ok, fs.due = true, false
	if iters > 0 {
		fs.renewed = steps + 1
	}
	return cp.assemble(k)
}

// iterations is the number of CG iterations of finger k's sensitivity
// solves, 0 for one V-cycle.
func (cp *coupling) iterations(k int) int {
	c := cp.c
	iters := c.cfg.SensitivityIterations
	if iters == 0 && c.self != nil && c.self.layers[k] > 1 {
		// One V-cycle leaves part of a pinched stack's compliance out;
		// two CG iterations, warm-started, come close to the converged
		// solve (docs/cloth-contact.md, "Speed"). At short steps the
		// system is nearer the mass matrix, and one comes closer than two
		// do at 5 ms.
		iters = stackSensitivityIterations
		if c.cfg.Dt <= shortStep {
			iters = 1
		}
	}
	return iters
}

// shortStep is the longest step at which a stack's sensitivity solve
// takes one CG iteration.
const shortStep = 2 * time.Millisecond

// contactSignature identifies a list of contacts by their probes and
// stick/slip states, whatever their order.
func contactSignature(lin []contactPt) uint64 {
	var sig uint64
	for i := range lin {
		key := uint64(lin[i].probe)<<1 | uint64(b2i(lin[i].slipping))
		// splitmix64's finaliser: a sum of well-mixed keys rarely collides.
		key += 0x9e3779b97f4a7c15
		key = (key ^ key>>30) * 0xbf58476d1ce4e5b9
		key = (key ^ key>>27) * 0x94d049bb133111eb
		sig += key ^ key>>31
	}
	return sig + uint64(len(lin))
}

// solve renews finger k's sensitivities to a pad motion along each axis
// from the step's system and the pad's contacts: three solves with one
// matrix, side by side (cg3), each bit for bit what it would be alone,
// of iters CG iterations (0: one V-cycle each).
func (cp *coupling) solve(k, iters int) {
	c := cp.c
	fc := &c.pads.f[k]
	fs := &cp.f[k]
	for q, rhs := range cp.rhs {
		clear(rhs)
		var e [3]float64
		e[q] = 1
		for i := range fc.lin {
			p := &fc.lin[i]
			j := padStiffness(p)
			g := mulVec33(&j, e)
			c.pads.probes.scatter(p, rhs, scale3(-c.it.lastH, g))
		}
		c.dyn.filter(rhs)
	}
	if iters == 0 {
		c.dyn.precond3(&fs.sens, &cp.rhs)
		return
	}
	res := cp.w.solve(&c.dyn, &fs.sens, &cp.rhs, 1e-2, 0, iters)
	for q := range res {
		cp.iters += res[q].iters
		if res[q].broke {
			clear(fs.sens[q])
		}
	}
}

// stackSensitivityIterations caps the CG iterations of a sensitivity solve
// while the pad holds several layers (Config.SensitivityIterations 0).
const stackSensitivityIterations = 2

// assemble returns finger k's stiffness from its contacts and its
// sensitivities as they stand.
func (cp *coupling) assemble(k int) [3][3]float64 {
	c := cp.c
	fc := &c.pads.f[k]
	fs := &cp.f[k]
	probes := &c.pads.probes
	ah := c.dyn.op.cD
	var kd [3][3]float64
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

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

package sim

import (
	"fmt"
	"math"
)

// Scheme selects the semi-implicit integrator (HAPTEX tutorial §3.4,
// eq. 22-25).
type Scheme int

const (
	// Euler is the generalised implicit Euler step
	// Q(t+dt) - Q(t) = Q'(t + α·dt)·dt, linearised (eq. 22-23): α = 1 is
	// backward Euler (first order, L-stable), α = 1/2 the implicit midpoint
	// (second order, no numerical damping on linear problems).
	Euler Scheme = iota
	// BDF2 is the generalised second-order backward differentiation formula
	// Q(t+dt) - Q(t) = β·(Q(t) - Q(t-dt)) + Q'(t + α·δt)·δt with
	// β = (2α-1)/(2α+1), δt = 2·dt/(2α+1) (eq. 24-25): α = 1 is BDF-2,
	// α = 1/2 the implicit midpoint rule. It is second order and A-stable
	// for α in [1/2, 1]. (The tutorial's claim of third order at α = 1/√3
	// does not hold for eq. 25: its local error on y' = λy is
	// -(1+5β)/12·(hλ)³, which vanishes only at α = 1/3, a setting that is
	// not A-stable; see TestIntegratorOrderDahlquist.) The first step after
	// a start, a recovery or a material change is an Euler step.
	BDF2
)

func (s Scheme) String() string {
	switch s {
	case Euler:
		return "euler"
	case BDF2:
		return "bdf2"
	}
	return fmt.Sprintf("Scheme(%d)", int(s))
}

// dynamics is a second-order system M·x” = f(x, v) with its linearisation,
// seen by the integrator through per-vector products. f is the gradient
// of a potential energy plus viscous forces that are linear in the
// velocities, with a dissipation rate Vᵀ·C·V, C = -∂f/∂v.
type dynamics interface {
	linearSystem
	// linearize evaluates f(x, v) into f, prepares mulA and precond for
	// A = M - cD·∂f/∂v - cK·∂f/∂x and returns the potential and the
	// kinetic energy of (x, v).
	linearize(x, v, f []float64, cK, cD float64) (pot, kin float64)
	// trial evaluates f(y, V) into f and a linearisation there for adopt,
	// and returns the potential energy at y and the dissipation rate.
	trial(y, V, f []float64) (pot, diss float64)
	// touching reports whether a contact whose far side moves on its own
	// (a finger pad) took part in the last linearize or trial.
	touching() bool
	// adopt makes the last trial's linearisation that of mulA and precond.
	adopt()
	// potential returns what trial returns, without forces.
	potential(y, V []float64) (pot, diss float64)
	// dissipation returns the dissipation rate for the velocities V at
	// the last linearize's positions.
	dissipation(V []float64) float64
	// mulK sets dst = ∂f/∂x·y with the Jacobian of the last linearize.
	mulK(dst, y []float64)
	// mulKv sets dst = ∂f/∂x·v for the velocities v of the last
	// linearize (the one product an Euler step needs; a system may know a
	// cheaper way to it than mulK). If it computes A·v on the way, it
	// writes it, filtered, to av and reports so.
	mulKv(dst, av []float64) bool
	// mulM sets dst = M·p.
	mulM(dst, p []float64)
	// filter zeroes the constrained components of a vector.
	filter(p []float64)
	// constrain sets the constrained components of dv to the velocity
	// changes the constraints prescribe for a displacement base + ah·dv over
	// the step, and zeroes them in b. It reports whether every prescribed
	// component is zero (the constraints hold their nodes still).
	constrain(dv, b, x, base []float64, ah float64) (still bool)
}

// integrator advances a dynamics by one implicit step. With the step's
// velocity change Δv as the unknown, eq. 25 (eq. 23 is β = 0, δt = dt)
// evaluates the forces at y = x + α·Δx, V = v + α·Δv, where
//
//	Δx = β·Δx₋ + δt·(v + α·Δv),
//
// and Δx₋, Δv₋ are the previous step's changes. The step's equation
//
//	R(Δv) = M·(Δv - β·Δv₋) - δt·f(y, V) = 0
//
// is the stationarity of the incremental potential
//
//	Φ(Δv) = ½·(Δv - β·Δv₋)ᵀ·M·(Δv - β·Δv₋) + E(y)/α² + δt/(2α)·VᵀCV,
//
// E the potential energy and VᵀCV the viscous forces' dissipation rate
// (its gradient leaves out how C turns with the element, as the Jacobian
// does). The step minimises Φ by Newton's method (Kane, Marsden, Ortiz
// and West, "Variational integrators and the Newmark algorithm", 2000;
// Gast, Schroeder, Stomakhin, Jiang and Teran, "Optimization integrator
// for large time steps", 2015): each iteration solves
//
//	(M - α·δt·D - α²·δt²·K)·δ = -R
//
// by preconditioned CG (K = ∂f/∂x, D = ∂f/∂v, the system symmetric
// positive definite: the elements drop their negative geometric terms
// where these could make it indefinite, triLin) and shortens the step along
// δ (quadratic interpolation, Φ alone evaluated) until Φ does not rise by
// more than round-off and NewtonTolerance²·eStep. The first iteration
// starts from the state, y = x, where its system is the former single
// linearised solve
//
//	(M - α·δt·D - α²·δt²·K)·Δv = β·M·Δv₋ + δt·(f + α·K·(β·Δx₋ + δt·v)),
//
// warm-started from the previous Δv. The iteration has converged when the
// whole Newton step changed Φ as the quadratic model (the CG's own
// quadratic ψ) predicted, to √NewtonTolerance, which leaves the next
// iteration about NewtonTolerance of this one's change, or when a later
// iteration changed Φ (or would, by its model) by less than NewtonTolerance
// of the step's change so far; changes below NewtonTolerance of the energy
// that flows in a step (eStep, gravity's on the cloth at rest, and eWork,
// the fingers') count as none. It stops there or after MaxNewton
// iterations, or ContactNewton while a finger pad touches the cloth: in
// the showcase pinch at 5 and 10 ms steps, 6-7 % of the steps would take
// a second iteration, whose CG starts from zero, and the haptic loops need
// every step's output in time.
//
// The guarantee: Φ never rises over a step's iterations (beyond the
// tolerance above). For backward Euler (α = 1, β = 0), Φ at the start is
// the state's total energy, so a step ends with E(x') + ½·|Δv|²_M at most
// the energy it started with: whatever the step length, it cannot create
// potential energy, and a linearised solve's overshoot (which at 20 ms
// steps lifted a swinging cloth to several times its drop energy) cannot
// happen. The total energy E(x') + ½·|v'|²_M is bounded so only for a
// converged step on a convex E; in the drop-and-swing test it never rose
// (TestDropAndSwing). For BDF-2 and α < 1, Φ's start is not the energy,
// and the guarantee is that each step descends on its own potential; BDF-2
// kept the swinging cloth's energy from rising too (TestDropAndSwing), α
// < 1 is not tested so.
type integrator struct {
	scheme    Scheme
	alpha     float64
	dt        float64
	tol       float64
	floor     float64 // residual floor [N·s], see cg.solve
	maxIter   int
	newtonTol float64
	maxNewton int
	// contactNewton caps the iterations of a step in which a finger pad
	// touches the cloth.
	contactNewton int

	f, b, y, ky, dv []float64
	dxPrev, dvPrev  []float64
	x0, v0          []float64
	base, dir, cand []float64 // the Newton iterate, its search direction and a trial point (Δv)
	yT, vT, r, tmp  []float64
	av              []float64 // A·v, when mulKv gives it
	// mass is the mass of each node [kg], its dof components in a row of
	// the state vectors: Φ's inertia term needs it in the loops that form
	// the trial points.
	mass       []float64
	dof        int
	hasPrev    bool
	cg         *cg
	lastH      float64 // δt of the last step
	eFloor     float64 // Φ's round-off [J]: what a step's model may miss by anyway
	eStep      float64 // the energy scale of a step [J]: what gravity does to the cloth at rest in one
	eWork      float64 // what the fingers do to the cloth in this step [J] (set before each step)
	newton     int     // Newton iterations of the last step
	backtracks int     // halvings of the last step's line searches
	converged  bool    // the last step met the Newton tolerance
	inContact  bool    // the last step was capped at contactNewton
}

func newIntegrator(mass []float64, dof int, scheme Scheme, alpha, dt, tol, floor float64, maxIter int, newtonTol float64, maxNewton int) *integrator {
	n := dof * len(mass)
	mk := func() []float64 { return make([]float64, n) }
	return &integrator{
		mass: mass, dof: dof,
		scheme: scheme, alpha: alpha, dt: dt, tol: tol, floor: floor, maxIter: maxIter,
		newtonTol: newtonTol, maxNewton: maxNewton,
		f: mk(), b: mk(), y: mk(), ky: mk(), dv: mk(), dxPrev: mk(), dvPrev: mk(), x0: mk(), v0: mk(),
		base: mk(), dir: mk(), cand: mk(), yT: mk(), vT: mk(), r: mk(), tmp: mk(), av: mk(),
		cg: newCG(n),
	}
}

// coefficients returns β and δt for the next step.
func (it *integrator) coefficients() (beta, h float64) {
	if it.scheme == BDF2 && it.hasPrev {
		a := it.alpha
		return (2*a - 1) / (2*a + 1), 2 * it.dt / (2*a + 1)
	}
	return 0, it.dt
}

// maxBacktracks is how many shorter steps the line search tries before it
// keeps the iterate it started from.
const maxBacktracks = 8

// step advances x and v in place by one step and returns the outcome of
// its solves. commit must follow (after any correction of x and v) to
// record the step for BDF-2.
func (it *integrator) step(d dynamics, x, v []float64) solveResult {
	if it.scheme == BDF2 {
		copy(it.x0, x)
		copy(it.v0, v)
	}
	beta, h := it.coefficients()
	it.lastH = h
	a := it.alpha
	ah := a * h
	it.newton, it.backtracks, it.converged, it.inContact = 1, 0, false, false
	pot, kin := d.linearize(x, v, it.f, a*a*h*h, ah)
	for i := range it.y {
		it.y[i] = beta*it.dxPrev[i] + h*v[i]
	}
	haveAv := false
	if beta == 0 {
		haveAv = d.mulKv(it.ky, it.av)
		for i := range it.ky {
			it.ky[i] *= h
		}
	} else {
		d.mulK(it.ky, it.y)
	}
	if beta != 0 {
		d.mulM(it.b, it.dvPrev)
	} else {
		clear(it.b)
	}
	for i := range it.b {
		it.b[i] = beta*it.b[i] + h*(it.f[i]+a*it.ky[i])
	}
	still := d.constrain(it.dv, it.b, x, it.y, ah)
	res := it.cg.solve(d, it.dv, it.b, it.tol, it.floor, it.maxIter, still)
	if res.broke {
		return res
	}

	// The first iterate, base: y = x on the free components, the
	// prescribed velocity changes on the others. Φ there and the model's
	// change pred from there to the solve's Δv, ψ(Δv) - ψ(base) with ψ the
	// solve's quadratic. For an Euler step whose constraints hold still,
	// base = -v/α, Φ(base) = (E + KE)/α² and mulKv gave A·v, so neither
	// base nor A·base is formed.
	var phi, pred float64
	quick := beta == 0 && still && haveAv
	if quick {
		phi = (pot + kin) / (a * a)
		pred = res.psi - (0.5*dot8(v, it.av)/(a*a) + dot8(it.b, v)/a)
	} else {
		it.firstIterate(d, x, v, beta, ah)
		if still {
			phi = pot/(a*a) + it.inertia(it.base, beta)
			if beta != 0 {
				for i := range it.vT {
					it.vT[i] = v[i] + a*it.base[i]
				}
				phi += h / (2 * a) * d.dissipation(it.vT)
			}
		} else {
			phi = it.potentialPhi(d, x, v, it.base, beta, h)
		}
		d.mulA(it.tmp, it.base)
		pred = res.psi - (0.5*dot8(it.base, it.tmp) - dot8(it.b, it.base))
	}
	var total float64 // Φ's change over the step's iterations so far
	limit := it.maxNewton
	for {
		// The line search: the whole Newton step, with the forces and the
		// linearisation there, then shorter ones until Φ does not rise.
		// pred is the change the quadratic model predicts for the whole
		// step; for a Newton step its slope at the start is twice that.
		// The first iteration's whole step is the solve's Δv.
		s := 1.0
		cand := it.dv
		if it.newton > 1 {
			cand = it.cand
			axpy(cand, it.base, it.dir, 1)
		}
		phiS := it.phi(d, x, v, cand, beta, h)
		full := true
		if it.newton == 1 && d.touching() {
			limit = it.contactNewton
			it.inContact = true
		}
		slope := 2 * pred
		for tries := 0; !(phiS <= phi+it.round(phi, phiS)); tries++ {
			if it.newton == 1 && tries == 0 {
				if quick {
					it.firstIterate(d, x, v, beta, ah)
				}
				for i := range it.dir {
					it.dir[i] = it.dv[i] - it.base[i]
				}
				cand = it.cand
			}
			it.backtracks++
			if tries == maxBacktracks {
				// No descent along the direction: keep the iterate.
				copy(cand, it.base)
				phiS, s = phi, 0
				break
			}
			next := s / 2
			if c := (phiS - phi - slope*s) / (s * s); slope < 0 && c > 0 && isFinite(c) {
				next = min(max(-slope/(2*c), s/10), s/2)
			}
			s = next
			axpy(cand, it.base, it.dir, s)
			phiS = it.potentialPhi(d, x, v, cand, beta, h)
			full = false
		}
		act := phiS - phi
		total += act
		// Converged: the whole step changed Φ as the quadratic model
		// predicted, to √NewtonTolerance, which leaves the next iteration
		// about NewtonTolerance of this one's change; or an iteration after
		// the first changed Φ by less than NewtonTolerance of the step's
		// change so far. Changes below NewtonTolerance of the energy that
		// flows in a step (gravity's, the fingers') count as none.
		small := it.round(phi, phiS) + it.newtonTol*(it.eStep+it.eWork)
		it.converged = s == 1 && math.Abs(act-pred) <= math.Sqrt(it.newtonTol)*math.Abs(pred)+small ||
			it.newton > 1 && math.Abs(act) <= it.newtonTol*math.Abs(total)+small
		if it.converged || it.newton >= limit || s == 0 {
			if &cand[0] != &it.dv[0] {
				copy(it.dv, cand)
			}
			break
		}
		if !full {
			// The forces and the linearisation where the line search
			// stopped.
			phiS = it.phi(d, x, v, cand, beta, h)
		}
		// The residual at the trial point.
		for i := range it.tmp {
			it.tmp[i] = cand[i] - beta*it.dvPrev[i]
		}
		d.mulM(it.r, it.tmp)
		for i := range it.r {
			it.r[i] = h*it.f[i] - it.r[i]
		}
		d.filter(it.r)
		if rn := dot8(it.r, it.r); !isFinite(rn) {
			return solveResult{iters: res.iters, residual: rn, broke: true}
		}
		// Another Newton iteration from the trial point.
		it.newton++
		d.adopt()
		copy(it.base, cand)
		phi = phiS
		clear(it.dir)
		r2 := it.cg.solve(d, it.dir, it.r, it.tol, it.floor, it.maxIter, false)
		pred = r2.psi
		res.iters += r2.iters
		res.ok = res.ok && r2.ok
		res.residual = math.Max(res.residual, r2.residual)
		if r2.broke {
			return solveResult{iters: res.iters, residual: r2.residual, broke: true}
		}
		if -pred <= it.newtonTol*(math.Abs(total)+it.eStep+it.eWork) {
			// What the iteration would gain is below the tolerance: the
			// trial point is the step's end.
			it.converged = true
			copy(it.dv, it.base)
			break
		}
	}
	for i := range x {
		x[i] += it.y[i] + ah*it.dv[i]
		v[i] += it.dv[i]
	}
	return res
}

// firstIterate sets base to the first iterate (see step).
func (it *integrator) firstIterate(d dynamics, x, v []float64, beta, ah float64) {
	for i := range it.base {
		it.base[i] = -it.y[i] / ah
		it.tmp[i] = it.base[i] - it.dv[i]
	}
	d.filter(it.tmp)
	for i := range it.base {
		it.base[i] = it.dv[i] + it.tmp[i]
	}
}

// round is how far apart two values of Φ may be by round-off and the
// solver's tolerances alone: the line search accepts a rise this small.
// Its part NewtonTolerance²·eStep lets through what a CG solved to its
// tolerance leaves (every step the line search cut in the showcase pinch
// rose by less than 1e-4·eStep); over a run that adds at most
// NewtonTolerance²·m·g²·dt/2 a second, 0.1 % of the drop energy over 3 s
// of a swinging cloth at 100 ms steps.
func (it *integrator) round(a, b float64) float64 {
	return 1e-12*(math.Abs(a)+math.Abs(b)) + it.eFloor + it.newtonTol*it.newtonTol*it.eStep + it.newtonTol*it.eWork
}

// phi returns Φ at the velocity change dv of a step from (x, v) and
// evaluates the forces there (into it.f) and the linearisation for adopt.
func (it *integrator) phi(d dynamics, x, v, dv []float64, beta, h float64) float64 {
	in := it.point(x, v, dv, beta, h)
	pot, diss := d.trial(it.yT, it.vT, it.f)
	return it.phiOf(pot, diss, in, h)
}

// potentialPhi returns Φ at the velocity change dv, without forces.
func (it *integrator) potentialPhi(d dynamics, x, v, dv []float64, beta, h float64) float64 {
	in := it.point(x, v, dv, beta, h)
	pot, diss := d.potential(it.yT, it.vT)
	return it.phiOf(pot, diss, in, h)
}

// point sets yT, vT to where the forces of a step from (x, v) with the
// velocity change dv are evaluated, and returns Φ's inertia term there,
// ½·(dv - β·Δv₋)ᵀ·M·(dv - β·Δv₋).
func (it *integrator) point(x, v, dv []float64, beta, h float64) float64 {
	a := it.alpha
	var in float64
	if it.dof == 3 && beta == 0 && a == 1 {
		// The usual step, node by node with its three components at hand.
		yT, vT, y := it.yT, it.vT, it.y
		for k, m := range it.mass {
			i := 3 * k
			d := dv[i : i+3 : i+3]
			xs, vs, ys := x[i:i+3:i+3], v[i:i+3:i+3], y[i:i+3:i+3]
			yo, vo := yT[i:i+3:i+3], vT[i:i+3:i+3]
			yo[0], yo[1], yo[2] = xs[0]+(ys[0]+h*d[0]), xs[1]+(ys[1]+h*d[1]), xs[2]+(ys[2]+h*d[2])
			vo[0], vo[1], vo[2] = vs[0]+d[0], vs[1]+d[1], vs[2]+d[2]
			in += m * (d[0]*d[0] + d[1]*d[1] + d[2]*d[2])
		}
		return 0.5 * in
	}
	for k, m := range it.mass {
		var s float64
		for i := it.dof * k; i < it.dof*(k+1); i++ {
			it.yT[i] = x[i] + a*(it.y[i]+a*h*dv[i])
			it.vT[i] = v[i] + a*dv[i]
			e := dv[i] - beta*it.dvPrev[i]
			s += e * e
		}
		in += m * s
	}
	return 0.5 * in
}

func (it *integrator) phiOf(pot, diss, inertia, h float64) float64 {
	a := it.alpha
	return pot/(a*a) + inertia + h/(2*a)*diss
}

// inertia returns ½·(dv - β·Δv₋)ᵀ·M·(dv - β·Δv₋).
func (it *integrator) inertia(dv []float64, beta float64) float64 {
	var in float64
	for k, m := range it.mass {
		var s float64
		for i := it.dof * k; i < it.dof*(k+1); i++ {
			e := dv[i] - beta*it.dvPrev[i]
			s += e * e
		}
		in += m * s
	}
	return 0.5 * in
}

// commit records the step just taken (x and v as finally accepted).
func (it *integrator) commit(x, v []float64) {
	it.hasPrev = true
	if it.scheme != BDF2 {
		return
	}
	for i := range x {
		it.dxPrev[i] = x[i] - it.x0[i]
		it.dvPrev[i] = v[i] - it.v0[i]
	}
	it.hasPrev = true
}

// reset forgets the history and the warm start.
func (it *integrator) reset() {
	it.forget()
	clear(it.dv)
}

// forget drops the BDF-2 history; the next step is an Euler step.
func (it *integrator) forget() {
	it.hasPrev = false
	clear(it.dxPrev)
	clear(it.dvPrev)
}

func (it *integrator) validate() error {
	if !(it.alpha > 0 && it.alpha <= 1) {
		return fmt.Errorf("sim: implicitness alpha %g outside (0, 1]", it.alpha)
	}
	if !(it.dt > 0) || math.IsInf(it.dt, 0) {
		return fmt.Errorf("sim: time step %g s, want > 0", it.dt)
	}
	if it.scheme != Euler && it.scheme != BDF2 {
		return fmt.Errorf("sim: unknown scheme %v", it.scheme)
	}
	return nil
}

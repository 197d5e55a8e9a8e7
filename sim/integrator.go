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
// seen by the integrator through per-vector products.
type dynamics interface {
	linearSystem
	// linearize evaluates f(x, v) into f and prepares mulA and precond for
	// A = M - cD·∂f/∂v - cK·∂f/∂x.
	linearize(x, v, f []float64, cK, cD float64)
	// mulK sets dst = ∂f/∂x·y with the Jacobian of the last linearize.
	mulK(dst, y []float64)
	// mulKv sets dst = ∂f/∂x·v for the velocities v of the last
	// linearize (the one product an Euler step needs; a system may know a
	// cheaper way to it than mulK).
	mulKv(dst []float64)
	// mulM sets dst = M·p.
	mulM(dst, p []float64)
	// constrain sets the constrained components of dv to the velocity
	// changes the constraints prescribe for a displacement base + ah·dv over
	// the step, and zeroes them in b. It reports whether every prescribed
	// component is zero (the constraints hold their nodes still).
	constrain(dv, b, x, base []float64, ah float64) (still bool)
}

// integrator advances a dynamics by one semi-implicit step: with
// K = ∂f/∂x, D = ∂f/∂v, eliminating the position update from eq. 25 gives
// one symmetric positive definite system for the velocity change,
//
//	(M - α·δt·D - α²·δt²·K)·Δv = β·M·Δv₋ + δt·(f + α·K·(β·Δx₋ + δt·v)),
//	Δx = β·Δx₋ + δt·(v + α·Δv),
//
// where Δx₋, Δv₋ are the previous step's changes (eq. 23 is β = 0, δt = dt).
// The system is solved by preconditioned CG warm-started from the previous
// Δv.
type integrator struct {
	scheme  Scheme
	alpha   float64
	dt      float64
	tol     float64
	floor   float64 // residual floor [N·s], see cg.solve
	maxIter int

	f, b, y, ky, dv []float64
	dxPrev, dvPrev  []float64
	x0, v0          []float64
	hasPrev         bool
	cg              *cg
	lastH           float64 // δt of the last step
}

func newIntegrator(n int, scheme Scheme, alpha, dt, tol, floor float64, maxIter int) *integrator {
	mk := func() []float64 { return make([]float64, n) }
	return &integrator{
		scheme: scheme, alpha: alpha, dt: dt, tol: tol, floor: floor, maxIter: maxIter,
		f: mk(), b: mk(), y: mk(), ky: mk(), dv: mk(), dxPrev: mk(), dvPrev: mk(), x0: mk(), v0: mk(),
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

// step advances x and v in place by one step and returns the solve's
// outcome. commit must follow (after any correction of x and v) to record
// the step for BDF-2.
func (it *integrator) step(d dynamics, x, v []float64) solveResult {
	copy(it.x0, x)
	copy(it.v0, v)
	beta, h := it.coefficients()
	it.lastH = h
	a := it.alpha
	d.linearize(x, v, it.f, a*a*h*h, a*h)
	for i := range it.y {
		it.y[i] = beta*it.dxPrev[i] + h*v[i]
	}
	if beta == 0 {
		d.mulKv(it.ky)
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
	still := d.constrain(it.dv, it.b, x, it.y, a*h)
	res := it.cg.solve(d, it.dv, it.b, it.tol, it.floor, it.maxIter, still)
	if res.broke {
		return res
	}
	for i := range x {
		x[i] += it.y[i] + a*h*it.dv[i]
		v[i] += it.dv[i]
	}
	return res
}

// commit records the step just taken (x and v as finally accepted).
func (it *integrator) commit(x, v []float64) {
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

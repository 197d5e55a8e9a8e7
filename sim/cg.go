package sim

import "math"

// linearSystem is a symmetric positive definite system seen through its
// products, restricted to the unconstrained subspace (Baraff & Witkin's
// filtered CG): mulA returns A·p with the constrained components of the
// result zeroed, precond returns a filtered preconditioned vector. Calls
// are per vector, never per element.
type linearSystem interface {
	mulA(dst, p []float64)
	precond(dst, r []float64)
}

// cg is the workspace of a preconditioned conjugate gradient solve.
type cg struct {
	r, z, p, q []float64
}

func newCG(n int) *cg {
	return &cg{r: make([]float64, n), z: make([]float64, n), p: make([]float64, n), q: make([]float64, n)}
}

// solveResult is what one CG solve reports.
type solveResult struct {
	iters    int
	residual float64 // ‖b - A·x‖ / max(‖b‖, floor) on the free subspace
	ok       bool    // converged to the tolerance
	broke    bool    // a non-finite value stopped it: x is unusable
	// psi is the quadratic ½·xᵀ·A·x - bᵀ·x at the solution returned (on
	// the free subspace, when x's constrained components are zero): each
	// iteration lowers it by ½·α·rᵀz.
	psi float64
}

// solve improves x (the warm start; its constrained components hold the
// prescribed values and are kept) towards A·x = b, stopping when the
// filtered residual is below tol·max(‖b‖, floor) or after maxIter
// iterations. b must be filtered (zero on constrained components).
//
// With scale (allowed when x's constrained components are zero) the warm
// start is first scaled by γ = xᵀb / xᵀAx, the multiple of x closest to
// the solution in the A-norm: never further than x or 0, and much closer
// when the step's Δv reverses, as it does step to step while the fingers
// pull (the unscaled previous Δv then leaves a residual of the order of
// ‖b‖). It costs two inner products and saves iterations.
func (w *cg) solve(s linearSystem, x, b []float64, tol, floor float64, maxIter int, scale bool) solveResult {
	r, z, p, q := w.r, w.z, w.p, w.q
	s.mulA(q, x)
	xq, xb := dot8(x, q), dot8(x, b)
	psi := 0.5*xq - xb
	if scale && xq > 0 {
		g := xb / xq
		for i := range x {
			x[i] *= g
			q[i] *= g
		}
		psi = -0.5 * xb * g
	}
	for i := range r {
		r[i] = b[i] - q[i]
	}
	ref := math.Max(math.Sqrt(dot8(b, b)), floor)
	res := math.Sqrt(dot8(r, r))
	if !isFinite(res) {
		return solveResult{residual: res, broke: true}
	}
	if res <= tol*ref {
		return solveResult{residual: res / ref, ok: true, psi: psi}
	}
	s.precond(z, r)
	copy(p, z)
	rz := dot8(r, z)
	for it := 1; it <= maxIter; it++ {
		s.mulA(q, p)
		pq := dot8(p, q)
		if !isFinite(pq) {
			return solveResult{iters: it, residual: pq, broke: true}
		}
		if !(pq > 0) || !(rz > 0) {
			// Round-off has used up the search directions: x is the best
			// iterate there is.
			return solveResult{iters: it, residual: res / ref, psi: psi}
		}
		a := rz / pq
		psi -= 0.5 * a * rz
		axpy(x, x, p, a)
		axpy(r, r, q, -a)
		res = math.Sqrt(dot8(r, r))
		if !isFinite(res) {
			return solveResult{iters: it, residual: res, broke: true}
		}
		if res <= tol*ref {
			return solveResult{iters: it, residual: res / ref, ok: true, psi: psi}
		}
		if it == maxIter {
			// No iteration left to use a preconditioned residual (the
			// local models' solves stop here every time).
			break
		}
		s.precond(z, r)
		rzNew := dot8(r, z)
		beta := rzNew / rz
		rz = rzNew
		axpy(p, z, p, beta)
	}
	return solveResult{iters: maxIter, residual: res / ref, psi: psi}
}

func dot(a, b []float64) float64 {
	var s0, s1 float64
	n := len(a)
	i := 0
	for ; i+1 < n; i += 2 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
	}
	if i < n {
		s0 += a[i] * b[i]
	}
	return s0 + s1
}

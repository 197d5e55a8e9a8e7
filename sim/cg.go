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

// linearSystem3 is a linearSystem that also takes three vectors at a
// time, each result bit for bit that of a call on the vector alone.
type linearSystem3 interface {
	linearSystem
	mulA3(dst, p *[3][]float64)
	precond3(dst, r *[3][]float64)
}

// cg3 is the workspace of three conjugate gradient solves with one
// matrix, run side by side (the local models' sensitivities).
type cg3 struct {
	r, z, p, q [3][]float64
}

// newCG3 makes the workspace with first's vectors as the first solve's:
// the step's solve has just left them in the caches.
func newCG3(first *cg) *cg3 {
	w := &cg3{}
	w.r[0], w.z[0], w.p[0], w.q[0] = first.r, first.z, first.p, first.q
	n := len(first.r)
	for v := 1; v < 3; v++ {
		w.r[v], w.z[v], w.p[v], w.q[v] = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	}
	return w
}

// solve is cg.solve without scale for the three systems A·x[v] = b[v]
// side by side: each vector's arithmetic is cg.solve's on it alone, so
// each result is bit for bit the same, but while the three are under way
// the products and the preconditioner take them together (mulA3,
// precond3).
func (w *cg3) solve(s linearSystem3, x, b *[3][]float64, tol, floor float64, maxIter int) (out [3]solveResult) {
	r, z, p, q := &w.r, &w.z, &w.p, &w.q
	var psi, ref, res, rz [3]float64
	var live [3]bool
	s.mulA3(q, x)
	for v := range 3 {
		xq, xb := dot8(x[v], q[v]), dot8(x[v], b[v])
		psi[v] = 0.5*xq - xb
		rv, bv, qv := r[v], b[v], q[v]
		for i := range rv {
			rv[i] = bv[i] - qv[i]
		}
		ref[v] = math.Max(math.Sqrt(dot8(bv, bv)), floor)
		res[v] = math.Sqrt(dot8(rv, rv))
		switch {
		case !isFinite(res[v]):
			out[v] = solveResult{residual: res[v], broke: true}
		case res[v] <= tol*ref[v]:
			out[v] = solveResult{residual: res[v] / ref[v], ok: true, psi: psi[v]}
		default:
			live[v] = true
		}
	}
	w.precond(s, &live)
	for v := range 3 {
		if live[v] {
			copy(p[v], z[v])
			rz[v] = dot8(r[v], z[v])
		}
	}
	for it := 1; it <= maxIter && live != [3]bool{}; it++ {
		w.mulA(s, &live)
		for v := range 3 {
			if !live[v] {
				continue
			}
			pq := dot8(p[v], q[v])
			if !isFinite(pq) {
				out[v], live[v] = solveResult{iters: it, residual: pq, broke: true}, false
				continue
			}
			if !(pq > 0) || !(rz[v] > 0) {
				out[v], live[v] = solveResult{iters: it, residual: res[v] / ref[v], psi: psi[v]}, false
				continue
			}
			a := rz[v] / pq
			psi[v] -= 0.5 * a * rz[v]
			axpy(x[v], x[v], p[v], a)
			axpy(r[v], r[v], q[v], -a)
			res[v] = math.Sqrt(dot8(r[v], r[v]))
			switch {
			case !isFinite(res[v]):
				out[v], live[v] = solveResult{iters: it, residual: res[v], broke: true}, false
			case res[v] <= tol*ref[v]:
				out[v], live[v] = solveResult{iters: it, residual: res[v] / ref[v], ok: true, psi: psi[v]}, false
			case it == maxIter:
				// No iteration left to use a preconditioned residual.
				out[v], live[v] = solveResult{iters: maxIter, residual: res[v] / ref[v], psi: psi[v]}, false
			}
		}
		if live == [3]bool{} {
			break
		}
		w.precond(s, &live)
		for v := range 3 {
			if live[v] {
				rzNew := dot8(r[v], z[v])
				beta := rzNew / rz[v]
				rz[v] = rzNew
				axpy(p[v], z[v], p[v], beta)
			}
		}
	}
	for v := range 3 {
		if live[v] {
			out[v] = solveResult{iters: maxIter, residual: res[v] / ref[v], psi: psi[v]}
		}
	}
	return out
}

// mulA sets q[v] = A·p[v] for the live vectors: the three at once while
// all are.
func (w *cg3) mulA(s linearSystem3, live *[3]bool) {
	if *live == [3]bool{true, true, true} {
		s.mulA3(&w.q, &w.p)
		return
	}
	for v := range 3 {
		if live[v] {
			s.mulA(w.q[v], w.p[v])
		}
	}
}

// precond sets z[v] to the preconditioned r[v] for the live vectors.
func (w *cg3) precond(s linearSystem3, live *[3]bool) {
	if *live == [3]bool{true, true, true} {
		s.precond3(&w.z, &w.r)
		return
	}
	for v := range 3 {
		if live[v] {
			s.precond(w.z[v], w.r[v])
		}
	}
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

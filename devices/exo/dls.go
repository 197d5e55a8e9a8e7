package exo

import (
	"fmt"
	"math"

	"github.com/haptex/haptex/internal/vec3"
)

// Damping returns the damping factor λ [m] for a damped-least-squares
// inverse of j: zero while the smallest singular value σ_min of j is at
// least eps, rising smoothly to lambdaMax as σ_min falls to zero,
// λ² = lambdaMax² (1 - (σ_min/eps)²) (Chiaverini 1997). Far from
// singularities the inverse is then exact; near them joint speeds stay
// bounded by |v| / (2 λ).
func Damping(j *Mat3, lambdaMax, eps float64) float64 {
	jjt := j.T()
	jjt = j.Mul(&jjt)
	s2 := math.Max(SymEigMin(&jjt), 0)
	if s2 >= eps*eps {
		return 0
	}
	return lambdaMax * math.Sqrt(1-s2/(eps*eps))
}

// DLS returns the damped-least-squares solution q̇ = Jᵀ (J Jᵀ + λ² I)⁻¹ v,
// the joint speeds that minimise |J q̇ - v|² + λ² |q̇|². With λ > 0 the
// result is finite and |q̇| <= |v| / (2λ) for every J; with λ = 0 it is the
// exact inverse, and a singular J gives a zero result and false.
func DLS(j *Mat3, v [3]float64, lambda float64) ([3]float64, bool) {
	a := j.T()
	a = j.Mul(&a)
	l2 := lambda * lambda
	a[0][0] += l2
	a[1][1] += l2
	a[2][2] += l2
	inv, ok := a.Inverse()
	if !ok {
		return [3]float64{}, false
	}
	y := inv.MulVec(v)
	return j.MulTransVec(y), true
}

// InverseError is returned by Inverse when it does not converge.
type InverseError struct {
	Target   [3]float64 // requested pad position [m]
	Residual float64    // remaining position error [m]
	Iter     int
}

func (e *InverseError) Error() string {
	return fmt.Sprintf("exo: inverse kinematics did not reach %v: residual %.3g m after %d iterations", e.Target, e.Residual, e.Iter)
}

// Inverse returns joint angles inside the limits that put the pad centre at
// target (base frame), starting from q0: Levenberg-Marquardt iterations of
// damped least squares, the damping shrinking as the error does. It returns
// an *InverseError when the residual stays above tol (target out of reach
// or beyond the joint limits).
func (m *Model) Inverse(target, q0 [3]float64, tol float64) ([3]float64, error) {
	const maxIter = 200
	q := m.ClampLimits(q0)
	var k Kin
	m.Eval(&k, q)
	e := vec3.Sub(target, k.Pad)
	en := vec3.Norm(e)
	lambda := 1e-2
	for it := 0; it < maxIter; it++ {
		if en <= tol {
			return q, nil
		}
		dq, ok := DLS(&k.J, e, lambda)
		if !ok {
			lambda *= 10
			continue
		}
		qn := m.ClampLimits([3]float64{q[0] + dq[0], q[1] + dq[1], q[2] + dq[2]})
		var kn Kin
		m.Eval(&kn, qn)
		enn := vec3.Norm(vec3.Sub(target, kn.Pad))
		if enn < en {
			q, k, en = qn, kn, enn
			e = vec3.Sub(target, k.Pad)
			lambda = math.Max(lambda/10, 1e-9)
		} else {
			lambda *= 10
			if lambda > 1e3 {
				break
			}
		}
	}
	if en <= tol {
		return q, nil
	}
	return q, &InverseError{Target: target, Residual: en, Iter: maxIter}
}

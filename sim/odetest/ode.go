// Package odetest integrates systems of ordinary differential equations
// y' = f(t, y) with the explicit embedded Runge-Kutta pair of Dormand and
// Prince, order 5(4), with step-size control. It is the accuracy reference
// the cloth simulation's tests compare the implicit integrators with; it is
// far too slow for stiff cloth in real time and is never used there.
//
// It owns the integration loop and its error control only: no state
// outlives a call, and it reads no clock.
//
// References: J. R. Dormand, P. J. Prince, "A family of embedded
// Runge-Kutta formulae", J. Comp. Appl. Math. 6 (1980) 19-26; E. Hairer,
// S. P. Nørsett, G. Wanner, Solving Ordinary Differential Equations I,
// Springer 1993, §II.4-II.5 (step-size control).
package odetest

import (
	"errors"
	"fmt"
	"math"
)

// Func evaluates dy = f(t, y). It must not keep y or dy.
type Func func(t float64, y, dy []float64)

// Options control DormandPrince. Zero values select the defaults.
type Options struct {
	RelTol, AbsTol float64 // default 1e-6 and 1e-9
	InitialStep    float64 // default from a first-order estimate
	MaxStep        float64 // default unbounded
	MaxSteps       int     // default 1e6
	// FixedStep, when > 0, turns the control off: every step is FixedStep
	// long (the last one shortened to end at t1). Used to measure the order.
	FixedStep float64
}

// Stats counts the work of one integration.
type Stats struct {
	Steps, Rejected, Evals int
}

// ErrTooManySteps is returned when the step limit is reached before t1.
var ErrTooManySteps = errors.New("odetest: too many steps")

// Dormand-Prince 5(4) tableau.
var (
	c2, c3, c4, c5         = 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9
	a21                    = 1.0 / 5
	a31, a32               = 3.0 / 40, 9.0 / 40
	a41, a42, a43          = 44.0 / 45, -56.0 / 15, 32.0 / 9
	a51, a52, a53, a54     = 19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729
	a61, a62, a63, a64     = 9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176
	a65                    = -5103.0 / 18656
	b1, b3, b4, b5, b6     = 35.0 / 384, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84
	e1, e3, e4, e5, e6, e7 = 71.0 / 57600, -71.0 / 16695, 71.0 / 1920, -17253.0 / 339200, 22.0 / 525, -1.0 / 40
)

// DormandPrince integrates y' = f(t, y) from t0 to t1 (t1 > t0), replacing
// y with y(t1).
func DormandPrince(f Func, t0, t1 float64, y []float64, opt Options) (Stats, error) {
	var st Stats
	if !(t1 > t0) {
		return st, fmt.Errorf("odetest: end time %g not after start %g", t1, t0)
	}
	if opt.RelTol == 0 {
		opt.RelTol = 1e-6
	}
	if opt.AbsTol == 0 {
		opt.AbsTol = 1e-9
	}
	if opt.MaxSteps == 0 {
		opt.MaxSteps = 1_000_000
	}
	if opt.MaxStep == 0 {
		opt.MaxStep = math.Inf(1)
	}
	n := len(y)
	k := make([][]float64, 7)
	for i := range k {
		k[i] = make([]float64, n)
	}
	tmp, ynew := make([]float64, n), make([]float64, n)
	eval := func(t float64, y, dy []float64) {
		f(t, y, dy)
		st.Evals++
	}
	eval(t0, y, k[0])
	h := opt.FixedStep
	if h <= 0 {
		h = opt.InitialStep
	}
	if h <= 0 {
		h = initialStep(y, k[0], opt, t1-t0)
	}
	t := t0
	stage := func(dst []float64, coef ...float64) {
		for i := range n {
			s := 0.0
			for j, c := range coef {
				s += c * k[j][i]
			}
			dst[i] = y[i] + h*s
		}
	}
	for t < t1 {
		if st.Steps+st.Rejected >= opt.MaxSteps {
			return st, fmt.Errorf("%w: %d at t = %g", ErrTooManySteps, opt.MaxSteps, t)
		}
		h = math.Min(h, opt.MaxStep)
		last := false
		if t+h >= t1 || t+1.0000001*h >= t1 {
			h, last = t1-t, true
		}
		stage(tmp, a21)
		eval(t+c2*h, tmp, k[1])
		stage(tmp, a31, a32)
		eval(t+c3*h, tmp, k[2])
		stage(tmp, a41, a42, a43)
		eval(t+c4*h, tmp, k[3])
		stage(tmp, a51, a52, a53, a54)
		eval(t+c5*h, tmp, k[4])
		stage(tmp, a61, a62, a63, a64, a65)
		eval(t+h, tmp, k[5])
		stage(ynew, b1, 0, b3, b4, b5, b6)
		eval(t+h, ynew, k[6])
		var errSum float64
		for i := range n {
			e := h * (e1*k[0][i] + e3*k[2][i] + e4*k[3][i] + e5*k[4][i] + e6*k[5][i] + e7*k[6][i])
			sc := opt.AbsTol + opt.RelTol*math.Max(math.Abs(y[i]), math.Abs(ynew[i]))
			errSum += (e / sc) * (e / sc)
		}
		errNorm := math.Sqrt(errSum / float64(n))
		if math.IsNaN(errNorm) {
			return st, fmt.Errorf("odetest: non-finite error estimate at t = %g", t)
		}
		if opt.FixedStep > 0 || errNorm <= 1 {
			copy(y, ynew)
			copy(k[0], k[6]) // first same as last
			t += h
			st.Steps++
			if last {
				break
			}
		} else {
			st.Rejected++
		}
		if opt.FixedStep > 0 {
			h = opt.FixedStep
			continue
		}
		fac := 5.0
		if errNorm > 0 {
			fac = math.Min(5, math.Max(0.2, 0.9*math.Pow(errNorm, -0.2)))
		}
		h *= fac
	}
	return st, nil
}

// initialStep is Hairer-Nørsett-Wanner's simple starting guess: a step
// whose first-order term is 1 % of the solution's scale.
func initialStep(y, dy []float64, opt Options, span float64) float64 {
	var d0, d1 float64
	for i := range y {
		sc := opt.AbsTol + opt.RelTol*math.Abs(y[i])
		d0 += (y[i] / sc) * (y[i] / sc)
		d1 += (dy[i] / sc) * (dy[i] / sc)
	}
	h := 1e-6
	if d0 > 1e-10 && d1 > 1e-10 {
		h = 0.01 * math.Sqrt(d0/d1)
	}
	return math.Min(h, span)
}

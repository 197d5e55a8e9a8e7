package odetest

import (
	"errors"
	"math"
	"testing"
)

// dampedSpring is Example 3 of the EG 2004 cloth tutorial (source 000,
// §2.2.2): z” = k(l0 - z)/m - (d/m) z' + g with m = 0.1, k = 100,
// l0 = -1, d = 1, g = -10, z(0) = -1, z'(0) = -5. Exact solution
// z(t) = -1.01 + e^{-5t}(0.01 cos ωt - 4.95/ω sin ωt), ω = √975.
func dampedSpring(t float64, y, dy []float64) {
	const m, k, l0, d, g = 0.1, 100, -1, 1, -10
	dy[0] = y[1]
	dy[1] = k*(l0-y[0])/m - d/m*y[1] + g
}

func dampedSpringExact(t float64) float64 {
	w := math.Sqrt(975)
	return -1.01 + math.Exp(-5*t)*(0.01*math.Cos(w*t)-4.95/w*math.Sin(w*t))
}

func TestDormandPrinceAccuracy(t *testing.T) {
	for _, tol := range []float64{1e-4, 1e-7, 1e-10} {
		y := []float64{-1, -5}
		st, err := DormandPrince(dampedSpring, 0, 2, y, Options{RelTol: tol, AbsTol: tol * 1e-2})
		if err != nil {
			t.Fatal(err)
		}
		e := math.Abs(y[0] - dampedSpringExact(2))
		t.Logf("tol %g: error %.2e in %d steps (%d rejected)", tol, e, st.Steps, st.Rejected)
		if e > 20*tol {
			t.Errorf("tol %g: error %.2e", tol, e)
		}
	}
}

// TestDormandPrinceOrder measures the order with fixed steps on the
// Dahlquist equation y' = 2y (source 000, Example 1): the log-log slope of
// the error against h must be 5.
func TestDormandPrinceOrder(t *testing.T) {
	f := func(t float64, y, dy []float64) { dy[0] = 2 * y[0] }
	var prev float64
	for i, h := range []float64{1.0 / 16, 1.0 / 32, 1.0 / 64} {
		y := []float64{1}
		if _, err := DormandPrince(f, 0, 1, y, Options{FixedStep: h}); err != nil {
			t.Fatal(err)
		}
		e := math.Abs(y[0] - math.Exp(2))
		if i > 0 {
			slope := math.Log2(prev / e)
			t.Logf("h = %g: error %.3e, order %.2f", h, e, slope)
			if slope < 4.7 || slope > 5.5 {
				t.Errorf("order %.2f at h = %g, want 5", slope, h)
			}
		}
		prev = e
	}
}

func TestDormandPrinceErrors(t *testing.T) {
	f := func(t float64, y, dy []float64) { dy[0] = y[0] }
	if _, err := DormandPrince(f, 1, 0, []float64{1}, Options{}); err == nil {
		t.Error("reversed interval: no error")
	}
	_, err := DormandPrince(f, 0, 1, []float64{1}, Options{MaxSteps: 3, FixedStep: 0.01})
	if !errors.Is(err, ErrTooManySteps) {
		t.Errorf("step limit: %v", err)
	}
	nan := func(t float64, y, dy []float64) { dy[0] = math.NaN() }
	if _, err := DormandPrince(nan, 0, 1, []float64{1}, Options{}); err == nil {
		t.Error("NaN right-hand side: no error")
	}
}

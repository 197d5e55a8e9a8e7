package calib

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestLinearLeastSquaresLine compares a straight-line fit with the
// closed-form regression formulas (slope = Sxy/Sxx, standard errors from
// σ̂²/Sxx and σ̂²(1/n + x̄²/Sxx)).
func TestLinearLeastSquaresLine(t *testing.T) {
	xs := []float64{0, 1, 2, 3, 4, 5, 6, 7}
	ys := []float64{1.1, 2.9, 5.2, 6.8, 9.1, 11.2, 12.8, 15.1}
	n := float64(len(xs))
	a := mat.NewDense(len(xs), 2, nil)
	for i, x := range xs {
		a.Set(i, 0, x)
		a.Set(i, 1, 1)
	}
	ls, err := LinearLeastSquares(a, mat.NewDense(len(ys), 1, ys))
	if err != nil {
		t.Fatal(err)
	}
	var mx, my float64
	for i := range xs {
		mx += xs[i] / n
		my += ys[i] / n
	}
	var sxx, sxy float64
	for i := range xs {
		sxx += (xs[i] - mx) * (xs[i] - mx)
		sxy += (xs[i] - mx) * (ys[i] - my)
	}
	slope := sxy / sxx
	icept := my - slope*mx
	var rss float64
	for i := range xs {
		r := ys[i] - icept - slope*xs[i]
		rss += r * r
	}
	s2 := rss / (n - 2)
	want := [][2]float64{{slope, math.Sqrt(s2 / sxx)}, {icept, math.Sqrt(s2 * (1/n + mx*mx/sxx))}}
	for j, w := range want {
		if math.Abs(ls.Coef.At(j, 0)-w[0]) > 1e-12 || math.Abs(ls.StdErr.At(j, 0)-w[1]) > 1e-12 {
			t.Errorf("coefficient %d: %g ± %g, closed form %g ± %g", j, ls.Coef.At(j, 0), ls.StdErr.At(j, 0), w[0], w[1])
		}
	}
	if math.Abs(ls.RMS[0]-math.Sqrt(rss/n)) > 1e-12 || ls.DoF != 6 {
		t.Errorf("RMS %g (want %g), DoF %d", ls.RMS[0], math.Sqrt(rss/n), ls.DoF)
	}
}

// TestLinearLeastSquaresRecovers: noise-free data give the generating
// coefficients exactly, whatever the units of the columns.
func TestLinearLeastSquaresRecovers(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	want := mat.NewDense(4, 3, []float64{1200, 15, -8, 20, 950, 5, -12, 7, 1100, 2048, 1990, 2101})
	a := mat.NewDense(30, 4, nil)
	for i := range 30 {
		for j := range 3 {
			a.Set(i, j, 1e-3*r.NormFloat64())
		}
		a.Set(i, 3, 1)
	}
	var y mat.Dense
	y.Mul(a, want)
	ls, err := LinearLeastSquares(a, &y)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(ls.Coef, want, 1e-8) {
		t.Errorf("coefficients\n%v\nwant\n%v", mat.Formatted(ls.Coef), mat.Formatted(want))
	}
	if ls.Cond > 10 {
		t.Errorf("condition %g for a well-spread design in mN", ls.Cond)
	}
}

func TestLinearLeastSquaresErrors(t *testing.T) {
	dep := mat.NewDense(4, 2, []float64{1, 2, 2, 4, 3, 6, 4, 8})
	if _, err := LinearLeastSquares(dep, mat.NewDense(4, 1, []float64{1, 2, 3, 4})); !errors.Is(err, ErrIllPosed) {
		t.Errorf("dependent columns: %v", err)
	}
	zero := mat.NewDense(3, 2, []float64{1, 0, 2, 0, 3, 0})
	if _, err := LinearLeastSquares(zero, mat.NewDense(3, 1, nil)); !errors.Is(err, ErrIllPosed) {
		t.Errorf("zero column: %v", err)
	}
	if _, err := LinearLeastSquares(mat.NewDense(1, 2, []float64{1, 2}), mat.NewDense(1, 1, []float64{1})); err == nil {
		t.Error("underdetermined accepted")
	}
	if _, err := LinearLeastSquares(mat.NewDense(2, 1, []float64{1, math.NaN()}), mat.NewDense(2, 1, []float64{1, 2})); err == nil {
		t.Error("NaN accepted")
	}
	if _, err := LinearLeastSquares(mat.NewDense(2, 1, []float64{1, 2}), mat.NewDense(3, 1, nil)); err == nil {
		t.Error("row mismatch accepted")
	}
}

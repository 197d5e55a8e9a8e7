package calib

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// MaxCond is the largest condition number (of the design matrix with unit-
// norm columns) LinearLeastSquares accepts. Above it the measurements do
// not determine every coefficient: a pose set that never loads one axis,
// say.
const MaxCond = 1e10

// ErrIllPosed is returned (wrapped, with the condition number) when the
// design matrix is rank deficient or too badly conditioned.
var ErrIllPosed = errors.New("calib: measurements do not determine every coefficient")

// LeastSquares is the solution of Y ≈ A·X in the least-squares sense, for
// an m×p design A and m×q observations Y (one column per measured
// quantity), with what a calibration report needs.
type LeastSquares struct {
	// Coef is X, p×q.
	Coef *mat.Dense
	// Residuals is Y − A·X, m×q.
	Residuals *mat.Dense
	// RMS and MaxAbs summarise each column of Residuals.
	RMS    []float64
	MaxAbs []float64
	// StdErr is the standard error of each coefficient, p×q: σ̂_j·√((AᵀA)⁻¹)_ii
	// with σ̂_j² = Σ residual_j² / DoF. Zero when DoF is 0.
	StdErr *mat.Dense
	// DoF is m − p.
	DoF int
	// Cond is the condition number of A with its columns scaled to unit
	// norm.
	Cond float64
}

// LinearLeastSquares solves Y ≈ A·X by Householder QR. It fails on
// non-finite input, on fewer rows than columns and, with ErrIllPosed, when
// the columns of A are (nearly) dependent.
func LinearLeastSquares(a, y mat.Matrix) (*LeastSquares, error) {
	m, p := a.Dims()
	my, q := y.Dims()
	if my != m {
		return nil, fmt.Errorf("calib: least squares: %d design rows, %d observation rows", m, my)
	}
	if m < p || p == 0 || q == 0 {
		return nil, fmt.Errorf("calib: least squares: %d measurements for %d coefficients", m, p)
	}
	for _, mm := range []mat.Matrix{a, y} {
		r, c := mm.Dims()
		for i := range r {
			for j := range c {
				if v := mm.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("calib: least squares: non-finite value %g at row %d, column %d", v, i, j)
				}
			}
		}
	}
	// Scale the columns to unit norm: the condition number then measures
	// the geometry of the measurements, not the choice of units.
	scale := make([]float64, p)
	as := mat.DenseCopyOf(a)
	for j := range p {
		scale[j] = mat.Norm(as.ColView(j), 2)
		if scale[j] == 0 {
			return nil, fmt.Errorf("%w: column %d of the design is zero", ErrIllPosed, j)
		}
		for i := range m {
			as.Set(i, j, as.At(i, j)/scale[j])
		}
	}
	var qr mat.QR
	qr.Factorize(as)
	cond := qr.Cond()
	if !(cond <= MaxCond) {
		return nil, fmt.Errorf("%w (condition number %.3g)", ErrIllPosed, cond)
	}
	var x mat.Dense
	if err := qr.SolveTo(&x, false, y); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrIllPosed, err)
	}
	for j := range p {
		for k := range q {
			x.Set(j, k, x.At(j, k)/scale[j])
		}
	}
	var res mat.Dense
	res.Mul(a, &x)
	res.Sub(y, &res)

	ls := &LeastSquares{Coef: &x, Residuals: &res, RMS: make([]float64, q), MaxAbs: make([]float64, q),
		StdErr: mat.NewDense(p, q, nil), DoF: m - p, Cond: cond}
	for k := range q {
		var ss float64
		for i := range m {
			r := res.At(i, k)
			ss += r * r
			ls.MaxAbs[k] = math.Max(ls.MaxAbs[k], math.Abs(r))
		}
		ls.RMS[k] = math.Sqrt(ss / float64(m))
	}
	if ls.DoF > 0 {
		// (AᵀA)⁻¹ = S⁻¹ (R⁻¹R⁻ᵀ) S⁻¹ for the scaled factorisation.
		var r, rinv mat.Dense
		qr.RTo(&r)
		if err := rinv.Inverse(r.Slice(0, p, 0, p)); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrIllPosed, err)
		}
		for j := range p {
			var d float64
			for c := j; c < p; c++ {
				d += rinv.At(j, c) * rinv.At(j, c)
			}
			d /= scale[j] * scale[j]
			for k := range q {
				sigma2 := ls.RMS[k] * ls.RMS[k] * float64(m) / float64(ls.DoF)
				ls.StdErr.Set(j, k, math.Sqrt(sigma2*d))
			}
		}
	}
	return ls, nil
}

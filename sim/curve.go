package sim

import (
	"fmt"
	"math"
)

// Curve is a measured strain-stress curve: Stress[i] at Strain[i].
//
// Between the points the curve is the monotone piecewise cubic Hermite
// interpolant (PCHIP, Fritsch & Carlson 1980, with the derivative rule of
// SciPy's PchipInterpolator), so a monotone measurement never produces a
// negative stiffness. Outside the points it continues linearly with the end
// slopes.
//
// Units depend on the curve: tensile curves (Material.Weft, Material.Warp)
// hold engineering strain [-] against force per unit width [N/m]; the shear
// curve holds shear angle [rad] against shear force per unit width [N/m].
// The curve must pass through the origin (no stress at rest) and its stress
// must not decrease.
type Curve struct {
	Strain []float64
	Stress []float64
}

// LinearCurve returns the straight line through the origin with slope k,
// sampled at strains -1 and 1.
func LinearCurve(k float64) Curve {
	return Curve{Strain: []float64{-1, 0, 1}, Stress: []float64{-k, 0, k}}
}

// isZero reports whether c has no points.
func (c *Curve) isZero() bool { return len(c.Strain) == 0 && len(c.Stress) == 0 }

// Validate reports whether c can be used as a strain-stress curve.
func (c Curve) Validate() error {
	n := len(c.Strain)
	if n < 2 {
		return fmt.Errorf("%d points, want at least 2", n)
	}
	if len(c.Stress) != n {
		return fmt.Errorf("%d strains but %d stresses", n, len(c.Stress))
	}
	for i := range n {
		if !isFinite(c.Strain[i]) || !isFinite(c.Stress[i]) {
			return fmt.Errorf("point %d (%g, %g) is not finite", i, c.Strain[i], c.Stress[i])
		}
		if i > 0 && c.Strain[i] <= c.Strain[i-1] {
			return fmt.Errorf("strain %g at point %d does not increase from %g", c.Strain[i], i, c.Strain[i-1])
		}
		if i > 0 && c.Stress[i] < c.Stress[i-1] {
			return fmt.Errorf("stress %g at point %d decreases from %g", c.Stress[i], i, c.Stress[i-1])
		}
	}
	if c.Stress[n-1] <= c.Stress[0] {
		return fmt.Errorf("stress is constant (%g): no stiffness", c.Stress[0])
	}
	if c.Strain[0] > 0 || c.Strain[n-1] < 0 {
		return fmt.Errorf("strain range [%g, %g] does not contain 0", c.Strain[0], c.Strain[n-1])
	}
	var p pchip
	p.set(c)
	scale := math.Max(math.Abs(c.Stress[0]), math.Abs(c.Stress[n-1]))
	if s0, _, _ := p.eval(0); math.Abs(s0) > 1e-9*scale {
		return fmt.Errorf("stress at zero strain is %g, want 0 (include the origin as a point)", s0)
	}
	return nil
}

// Eval returns the stress and the stiffness (dStress/dStrain) at strain e.
func (c Curve) Eval(e float64) (stress, stiffness float64) {
	var p pchip
	p.set(c)
	s, ds, _ := p.eval(e)
	return s, ds
}

// pchip is a compiled Curve: knots, values, end-derivative-limited PCHIP
// slopes and the running integral of the stress, so that evaluating the
// stress, its slope and the energy density costs one binary search.
type pchip struct {
	x, y, d, cum []float64 // cum[i] = ∫ stress from x[0] to x[i]
	zero         float64   // ∫ stress from x[0] to 0
}

// set compiles c (assumed valid) into p, reusing p's storage when it fits.
func (p *pchip) set(c Curve) {
	n := len(c.Strain)
	p.x = append(p.x[:0], c.Strain...)
	p.y = append(p.y[:0], c.Stress...)
	p.d = resize(p.d, n)
	p.cum = resize(p.cum, n)
	pchipSlopes(p.d, p.x, p.y)
	p.cum[0] = 0
	for i := 1; i < n; i++ {
		h := p.x[i] - p.x[i-1]
		p.cum[i] = p.cum[i-1] + h*(p.y[i-1]+p.y[i])/2 + h*h*(p.d[i-1]-p.d[i])/12
	}
	p.zero = 0
	p.zero = p.integral(0)
}

// pchipSlopes sets d to the PCHIP derivatives at the knots x (as in SciPy's
// PchipInterpolator: weighted harmonic means inside, the shape-preserving
// three-point formula at the ends).
func pchipSlopes(d, x, y []float64) {
	n := len(x)
	if n == 2 {
		m := (y[1] - y[0]) / (x[1] - x[0])
		d[0], d[1] = m, m
		return
	}
	slope := func(i int) float64 { return (y[i+1] - y[i]) / (x[i+1] - x[i]) }
	for k := 1; k < n-1; k++ {
		h0, h1 := x[k]-x[k-1], x[k+1]-x[k]
		m0, m1 := slope(k-1), slope(k)
		if m0 == 0 || m1 == 0 || (m0 > 0) != (m1 > 0) {
			d[k] = 0
			continue
		}
		w1, w2 := 2*h1+h0, h1+2*h0
		d[k] = (w1 + w2) / (w1/m0 + w2/m1)
	}
	d[0] = pchipEdge(x[1]-x[0], x[2]-x[1], slope(0), slope(1))
	d[n-1] = pchipEdge(x[n-1]-x[n-2], x[n-2]-x[n-3], slope(n-2), slope(n-3))
}

func pchipEdge(h0, h1, m0, m1 float64) float64 {
	d := ((2*h0+h1)*m0 - h0*m1) / (h0 + h1)
	switch {
	case sign(d) != sign(m0):
		return 0
	case sign(m0) != sign(m1) && math.Abs(d) > 3*math.Abs(m0):
		return 3 * m0
	}
	return d
}

func sign(x float64) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// segment returns i such that x[i] <= e < x[i+1], clamped to [0, n-2].
func (p *pchip) segment(e float64) int {
	lo, hi := 0, len(p.x)-1 // x[lo] <= e < x[hi] for e inside the data
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if p.x[mid] <= e {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// eval returns the stress, its slope and the energy density ∫_0^e stress.
func (p *pchip) eval(e float64) (s, ds, energy float64) {
	n := len(p.x)
	switch {
	case e <= p.x[0]:
		t := e - p.x[0]
		s, ds = p.y[0]+p.d[0]*t, p.d[0]
		return s, ds, t*(p.y[0]+0.5*p.d[0]*t) - p.zero
	case e >= p.x[n-1]:
		t := e - p.x[n-1]
		s, ds = p.y[n-1]+p.d[n-1]*t, p.d[n-1]
		return s, ds, p.cum[n-1] + t*(p.y[n-1]+0.5*p.d[n-1]*t) - p.zero
	}
	i := p.segment(e)
	h := p.x[i+1] - p.x[i]
	u := (e - p.x[i]) / h
	y0, y1, d0, d1 := p.y[i], p.y[i+1], p.d[i]*h, p.d[i+1]*h
	u2, u3 := u*u, u*u*u
	s = y0*(2*u3-3*u2+1) + d0*(u3-2*u2+u) + y1*(-2*u3+3*u2) + d1*(u3-u2)
	ds = (y0*(6*u2-6*u) + d0*(3*u2-4*u+1) + y1*(-6*u2+6*u) + d1*(3*u2-2*u)) / h
	u4 := u2 * u2
	in := y0*(u4/2-u3+u) + d0*(u4/4-2*u3/3+u2/2) + y1*(-u4/2+u3) + d1*(u4/4-u3/3)
	return s, ds, p.cum[i] + h*in - p.zero
}

// integral returns ∫ stress from x[0] to e (before the zero offset).
func (p *pchip) integral(e float64) float64 {
	_, _, w := p.eval(e)
	return w + p.zero
}

func resize(s []float64, n int) []float64 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]float64, n)
}

func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

package sim

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestBCSRProduct checks the product against plain loops over the stored
// blocks and couplings, and that the assembled matrix of a pinched cloth
// (elements, bending, contacts, rod) is symmetric: xᵀ·A·y = yᵀ·A·x.
func TestBCSRProduct(t *testing.T) {
	c := newTestCloth(t, func(cfg *Config) { cfg.NodesU, cfg.NodesV = 16, 16 })
	runScript(c, ShowcasePinch(c.cfg.Material.Thickness), sec(1.5), nil)
	a := c.dyn.op.a
	rng := rand.New(rand.NewPCG(3, 4))
	x, y := make([]float64, 3*c.n), make([]float64, 3*c.n)
	for i := range x {
		x[i], y[i] = rng.NormFloat64(), rng.NormFloat64()
	}
	got, want := make([]float64, 3*c.n), make([]float64, 3*c.n)
	a.mul(got, x)
	for i := range c.n {
		for k := a.rowPtr[i]; k < a.rowPtr[i+1]; k++ {
			j := 3 * int(a.col[k])
			for r := range 3 {
				for q := range 3 {
					want[3*i+r] += a.val[k][r][q] * x[j+q]
				}
			}
		}
		for k := a.exRow[i]; k < a.exRow[i+1]; k++ {
			j := 3 * int(a.exCol[k])
			for r := range 3 {
				want[3*i+r] += a.exVal[k] * x[j+r]
			}
		}
	}
	if e := relErr(got, want); e > 1e-12 {
		t.Errorf("product vs plain loops: relative error %.2e", e)
	}
	ay := make([]float64, 3*c.n)
	a.mul(ay, y)
	xay, yax := dot(x, ay), dot(y, got)
	if d := math.Abs(xay - yax); d > 1e-12*math.Sqrt(dot(x, x)*dot(ay, ay)) {
		t.Errorf("xᵀAy = %v, yᵀAx = %v", xay, yax)
	}
}

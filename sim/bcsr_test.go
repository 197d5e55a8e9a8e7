package sim

import (
	"math/rand/v2"
	"testing"
)

// TestBCSRSymmetricProduct checks the product that reads each coupling
// above the diagonal once against the plain row-by-row product, on the
// assembled matrix of a pinched cloth (elements, bending, contacts, rod).
func TestBCSRSymmetricProduct(t *testing.T) {
	c := newTestCloth(t, func(cfg *Config) { cfg.NodesU, cfg.NodesV = 16, 16 })
	runScript(c, ShowcasePinch(c.cfg.Material.Thickness), 1.5, nil)
	a := c.dyn.a
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, 3*c.n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	got, want := make([]float64, 3*c.n), make([]float64, 3*c.n)
	a.mul(got, x)
	for i := range c.n {
		a0, a1, a2 := a.rowBlocks(x, a.rowPtr[i], a.rowPtr[i+1])
		for k := a.exRow[i]; k < a.exRow[i+1]; k++ {
			j := 3 * int(a.exCol[k])
			a0 += a.exVal[k] * x[j]
			a1 += a.exVal[k] * x[j+1]
			a2 += a.exVal[k] * x[j+2]
		}
		want[3*i], want[3*i+1], want[3*i+2] = a0, a1, a2
	}
	if e := relErr(got, want); e > 1e-12 {
		t.Errorf("symmetric product vs row by row: relative error %.2e", e)
	}
}

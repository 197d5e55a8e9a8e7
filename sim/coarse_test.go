package sim

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// The coarse correction adds P·Aᶜ⁻¹·Pᵀ·r, Aᶜ = Pᵀ·A·P: here Aᶜ is summed
// entry by entry from the assembled matrix of a pinched cloth (contact
// and pinned nodes included) and solved by dense Gaussian elimination.
func TestCoarseCorrection(t *testing.T) {
	for _, n := range []int{12, 24, 32} {
		c := newTestCloth(t, func(cfg *Config) { cfg.NodesU, cfg.NodesV, cfg.Dt = n, n, 5*time.Millisecond })
		runScript(c, ShowcasePinch(c.cfg.Material.Thickness), sec(1.5), nil)
		d := &c.dyn
		co, a := d.pc.co, d.op.a
		co.build(a, nil)
		if !co.ok {
			t.Fatalf("%d²: the coarse factorisation failed", n)
		}
		m := 3 * co.nc
		ac := make([]float64, m*m)
		for i := range c.n {
			if !c.cons.free[i] {
				continue
			}
			ci := int(co.agg[i])
			for k := a.rowPtr[i]; k < a.rowPtr[i+1]; k++ {
				j := a.col[k]
				if !c.cons.free[j] {
					continue
				}
				cj := int(co.agg[j])
				for r := range 3 {
					for q := range 3 {
						ac[(3*ci+r)*m+3*cj+q] += a.val[k][r][q]
					}
				}
			}
			for k := a.exRow[i]; k < a.exRow[i+1]; k++ {
				j := a.exCol[k]
				if !c.cons.free[j] {
					continue
				}
				cj := int(co.agg[j])
				for r := range 3 {
					ac[(3*ci+r)*m+3*cj+r] += a.exVal[k]
				}
			}
		}
		for p := range m {
			if ac[p*m+p] == 0 {
				ac[p*m+p] = 1 // an aggregate with no free node
			}
		}
		rng := rand.New(rand.NewPCG(1, uint64(n)))
		r := make([]float64, 3*c.n)
		for i := range r {
			r[i] = rng.NormFloat64()
		}
		y := make([]float64, m)
		for i := range c.n {
			if c.cons.free[i] {
				for q := range 3 {
					y[3*int(co.agg[i])+q] += r[3*i+q]
				}
			}
		}
		denseSolve(ac, y)
		got := make([]float64, 3*c.n)
		co.addCorrection(got, r)
		var errMax, ref float64
		for i := range c.n {
			for q := range 3 {
				var want float64
				if c.cons.free[i] {
					want = y[3*int(co.agg[i])+q]
				}
				errMax = max(errMax, math.Abs(got[3*i+q]-want))
				ref = max(ref, math.Abs(want))
			}
		}
		t.Logf("%d²: %d aggregates, largest error %.3g of %.3g", n, co.nc, errMax, ref)
		if errMax > 1e-9*ref {
			t.Errorf("%d²: largest error %.3g against largest entry %.3g", n, errMax, ref)
		}
	}
}

// denseSolve overwrites b with the solution of the m × m system a·x = b
// (Gaussian elimination with partial pivoting; a is overwritten).
func denseSolve(a, b []float64) {
	m := len(b)
	for k := range m {
		p := k
		for i := k + 1; i < m; i++ {
			if math.Abs(a[i*m+k]) > math.Abs(a[p*m+k]) {
				p = i
			}
		}
		for j := range m {
			a[k*m+j], a[p*m+j] = a[p*m+j], a[k*m+j]
		}
		b[k], b[p] = b[p], b[k]
		for i := k + 1; i < m; i++ {
			f := a[i*m+k] / a[k*m+k]
			for j := k; j < m; j++ {
				a[i*m+j] -= f * a[k*m+j]
			}
			b[i] -= f * b[k]
		}
	}
	for k := m - 1; k >= 0; k-- {
		s := b[k]
		for j := k + 1; j < m; j++ {
			s -= a[k*m+j] * b[j]
		}
		b[k] = s / a[k*m+k]
	}
}

// The two-grid V-cycle is a symmetric positive definite preconditioner on
// the free subspace, as CG needs: ⟨M⁻¹u, w⟩ = ⟨u, M⁻¹w⟩ and ⟨M⁻¹u, u⟩ > 0,
// on pinched cloths, uniform and graded, and on a strip three nodes wide.
// A residual that does not match the sweep's order breaks the symmetry.
func TestVCycleSymmetric(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Config)
	}{
		{"24²", func(c *Config) { c.NodesU, c.NodesV = 24, 24 }},
		{"graded 17²", func(c *Config) {
			c.NodesU, c.NodesV = 17, 17
			c.Refine = Refinement{Centre: [2]float64{0.15, 0.2}, Radius: RefineRadius, Ratio: RefineRatio}
		}},
		{"12 × 3", func(c *Config) { c.NodesU, c.NodesV = 12, 3 }},
		{"16², bending friction", func(c *Config) {
			c.NodesU, c.NodesV = 16, 16
			c.Material.Hysteresis = testHysteresis()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestCloth(t, func(cfg *Config) { tc.edit(cfg); cfg.Dt = 5 * time.Millisecond })
			runScript(c, ShowcasePinch(c.cfg.Material.Thickness), sec(1.5), nil)
			d := &c.dyn
			if !d.pc.co.ok {
				t.Fatal("no coarse factor")
			}
			rng := rand.New(rand.NewPCG(3, 4))
			n3 := 3 * c.n
			u, w, mu, mw := make([]float64, n3), make([]float64, n3), make([]float64, n3), make([]float64, n3)
			for trial := range 5 {
				for i := range u {
					u[i], w[i] = rng.NormFloat64(), rng.NormFloat64()
				}
				d.filter(u)
				d.filter(w)
				d.precond(mu, u)
				d.precond(mw, w)
				a, b := dot(mu, w), dot(u, mw)
				scale := math.Sqrt(dot(mu, mu) * dot(w, w))
				if math.Abs(a-b) > 1e-12*scale {
					t.Errorf("trial %d: ⟨M⁻¹u, w⟩ = %.15g, ⟨u, M⁻¹w⟩ = %.15g", trial, a, b)
				}
				if e := dot(mu, u); !(e > 0) {
					t.Errorf("trial %d: ⟨M⁻¹u, u⟩ = %g", trial, e)
				}
			}
		})
	}
}

// While the bending friction lives, the smoother's matrix is the
// operator's own (no coupling lumped): after a forward sweep from zero the
// residual r − A·z is −Ũ·z, the part of a product the V-cycle computes,
// with and without self-contact springs in the operator.
func TestSmootherIsOperatorWithBendingFriction(t *testing.T) {
	for _, tc := range []struct {
		name   string
		n      int
		fold   bool
		t      float64
		merged bool
	}{
		{"pinch 12²", 12, false, 0.5, false},
		{"fold 12²", 12, true, 3, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestCloth(t, func(cfg *Config) {
				cfg.NodesU, cfg.NodesV, cfg.Dt = tc.n, tc.n, 5*time.Millisecond
				cfg.NoSelfCollision = !tc.fold
				cfg.Material.Hysteresis = testHysteresis()
			})
			s := ShowcasePinch(c.cfg.Material.Thickness)
			if tc.fold {
				s = FoldScript(c.cfg)
			}
			runScript(c, s, sec(tc.t), nil)
			d := &c.dyn
			pc := &d.pc
			if !pc.plain || pc.mixed != tc.merged {
				t.Fatalf("plain %v, mixed %v: want true, %v", pc.plain, pc.mixed, tc.merged)
			}
			rng := rand.New(rand.NewPCG(5, 6))
			n3 := 3 * c.n
			r, z, u, az := make([]float64, n3), make([]float64, n3), make([]float64, n3), make([]float64, n3)
			for i := range r {
				r[i] = rng.NormFloat64()
			}
			d.filter(r)
			pc.sweepFromZero(z, r)
			d.filter(z)
			pc.mulUpper(u, z)
			d.filter(u)
			d.mulA(az, z)
			var worst float64
			for i := range r {
				worst = max(worst, math.Abs(r[i]-az[i]+u[i]))
			}
			if ref := math.Sqrt(dot(r, r)); !(worst <= 1e-12*ref) {
				t.Errorf("|r - A·z + Ũ·z| up to %g against |r| %g", worst, ref)
			}
		})
	}
}

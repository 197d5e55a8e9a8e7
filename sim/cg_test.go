package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// denseSystem is a dense SPD system with a Jacobi preconditioner.
type denseSystem struct {
	n int
	a []float64 // row-major n × n
}

func (d *denseSystem) mulA(dst, p []float64) {
	for i := range d.n {
		var s float64
		for j := range d.n {
			s += d.a[i*d.n+j] * p[j]
		}
		dst[i] = s
	}
}

func (d *denseSystem) precond(dst, r []float64) {
	for i := range d.n {
		dst[i] = r[i] / d.a[i*d.n+i]
	}
}

// randomSPD returns BᵀB + n·I for a random B.
func randomSPD(rng *rand.Rand, n int) *denseSystem {
	b := make([]float64, n*n)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	d := &denseSystem{n: n, a: make([]float64, n*n)}
	for i := range n {
		for j := range n {
			var s float64
			for k := range n {
				s += b[k*n+i] * b[k*n+j]
			}
			d.a[i*n+j] = s
		}
		d.a[i*n+i] += float64(n)
	}
	return d
}

// randomProblem returns a random SPD system, a random solution and its
// right-hand side.
func randomProblem(rng *rand.Rand, n int) (d *denseSystem, sol, b []float64) {
	d = randomSPD(rng, n)
	sol = make([]float64, n)
	for i := range sol {
		sol[i] = rng.NormFloat64()
	}
	b = make([]float64, n)
	d.mulA(b, sol)
	return d, sol, b
}

// aNorm returns ‖x - y‖_A.
func aNorm(d *denseSystem, x, y []float64) float64 {
	e := make([]float64, d.n)
	for i := range e {
		e[i] = x[i] - y[i]
	}
	ae := make([]float64, d.n)
	d.mulA(ae, e)
	return math.Sqrt(dot(e, ae))
}

// TestCGScaledWarmStart: the scaled warm start γ·x0, γ = x0ᵀb/x0ᵀAx0, is
// never further from the solution in the A-norm than x0 or 0, and a warm
// start that points the wrong way (the previous step's Δv reversed)
// costs no iterations with it.
func TestCGScaledWarmStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	const n = 40
	for trial := range 50 {
		d, sol, b := randomProblem(rng, n)
		x0 := make([]float64, n)
		for i := range x0 {
			x0[i] = rng.NormFloat64() + rng.Float64()*sol[i]
		}
		zero := make([]float64, n)
		x := append([]float64(nil), x0...)
		newCG(n).solve(d, x, b, 1e-12, 0, 0, true) // no iterations: only the scaling
		got, fromX0, fromZero := aNorm(d, x, sol), aNorm(d, x0, sol), aNorm(d, zero, sol)
		if got > fromX0*(1+1e-12) || got > fromZero*(1+1e-12) {
			t.Errorf("trial %d: scaled start is %g from the solution, x0 %g, zero %g", trial, got, fromX0, fromZero)
		}
		x = append(x[:0], x0...)
		newCG(n).solve(d, x, b, 1e-12, 0, 0, false)
		for i := range x {
			if x[i] != x0[i] {
				t.Fatalf("trial %d: unscaled solve with no iterations changed x[%d]", trial, i)
			}
		}
	}

	d, sol, b := randomProblem(rng, n)
	rev := make([]float64, n)
	for i := range rev {
		rev[i] = -0.5 * sol[i]
	}
	x := append([]float64(nil), rev...)
	if r := newCG(n).solve(d, x, b, 1e-9, 0, 100, true); !r.ok || r.iters != 0 {
		t.Errorf("reversed warm start, scaled: %+v, want converged in 0 iterations", r)
	}
	x = append(x[:0], rev...)
	if r := newCG(n).solve(d, x, b, 1e-9, 0, 100, false); !r.ok || r.iters == 0 {
		t.Errorf("reversed warm start, unscaled: %+v, want iterations", r)
	}
}

// TestCG3MatchesCG: the three solves side by side (cg3, as the local
// models' sensitivities run) give each vector bit for bit what cg.solve
// gives it alone, on the step's own system in the pressed fold (a pinched
// stack in the V-cycle), also when the three stop at different
// iterations: one right-hand side zero (done at once), one already solved
// to the tolerance by its warm start, one converging.
func TestCG3MatchesCG(t *testing.T) {
	c := newTestCloth(t, func(cfg *Config) { cfg.NodesU, cfg.NodesV, cfg.Dt = 16, 16, 5*time.Millisecond })
	s := FoldScript(c.cfg)
	runScript(c, s, s.Keys[16].T, nil)
	if c.Stats().Stacked == 0 || !c.dyn.pc.sb.ok {
		t.Fatalf("no pinched stack in the step's system: %+v", c.Stats())
	}
	n := 3 * c.n
	rng := rand.New(rand.NewPCG(5, 6))
	random := func() []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		c.dyn.filter(v)
		return v
	}
	for _, tc := range []struct {
		name    string
		maxIter int
		setup   func(b, x *[3][]float64)
	}{
		{"two iterations", 2, func(b, x *[3][]float64) {}},
		{"to convergence", 200, func(b, x *[3][]float64) {}},
		{"stopping apart", 200, func(b, x *[3][]float64) {
			clear(b[0])
			clear(x[0])
			c.dyn.mulA(b[1], x[1]) // x[1] solves it exactly
		}},
	} {
		var b, x [3][]float64
		for v := range 3 {
			b[v], x[v] = random(), random()
		}
		tc.setup(&b, &x)
		var want [3][]float64
		var wantRes [3]solveResult
		one := newCG(n)
		for v := range 3 {
			want[v] = slices.Clone(x[v])
			wantRes[v] = one.solve(&c.dyn, want[v], b[v], 1e-6, 0, tc.maxIter, false)
		}
		gotRes := newCG3(newCG(n)).solve(&c.dyn, &x, &b, 1e-6, 0, tc.maxIter)
		for v := range 3 {
			g, w := gotRes[v], wantRes[v]
			sameRes := g.iters == w.iters && g.ok == w.ok && g.broke == w.broke &&
				sameBits([]float64{g.residual, g.psi}, []float64{w.residual, w.psi})
			if !sameBits(x[v], want[v]) || !sameRes {
				t.Errorf("%s, vector %d: side by side %+v, alone %+v (same solution: %v)", tc.name, v, gotRes[v], wantRes[v], sameBits(x[v], want[v]))
			}
		}
		if tc.name == "stopping apart" && (wantRes[0].iters != 0 || wantRes[2].iters <= wantRes[1].iters) {
			t.Errorf("%s: the solves did not stop apart: %+v", tc.name, wantRes)
		}
	}
}

// TestDopMinMax: the boxes' kernel against Go's min and max (equal as
// numbers; a zero's sign may differ).
func TestDopMinMax(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 1000 {
		var lo, hi, a, b [dopK]float64
		for k := range dopK {
			lo[k], hi[k], a[k], b[k] = randNum(rng), randNum(rng), randNum(rng), randNum(rng)
		}
		wlo, whi := lo, hi
		withoutAsm(func() { dopMinMax(&wlo, &whi, &a, &b) })
		dopMinMax(&lo, &hi, &a, &b)
		if lo != wlo || hi != whi {
			t.Fatalf("kernel %v %v, Go %v %v", lo, hi, wlo, whi)
		}
	}
}

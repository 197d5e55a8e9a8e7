package sim

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/haptex/haptex/sim/odetest"
)

// TestClothIntegratorOrder integrates a small hanging cloth (nonlinear
// curves, viscosity, bending, gravity, the clamped top edge) released from
// a perturbed shape, with backward Euler and BDF-2 at several steps, and
// compares the state at 20 ms with the Dormand-Prince 5(4) reference at
// tolerance 1e-10: the errors fall with the schemes' orders (1 and 2). The
// fabric is the built-in cotton at a twentieth of its stiffness, so that
// the steps tried resolve its fastest modes. BDF-2 runs without viscosity:
// the Kelvin-Voigt forces' dependence on positions is not in the
// (symmetric) Jacobian, which costs a linearly implicit BDF-2 its second
// order wherever viscous stresses matter (with the cotton's viscosity the
// measured order is 1.1); undamped, the fast modes need shorter steps.
func TestClothIntegratorOrder(t *testing.T) {
	soft := DefaultMaterial()
	for _, c := range []*Curve{&soft.Weft, &soft.Warp, &soft.Shear} {
		for i := range c.Stress {
			c.Stress[i] *= 0.05
		}
	}
	newCloth := func(dt time.Duration, sc Scheme) *Cloth {
		c := newTestCloth(t, func(cfg *Config) {
			cfg.Width, cfg.Height, cfg.NodesU, cfg.NodesV = 0.1, 0.1, 6, 6
			cfg.Offset, cfg.NoRod, cfg.NoStrainLimit = [3]float64{cfg.Width / 2, 0, 0}, true, true
			cfg.Material = soft
			cfg.Dt, cfg.Scheme = dt, sc
			cfg.Tolerance, cfg.MaxIterations = 1e-11, 2000
		})
		rng := rand.New(rand.NewPCG(42, 1))
		for k := range c.n {
			if c.cons.free[k] {
				for q := range 3 {
					c.x[3*k+q] += 0.001 * (2*rng.Float64() - 1)
				}
			}
		}
		return c
	}
	// The steps divide tEnd into whole nanoseconds (Config.Dt is a
	// time.Duration).
	const tEnd = 20 * time.Millisecond
	for _, sc := range []struct {
		s     Scheme
		order float64
		eta   Viscosity
		steps []int
	}{
		{Euler, 1, soft.Viscosity, pick([]int{80, 160, 320}, []int{80, 160})},
		{BDF2, 2, Viscosity{}, pick([]int{625, 1250, 2500}, []int{625, 1250})},
	} {
		soft.Viscosity = sc.eta
		ref := newCloth(time.Second, Euler)
		n3 := len(ref.x)
		y := append(append([]float64(nil), ref.x...), ref.v...)
		f := make([]float64, n3)
		deriv := func(_ float64, y, dy []float64) {
			x, v := y[:n3], y[n3:]
			ref.dyn.force.eval(x, v, f)
			for k := range ref.n {
				for q := range 3 {
					i := 3*k + q
					dy[i], dy[n3+i] = v[i], f[i]/ref.fab.mass[k]
					if !ref.cons.free[k] {
						dy[i], dy[n3+i] = 0, 0
					}
				}
			}
		}
		st, err := odetest.DormandPrince(deriv, 0, tEnd.Seconds(), y, odetest.Options{RelTol: 1e-10, AbsTol: 1e-13})
		if err != nil {
			t.Fatal(err)
		}
		var errs []float64
		for _, n := range sc.steps {
			c := newCloth(tEnd/time.Duration(n), sc.s)
			for i := range n {
				c.Step(time.Duration(i)*c.cfg.Dt, nil)
			}
			var e float64
			for i := range n3 {
				e = math.Max(e, math.Abs(c.x[i]-y[i]))
			}
			errs = append(errs, e)
		}
		t.Logf("Dormand-Prince reference: %d steps, %d rejected", st.Steps, st.Rejected)
		checkOrder(t, sc.s.String()+" on the cloth", errs, sc.order)
	}
}

package haptics

import (
	"testing"

	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/internal/vec3"
)

// The force integrator unwinds from beyond the velocity reference's limit:
// an error that reverses brings the reference back under force.vmax_mps
// within a few ticks. Held there by the clamped reference, the integrator
// never moved again, and the finger was driven at the limit whatever the
// force.
func TestForceIntegratorUnwinds(t *testing.T) {
	cfg := DefaultConfig()
	c, err := newController(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	m, err := exo.New(exo.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	home := exo.DefaultParams().Home
	var k exo.Kin
	m.Eval(&k, home)
	c.reset(home)
	vmax := cfg.Force.VMax
	// Where the set point's weight left it: 3 VMax along x, the force
	// error now 0.2 N the other way.
	c.iF = [3]float64{3 * vmax, 0, 0}
	lim := [3]float64{10, 10, 10}
	under := -1
	for tick := range 200 {
		c.step(&k, [3]float64{-0.2, 0, 0}, [3]float64{}, [3]float64{}, lim, 0, [3]float64{}, 0)
		if vec3.Norm(c.vRef) < 0.99*vmax {
			under = tick
			break
		}
	}
	if under < 0 {
		t.Fatalf("after 200 ticks the velocity reference is %v, |iF| %.3g m/s: held at the %.3g m/s limit", c.vRef, vec3.Norm(c.iF), vmax)
	}
	t.Logf("the reference under the limit after %d ticks", under+1)
	if n := vec3.Norm(c.iF); n > vmax*(1+1e-12) {
		t.Errorf("|iF| %.4g m/s beyond the limit %.4g", n, vmax)
	}
}

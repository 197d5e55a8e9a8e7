package kes

import (
	"math"
	"testing"
	"time"

	"github.com/haptex/haptex/sim"
)

// TestSwitchSmooth: switching fabric between trials as the experiment
// runner does (the new fabric's Material blended in over sim.MaterialRamp;
// a 30 cm cloth hanging from the stand's rod, at rest, fingers away)
// releases less than 1 % of the cloth's potential energy (elastic and
// bending; gravity's potential is not counted, which makes the bound
// stricter) as motion, from the lightest
// and limpest built-in fabric to the heaviest and stiffest and back. An
// instant switch is logged for comparison: that is the jump a ramp avoids.
func TestSwitchSmooth(t *testing.T) {
	const n, dt = 10, 10 * time.Millisecond
	for _, tc := range []struct {
		from, to string
		ramp     bool
	}{
		{"silk-habutae", "denim", true},
		{"denim", "silk-habutae", true},
		{"denim", "silk-habutae", false},
	} {
		from, err := Builtin(tc.from)
		if err != nil {
			t.Fatal(err)
		}
		to, err := Builtin(tc.to)
		if err != nil {
			t.Fatal(err)
		}
		m, err := from.Material()
		if err != nil {
			t.Fatal(err)
		}
		cfg := sim.DefaultConfig()
		cfg.NodesU, cfg.NodesV, cfg.Dt = n, n, dt
		cfg.Material = m
		c, err := sim.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for range int(2 * time.Second / dt) {
			c.Step(c.Time(), nil)
		}
		before := c.Energy()
		if before.Kinetic > 1e-12 {
			t.Fatalf("%s: not at rest before the switch (%.3g J)", tc.from, before.Kinetic)
		}
		mt, err := to.Material()
		if err != nil {
			t.Fatal(err)
		}
		if tc.ramp {
			err = c.SetMaterial(mt, sim.MaterialRamp)
		} else {
			err = c.SetMaterial(mt, 0)
		}
		if err != nil {
			t.Fatal(err)
		}
		var peak float64
		for range int(2 * time.Second / dt) {
			c.Step(c.Time(), nil)
			peak = math.Max(peak, c.Energy().Kinetic)
		}
		after := c.Energy()
		pot := after.Tensile + after.Bending
		t.Logf("%s to %s, ramp %v: peak kinetic energy %.3g J; potential: elastic + bending %.3g J before, %.3g J after, gravity %.3g J; peak/potential %.3f %%",
			tc.from, tc.to, tc.ramp, peak, before.Tensile+before.Bending, pot, after.Gravity, 100*peak/pot)
		if tc.ramp && peak > 0.01*pot {
			t.Errorf("%s to %s: the switch released %.3g J, more than 1 %% of %.3g J", tc.from, tc.to, peak, pot)
		}
		if got := c.Config().Material.Name; got != to.Name {
			t.Errorf("material in effect %q, want %q", got, to.Name)
		}
	}
}

package sim

import (
	"math"
	"testing"
	"time"
)

// wool is a heavier, softer, stiffer-bending fabric than the built-in
// cotton, to switch to.
func wool() Material {
	m := DefaultMaterial()
	m.Name = "wool (test)"
	for i := range m.Weft.Stress {
		m.Weft.Stress[i] *= 0.4
	}
	for i := range m.Warp.Stress {
		m.Warp.Stress[i] *= 0.5
	}
	m.BendWeft, m.BendWarp = 3*m.BendWeft, 3*m.BendWarp
	m.ArealMass = 0.24
	m.Thickness = 0.0011
	return m
}

// TestSetMaterialSmooth: switching fabric between trials (cloth at rest,
// fingers away) with MaterialRamp releases less than 1 % of the
// cloth's elastic and bending energy as motion. An instant switch is shown
// for comparison.
func TestSetMaterialSmooth(t *testing.T) {
	n, dt := pick(24, 8), pick(5*time.Millisecond, 20*time.Millisecond)
	for _, tc := range []struct {
		name     string
		from, to Material
		ramp     time.Duration
		limit    float64
	}{
		{"cotton to wool, ramp", DefaultMaterial(), wool(), MaterialRamp, 0.01},
		{"wool to cotton, ramp", wool(), DefaultMaterial(), MaterialRamp, 0.01},
		{"cotton to wool, instant", DefaultMaterial(), wool(), 0, math.Inf(1)},
	} {
		c := newTestCloth(t, func(cfg *Config) {
			cfg.NodesU, cfg.NodesV, cfg.Dt = n, n, dt
			cfg.Material = tc.from
		})
		settle(c, int(2*time.Second/dt))
		if ke := c.Energy().Kinetic; ke > 1e-12 {
			t.Fatalf("%s: not at rest before the switch (%.3g J)", tc.name, ke)
		}
		if err := c.SetMaterial(tc.to, tc.ramp); err != nil {
			t.Fatal(err)
		}
		var peak float64
		for range int(2 * time.Second / dt) {
			c.Step(c.t, nil)
			peak = math.Max(peak, c.Energy().Kinetic)
		}
		e := c.Energy()
		pot := e.Tensile + e.Bending
		t.Logf("%s: peak kinetic energy %.3g J, potential (elastic + bending) %.3g J: %.3f %%", tc.name, peak, pot, 100*peak/pot)
		if peak > tc.limit*pot {
			t.Errorf("%s: the switch released %.3g J, more than %.0f %% of %.3g J", tc.name, peak, 100*tc.limit, pot)
		}
		if c.Config().Material.Name != tc.to.Name {
			t.Errorf("%s: material in effect %q", tc.name, c.Config().Material.Name)
		}
	}
	c := newTestCloth(t, func(cfg *Config) { cfg.NodesU, cfg.NodesV = 8, 8 })
	bad := DefaultMaterial()
	bad.ArealMass = -1
	if err := c.SetMaterial(bad, 100*time.Millisecond); err == nil {
		t.Error("SetMaterial accepted a negative areal mass")
	}
	if err := c.SetMaterial(DefaultMaterial(), -time.Millisecond); err == nil {
		t.Error("SetMaterial accepted a negative ramp")
	}
}

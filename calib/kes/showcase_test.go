package kes

import (
	"testing"
	"time"

	"github.com/haptex/haptex/sim"
)

// showcaseFriction runs the showcase's pinch, pull and release (sim's
// ShowcasePinch, 3.6 s, then 0.4 s for the cloth to spring back) on an n²
// cloth of material m at steps of dt and returns the work its deformation
// did against the internal friction, summed over the steps (sim's
// Stats.Friction) [J].
func showcaseFriction(t *testing.T, m sim.Material, n int, dt time.Duration) float64 {
	t.Helper()
	cfg := sim.DefaultConfig()
	cfg.NodesU, cfg.NodesV = n, n
	cfg.Dt = dt
	cfg.Material = m
	c, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := sim.ShowcasePinch(m.Thickness)
	var in sim.FingerState
	var work float64
	for i := range int(4 * time.Second / cfg.Dt) {
		tm := time.Duration(i) * cfg.Dt
		s.Sample(tm, &in)
		c.Step(tm, &in)
		st := c.Stats()
		if st.Status == sim.StatusRecovered {
			t.Fatalf("%s: step %d failed", m.Name, i)
		}
		work += st.Friction
	}
	return work
}

// TestShowcaseDissipation: the energy the internal friction dissipates in
// the showcase's pinch-and-release rises with the fabric's hysteresis, in
// the order of its values: cotton shirting with its in-plane KES friction
// (RT, 2HG, 2HG5) scaled by ½, 1 and 2 (the tensile ratios r =
// (1-RT)/(1+RT) and the shear half-widths alike), its 2HB as the file
// gives it, dissipates strictly more at each level; and so does the
// bending friction alone (2HB scaled by ½, 1 and 2, no in-plane friction).
// (With none it dissipates nothing: sim has no friction then,
// TestZeroHysteresisIsMain. Scaled all together the total is not monotone:
// more bending friction holds the cloth's shape, and the in-plane modes
// deform and dissipate less; docs/cloth.md has the figures, and those
// across fabrics, which depend on how far each one deforms as much as on
// its loops.)
func TestShowcaseDissipation(t *testing.T) {
	f, err := Builtin("cotton-shirting")
	if err != nil {
		t.Fatal(err)
	}
	m, err := f.Material()
	if err != nil {
		t.Fatal(err)
	}
	n, dt := 16, 5*time.Millisecond
	if raceEnabled {
		n, dt = 12, 10*time.Millisecond
	}
	for _, mode := range []string{"in-plane", "bending alone"} {
		prev := 0.0
		for _, k := range []float64{0.5, 1, 2} {
			mk := m
			h := &mk.Hysteresis
			if mode == "in-plane" {
				h.Warp, h.Weft, h.Shear05, h.Shear5 = k*h.Warp, k*h.Weft, k*h.Shear05, k*h.Shear5
			} else {
				h.Warp, h.Weft, h.Shear05, h.Shear5 = 0, 0, 0, 0
				h.BendWeft, h.BendWarp = k*h.BendWeft, k*h.BendWarp
			}
			w := showcaseFriction(t, mk, n, dt)
			t.Logf("%s friction × %g: %.4g J dissipated", mode, k, w)
			if !(w > prev) {
				t.Errorf("%s friction × %g dissipated %.4g J, after %.4g J at the level below", mode, k, w, prev)
			}
			prev = w
		}
	}
}

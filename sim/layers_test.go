package sim

import (
	"math"
	"testing"
	"time"
)

// TestTwoLayerPinch: pinching the pressed fold, each pad holds two layers,
// and the mean pressure under it is the compression model's for a double
// layer: within 10 % of half the pressure the same pads put on one layer
// of the flat cloth at the same place and the same indentation (two
// layers in series). It logs the local models' normal stiffness beside
// it (docs/cloth-contact.md: not yet the double layer's).
func TestTwoLayerPinch(t *testing.T) {
	const n, dt = 24, 5 * time.Millisecond
	edit := func(cfg *Config) { cfg.NodesU, cfg.NodesV, cfg.Dt = n, n, dt }
	fold := newTestCloth(t, edit)
	fs := FoldScript(fold.cfg)
	pinch := fs.Keys[15] // pinch(q0, 0), held until Keys[16]
	at := pinch.T + 400*time.Millisecond
	runScript(fold, fs, at, nil)
	var two Output
	fold.Output(&two)

	one := newTestCloth(t, edit)
	th := one.fab.thick
	var pos [NumFingers][3]float64
	for f := range NumFingers {
		pos[f] = pinch.Pos[f]
		// The stack's middle is th/2 off the plane and its faces th from
		// it; one layer's faces are th/2 from the plane.
		mid := one.corner[2] + th/2
		d := pos[f][2] - mid
		sgn := 1.0
		if d < 0 {
			sgn = -1
		}
		pos[f][2] = one.corner[2] + d - sgn*th/2
	}
	var away [NumFingers][3]float64
	for f := range NumFingers {
		away[f] = pos[f]
		away[f][2] += math.Copysign(0.03, pos[f][2]-one.corner[2])
	}
	ss, err := NewScript([]Keyframe{{0, away}, {500 * time.Millisecond, pos}})
	if err != nil {
		t.Fatal(err)
	}
	runScript(one, ss, 900*time.Millisecond, nil)
	var single Output
	one.Output(&single)
	for f := range NumFingers {
		p2 := two.Contact[f].NormalForce / two.Contact[f].Area
		p1 := single.Contact[f].NormalForce / single.Contact[f].Area
		if fold.self.layers[f] != 2 || !(math.Abs(p2/p1-0.5) <= 0.05) {
			t.Errorf("finger %d: %d layers held, pressure %.0f Pa against one layer's %.0f (ratio %.3f, want 0.5 ± 10 %%)",
				f, fold.self.layers[f], p2, p1, p2/p1)
		}
		k2, k1 := two.Local[f].K[2][2], single.Local[f].K[2][2]
		t.Logf("finger %d: pressure ratio %.3f; K_zz two layers %.1f N/m, one layer %.1f N/m, ratio %.3f; layers held %d; area %.1f / %.1f mm², force %.3f / %.3f N, depth %.2f / %.2f mm",
			f, p2/p1, k2, k1, k2/k1, fold.self.layers[f], 1e6*two.Contact[f].Area, 1e6*single.Contact[f].Area,
			two.Contact[f].NormalForce, single.Contact[f].NormalForce, 1e3*two.Local[f].Depth, 1e3*single.Local[f].Depth)
	}
}

package sim

import (
	"math"
	"testing"
	"time"
)

// TestTwoLayerPinch: pinching the pressed fold, each pad holds two layers,
// and the mean pressure under it per millimetre of indentation, averaged
// over the last 300 ms of the pinch's hold (a single step's reading moves
// by ±8 % as the probes at the footprint's edge come and go), is the
// compression model's for a double layer: half what the same pads put on
// one layer of the flat cloth at the same place (two layers in series).
// Per indentation, because the stack need not sit where the single layer
// does: the index sinks 1.05 mm into the stack against 0.98 mm into one
// layer, and the raw pressures' ratio reads 0.57. Within 10 %: a pad that
// pressed both layers in parallel read 0.42-0.45 (docs/cloth-contact.md),
// one that did not divide its stiffness by the layers it holds would read
// near 1. The local models' normal stiffness per contact area, what the
// finger is rendered, must be the double layer's half too, within 10 %.
func TestTwoLayerPinch(t *testing.T) {
	const n, dt = 24, 5 * time.Millisecond
	edit := func(cfg *Config) { cfg.NodesU, cfg.NodesV, cfg.Dt = n, n, dt }
	fold := newTestCloth(t, edit)
	fs := FoldScript(fold.cfg)
	pinch := fs.Keys[15] // pinch(q0, 0), held until Keys[16]
	hold := fs.Keys[16].T
	var two Output
	var p2, d2 [NumFingers]float64
	var held [NumFingers]int
	samples := 0
	runScript(fold, fs, hold, func(_ int, tm time.Duration) {
		if tm <= hold-300*time.Millisecond {
			return
		}
		fold.Output(&two)
		samples++
		for f := range NumFingers {
			p2[f] += two.Contact[f].NormalForce / two.Contact[f].Area
			d2[f] += two.Local[f].Depth
			if fold.self.layers[f] == 2 {
				held[f]++
			}
		}
	})

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
		p2, d2 := p2[f]/float64(samples), d2[f]/float64(samples)
		p1, d1 := single.Contact[f].NormalForce/single.Contact[f].Area, single.Local[f].Depth
		pd := (p2 / d2) / (p1 / d1)
		if held[f] != samples || !(math.Abs(pd-0.5) <= 0.05) {
			t.Errorf("finger %d: two layers held in %d of %d steps, mean pressure %.0f Pa at %.3f mm against one layer's %.0f at %.3f mm (per indentation %.3f, want 0.5 ± 10 %%)",
				f, held[f], samples, p2, 1e3*d2, p1, 1e3*d1, pd)
		}
		k2, k1 := two.Local[f].K[2][2], single.Local[f].K[2][2]
		// The stiffness per contact area, as the pressure: the double
		// layer's half within 10 % (one V-cycle per sensitivity solve read
		// 0.86 here).
		ka := (k2 / two.Contact[f].Area) / (k1 / single.Contact[f].Area)
		if !(math.Abs(ka-0.5) <= 0.05) {
			t.Errorf("finger %d: K_zz per contact area %.3f of one layer's, want 0.5 ± 10 %%", f, ka)
		}
		t.Logf("finger %d: mean pressure ratio %.3f (per indentation %.3f) over %d steps; at the hold's end K_zz two layers %.1f N/m, one layer %.1f N/m, ratio %.3f (per contact area %.3f); area %.1f / %.1f mm², force %.3f / %.3f N, depth %.2f / %.2f mm",
			f, p2/p1, pd, samples, k2, k1, k2/k1, ka, 1e6*two.Contact[f].Area, 1e6*single.Contact[f].Area,
			two.Contact[f].NormalForce, single.Contact[f].NormalForce, 1e3*two.Local[f].Depth, 1e3*single.Local[f].Depth)
	}
}

package kes

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/haptex/haptex/sim"
)

// TestVirtualCantilever checks the virtual cantilever against the exact
// heavy elastica (testdata/elastica_ref.py, SciPy): the chord angle of the
// simulated strip converges on the elastica's as the strip is refined, and
// the moment-curvature reading gives back B. What is left at the check's
// resolution is sim's discretisation, not the instrument's.
func TestVirtualCantilever(t *testing.T) {
	var ref struct {
		Chord  float64 `json:"chord_angle_deg"`
		Peirce float64 `json:"peirce_over_c"`
	}
	if err := json.Unmarshal([]byte(readFile(t, "testdata/elastica_ref.json")), &ref); err != nil {
		t.Fatal(err)
	}
	f, err := Builtin("denim")
	if err != nil {
		t.Fatal(err)
	}
	m, err := f.Material()
	if err != nil {
		t.Fatal(err)
	}
	c0 := f.BendingLength(Warp)
	prev := math.Inf(1)
	for _, n := range []int{16, 32} {
		r, err := virtualBending(m, Warp, n, -1)
		if err != nil {
			t.Fatalf("%d elements: %v", n, err)
		}
		dth := r.ChordAngle*180/math.Pi - ref.Chord
		t.Logf("%2d elements: chord angle %.3f° (elastica %.3f°, %+.3f°), Peirce c %+.2f %% of (B/W·g)^(1/3) (elastica %+.2f %%), B %+.2f %%, %d steps",
			n, r.ChordAngle*180/math.Pi, ref.Chord, dth, 100*(r.Length/c0-1), 100*(ref.Peirce-1), 100*(r.B/m.BendWarp-1), r.Steps)
		if math.Abs(dth) >= prev {
			t.Errorf("%d elements: chord angle error %.3f° does not shrink from %.3f°", n, dth, prev)
		}
		prev = math.Abs(dth)
		if relErr(r.B, m.BendWarp) > 0.02 {
			t.Errorf("%d elements: B %.4g, want %.4g within 2 %%", n, r.B, m.BendWarp)
		}
	}
	if prev > 1.5 {
		t.Errorf("chord angle %.3f° from the elastica's at 32 elements, want within 1.5°", prev)
	}
}

// TestVirtualTensile: the virtual FB1 tensile test along each direction
// (weft along sim's u, warp along v) reads back the mapped curve: EMT
// where the curve reaches F_m, and the chuck's work, ∫F·dε, equal to
// sim's own count of the energy the strip stores (the element is
// conservative, so the two are the same quantity measured two ways).
func TestVirtualTensile(t *testing.T) {
	f, err := Builtin("wool-suiting")
	if err != nil {
		t.Fatal(err)
	}
	m, err := f.Material()
	if err != nil {
		t.Fatal(err)
	}
	// The instrument against sim's elastic element: no friction.
	m.Hysteresis = sim.Hysteresis{}
	fm := f.Tensile.MaxLoad.Value * 0.980665
	for _, d := range []Direction{Warp, Weft} {
		tv, c := f.Tensile.Warp, m.Warp
		if d == Weft {
			tv, c = f.Tensile.Weft, m.Weft
		}
		r, err := virtualTensile(m, d, fm, tv.EMT.Value/100, 4)
		if err != nil {
			t.Fatal(err)
		}
		last := r.Points[len(r.Points)-1]
		want, _ := c.Eval(last.X)
		t.Logf("%v: %d positions, EMT %.4f %%, WT %.4f J/m²; at %.3f %%: force %.4f N/m (curve %.4f), work %.5f J/m², stored %.5f J/m²",
			d, len(r.Points)-1, 100*r.EMT, r.WT, 100*last.X, last.Y, want, r.Work, r.Stored)
		if relErr(last.Y, want) > 1e-4 {
			t.Errorf("%v: force %.6g N/m at strain %.4g, curve %.6g", d, last.Y, last.X, want)
		}
		// The trapezoids overestimate the work under the convex J curve, by
		// 0.2 % at 20 positions to EMT.
		if relErr(r.Work, r.Stored) > 3e-3 || r.Work < r.Stored {
			t.Errorf("%v: the chuck did %.6g J/m², the strip stores %.6g", d, r.Work, r.Stored)
		}
	}
}

// TestShearConvention: the virtual shear test reads KES's G under the
// test's tension and the fabric's own shear stiffness, G less the tension
// per radian, without it: the tension's part comes from sim's element
// geometry (its warp stress pulls along the tilted warp), not from the
// mapping, which gives sim only the fabric's own part.
func TestShearConvention(t *testing.T) {
	f, err := Builtin("silk-habutae")
	if err != nil {
		t.Fatal(err)
	}
	m, err := f.Material()
	if err != nil {
		t.Fatal(err)
	}
	m.Hysteresis = sim.Hysteresis{}
	g := (f.Shear.Warp.G.Value + f.Shear.Weft.G.Value) / 2 * 0.980665 * 180 / math.Pi // N/(m·rad)
	tension := f.Shear.Tension.Value * 0.980665                                       // N/m
	with, err := virtualShear(m, tension, 13, 4)
	if err != nil {
		t.Fatal(err)
	}
	without, err := virtualShear(m, 0, 13, 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("KES G %.4f N/(m·rad), tension %.4f N/m: read %.4f under the tension, %.4f without (their difference %.4f)", g, tension, with.G, without.G, with.G-without.G)
	if relErr(with.G, g) > 0.01 {
		t.Errorf("under the tension: G %.5g, want KES's %.5g", with.G, g)
	}
	if relErr(without.G, g-tension) > 0.01 {
		t.Errorf("without tension: G %.5g, want the fabric's own %.5g", without.G, g-tension)
	}
}

package kes

import (
	"encoding/json"
	"math"
	"testing"
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
		r, err := virtualBending(m, n)
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

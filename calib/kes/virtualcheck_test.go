package kes

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/haptex/haptex/sim"
)

// TestCheckBuiltin runs the virtual Kawabata check on every built-in
// fabric (a light, a heavy and a knit one with -short): each must recover
// EMT, LT, WT, G and B within 10 % and Peirce's bending length within 5 %
// (CheckTolerance, BendingLengthTolerance).
func TestCheckBuiltin(t *testing.T) {
	names := List()
	if testing.Short() {
		names = []string{"silk-habutae", "denim", "knit-jersey"}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			f, err := Builtin(name)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Check(f, CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := rep.WriteText(&buf); err != nil {
				t.Fatal(err)
			}
			t.Logf("steps %d\n%s", rep.Steps, buf.String())
			if len(rep.Readings) != 11 {
				t.Errorf("%d readings, want 11 (EMT, LT, WT, B, c per direction and G)", len(rep.Readings))
			}
			for _, r := range rep.Readings {
				if !r.Pass {
					t.Errorf("%s %s %s: fabric %.4g %s, simulation %.4g (%+.2f %%, tolerance %.0f %%)",
						r.Test, r.Direction, r.Quantity, r.Input, r.Unit, r.Recovered, 100*r.RelError, 100*r.Tolerance)
				}
			}
			if !rep.Pass {
				t.Error("report does not pass")
			}
		})
	}
}

// TestCheckDetects: the check compares the simulation with the fabric's
// values, not with the mapping's own output: a material whose warp curve
// is stretched 20 % along the strain axis and whose weft bending rigidity
// is 50 % high fails on exactly the readings that depend on them.
func TestCheckDetects(t *testing.T) {
	f, err := Builtin("silk-habutae")
	if err != nil {
		t.Fatal(err)
	}
	m, err := f.Material()
	if err != nil {
		t.Fatal(err)
	}
	warp := sim.Curve{Strain: slices.Clone(m.Warp.Strain), Stress: m.Warp.Stress}
	for i := range warp.Strain {
		warp.Strain[i] *= 1.2
	}
	m.Warp = warp
	m.BendWeft *= 1.5
	rep, err := check(f, m, CheckOptions{BendElements: 16})
	if err != nil {
		t.Fatal(err)
	}
	failed := map[string]bool{}
	for _, r := range rep.Readings {
		if !r.Pass {
			failed[r.Test+" "+r.Direction+" "+r.Quantity] = true
		}
	}
	// LT does not see a stretch along the strain axis; c = (B/W·g)^(1/3)
	// moves only 14 % for 50 % in B.
	want := []string{"tensile warp EMT", "tensile warp WT", "bending weft B", "cantilever weft c"}
	for _, w := range want {
		if !failed[w] {
			t.Errorf("%s passed with a material that does not match the fabric", w)
		}
	}
	if len(failed) != len(want) || rep.Pass {
		t.Errorf("failed %v (pass %v), want exactly %v", failed, rep.Pass, want)
	}
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"readings"`, `"rel_error"`, `"not_modelled"`, `"pass":false`} {
		if !strings.Contains(string(js), key) {
			t.Errorf("JSON report lacks %s: %s", key, js)
		}
	}
}

// TestCheckRawCurve: a file with a raw tensile trace is checked against its
// own EMT, LT and WT (the trace and the values agree within validation's
// 5 % identity tolerance).
func TestCheckRawCurve(t *testing.T) {
	f, err := Parse([]byte(readFile(t, "testdata/example.toml")), "example.toml")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Check(f, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rep.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + buf.String())
	if !rep.Pass {
		t.Error("the example fabric fails its check")
	}
}

// TestCheckCorners (with -long): the check holds across the class bounds,
// at the corners of B 0.005-0.5 gf·cm²/cm, W 3-50 mg/cm² and EMT 1-100 %
// (silk's other values). It exposes one limit of sim, logged, not failed:
// sim's linear bending resists in-plane deformation that is not affine, so
// a fabric stiff in bending and soft in shear reads G high in the dead-load
// shear test (B 3 with G 0.335 gf/(cm·deg): +10 %).
func TestCheckCorners(t *testing.T) {
	if !*long {
		t.Skip("run with -long")
	}
	for _, b := range []float64{0.005, 0.5, 3} {
		for _, w := range []float64{3, 50} {
			for _, emt := range []float64{1, 100} {
				f, err := Builtin("silk-habutae")
				if err != nil {
					t.Fatal(err)
				}
				for _, bv := range []*BendingValues{f.Bending.Warp, f.Bending.Weft} {
					bv.B.Value, bv.B.SI = b, b*units[kindBendRigidity].siFactor
				}
				f.Mass.W.Value, f.Mass.W.SI = w, w*units[kindArealMass].siFactor
				for _, tv := range []*TensileValues{f.Tensile.Warp, f.Tensile.Weft} {
					tv.EMT.Value, tv.EMT.SI = emt, emt/100
					tv.WT.Value = tv.LT.Value * f.Tensile.MaxLoad.Value * emt / 100 / 2
					tv.WT.SI = tv.WT.Value * units[kindEnergyPerArea].siFactor
				}
				rep, err := Check(f, CheckOptions{})
				if err != nil {
					t.Errorf("B %v W %v EMT %v: %v", b, w, emt, err)
					continue
				}
				worst := rep.Readings[0]
				for _, r := range rep.Readings {
					if math.Abs(r.RelError)/r.Tolerance > math.Abs(worst.RelError)/worst.Tolerance {
						worst = r
					}
				}
				t.Logf("B %v W %v EMT %v: pass %v, %d steps, worst %s %s %s %+.2f %%", b, w, emt, rep.Pass, rep.Steps, worst.Test, worst.Direction, worst.Quantity, 100*worst.RelError)
				if !rep.Pass && b <= 0.5 {
					t.Errorf("B %v W %v EMT %v: %s %s %s %+.2f %%", b, w, emt, worst.Test, worst.Direction, worst.Quantity, 100*worst.RelError)
				}
			}
		}
	}
}

// TestCheckElementSize: at the showcase scene's resolution (9.7 mm
// elements) silk's strip of 2c = 3.1 cm has three elements and bends far
// too easily; the check says so.
func TestCheckElementSize(t *testing.T) {
	f, err := Builtin("silk-habutae")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Check(f, CheckOptions{ElementSize: 0.30 / 31})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Readings {
		if r.Test == "cantilever" {
			t.Logf("%s c: fabric %.3g cm, simulation %.3g cm (%+.1f %%)", r.Direction, r.Input, r.Recovered, 100*r.RelError)
			if r.Pass || r.RelError > -0.15 {
				t.Errorf("%s c %+.1f %% at 9.7 mm elements, want the coarse strip's excess bending (below -15 %%)", r.Direction, 100*r.RelError)
			}
		}
	}
	if rep.Pass {
		t.Error("the check passes at a resolution that cannot bend silk")
	}
}

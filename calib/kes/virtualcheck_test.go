package kes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/haptex/haptex/sim"
)

// TestCheckBuiltin runs the virtual Kawabata check on every built-in
// fabric (a light, a heavy and a knit one with -short): each must recover
// EMT, LT, WT, G and B within 10 %, Peirce's bending length within 5 %
// and RT, 2HG and 2HG5 within 15 % (CheckTolerance,
// BendingLengthTolerance, HysteresisTolerance).
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
			if len(rep.Readings) != 17 {
				t.Errorf("%d readings, want 17 (EMT, LT, WT, RT, B, c, 2HB per direction, G, 2HG and 2HG5)", len(rep.Readings))
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

// TestCheckResolution: every built-in fabric passes its check at the
// resolution haptex run simulates (SceneElementSize) and, with -long, at
// the finest one (FinestElementSize; a 2 mm mesh of the shear test's 20 ×
// 5 cm specimen takes seconds). Before the clamp's edge was placed at the
// boundary of its dual cell (newCantilever), silk read c 20 % low at 9.7
// mm elements.
func TestCheckResolution(t *testing.T) {
	sizes := []float64{SceneElementSize}
	if *long {
		sizes = append(sizes, FinestElementSize)
	}
	for _, l := range sizes {
		for _, name := range List() {
			t.Run(fmt.Sprintf("%.1fmm/%s", 1000*l, name), func(t *testing.T) {
				f, err := Builtin(name)
				if err != nil {
					t.Fatal(err)
				}
				rep, err := Check(f, CheckOptions{ElementSize: l})
				if err != nil {
					t.Fatal(err)
				}
				worst := rep.Readings[0]
				for _, r := range rep.Readings {
					if math.Abs(r.RelError)/r.Tolerance > math.Abs(worst.RelError)/worst.Tolerance {
						worst = r
					}
					if !r.Pass {
						t.Errorf("%s %s %s: fabric %.4g %s, simulation %.4g (%+.2f %%, tolerance %.0f %%)",
							r.Test, r.Direction, r.Quantity, r.Input, r.Unit, r.Recovered, 100*r.RelError, 100*r.Tolerance)
					}
				}
				t.Logf("worst: %s %s %s %+.2f %% (tolerance %.0f %%)", worst.Test, worst.Direction, worst.Quantity, 100*worst.RelError, 100*worst.Tolerance)
			})
		}
	}
}

// TestBendingResolution: for every built-in fabric, in both directions, at
// element sizes from 2 mm to 15 mm, the cantilever reads Peirce's bending
// length within 5 % of (B/(W·g))^(1/3) and the moment-curvature B within
// 10 % (the strip has as many whole elements as come nearest the size,
// at least two). Peirce's formula itself reads the exact heavy elastica
// 1.88 % high (testdata/elastica_ref.json).
func TestBendingResolution(t *testing.T) {
	sizes := []float64{0.002, 0.004, 0.0065, 0.0097, SceneElementSize, 0.015}
	if testing.Short() || raceEnabled {
		sizes = []float64{0.004, SceneElementSize, 0.015}
	}
	cantileverSweep(t, func(c float64) (cs []cantileverCase) {
		for _, l := range sizes {
			n := max(minBendElements, int(math.Round(2*c/l-0.5)))
			cs = append(cs, cantileverCase{fmt.Sprintf("%.1f mm (%d)", 1000*l, n), n, -1})
		}
		return cs
	})
}

// TestBendingGraded: the cantilever of TestBendingResolution cut from the
// cloth haptex run -refine simulates: its strip's lines graded as that
// cloth's round the pinch (sim.RefineRadius, sim.RefineRatio, and the
// spacing's growth θ of a 0.3 m side of 24 or 32 nodes graded round the
// showcase's pinch, 0.1 and 0.2 m from its edges), the grading's centre at
// the strip's tip, middle or clamped end. Every built-in fabric, both
// directions: Peirce's bending length within 5 % and B within 10 %.
func TestBendingGraded(t *testing.T) {
	sides := []int{24, 32}
	if testing.Short() || raceEnabled {
		sides = []int{24}
	}
	a := sim.RefineRadius / math.Sqrt(sim.RefineRatio*sim.RefineRatio-1)
	cantileverSweep(t, func(c float64) (cs []cantileverCase) {
		for _, side := range sides {
			theta := (math.Asinh(0.1/a) + math.Asinh(0.2/a)) / float64(side-1)
			for _, at := range []float64{0, 0.5, 1} {
				// The strip's n + 1 elements, about 2c long, span the
				// angle asinh(at·2c/a) + asinh((1-at)·2c/a) of the
				// hyperbola, θ an element.
				l := 2 * c
				n := max(minBendElements, int(math.Round((math.Asinh(at*l/a)+math.Asinh((1-at)*l/a))/theta))-1)
				cs = append(cs, cantileverCase{fmt.Sprintf("%d² at %.1f (%d)", side, at, n), n, at})
			}
		}
		return cs
	})
}

// cantileverCase is one cantilever of a sweep: n elements over the
// overhang, graded round at (virtualBending).
type cantileverCase struct {
	name string
	n    int
	at   float64
}

// cantileverSweep runs the cantilevers cases(c) lists for every built-in
// fabric in both directions, c its bending length there, and holds
// Peirce's c within BendingLengthTolerance and B within CheckTolerance.
func cantileverSweep(t *testing.T, cases func(c float64) []cantileverCase) {
	for _, name := range List() {
		f, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		m, err := f.Material()
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []Direction{Warp, Weft} {
			c := bendingLength(f, d)
			b := map[Direction]float64{Warp: m.BendWarp, Weft: m.BendWeft}[d]
			line := ""
			for _, k := range cases(c) {
				r, err := virtualBending(m, d, k.n, k.at)
				if err != nil {
					t.Fatalf("%s %v, %s: %v", name, d, k.name, err)
				}
				ec, eb := r.Length/c-1, r.B/b-1
				line += fmt.Sprintf("  %s: c %+.2f %%, B %+.2f %%", k.name, 100*ec, 100*eb)
				if math.Abs(ec) > BendingLengthTolerance || math.Abs(eb) > CheckTolerance {
					t.Errorf("%s %v, %s: c %+.2f %%, B %+.2f %%", name, d, k.name, 100*ec, 100*eb)
				}
			}
			t.Logf("%s %v, c = %.2f cm:%s", name, d, 100*c, line)
		}
	}
}

// TestCheckDetectsUnits: the check converts with its own factors, so a
// wrong factor in the mapping's unit table (units.go) makes it fail where
// that factor acts, instead of cancelling; and a mapping that swaps weft
// and warp fails on the quantities that differ between them.
func TestCheckDetectsUnits(t *testing.T) {
	for _, tc := range []struct {
		k    kind
		want []string
	}{
		// F_m maps to a 50 % higher force per width: the strip reaches the
		// check's F_m early.
		{kindForcePerWidth, []string{"tensile warp EMT", "tensile weft EMT", "tensile warp WT", "tensile weft WT"}},
		// B maps 50 % high: B reads so, c 14 % high.
		{kindBendRigidity, []string{"bending warp B", "bending weft B", "cantilever warp c", "cantilever weft c"}},
		// W maps 50 % high: the strip droops more, c reads 13 % low.
		{kindArealMass, []string{"cantilever warp c", "cantilever weft c"}},
		{kindShearStiffness, []string{"shear mean G"}},
		// 2HB maps 50 % high: the FB2 cycle's loop is as wide.
		{kindBendMoment, []string{"bending warp 2HB", "bending weft 2HB"}},
	} {
		t.Run(units[tc.k].kes, func(t *testing.T) {
			// The mapping parses and maps with the wrong factor; the check
			// would run with it too, but uses its own.
			spec := units[tc.k]
			wrong := spec
			wrong.siFactor *= 1.5
			units[tc.k] = wrong
			defer func() { units[tc.k] = spec }()
			f, err := Builtin("cotton-shirting")
			if err != nil {
				t.Fatal(err)
			}
			failed := checkFailures(t, f, nil)
			for _, w := range tc.want {
				if !failed[w] {
					t.Errorf("%s passed with the mapping's %s factor 20 %% off", w, spec.kes)
				}
			}
		})
	}
	t.Run("weft-warp", func(t *testing.T) {
		f, err := Builtin("silk-habutae")
		if err != nil {
			t.Fatal(err)
		}
		failed := checkFailures(t, f, func(m *sim.Material) {
			m.Weft, m.Warp = m.Warp, m.Weft
			m.BendWeft, m.BendWarp = m.BendWarp, m.BendWeft
			h := &m.Hysteresis
			h.BendWeft, h.BendWarp = h.BendWarp, h.BendWeft
		})
		// Silk's EMT is 5 % warp and 7 % weft, B 0.02 and 0.015, 2HB 0.01
		// and 0.008.
		for _, w := range []string{"tensile warp EMT", "tensile weft EMT", "bending warp B", "bending weft B", "bending warp 2HB", "bending weft 2HB"} {
			if !failed[w] {
				t.Errorf("%s passed with weft and warp swapped in the mapping", w)
			}
		}
	})
}

// checkFailures runs the check of f, its mapped material edited by edit,
// and returns the readings that failed.
func checkFailures(t *testing.T, f *Fabric, edit func(*sim.Material)) map[string]bool {
	t.Helper()
	m, err := f.Material()
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(&m)
	}
	rep, err := check(f, m, CheckOptions{BendElements: 8})
	if err != nil {
		t.Fatal(err)
	}
	failed := map[string]bool{}
	for _, r := range rep.Readings {
		if !r.Pass {
			failed[r.Test+" "+r.Direction+" "+r.Quantity] = true
		}
	}
	t.Logf("failed: %v", failed)
	if rep.Pass {
		t.Error("the check passes")
	}
	return failed
}

// TestCheckUnits: the check's conversion factors, derived again here by
// hand from the definitions (1 gf = 9.80665e-3 N, 1 cm = 0.01 m, 1° =
// π/180 rad, 1 mg = 1e-6 kg).
func TestCheckUnits(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"gf/cm in N/m", checkForcePerWidth, 0.980665},
		{"gf·cm/cm² in J/m²", checkEnergyPerArea, 0.980665},
		{"gf/(cm·deg) in N/(m·rad)", checkShear, 0.980665 * 57.29577951308232},
		{"gf·cm²/cm in N·m", checkBending, 0.0000980665},
		{"mg/cm² in kg/m²", checkArealMass, 0.01},
	} {
		if math.Abs(c.got/c.want-1) > 1e-12 {
			t.Errorf("%s: %.10g, want %.10g", c.name, c.got, c.want)
		}
	}
}

// An element size outside what the check is tested at is refused at once:
// 0.1 mm ran for hours.
func TestCheckRefusesElementSize(t *testing.T) {
	f, err := Builtin("cotton-shirting")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []float64{1e-4, 0.0019, 0.2, -0.01, math.NaN(), math.Inf(1)} {
		if _, err := Check(f, CheckOptions{ElementSize: l}); err == nil || !strings.Contains(err.Error(), "element size") {
			t.Errorf("element size %g m: %v", l, err)
		}
	}
}

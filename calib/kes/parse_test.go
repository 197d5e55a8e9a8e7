package kes

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func builtinText(t *testing.T, name string) string {
	t.Helper()
	b, err := BuiltinSource(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// replace is strings.Replace that fails the test when old is absent, so a
// mutation never silently leaves the base file valid.
func replace(t *testing.T, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("mutation target %q not in base file", old)
	}
	return strings.Replace(s, old, new, 1)
}

func TestParseExample(t *testing.T) {
	f, err := Parse([]byte(readFile(t, "testdata/example.toml")), "example.toml")
	if err != nil {
		t.Fatal(err)
	}
	// W was written as 180 g/m²: canonical 18 mg/cm², SI 0.18 kg/m².
	if w := f.Mass.W; w.Value != 18 || w.Unit != "mg/cm²" || math.Abs(w.SI-0.18) > 1e-15 || w.SIUnit != "kg/m²" {
		t.Errorf("W = %+v, want 18 mg/cm², 0.18 kg/m²", *w)
	}
	// 270 dtex is 27 tex.
	if c := f.Weave.WeftCount; math.Abs(c.Value-27) > 1e-12 || c.Unit != "tex" {
		t.Errorf("weft count = %v %s, want 27 tex", c.Value, c.Unit)
	}
	// Shear given as mean only: warp and weft are copies, not listed twice.
	if f.Shear.Warp == nil || f.Shear.Weft == nil || f.Shear.Warp.G.Value != 1.15 || f.Shear.Weft.TwoHG5.Value != 3.1 {
		t.Errorf("shear warp/weft not filled from mean: %+v %+v", f.Shear.Warp, f.Shear.Weft)
	}
	for _, e := range f.Entries() {
		if strings.HasPrefix(e.Field, "shear.warp") || strings.HasPrefix(e.Field, "shear.weft") {
			t.Errorf("entry %s listed though the file gives only shear.mean", e.Field)
		}
	}
	// Defaults for settings the file leaves out.
	if f.Bending.MaxCurvature.Value != 2.5 || f.Compression.MaxPressure.Value != 50 || f.Surface.FrictionLoad.Value != 50 {
		t.Errorf("defaults: curvature %v, pressure %v, friction load %v", f.Bending.MaxCurvature.Value, f.Compression.MaxPressure.Value, f.Surface.FrictionLoad.Value)
	}
	if len(f.Curves) != 2 || len(f.Curves[0].SI) != 8 {
		t.Fatalf("curves: %d, want 2 with 8 tensile points", len(f.Curves))
	}
	// 4.2 % at 500 gf/cm is strain 0.042 at 490.3325 N/m.
	if p := f.Curves[0].SI[4]; math.Abs(p.X-0.042) > 1e-15 || math.Abs(p.Y-490.3325) > 1e-9 {
		t.Errorf("tensile curve point 4 in SI = %+v, want {0.042 490.3325}", p)
	}
	if mu, ok := f.SkinFriction(); !ok || mu != 0.42 {
		t.Errorf("skin friction = %v, %v", mu, ok)
	}
}

// TestParseErrors checks that each kind of bad file gives an error of one
// line that names the file and the field and says what is wrong.
func TestParseErrors(t *testing.T) {
	ex := readFile(t, "testdata/example.toml")
	denim := builtinText(t, "denim")
	tests := []struct {
		name  string
		text  string
		field string // the error must name it
		want  string // and contain this
	}{
		{"wrong unit", replace(t, ex, `EMT = { value = 4.2, unit = "%"`, `EMT = { value = 4.2, unit = "mm"`),
			"tensile.warp.EMT.unit", `unit "mm" is wrong for this field; use "%"`},
		{"wrong unit for B", replace(t, ex, `B = { value = 0.142, unit = "gf·cm²/cm"`, `B = { value = 0.142, unit = "gf·cm/cm"`),
			"bending.warp.B.unit", `use "gf·cm²/cm"`},
		{"missing unit", replace(t, ex, `T0 = { value = 0.52, unit = "mm", `, `T0 = { value = 0.52, `),
			"compression.T0.unit", `unit "" is wrong`},
		{"value out of physical range", replace(t, ex, `MIU = { value = 0.205`, `MIU = { value = 3.5`),
			"surface.warp.MIU", "outside the physical range 0.01..2"},
		{"value out of class range", replace(t, denim, `B = { value = 0.9,`, `B = { value = 0.05,`),
			"bending.warp.B", "outside the denim class range 0.1..2 gf·cm²/cm"},
		{"class range of W in other unit", replace(t, denim, `W = { value = 38, unit = "mg/cm²"`, `W = { value = 120, unit = "g/m2"`),
			"mass.W", "12 mg/cm² is outside the denim class range 30..45"},
		{"RT above 100", replace(t, ex, `RT = { value = 48.5`, `RT = { value = 148.5`),
			"tensile.warp.RT", "outside the physical range 0..100 %"},
		{"RC negative", replace(t, ex, `RC = { value = 46.0`, `RC = { value = -4`),
			"compression.RC", "outside the physical range 0..100 %"},
		{"broken tensile identity", replace(t, ex, `WT = { value = 7.14`, `WT = { value = 9.5`),
			"tensile.warp.WT", "breaks the KES identity WT = LT·F_m·EMT/200 = 7.14"},
		{"tensile identity needs max load", replace(t, denim, `max_load = { value = 500, unit = "gf/cm" }`, `max_load = { value = 50, unit = "gf/cm" }`),
			"tensile.warp.WT", "breaks the KES identity"},
		{"broken compression identity", replace(t, ex, `WC = { value = 0.119`, `WC = { value = 0.3`),
			"compression.WC", "breaks the KES identity WC = LC·P_m·(T0−TM)/2 = 0.119"},
		{"TM not below T0", replace(t, ex, `TM = { value = 0.38`, `TM = { value = 0.6`),
			"compression.TM", "is not below T0"},
		{"missing value", replace(t, ex, "LT = { value = 0.61, unit = \"1\", status = \"measured\", source = \"lab\", table = \"run 1, FB1 tensile\" }\n", ""),
			"tensile.weft.LT", "missing"},
		{"missing direction", replace(t, ex, "[bending.weft]\nB = { value = 0.081, unit = \"gf·cm²/cm\", status = \"measured\", source = \"lab\", table = \"run 1, FB2\" }\n2HB = { value = 0.061, unit = \"gf·cm/cm\", status = \"measured\", source = \"lab\", table = \"run 1, FB2\" }\n", ""),
			"bending.weft", "missing: give warp and weft, or mean"},
		{"missing max load", replace(t, ex, `max_load = { value = 500, unit = "gf/cm" }`, ``),
			"tensile.max_load", "missing (the instrument setting in gf/cm; the KES-F standard is 500 gf/cm)"},
		{"misspelt section", replace(t, ex, "[bending.weft]", "[bending.weftt]"),
			"bending.weftt", "unknown field (misspelt key?) (and 1 more problem)"},
		{"unknown field", replace(t, ex, `2HB = { value = 0.098`, `2HBB = { value = 0.098`),
			"bending.warp.2HBB", "unknown field"},
		{"value not a number", replace(t, ex, `LT = { value = 0.68`, `LT = { value = "0.68"`),
			"tensile.warp.LT.value", "incompatible types"},
		{"NaN", replace(t, ex, `SMD = { value = 4.8`, `SMD = { value = nan`),
			"surface.warp.SMD.value", "not a finite number"},
		{"infinity", replace(t, ex, `G = { value = 1.15`, `G = { value = +inf`),
			"shear.mean.G.value", "not a finite number"},
		{"no provenance", replace(t, ex, `RC = { value = 46.0, unit = "%", status = "measured", source = "lab", table = "run 1, FB3" }`, `RC = { value = 46.0, unit = "%" }`),
			"compression.RC.status", "missing"},
		{"unknown source", replace(t, ex, `LC = { value = 0.34, unit = "1", status = "measured", source = "lab"`, `LC = { value = 0.34, unit = "1", status = "measured", source = "lbb"`),
			"compression.LC.source", `"lbb" is not a key of [sources]`},
		{"measured without table", replace(t, ex, `MMD = { value = 0.024, unit = "1", status = "measured", source = "lab", table = "run 1, FB4" }`, `MMD = { value = 0.024, unit = "1", status = "measured", source = "lab" }`),
			"surface.weft.MMD.table", "names the table"},
		{"measured from class-typical source", replace(t, ex, `weft_count = { value = 270, unit = "dtex", status = "class-typical"`, `weft_count = { value = 270, unit = "dtex", status = "measured", table = "x"`),
			"weave.weft_count.status", `source "typical" is class-typical`},
		{"source without licence", replace(t, ex, "licence = \"CC-BY-4.0\"\n", ""),
			"sources.lab.licence", "missing"},
		{"si mismatch", replace(t, ex, `si = 0.18`, `si = 1.8`),
			"mass.W.si", "does not match"},
		{"bad colour", replace(t, ex, `warp_colour = "#6b5a45"`, `warp_colour = "brown"`),
			"render.warp_colour", `"#rrggbb"`},
		{"bad class", replace(t, ex, `class = "other"`, `class = "tweed"`),
			"class", `"tweed" is not a class`},
		{"bad name", replace(t, ex, `name = "example-twill"`, `name = "Example Twill"`),
			"name", "letters, digits, '-' and '_'"},
		{"wrong format", replace(t, ex, "format = 1", "format = 2"),
			"format", "format 2 is not supported"},
		{"bad curve unit", replace(t, ex, `y_unit = "gf/cm²"`, `y_unit = "gf/cm"`),
			"curves[1].y_unit", "wrong for a compression curve"},
		{"curve point count", replace(t, ex, `points = [[0.52, 0.5], [0.48, 5], [0.44, 15], [0.40, 32], [0.38, 50]]`, `points = [[0.52, 0.5, 3]]`),
			"curves.points", "expected array length 2"},
		{"syntax error", replace(t, ex, `[tensile.warp]`, `[tensile.warp`),
			"tensile", "line 43: tensile: expected '.' or ']' to end table name"},
		{"garbage bytes", "\x00\xff\xfe\x89PNG\r\n\x1a\n", "", "NULL bytes"},
		{"garbage text", "hello = \n\u2028\x7f", "hello", "line 1"},
		{"empty file", "", "format", "missing"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse([]byte(tc.text), "bad.toml")
			if err == nil {
				t.Fatalf("no error; fabric %q loaded", f.Name)
			}
			if f != nil {
				t.Errorf("fabric returned with error")
			}
			msg := err.Error()
			if strings.ContainsAny(msg, "\n\r") {
				t.Errorf("message is not one line: %q", msg)
			}
			if !strings.HasPrefix(msg, "kes: bad.toml: ") {
				t.Errorf("message %q does not start with the package and the file", msg)
			}
			if tc.field != "" && !strings.Contains(msg, ": "+tc.field+": ") {
				t.Errorf("message %q does not name field %s", msg, tc.field)
			}
			if !strings.Contains(msg, tc.want) {
				t.Errorf("message %q does not say %q", msg, tc.want)
			}
		})
	}
}

func TestErrorListsAllProblems(t *testing.T) {
	ex := readFile(t, "testdata/example.toml")
	bad := replace(t, ex, `MIU = { value = 0.205`, `MIU = { value = 3.5`)
	bad = replace(t, bad, `RT = { value = 48.5`, `RT = { value = 148.5`)
	_, err := Parse([]byte(bad), "bad.toml")
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not a *kes.Error", err)
	}
	if len(e.Problems) != 2 {
		t.Fatalf("%d problems, want 2: %v", len(e.Problems), e.Problems)
	}
	if !strings.HasSuffix(err.Error(), "(and 1 more problem)") {
		t.Errorf("message %q does not count the other problem", err.Error())
	}
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "tensile.warp.RT" {
		t.Errorf("first problem %v, want field tensile.warp.RT", fe)
	}
}

func TestLoadFileErrors(t *testing.T) {
	if _, err := LoadFile("testdata/no-such-file.toml"); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := LoadFile("testdata"); err == nil || !strings.Contains(err.Error(), "a directory, not a regular file") {
		t.Errorf("directory: %v", err)
	}
	big := make([]byte, MaxFileSize+1)
	if _, err := Parse(big, "big.toml"); err == nil || strings.Contains(err.Error(), "\n") {
		t.Errorf("oversize: %v", err)
	}
}

func TestUnitSpellings(t *testing.T) {
	for _, tc := range []struct {
		k    kind
		unit string
		want float64 // factor to the canonical unit
	}{
		{kindEnergyPerArea, "gf·cm/cm²", 1},
		{kindEnergyPerArea, "gf cm/cm^2", 1},
		{kindEnergyPerArea, "gf*cm/cm2", 1},
		{kindShearStiffness, "gf/(cm·deg)", 1},
		{kindShearStiffness, "gf/cm/°", 1},
		{kindBendRigidity, "gf·cm²/cm", 1},
		{kindBendRigidity, "N·m", 1 / 9.80665e-5},
		{kindArealMass, "g/m²", 0.1},
		{kindArealMass, "GSM", 0.1},
		{kindRoughness, "μm", 1},
		{kindForcePerWidth, "N/m", 1 / 0.980665},
		{kindPressure, "kPa", 1e3 / 98.0665},
		{kindYarnCount, "denier", 1.0 / 9},
	} {
		got, ok := toKES(tc.k, tc.unit)
		if !ok || math.Abs(got-tc.want) > 1e-12*tc.want {
			t.Errorf("toKES(%v, %q) = %v, %v; want %v", tc.k, tc.unit, got, ok, tc.want)
		}
	}
	for _, bad := range []string{"gf/cm", "N", "kg", "%"} {
		if _, ok := toKES(kindBendRigidity, bad); ok {
			t.Errorf("bending rigidity accepted unit %q", bad)
		}
	}
}

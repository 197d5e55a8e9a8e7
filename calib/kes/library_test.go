package kes

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var wantBuiltin = []string{"cotton-shirting", "denim", "denim-kumari2016-c", "denim-kumari2016-d", "fleece", "knit-jersey", "linen", "polyester-lining", "silk-habutae", "wool-suiting"}

func TestBuiltinLibrary(t *testing.T) {
	names := List()
	if strings.Join(names, ",") != strings.Join(wantBuiltin, ",") {
		t.Fatalf("List() = %v, want %v", names, wantBuiltin)
	}
	classes := map[Class]bool{}
	for _, n := range names {
		t.Run(n, func(t *testing.T) {
			f, err := Builtin(n)
			if err != nil {
				t.Fatal(err)
			}
			if f.Name != n || f.File != "builtin:"+n {
				t.Errorf("name %q file %q", f.Name, f.File)
			}
			classes[f.Class] = true
			// No value without provenance.
			entries := f.Entries()
			// The full KES set plus W, per direction or as a mean.
			have := map[string]bool{}
			for _, e := range entries {
				have[e.Field[strings.LastIndex(e.Field, ".")+1:]] = true
			}
			for _, q := range []string{"W", "EMT", "LT", "WT", "RT", "G", "2HG", "2HG5", "B", "2HB", "LC", "WC", "RC", "T0", "TM", "MIU", "MMD", "SMD"} {
				if !have[q] {
					t.Errorf("no %s value, want the full KES set", q)
				}
			}
			for _, e := range entries {
				src, ok := f.Sources[e.Source]
				if !ok || src.Licence == "" || src.Citation == "" || e.Status == "" {
					t.Errorf("%s: provenance incomplete: source %q %+v status %q", e.Field, e.Source, src, e.Status)
				}
				if e.SIUnit == "" || math.IsNaN(e.SI) || math.IsInf(e.SI, 0) {
					t.Errorf("%s: SI value %v %q", e.Field, e.SI, e.SIUnit)
				}
			}
			// The helpers work on every fabric and reproduce its values.
			for _, d := range []Direction{Warp, Weft} {
				tv := map[Direction]*TensileValues{Warp: f.Tensile.Warp, Weft: f.Tensile.Weft}[d]
				c, err := f.TensileCurve(d)
				if err != nil {
					t.Fatal(err)
				}
				if relErr(c.StrainMax*100, tv.EMT.Value) > 1e-12 || relErr(c.Energy, tv.WT.SI) > 1e-12 {
					t.Errorf("%s curve: EMT %v WT %v", d, c.StrainMax*100, c.Energy)
				}
				if relErr(c.Linearity(), tv.LT.Value) > IdentityTolerance {
					t.Errorf("%s curve LT %v, file %v", d, c.Linearity(), tv.LT.Value)
				}
				if _, err := f.ShearLoop(d); err != nil {
					t.Error(err)
				}
				if _, err := f.BendingLoop(d); err != nil {
					t.Error(err)
				}
				if c := f.BendingLength(d); !(c > 0.005 && c < 0.2) {
					t.Errorf("%s bending length %v m", d, c)
				}
			}
			cc, err := f.CompressionCurve()
			if err != nil {
				t.Fatal(err)
			}
			if relErr(cc.Linearity(), f.Compression.LC.Value) > IdentityTolerance {
				t.Errorf("compression LC %v, file %v", cc.Linearity(), f.Compression.LC.Value)
			}
		})
	}
	for _, c := range []Class{Silk, CottonShirting, WoolSuiting, Denim, Linen, KnitJersey, Fleece, PolyesterLining} {
		if !classes[c] {
			t.Errorf("no built-in fabric of class %s", c)
		}
	}
}

func TestBuiltinNotFound(t *testing.T) {
	for _, n := range []string{"tweed", "../fabrics/denim", "", "DENIM"} {
		if _, err := Builtin(n); !errors.Is(err, ErrNotFound) {
			t.Errorf("Builtin(%q) = %v, want ErrNotFound", n, err)
		}
	}
	if _, err := (Library{}).Load("tweed"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Load(tweed) = %v", err)
	}
}

func TestImport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fabrics")
	src := "testdata/example.toml"
	f, dst, err := Import(src, dir)
	if err != nil {
		t.Fatal(err)
	}
	if dst != filepath.Join(dir, "example-twill.toml") || f.File != dst {
		t.Errorf("copied to %s (fabric file %s)", dst, f.File)
	}
	a, _ := os.ReadFile(src)
	b, _ := os.ReadFile(dst)
	if !bytes.Equal(a, b) {
		t.Errorf("copy differs from the source file")
	}
	if _, _, err := Import(src, dir); !errors.Is(err, ErrExists) || strings.Contains(err.Error(), "\n") {
		t.Errorf("second import: %v, want ErrExists on one line", err)
	}
	lib := Library{Dir: dir}
	g, err := lib.Load("example-twill")
	if err != nil || g.Name != "example-twill" {
		t.Fatalf("Load after import: %v", err)
	}

	// A built-in name is refused.
	denim := filepath.Join(t.TempDir(), "denim.toml")
	data, _ := BuiltinSource("denim")
	os.WriteFile(denim, data, 0o644)
	if _, _, err := Import(denim, dir); !errors.Is(err, ErrExists) {
		t.Errorf("import of a built-in name: %v", err)
	}

	// A bad file gives a one-line error naming the field and copies nothing.
	bad := filepath.Join(t.TempDir(), "bad.toml")
	os.WriteFile(bad, bytes.Replace(a, []byte(`name = "example-twill"`), []byte(`name = "other-twill"`), 1), 0o644)
	os.WriteFile(bad, bytes.Replace(mustRead(t, bad), []byte(`LT = { value = 0.68`), []byte(`LT = { value = 0.98`), 1), 0o644)
	_, _, err = Import(bad, dir)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), bad+": tensile.warp.WT: ") {
		t.Errorf("bad import: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "other-twill.toml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("bad file was copied: %v", err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("user library holds %d files, want 1 (no temporary files left)", len(ents))
	}

	// Listing: the built-in fabrics, the import, and a broken hand-placed
	// file reported with its error.
	os.WriteFile(filepath.Join(dir, "broken.toml"), []byte("garbage ="), 0o644)
	list, err := lib.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != len(wantBuiltin)+2 {
		t.Fatalf("%d entries, want %d", len(list), len(wantBuiltin)+2)
	}
	if s := list[len(wantBuiltin)]; s.Name != "broken" || s.Error == "" {
		t.Errorf("broken file listed as %+v", s)
	}
	if s := list[len(wantBuiltin)+1]; s.Name != "example-twill" || s.Builtin || s.Measured == 0 || s.Error != "" {
		t.Errorf("imported file listed as %+v", s)
	}
	if s := list[0]; !s.Builtin || s.ClassTypical == 0 || s.Measured != 0 {
		t.Errorf("built-in listed as %+v", s)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFormatDocExample keeps FORMAT.md's complete example identical to the
// file the tests load.
func TestFormatDocExample(t *testing.T) {
	doc := readFile(t, "FORMAT.md")
	ex := readFile(t, "testdata/example.toml")
	if !strings.Contains(doc, "```toml\n"+ex+"```\n") {
		t.Errorf("FORMAT.md does not contain testdata/example.toml verbatim in a toml block")
	}
}

package kes

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the parser. It must never panic; an
// error must be one line naming the file; a file it accepts must be fully
// usable: every helper succeeds and every number is finite. The seeds are
// the built-in library, the format example, and testdata/fuzz/FuzzParse.
// `go test` runs the seeds; `go test -fuzz FuzzParse` explores.
func FuzzParse(f *testing.F) {
	for _, n := range List() {
		b, err := BuiltinSource(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	paths, _ := filepath.Glob("testdata/*.toml")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fab, err := Parse(data, "fuzz.toml")
		if err != nil {
			if fab != nil {
				t.Fatal("fabric returned with an error")
			}
			msg := err.Error()
			if strings.ContainsAny(msg, "\n\r") || !strings.HasPrefix(msg, "kes: fuzz.toml: ") {
				t.Fatalf("error not one line naming the file: %q", msg)
			}
			return
		}
		checkUsable(t, fab)
	})
}

// checkUsable exercises every helper of a fabric that loaded.
func checkUsable(t *testing.T, f *Fabric) {
	t.Helper()
	finite := func(what string, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("%s = %v", what, v)
		}
	}
	for _, e := range f.Entries() {
		finite(e.Field, e.SI)
	}
	for _, d := range []Direction{Warp, Weft, Bias} {
		if d != Bias || f.Tensile.Bias != nil {
			c, err := f.TensileCurve(d)
			if err != nil {
				t.Fatalf("accepted file, but: %v", err)
			}
			for _, p := range c.Points(nil, 9) {
				finite("tensile force", p.Y)
			}
			finite("tensile stiffness", c.Stiffness(0))
			loss, err := f.TensileLoss(d)
			if err != nil {
				t.Fatal(err)
			}
			finite("tensile loss", loss)
		}
		s, err := f.ShearLoop(d)
		if err != nil {
			t.Fatalf("accepted file, but: %v", err)
		}
		up, down := s.Loop(nil, nil, 5)
		for i := range up {
			finite("shear force", up[i].Y+down[i].Y)
		}
		b, err := f.BendingLoop(d)
		if err != nil {
			t.Fatalf("accepted file, but: %v", err)
		}
		finite("bending moment", b.Moment(b.MaxCurvature, true))
		finite("bending length", f.BendingLength(d))
		finite("friction", f.Friction(d).MuSigma)
		finite("roughness", f.Roughness(d).SigmaH)
	}
	c, err := f.CompressionCurve()
	if err != nil {
		t.Fatalf("accepted file, but: %v", err)
	}
	for _, p := range c.Points(nil, 5) {
		finite("pressure", p.Y)
	}
	finite("compression stiffness", c.Stiffness(c.TM))
	w, e := f.ThreadSpacing()
	finite("thread spacing", w+e)
	for _, cv := range f.Curves {
		for _, p := range cv.SI {
			finite("curve point", p.X+p.Y)
		}
	}
	_ = f.Summary()
}

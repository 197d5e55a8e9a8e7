package kes

import (
	"testing"

	"github.com/haptex/haptex/tactile"
)

// Every built-in fabric maps to surface parameters the tactile renderer
// accepts, and the weave maps as documented.
func TestBuiltinSurfaces(t *testing.T) {
	want := map[string]tactile.WeaveType{
		"cotton-shirting": tactile.Plain, "denim": tactile.Twill, "fleece": tactile.Pile,
		"knit-jersey": tactile.Knit, "silk-habutae": tactile.Plain, "wool-suiting": tactile.Twill,
	}
	for _, name := range List() {
		f, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		p, err := f.SurfaceParams(0.3, 0.3)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if w, ok := want[name]; ok && p.Weave != w {
			t.Errorf("%s: weave %v, want %v", name, p.Weave, w)
		}
		if p.SMD != f.Roughness(Bias).SMD || p.WarpSpacing <= 0 {
			t.Errorf("%s: %+v", name, p)
		}
		p.GridN = 128 // a coarser k-space grid: the check is about validity, and it keeps the race build fast
		if _, err := tactile.NewSurface(p, 1); err != nil {
			t.Errorf("%s: tactile rejects the mapping: %v", name, err)
		}
	}
}

func TestTwillRepeat(t *testing.T) {
	for _, c := range []struct {
		in       string
		up, down int
		ok       bool
	}{
		{"3/1 Z", 3, 1, true}, {"2/2", 2, 2, true}, {"", 2, 1, true},
		{"1/0", 0, 0, false}, {"x/2", 0, 0, false}, {"12/9", 0, 0, false}, {"3-1", 0, 0, false},
	} {
		up, down, err := twillRepeat(c.in)
		if (err == nil) != c.ok || up != c.up || down != c.down {
			t.Errorf("%q: %d/%d, %v", c.in, up, down, err)
		}
	}
}

package kes

import (
	"fmt"
	"image/color"
	"testing"
)

func TestAppearance(t *testing.T) {
	f, err := Parse([]byte(readFile(t, "testdata/example.toml")), "example.toml")
	if err != nil {
		t.Fatal(err)
	}
	a := f.Appearance()
	want := Appearance{Warp: color.NRGBA{0x6b, 0x5a, 0x45, 255}, Weft: color.NRGBA{0xd9, 0xd0, 0xc0, 255}, Pattern: "twill"}
	want.WarpSpacing, want.WeftSpacing = f.ThreadSpacing()
	if a != want {
		t.Errorf("appearance %+v, want %+v", a, want)
	}
	for _, c := range []struct{ weave, pattern string }{
		{"plain", "plain"}, {"twill", "twill"}, {"satin", "satin"}, {"crepe", "plain"},
		{"jersey", "plain"}, {"fleece", "plain"}, {"other", "plain"},
	} {
		f.Weave.Type = c.weave
		if p := f.Appearance().Pattern; p != c.pattern {
			t.Errorf("weave %s draws as %q, want %q", c.weave, p, c.pattern)
		}
	}
}

// srgb reads every component exactly: the byte the file writes is the
// byte the view draws.
func TestSRGB(t *testing.T) {
	for v := range 256 {
		lo, up := fmt.Sprintf("#%02x%02x%02x", v, 255-v, v/2), fmt.Sprintf("#%02X%02X%02X", v, 255-v, v/2)
		want := color.NRGBA{uint8(v), uint8(255 - v), uint8(v / 2), 255}
		if c := srgb(lo); c != want {
			t.Errorf("srgb(%s) = %v", lo, c)
		}
		if c := srgb(up); c != want {
			t.Errorf("srgb(%s) = %v", up, c)
		}
	}
	if c := srgb("#ff80"); c != (color.NRGBA{A: 255}) {
		t.Errorf("srgb of a malformed colour = %v, want opaque black", c)
	}
}

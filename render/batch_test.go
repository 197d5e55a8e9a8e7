package render

import (
	"image"
	"math"
	"testing"
	"time"
)

func TestLineFormatting(t *testing.T) {
	tests := []struct {
		name string
		got  line
		want string
	}{
		{"right-aligned number", line(nil).num(3.14159, 2, 7), "   3.14"},
		{"number wider than its field", line(nil).num(12345.6, 1, 3), "12345.6"},
		{"NaN", line(nil).num(math.NaN(), 1, 4), "   -"},
		{"Inf", line(nil).num(math.Inf(1), 1, 0), "-"},
		{"filled label", line(nil).str("sim").fill(8).str("|"), "sim     |"},
		{"microseconds", line(nil).dur(45 * time.Microsecond), "  45 us"},
		{"milliseconds", line(nil).dur(1200 * time.Microsecond), "1.20 ms"},
		{"pad after text", line(nil).str("ab").num(1, 0, 3), "ab  1"},
	}
	for _, tc := range tests {
		if string(tc.got) != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}

func TestLineAllocs(t *testing.T) {
	l := make(line, 0, 128)
	n := testing.AllocsPerRun(100, func() {
		l = l[:0].str("haptics").fill(8).num(999.7, 0, 6).str(" Hz  p99 late ").dur(45 * time.Microsecond)
	})
	if n != 0 {
		t.Errorf("formatting a line allocates %v times", n)
	}
}

func TestFontAtlas(t *testing.T) {
	a := fontAtlas()
	ink := func(g int) int {
		n := 0
		for y := 0; y < glyphH; y++ {
			for x := 0; x < glyphW; x++ {
				if a.Pix[(g*glyphH+y)*a.Stride+x] > 128 {
					n++
				}
			}
		}
		return n
	}
	if n := ink(glyphIndex(' ')); n != 0 {
		t.Errorf("space has %d inked pixels", n)
	}
	for _, c := range []byte("AHz09|") {
		if ink(glyphIndex(c)) < 5 {
			t.Errorf("glyph %q is (almost) blank", c)
		}
	}
	if n := ink(solidGlyph); n != glyphW*glyphH {
		t.Errorf("solid cell has %d of %d pixels inked", n, glyphW*glyphH)
	}
	if glyphIndex(0xb5) != 95 {
		t.Error("a byte outside ASCII does not map to the replacement glyph")
	}
}

func TestBatchCapacity(t *testing.T) {
	b := newBatch2D()
	for i := 0; i < maxQuads2D+10; i++ {
		b.rect(imageRect(0, 0, 1, 1), textColour)
	}
	if b.quads() != maxQuads2D {
		t.Errorf("%d quads kept, want the capacity %d", b.quads(), maxQuads2D)
	}
}

func imageRect(x0, y0, x1, y1 int) image.Rectangle { return image.Rect(x0, y0, x1, y1) }

package render

import (
	"image"
	"math"
	"testing"

	"github.com/haptex/haptex/sim"
)

func luminance(c [3]float32) float64 {
	return 0.2126*float64(c[0]) + 0.7152*float64(c[1]) + 0.0722*float64(c[2])
}

func TestInsetLayout(t *testing.T) {
	for _, sz := range []image.Point{{1280, 720}, {640, 360}, {1920, 1080}, {3840, 2160}} {
		l := layoutInsets(sz.X, sz.Y)
		screen := image.Rect(0, 0, sz.X, sz.Y)
		if !l.panel.In(screen) {
			t.Errorf("%v: panel %v off screen", sz, l.panel)
		}
		var all []image.Rectangle
		for f := 0; f < sim.NumFingers; f++ {
			for b := 0; b < numBands; b++ {
				g := l.grids[f][b]
				if !g.In(l.panel) {
					t.Errorf("%v: grid %d/%d %v outside the panel %v", sz, f, b, g, l.panel)
				}
				if g.Dx()*PinRows != g.Dy()*PinCols {
					t.Errorf("%v: grid %v is not %d x %d cells", sz, g, PinCols, PinRows)
				}
				for _, o := range all {
					if g.Overlaps(o) {
						t.Errorf("%v: grids %v and %v overlap", sz, g, o)
					}
				}
				all = append(all, g)
				// Row 0 (distal) at the top, column 0 on the left.
				r00, r01, r10 := l.pinRect(f, b, 0, 0), l.pinRect(f, b, 0, 1), l.pinRect(f, b, 1, 0)
				if r01.Min.X <= r00.Min.X || r01.Min.Y != r00.Min.Y || r10.Min.Y <= r00.Min.Y || r10.Min.X != r00.Min.X {
					t.Errorf("%v: cells (0,0) %v (0,1) %v (1,0) %v out of order", sz, r00, r01, r10)
				}
				if last := l.pinRect(f, b, PinRows-1, PinCols-1); !last.In(g) || last.Empty() {
					t.Errorf("%v: last cell %v not inside grid %v", sz, last, g)
				}
			}
		}
		// Thumb's grids left of the index's.
		if l.grids[sim.Thumb][1].Max.X > l.grids[sim.IndexFinger][0].Min.X {
			t.Errorf("%v: thumb grids not left of index grids", sz)
		}
	}
}

func TestPinColour(t *testing.T) {
	prev := -1.0
	for db := -45.0; db <= 5; db += 0.5 {
		c := pinColour(200*math.Pow(10, db/20), 200, 40)
		l := luminance(c)
		if l < prev-1e-9 {
			t.Fatalf("luminance falls from %g to %g at %g dB", prev, l, db)
		}
		prev = l
	}
	if lo, hi := luminance(pinColour(200*math.Pow(10, -2), 200, 40)), luminance(pinColour(200, 200, 40)); hi-lo < 0.5 {
		t.Errorf("the 40 dB range spans only %g in luminance", hi-lo)
	}
	if c := pinColour(math.NaN(), 200, 40); c != [3]float32{1, 0, 1} {
		t.Errorf("NaN shows %v, want magenta", c)
	}
	off := pinColour(0, 200, 40)
	if luminance(off) >= luminance(pinColour(1e-9, 200, 40)) {
		t.Errorf("an off pin %v is not darker than the faintest one", off)
	}
	if pinColour(-3, 200, 40) != off {
		t.Error("a negative amplitude does not show as off")
	}
}

func TestUIScale(t *testing.T) {
	for _, c := range []struct{ h, want int }{{360, 1}, {720, 1}, {1080, 1}, {1440, 2}, {2160, 3}} {
		if got := uiScale(c.h); got != c.want {
			t.Errorf("uiScale(%d) = %d, want %d", c.h, got, c.want)
		}
	}
}

// The title and the two colour bars with their labels sit inside the
// panel, above the grids, one line each.
func TestInsetScales(t *testing.T) {
	for _, sz := range []image.Point{{1280, 720}, {640, 360}, {1920, 1080}} {
		l := layoutInsets(sz.X, sz.Y)
		lineH := 15 * l.ui
		top := l.grids[0][0].Min.Y
		for i, p := range []image.Point{l.title, l.scales[0], l.scales[1]} {
			// Label, bar, and the widest amplitude text.
			right := p.X + textWidth(7, l.ui) + l.barW + textWidth(len(" 0.30 to 200 um"), l.ui)
			row := image.Rect(p.X, p.Y, right, p.Y+lineH)
			if !row.In(l.panel) {
				t.Errorf("%v: row %d %v outside the panel %v", sz, i, row, l.panel)
			}
			if row.Max.Y > top-lineH {
				t.Errorf("%v: row %d reaches the finger names above the grids", sz, i)
			}
		}
	}
}

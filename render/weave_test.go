package render

import (
	"image/color"
	"math"
	"testing"
)

// coverage samples weaveAt over one 20 x 20 repeat and returns the
// fractions of the area showing warp, weft and gaps.
func coverage(p Pattern) (warp, weft, gaps float64) {
	const cells, per = 20, 25 // 25 samples resolve the yarn edges at ±0.42 exactly
	n := 0
	for i := 0; i < cells*per; i++ {
		for j := 0; j < cells*per; j++ {
			_, k := weaveAt(p, [3]float64{1, 0, 0}, [3]float64{0, 0, 1}, [3]float64{}, (float64(i)+0.5)/per, (float64(j)+0.5)/per)
			switch k {
			case warpYarn:
				warp++
			case weftYarn:
				weft++
			default:
				gaps++
			}
			n++
		}
	}
	return warp / float64(n), weft / float64(n), gaps / float64(n)
}

// Which yarn is on top at the crossing of warp i and weft j, per pattern,
// read at the centre of the cell.
func topAt(p Pattern, i, j int) yarn {
	_, k := weaveAt(p, [3]float64{1, 0, 0}, [3]float64{0, 0, 1}, [3]float64{}, float64(i)+0.5, float64(j)+0.5)
	return k
}

func TestWeavePatterns(t *testing.T) {
	// Plain: the top yarn alternates along both directions.
	for i := 0; i < 6; i++ {
		for j := 0; j < 6; j++ {
			if (topAt(Plain, i, j) == warpYarn) == (topAt(Plain, i+1, j) == warpYarn) ||
				(topAt(Plain, i, j) == warpYarn) == (topAt(Plain, i, j+1) == warpYarn) {
				t.Fatalf("plain weave does not alternate at (%d, %d)", i, j)
			}
		}
	}
	// Twill 2/2: each weft repeats the previous one shifted by one end,
	// the diagonal rib; along a weft the warp shows 2 up, 2 down.
	for i := 0; i < 8; i++ {
		for j := 0; j < 8; j++ {
			if topAt(Twill, i, j+1) != topAt(Twill, i+1, j) {
				t.Fatalf("twill crossing (%d, %d) breaks the diagonal", i, j+1)
			}
		}
	}
	for j := 0; j < 4; j++ {
		up := 0
		for i := 0; i < 4; i++ {
			if topAt(Twill, i, j) == warpYarn {
				up++
			}
		}
		if up != 2 {
			t.Errorf("twill weft %d: warp on top at %d of 4 crossings, want 2", j, up)
		}
	}
	// 5-end satin: on every warp end and every weft pick, exactly one
	// crossing in five has the weft on top, and no two such crossings
	// touch (the floats are spread).
	for i := 0; i < 5; i++ {
		down := 0
		for j := 0; j < 5; j++ {
			if topAt(Satin, i, j) == weftYarn {
				down++
				if topAt(Satin, i+1, j) == weftYarn || topAt(Satin, i+1, j+1) == weftYarn || topAt(Satin, i+1, j+4) == weftYarn {
					t.Errorf("satin: weft-up crossings touch near (%d, %d)", i, j)
				}
			}
		}
		if down != 1 {
			t.Errorf("satin end %d: weft on top at %d of 5 picks, want 1", i, down)
		}
	}
	for _, c := range []struct {
		p        Pattern
		warpFrac float64 // share of the visible yarn area that is warp
	}{{Plain, 0.5}, {Twill, 0.5}, {Satin, 0.75}} {
		warp, weft, gaps := coverage(c.p)
		if f := warp / (warp + weft); math.Abs(f-c.warpFrac) > 0.06 {
			t.Errorf("%v: warp shows on %.3f of the yarn area, want about %.2f", c.p, f, c.warpFrac)
		}
		// Yarns 0.84 of the spacing wide leave (0.16)² of the area open.
		if math.Abs(gaps-0.16*0.16) > 0.01 {
			t.Errorf("%v: gaps cover %.3f, want %.3f", c.p, gaps, 0.16*0.16)
		}
	}
}

// The far-field colour is the mean of the near field, in linear light.
func TestWeaveMeanEncoded(t *testing.T) {
	w := Config{Weave: Weave{
		Warp: color.NRGBA{R: 200, G: 40, B: 40, A: 255}, Weft: color.NRGBA{R: 40, G: 40, B: 200, A: 255}, Pattern: Satin,
	}}.withDefaults().Weave
	m := w.meanEncoded()
	warp, weft := encoded(linear(w.Warp)), encoded(linear(w.Weft))
	var sum [3]float64
	const cells, per = 20, 25
	for i := 0; i < cells*per; i++ {
		for j := 0; j < cells*per; j++ {
			c, _ := weaveAt(w.Pattern, warp, weft, m, (float64(i)+0.5)/per, (float64(j)+0.5)/per)
			for k := range c {
				sum[k] += c[k] * c[k]
			}
		}
	}
	for k := range sum {
		want := math.Sqrt(sum[k] / (cells * per * cells * per))
		if math.Abs(m[k]-want) > 0.01 {
			t.Errorf("channel %d: mean %g, resampled %g", k, m[k], want)
		}
	}
	if !(m[0] > m[2]) {
		t.Errorf("a warp-faced satin with red warp has mean %v, not red-dominant", m)
	}
}

func TestParsePattern(t *testing.T) {
	for p, name := range patternNames {
		got, err := ParsePattern(name)
		if err != nil || got != Pattern(p) {
			t.Errorf("ParsePattern(%q) = %v, %v", name, got, err)
		}
	}
	if p, err := ParsePattern("TWILL"); err != nil || p != Twill {
		t.Errorf("ParsePattern(TWILL) = %v, %v", p, err)
	}
	if _, err := ParsePattern("jacquard"); err == nil {
		t.Error("ParsePattern(jacquard) succeeded")
	}
}

func TestConfigDefaults(t *testing.T) {
	c := Config{}.withDefaults()
	if c.Width != 1280 || c.Height != 720 || c.Samples != 0 || c.MaxFPS != 60 || c.PadRadius != 0.008 ||
		c.RodRadius != 0.005 || c.RodY != 0.30 || c.Camera != DefaultCamera() || c.Weave.WarpSpacing != 0.5e-3 ||
		c.Weave.Magnify != 1 || c.Weave.Warp != defaultWarp || c.A40FullScaleUm != 200 || c.InsetRangeDB != 40 {
		t.Errorf("defaults: %+v", c)
	}
	bad := Config{Width: -1, Height: 10, MaxFPS: math.NaN(), PadRadius: math.Inf(1), Weave: Weave{Pattern: 9, WarpSpacing: -1}}.withDefaults()
	if bad.Width != 1280 || bad.MaxFPS != 60 || bad.PadRadius != 0.008 || bad.Weave.Pattern != Plain || bad.Weave.WarpSpacing != 0.5e-3 {
		t.Errorf("bad values not replaced: %+v", bad)
	}
}

// weaveAt is the Go twin of clothFS's weave(): the encoded (gamma-2)
// albedo of the weave at yarn coordinates (gx, gy) = (u/warp spacing,
// v/weft spacing), and which yarn shows there: what the tests check the
// GPU's drawing and the weave's mean colour against.
func weaveAt(p Pattern, warp, weft, mean [3]float64, gx, gy float64) ([3]float64, yarn) {
	return weaveCell(warpOnTop(p, int(math.Floor(gx)), int(math.Floor(gy))), warp, weft, mean,
		gx-math.Floor(gx)-0.5, gy-math.Floor(gy)-0.5)
}

package render

import (
	"image"
	"image/color"
	"math"
	"testing"
)

var (
	redWarp  = color.NRGBA{R: 220, G: 40, B: 40, A: 255}
	blueWeft = color.NRGBA{R: 40, G: 40, B: 220, A: 255}
)

// Close up, the yarns resolve: warp and weft show in the proportions of
// the pattern, and the warp yarns are as wide as the spacing says.
func TestWeaveCloseUp(t *testing.T) {
	f := showcaseFrame(64)
	// Frontal, 4 cm from a flat part of the cloth near the rod: 1 mm
	// yarn spacing is about 25 px.
	target := clothPoint(clothW/2, 0.27)
	cam := Camera{Target: target, Distance: 0.04, FovY: DefaultCamera().FovY}
	px := pixelSize(&cam, cam.Distance, imgH)
	for _, tc := range []struct {
		pattern  Pattern
		warpFrac float64 // of the yarn pixels, from TestWeavePatterns' coverage
	}{{Plain, 0.5}, {Twill, 0.5}, {Satin, 0.75}} {
		t.Run(patternNames[tc.pattern], func(t *testing.T) {
			o := newTestOffscreen(t, Config{NoGrid: true, Weave: Weave{Warp: redWarp, Weft: blueWeft, WarpSpacing: 1e-3, WeftSpacing: 1e-3, Pattern: tc.pattern}})
			img := render(t, o, f, cam)
			var warp, weft int
			var runs, runPx int
			win := image.Rect(imgW/2-200, imgH/2-200, imgW/2+200, imgH/2+200)
			for y := win.Min.Y; y < win.Max.Y; y++ {
				run := 0
				for x := win.Min.X; x < win.Max.X; x++ {
					c := img.RGBAAt(x, y)
					isWarp := int(c.R) > int(c.B)+40
					switch {
					case isWarp:
						warp++
					case int(c.B) > int(c.R)+40:
						weft++
					}
					// Horizontal runs of warp that end inside the window.
					if isWarp {
						run++
					} else if run > 0 {
						if run < x-win.Min.X {
							runs++
							runPx += run
						}
						run = 0
					}
				}
			}
			frac := float64(warp) / float64(warp+weft)
			width := float64(runPx) / float64(runs) * px / 1e-3 // in yarn spacings
			t.Logf("warp on %.3f of yarn pixels; warp runs %.2f spacings wide (%d runs)", frac, width, runs)
			if math.Abs(frac-tc.warpFrac) > 0.08 {
				keep(t, "weave", img)
				t.Errorf("warp shows on %.3f of the yarn pixels, want %.2f ± 0.08", frac, tc.warpFrac)
			}
			// A warp yarn is 0.84 spacings wide.
			if math.Abs(width-0.84) > 0.12 {
				keep(t, "weave", img)
				t.Errorf("warp yarns %.2f spacings wide, want 0.84", width)
			}
		})
	}
}

// From the showcase distance the same weave is sub-pixel: it shows its
// mean colour, smoothly, without moiré, and the fabric's colours reach it.
func TestWeaveFar(t *testing.T) {
	f := showcaseFrame(64)
	cam := StandCamera()
	poly := boundaryPolygon(t, f.Snapshot, 64, cam)
	for _, tc := range []struct {
		name       string
		warp, weft color.NRGBA
		dominant   int // colour channel that must dominate
	}{{"red", redWarp, redWarp, 0}, {"blue", blueWeft, blueWeft, 2}, {"mixed", redWarp, blueWeft, -1}} {
		t.Run(tc.name, func(t *testing.T) {
			o := newTestOffscreen(t, Config{NoGrid: true, Weave: Weave{Warp: tc.warp, Weft: tc.weft, WarpSpacing: 0.4e-3, WeftSpacing: 0.4e-3}})
			img := render(t, o, f, cam)
			var sum [3]float64
			var grad float64
			n := 0
			for y := 200; y < 400; y += 2 {
				for x := 500; x < 800; x += 2 {
					if signedDistance(poly, float64(x), float64(y)) < 20 || math.Hypot(float64(x)-705, float64(y)-452) < 60 {
						continue // near the edge, or the fingers
					}
					c, r := img.RGBAAt(x, y), img.RGBAAt(x+1, y)
					sum[0] += float64(c.R)
					sum[1] += float64(c.G)
					sum[2] += float64(c.B)
					grad += math.Abs(float64(c.R)-float64(r.R)) + math.Abs(float64(c.B)-float64(r.B))
					n++
				}
			}
			for k := range sum {
				sum[k] /= float64(n)
			}
			grad /= float64(n)
			t.Logf("mean colour %.0f; mean neighbour difference %.2f", sum, grad)
			if grad > 3 {
				keep(t, "far", img)
				t.Errorf("neighbouring pixels differ by %.2f on average: the sub-pixel weave aliases", grad)
			}
			if tc.dominant >= 0 {
				for k := range sum {
					if k != tc.dominant && sum[k] > 0.5*sum[tc.dominant] {
						t.Errorf("channel %d at %.0f against %.0f in the dominant channel %d", k, sum[k], sum[tc.dominant], tc.dominant)
					}
				}
			} else if math.Abs(sum[0]-sum[2]) > 0.25*sum[0] {
				t.Errorf("a red-and-blue plain weave averages to %.0f, not an even mix", sum)
			}
		})
	}
}

// The marking grid: close up, dark lines every Grid of the cloth's rest
// coordinates, as far apart on the image as that length projects; far
// away, where its lines would crowd within a few pixels, it fades out
// instead of aliasing; NoGrid hides it.
func TestGrid(t *testing.T) {
	f := showcaseFrame(64)
	target := clothPoint(clothW/2+0.005, 0.225) // between grid lines
	cam := Camera{Target: target, Distance: 0.10, FovY: DefaultCamera().FovY}
	px := pixelSize(&cam, cam.Distance, imgH)
	o := newTestOffscreen(t, Config{Grid: 0.01})
	img := render(t, o, f, cam)
	off := newTestOffscreen(t, Config{NoGrid: true})
	plain := render(t, off, f, cam)
	// Along the middle row, the pixels the grid darkens come in runs.
	var starts []int
	in := false
	y := imgH / 2
	for x := 200; x < imgW-200; x++ {
		dark := int(plain.RGBAAt(x, y).G)-int(img.RGBAAt(x, y).G) > 15
		if dark && !in {
			starts = append(starts, x)
		}
		in = dark
	}
	if len(starts) < 3 {
		keep(t, "grid", img)
		t.Fatalf("%d grid lines across the middle row, want several", len(starts))
	}
	spacing := float64(starts[len(starts)-1]-starts[0]) / float64(len(starts)-1)
	want := 0.01 / px
	t.Logf("%d lines, %.1f px apart, %.1f px expected", len(starts), spacing, want)
	if math.Abs(spacing-want) > 0.1*want {
		keep(t, "grid", img)
		t.Errorf("grid lines %.1f px apart, want %.1f (1 cm)", spacing, want)
	}
	// From the stand's distance a 2 mm grid would be lines 3 px apart:
	// it must fade to nothing rather than alias.
	far := StandCamera()
	dense := render(t, newTestOffscreen(t, Config{Grid: 0.002}), f, far)
	ref := render(t, off, f, far)
	changed := 0
	for y := 250; y < 400; y++ {
		for x := 500; x < 800; x++ {
			if differ(dense.RGBAAt(x, y), ref.RGBAAt(x, y)) {
				changed++
			}
		}
	}
	if changed > 100 {
		keep(t, "dense", dense)
		t.Errorf("a grid too dense to draw changed %d pixels", changed)
	}
}

// blockSpread is the largest standard deviation, over the red and blue
// channels, of the means of 16 x 16 pixel blocks in a window: energy at
// scales far above a yarn cell, which a weave only has where it aliases.
func blockSpread(img *image.RGBA, win image.Rectangle) float64 {
	var worst float64
	for _, ch := range []int{0, 2} {
		var means []float64
		for y := win.Min.Y; y+16 <= win.Max.Y; y += 16 {
			for x := win.Min.X; x+16 <= win.Max.X; x += 16 {
				s := 0.0
				for yy := y; yy < y+16; yy++ {
					for xx := x; xx < x+16; xx++ {
						s += float64(img.Pix[img.PixOffset(xx, yy)+ch])
					}
				}
				means = append(means, s/256)
			}
		}
		var m, v float64
		for _, x := range means {
			m += x
		}
		m /= float64(len(means))
		for _, x := range means {
			v += (x - m) * (x - m)
		}
		worst = math.Max(worst, math.Sqrt(v/float64(len(means))))
	}
	return worst
}

// From close up, where the yarns resolve, out to where they are far
// below a pixel, a red-and-blue weave shows no moiré: its 16-pixel block
// means spread no more than those of a plain cloth of its mean colour
// (which only the lighting varies).
func TestWeaveNoMoire(t *testing.T) {
	f := showcaseFrame(64)
	target := clothPoint(clothW/2, 0.25)
	woven := newTestOffscreen(t, Config{NoGrid: true, Weave: Weave{Warp: redWarp, Weft: blueWeft, WarpSpacing: 0.3e-3, WeftSpacing: 0.45e-3}})
	purple := color.NRGBA{R: 150, G: 40, B: 150, A: 255}
	plain := newTestOffscreen(t, Config{NoGrid: true, Weave: Weave{Warp: purple, Weft: purple, WarpSpacing: 0.3e-3, WeftSpacing: 0.45e-3}})
	win := image.Rect(imgW/2-128, imgH/2-128, imgW/2+128, imgH/2+128)
	for _, d := range []float64{0.04, 0.07, 0.1, 0.14, 0.2, 0.3, 0.45} {
		for _, yaw := range []float64{0, 60} {
			cam := Camera{Target: target, Distance: d, Yaw: yaw * math.Pi / 180, FovY: DefaultCamera().FovY}
			px := pixelSize(&cam, d, imgH)
			w, p := blockSpread(render(t, woven, f, cam), win), blockSpread(render(t, plain, f, cam), win)
			t.Logf("%.2f m, yaw %2.0f°: %.1f px per warp spacing; block means spread %.2f (plain cloth %.2f)", d, yaw, 0.3e-3/px, w, p)
			if w > p+2 {
				keep(t, "moire", render(t, woven, f, cam))
				t.Errorf("at %.2f m, yaw %.0f°: the weave's block means spread %.2f, a plain cloth's %.2f: moiré", d, yaw, w, p)
			}
		}
	}
}

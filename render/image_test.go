package render

import (
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/haptex/haptex/sim"
)

// The image tests render the showcase offscreen and check what must be in
// the picture, mostly by difference: the same frame with and without the
// thing under test, so they hold for any lighting or GPU, not one bitmap.

const imgW, imgH = 1280, 720

func render(t *testing.T, o *Offscreen, f *Frame, cam Camera) *image.RGBA {
	t.Helper()
	img, err := o.Render(f, cam)
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	return img
}

// keep writes img for a person to look at when a test fails.
func keep(t *testing.T, name string, img image.Image) {
	t.Helper()
	p := filepath.Join(os.TempDir(), "haptex-render-"+t.Name()+"-"+name+".png")
	if f, err := os.Create(filepath.Clean(p)); err == nil {
		png.Encode(f, img)
		f.Close()
		t.Logf("image written to %s", p)
	}
}

func differ(a, b color.RGBA) bool {
	d := func(x, y uint8) int { return int(x) - int(y) }
	return max(abs(d(a.R, b.R)), abs(d(a.G, b.G)), abs(d(a.B, b.B))) > 8
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// boundaryPolygon projects the cloth's edge nodes, in order around it.
func boundaryPolygon(t *testing.T, s *sim.Snapshot, n int, cam Camera) [][2]float64 {
	t.Helper()
	var idx []int
	for i := 0; i < n; i++ {
		idx = append(idx, i) // bottom row, left to right
	}
	for j := 1; j < n; j++ {
		idx = append(idx, j*n+n-1) // right column, upwards
	}
	for i := n - 2; i >= 0; i-- {
		idx = append(idx, (n-1)*n+i) // top row, right to left
	}
	for j := n - 2; j > 0; j-- {
		idx = append(idx, j*n) // left column, downwards
	}
	poly := make([][2]float64, len(idx))
	for k, i := range idx {
		p := vec3{float64(s.Pos[3*i]), float64(s.Pos[3*i+1]), float64(s.Pos[3*i+2])}
		x, y, ok := cam.project(p, imgW, imgH)
		if !ok {
			t.Fatalf("cloth node %d behind the camera", i)
		}
		poly[k] = [2]float64{x, y}
	}
	return poly
}

// signedDistance is the distance from (x, y) to the polygon's outline,
// positive inside.
func signedDistance(poly [][2]float64, x, y float64) float64 {
	inside := false
	best := math.Inf(1)
	for i := range poly {
		a, b := poly[i], poly[(i+1)%len(poly)]
		if (a[1] > y) != (b[1] > y) && x < a[0]+(y-a[1])*(b[0]-a[0])/(b[1]-a[1]) {
			inside = !inside
		}
		ex, ey := b[0]-a[0], b[1]-a[1]
		u := math.Max(0, math.Min(1, ((x-a[0])*ex+(y-a[1])*ey)/(ex*ex+ey*ey)))
		best = math.Min(best, math.Hypot(x-a[0]-u*ex, y-a[1]-u*ey))
	}
	if inside {
		return best
	}
	return -best
}

// The cloth covers the region the camera puts it in, and nothing else.
func TestShowcaseClothRegion(t *testing.T) {
	o := newTestOffscreen(t, Config{})
	const n = 64
	f := showcaseFrame(n)
	cam := StandCamera()
	with := render(t, o, f, cam)
	bare := *f
	bare.Topology, bare.Snapshot = nil, nil
	without := render(t, o, &bare, cam)
	poly := boundaryPolygon(t, f.Snapshot, n, cam)

	var in, inDiff, out, outSame int
	for y := 1; y < imgH; y += 5 {
		for x := 1; x < imgW; x += 5 {
			d := signedDistance(poly, float64(x)+0.5, float64(y)+0.5)
			changed := differ(with.RGBAAt(x, y), without.RGBAAt(x, y))
			switch {
			case d > 4:
				in++
				if changed {
					inDiff++
				}
			case d < -4:
				out++
				if !changed {
					outSame++
				}
			}
		}
	}
	// Inside, only the rod along the top edge and the index finger in front
	// of the cloth look the same with and without it.
	fin, fout := float64(inDiff)/float64(in), float64(outSame)/float64(out)
	t.Logf("cloth drawn at %.4f of %d samples inside its outline; %.4f of %d outside unchanged", fin, in, fout, out)
	if in < 5000 {
		t.Errorf("only %d samples inside the cloth's outline: the camera does not frame it", in)
	}
	if fin < 0.95 || fout < 0.998 {
		keep(t, "with", with)
		keep(t, "without", without)
		t.Errorf("cloth covers %.4f of its region (want >= 0.95) and changes %.4f outside it (want <= 0.002)", fin, 1-fout)
	}
}

// fingerOnly is the showcase with only finger i, as a bare pad (no force
// arrow, no stalk), or with no finger when i < 0.
func fingerOnly(f *Frame, i int) *Frame {
	g := *f
	for k := range g.Fingers.Fingers {
		fk := &g.Fingers.Fingers[k]
		fk.Force, fk.Normal = vec3{}, vec3{}
		fk.Valid = k == i
	}
	return &g
}

// Both pads are drawn where the scene puts them, as discs of the pad's
// projected size; the thumb behind the cloth shows through it.
func TestShowcasePads(t *testing.T) {
	o := newTestOffscreen(t, Config{})
	f := showcaseFrame(64)
	cam := StandCamera()
	none := render(t, o, fingerOnly(f, -1), cam)
	for _, i := range []int{sim.Thumb, sim.IndexFinger} {
		img := render(t, o, fingerOnly(f, i), cam)
		p := f.Fingers.Fingers[i].Pos
		px, py, _ := cam.project(p, imgW, imgH)
		// The pad's silhouette radius, from the camera's right vector.
		right := normalize(cross(sub(cam.Target, cam.Eye()), vec3{0, 1, 0}))
		ex, ey, _ := cam.project(add(p, scale(right, o.cfg.PadRadius)), imgW, imgH)
		rr := math.Hypot(ex-px, ey-py)
		var n, sx, sy float64
		for y := int(py - rr - 8); y <= int(py+rr+8); y++ {
			for x := int(px - rr - 8); x <= int(px+rr+8); x++ {
				if differ(img.RGBAAt(x, y), none.RGBAAt(x, y)) {
					n++
					sx += float64(x) + 0.5
					sy += float64(y) + 0.5
				}
			}
		}
		name := sim.FingerName(i)
		if n == 0 {
			keep(t, name, img)
			t.Fatalf("%s pad not drawn near (%.1f, %.1f)", name, px, py)
		}
		cx, cy := sx/n, sy/n
		area := math.Pi * rr * rr
		t.Logf("%s: projected at (%.1f, %.1f) r %.1f px; drawn centroid (%.1f, %.1f), area %.0f px² (disc %.0f)", name, px, py, rr, cx, cy, n, area)
		if math.Hypot(cx-px, cy-py) > 1.5 || n < 0.8*area || n > 1.25*area {
			keep(t, name, img)
			t.Errorf("%s pad drawn at (%.1f, %.1f) over %.0f px², want (%.1f, %.1f) over %.0f px²", name, cx, cy, n, px, py, area)
		}
		// Its colour shows: blue for the index in front, the orange ghost
		// for the thumb behind the cloth.
		a, b := img.RGBAAt(int(px), int(py)), none.RGBAAt(int(px), int(py))
		warm := func(c color.RGBA) int { return int(c.R) - int(c.B) }
		switch i {
		case sim.IndexFinger:
			if int(a.B)-int(a.R) < 80 {
				t.Errorf("index pad centre %v is not blue", a)
			}
		case sim.Thumb:
			if warm(a)-warm(b) < 25 {
				t.Errorf("thumb ghost %v barely warmer than the cloth %v", a, b)
			}
		}
	}
}

// Every pin of both arrays shows its amplitude in its own cell, and a
// change of one amplitude changes that cell alone.
func TestInsets(t *testing.T) {
	o := newTestOffscreen(t, Config{})
	cam := StandCamera()
	f := showcaseFrame(16)
	full := [numBands]float64{o.cfg.A40FullScaleUm, o.cfg.A320FullScaleUm}
	amp := func(b, fi, pin int) float64 {
		// rising by pin from -36 dB to 0 dB, the index 3 dB under the thumb
		return full[b] * math.Pow(10, (-36+36*float64(pin)/(PinsPerArray-1)-3*float64(fi))/20)
	}
	for fi := 0; fi < sim.NumFingers; fi++ {
		for pin := 0; pin < PinsPerArray; pin++ {
			f.A40[fi][pin] = amp(0, fi, pin)
			f.A320[fi][pin] = amp(1, fi, pin)
		}
	}
	img := render(t, o, f, cam)
	lay := layoutInsets(imgW, imgH)
	centre := func(img *image.RGBA, fi, b, pin int) color.RGBA {
		r := lay.pinRect(fi, b, pin/PinCols, pin%PinCols)
		return img.RGBAAt((r.Min.X+r.Max.X)/2, (r.Min.Y+r.Max.Y)/2)
	}
	for fi := 0; fi < sim.NumFingers; fi++ {
		for b := 0; b < numBands; b++ {
			prev := -1.0
			for pin := 0; pin < PinsPerArray; pin++ {
				got := centre(img, fi, b, pin)
				want := pinColour(amp(b, fi, pin), full[b], o.cfg.InsetRangeDB)
				for k, v := range []uint8{got.R, got.G, got.B} {
					if math.Abs(float64(v)-255*float64(want[k])) > 3 {
						keep(t, "insets", img)
						t.Fatalf("%s %s pin %d (row %d, col %d): colour %v, want %v", sim.FingerName(fi), bandNames[b], pin, pin/PinCols, pin%PinCols, got, want)
					}
				}
				l := 0.2126*float64(got.R) + 0.7152*float64(got.G) + 0.0722*float64(got.B)
				if l <= prev {
					t.Errorf("%s %s: pin %d not brighter than pin %d", sim.FingerName(fi), bandNames[b], pin, pin-1)
				}
				prev = l
			}
		}
	}

	g := *f
	g.A40[sim.IndexFinger][5] = 0
	g.A320[sim.Thumb][23] = math.NaN()
	img2 := render(t, o, &g, cam)
	for fi := 0; fi < sim.NumFingers; fi++ {
		for b := 0; b < numBands; b++ {
			for pin := 0; pin < PinsPerArray; pin++ {
				changed := differ(centre(img, fi, b, pin), centre(img2, fi, b, pin))
				want := (fi == sim.IndexFinger && b == 0 && pin == 5) || (fi == sim.Thumb && b == 1 && pin == 23)
				if changed != want {
					t.Errorf("%s %s pin %d: changed %v, want %v", sim.FingerName(fi), bandNames[b], pin, changed, want)
				}
			}
		}
	}
	if c := centre(img2, sim.Thumb, 1, 23); c.R < 250 || c.G > 5 || c.B < 250 {
		t.Errorf("a NaN amplitude shows as %v, want magenta", c)
	}
	if c := centre(img2, sim.IndexFinger, 0, 5); c.R > 20 || c.G > 20 || c.B > 20 {
		t.Errorf("a zero amplitude shows as %v, want near black", c)
	}
}

package render

import (
	"bytes"
	"errors"
	"image"
	"image/jpeg"
	"image/png"
	"math"
	"testing"

	"github.com/haptex/haptex/render/internal/glw"
	"github.com/haptex/haptex/sim"
)

// A contact patch is drawn where its (u, v) lies on the deformed cloth,
// at its size, and only on the face its finger touches.
func TestContactPatch(t *testing.T) {
	o := newTestOffscreen(t, Config{})
	base := showcaseFrame(64)
	centre := clothPoint(pinchU, pinchV)
	cam := Camera{Target: centre, Distance: 0.12, FovY: StandCamera().FovY} // frontal, from +z
	// Pads out of the way, on their own sides of the cloth.
	base.Fingers.Fingers[sim.Thumb].Pos = add(centre, vec3{0.03, 0, -0.02})
	base.Fingers.Fingers[sim.IndexFinger].Pos = add(centre, vec3{-0.03, 0, 0.02})
	with := func(fingers ...int) *Frame {
		f := *base
		for i := range f.Sim.Contact {
			f.Sim.Contact[i].InContact = false
		}
		for _, i := range fingers {
			f.Sim.Contact[i].InContact = true
		}
		return &f
	}
	none := render(t, o, with(), cam)
	px, py, _ := cam.project(centre, imgW, imgH)
	rr := 0.005 / pixelSize(&cam, cam.Distance, imgH) // the patch radius: area π (5 mm)²

	changed := func(img *image.RGBA) (n, cx, cy float64) { return changedAround(img, none, px, py, 2*rr) }
	index := render(t, o, with(sim.IndexFinger), cam)
	n, cx, cy := changed(index)
	t.Logf("index patch: %.0f px changed around (%.1f, %.1f); expected a disc of r %.1f px at (%.1f, %.1f)", n, cx, cy, rr, px, py)
	if n < 0.8*math.Pi*rr*rr || n > 1.3*math.Pi*rr*rr || math.Hypot(cx-px, cy-py) > 2 {
		keep(t, "index", index)
		t.Errorf("index patch: %.0f px around (%.1f, %.1f), want about %.0f around (%.1f, %.1f)", n, cx, cy, math.Pi*rr*rr, px, py)
	}
	if c := index.RGBAAt(int(px), int(py)); c.B <= c.R {
		t.Errorf("index patch centre %v is not tinted blue", c)
	}
	// The thumb touches the back face, which the camera does not see.
	if n, _, _ := changed(render(t, o, with(sim.Thumb), cam)); n != 0 {
		t.Errorf("the thumb's patch shows on the front face (%.0f px)", n)
	}
	back := cam
	back.Yaw = math.Pi
	noneBack := render(t, o, with(), back)
	thumbBack := render(t, o, with(sim.Thumb), back)
	bx, by, _ := back.project(centre, imgW, imgH)
	if !differ(thumbBack.RGBAAt(int(bx), int(by)), noneBack.RGBAAt(int(bx), int(by))) {
		keep(t, "thumb-back", thumbBack)
		t.Error("the thumb's patch does not show on the back face")
	}
}

// changedAround counts the pixels of img that differ from base within r
// pixels (a square) of (px, py), and returns their centroid.
func changedAround(img, base *image.RGBA, px, py, r float64) (n, cx, cy float64) {
	for y := int(py - r); y <= int(py+r); y++ {
		for x := int(px - r); x <= int(px+r); x++ {
			if differ(img.RGBAAt(x, y), base.RGBAAt(x, y)) {
				n++
				cx += float64(x) + 0.5
				cy += float64(y) + 0.5
			}
		}
	}
	return n, cx / n, cy / n
}

// A regraded mesh (sim.Snapshot.Grading) gives the nodes new rest
// coordinates: the contact patch, drawn at its (u, v), moves with them.
// Every node's u is shifted by +1 cm, so rest point (pinchU, pinchV) is
// now the node that sat 1 cm to its left.
func TestRegradedUV(t *testing.T) {
	o := newTestOffscreen(t, Config{})
	base := showcaseFrame(64)
	centre := clothPoint(pinchU, pinchV)
	cam := Camera{Target: centre, Distance: 0.12, FovY: StandCamera().FovY}
	base.Fingers.Fingers[sim.Thumb].Pos = add(centre, vec3{0.03, 0, -0.02})
	base.Fingers.Fingers[sim.IndexFinger].Pos = add(centre, vec3{-0.03, 0, 0.02})
	none := *base
	none.Sim.Contact[sim.Thumb].InContact, none.Sim.Contact[sim.IndexFinger].InContact = false, false
	index := none
	index.Sim.Contact[sim.IndexFinger].InContact = true
	snap := *base.Snapshot
	snap.UV = make([]float32, len(base.Topology.UV))
	for i, u := range base.Topology.UV {
		snap.UV[i] = u
		if i%2 == 0 {
			snap.UV[i] += 0.01
		}
	}
	snap.Grading = 1
	regraded, regradedNone := index, none
	regraded.Snapshot, regradedNone.Snapshot = &snap, &snap
	for _, tc := range []struct {
		name      string
		with, off *Frame
		at        vec3
	}{
		{"as built", &index, &none, centre},
		{"regraded", &regraded, &regradedNone, clothPoint(pinchU-0.01, pinchV)},
		// The renderer keeps the regraded coordinates for later frames.
		{"regraded, next frame", &regraded, &regradedNone, clothPoint(pinchU-0.01, pinchV)},
	} {
		off := render(t, o, tc.off, cam)
		img := render(t, o, tc.with, cam)
		px, py, _ := cam.project(tc.at, imgW, imgH)
		n, cx, cy := changedAround(img, off, px, py, 60)
		if n == 0 || math.Hypot(cx-px, cy-py) > 2 {
			keep(t, "patch", img)
			t.Errorf("%s: patch of %.0f px centred at (%.1f, %.1f), want (%.1f, %.1f)", tc.name, n, cx, cy, px, py)
		}
	}
}

// Bad input never fails a frame: the cloth is refused (keeping the last
// good shape) with a red line in the overlay, bad fingers are left out,
// and a bad camera falls back to the default.
func TestBadInput(t *testing.T) {
	o := newTestOffscreen(t, Config{})
	cam := StandCamera()
	good := showcaseFrame(32)
	nan := float32(math.NaN())
	redText := func(img *image.RGBA) int {
		n := 0
		for y := 0; y < 200; y++ {
			for x := 0; x < 700; x++ {
				if c := img.RGBAAt(x, y); c.R > 200 && c.G < 150 && c.B < 130 {
					n++
				}
			}
		}
		return n
	}
	clothAt := func(img *image.RGBA) [3]uint8 {
		x, y, _ := cam.project(clothPoint(0.08, 0.2), imgW, imgH)
		c := img.RGBAAt(int(x), int(y))
		return [3]uint8{c.R, c.G, c.B}
	}
	bare := *good
	bare.Topology, bare.Snapshot = nil, nil
	noCloth := clothAt(render(t, o, &bare, cam))
	goodImg := render(t, o, good, cam)
	if redText(goodImg) != 0 {
		t.Fatal("a good frame shows a warning")
	}

	nanShape := func() *Frame {
		f := *good
		s := sim.NewSnapshot(f.Topology.Nodes)
		copy(s.Pos, good.Snapshot.Pos)
		copy(s.Normal, good.Snapshot.Normal)
		s.Pos[30] = nan
		f.Snapshot = &s
		return &f
	}
	short := *good
	s := sim.NewSnapshot(good.Topology.Nodes - 1)
	short.Snapshot = &s
	badTopo := *good
	tp := *good.Topology
	tp.Triangles = append([]uint32{uint32(tp.Nodes + 5)}, tp.Triangles[1:]...)
	badTopo.Topology = &tp

	for _, tc := range []struct {
		name       string
		frame      *Frame
		freshFirst bool   // render it with no good shape uploaded before
		cloth      string // "last" (last good shape), "none"
	}{
		{"NaN position, after a good frame", nanShape(), false, "last"},
		{"snapshot of the wrong size", &short, false, "last"},
		{"triangle index out of range", &badTopo, false, "none"},
		{"NaN position, first frame", nanShape(), true, "none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			oo := o
			if tc.freshFirst {
				oo = newTestOffscreen(t, Config{})
			} else {
				render(t, oo, good, cam)
			}
			img := render(t, oo, tc.frame, cam)
			if redText(img) < 50 {
				keep(t, "bad", img)
				t.Error("no warning in the overlay")
			}
			got := clothAt(img)
			switch tc.cloth {
			case "last":
				if want := clothAt(goodImg); got != want {
					t.Errorf("cloth pixel %v, want the last good shape's %v", got, want)
				}
			case "none":
				if got != noCloth {
					t.Errorf("cloth pixel %v, want the background %v", got, noCloth)
				}
			}
			// The next good frame clears the warning.
			if n := redText(render(t, oo, good, cam)); n != 0 {
				t.Errorf("warning stays after a good frame (%d px)", n)
			}
		})
	}

	t.Run("NaN fingers and forces", func(t *testing.T) {
		f := *good
		f.Fingers.Fingers[sim.Thumb].Pos[1] = math.NaN()
		f.Fingers.Fingers[sim.IndexFinger].Force = vec3{math.Inf(1), 0, 0}
		f.Fingers.Fingers[sim.IndexFinger].Normal = vec3{math.NaN(), 0, 0}
		f.Sim.Contact[sim.Thumb].U = math.NaN()
		img := render(t, o, &f, cam)
		noThumb := *good
		noThumb.Fingers.Fingers[sim.Thumb].Valid = false
		noThumb.Sim.Contact[sim.Thumb].InContact = false
		ref := render(t, o, &noThumb, cam)
		x, y, _ := cam.project(good.Fingers.Fingers[sim.Thumb].Pos, imgW, imgH)
		if differ(img.RGBAAt(int(x)+6, int(y)+6), ref.RGBAAt(int(x)+6, int(y)+6)) {
			t.Error("a thumb with a NaN position is drawn")
		}
	})

	t.Run("NaN camera", func(t *testing.T) {
		bad := cam
		bad.Target[0] = math.NaN()
		if img := render(t, o, good, bad); !bytes.Equal(img.Pix, render(t, o, good, DefaultCamera()).Pix) {
			t.Error("a NaN camera does not fall back to the default view")
		}
	})
}

// The overlay prints what the frame says: a different fabric name changes
// the text panel and nothing else.
func TestOverlayText(t *testing.T) {
	o := newTestOffscreen(t, Config{})
	f := showcaseFrame(16)
	a := render(t, o, f, StandCamera())
	g := *f
	g.Overlay.Fabric = "denim 14 oz twill"
	g.Overlay.Loops[0].LatenessP99 = 2e6
	b := render(t, o, &g, StandCamera())
	var inside, outside int
	for y := 0; y < imgH; y++ {
		for x := 0; x < imgW; x++ {
			if differ(a.RGBAAt(x, y), b.RGBAAt(x, y)) {
				if x < 400 && y < 130 {
					inside++
				} else {
					outside++
				}
			}
		}
	}
	if inside < 50 || outside != 0 {
		t.Errorf("%d pixels changed in the text panel, %d elsewhere", inside, outside)
	}
}

// A snapshot asked for as JPEG is JPEG; an unknown format is refused.
func TestSnapshotJPEG(t *testing.T) {
	needDisplay(t)
	var buf bytes.Buffer
	if err := Snapshot(&buf, Config{Width: 320, Height: 200}, showcaseFrame(16), "jpeg"); err != nil {
		t.Fatal(err)
	}
	if img, err := jpeg.Decode(&buf); err != nil || img.Bounds() != image.Rect(0, 0, 320, 200) {
		t.Fatalf("not a 320 x 200 JPEG: %v", err)
	}
	if err := Snapshot(&buf, Config{}, showcaseFrame(16), "gif"); err == nil {
		t.Error("a GIF snapshot was not refused")
	}
}

func TestSnapshotPNG(t *testing.T) {
	needDisplay(t)
	var buf bytes.Buffer
	if err := Snapshot(&buf, Config{Width: 320, Height: 200}, showcaseFrame(16), "png"); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if img.Bounds() != image.Rect(0, 0, 320, 200) {
		t.Errorf("bounds %v", img.Bounds())
	}
	// Opaque everywhere: alpha is kept at 1 under blending.
	if rgba, ok := img.(*image.RGBA); ok {
		for i := 3; i < len(rgba.Pix); i += 4 {
			if rgba.Pix[i] != 255 {
				t.Fatalf("pixel %d has alpha %d", i/4, rgba.Pix[i])
			}
		}
	} else if _, ok := img.(*image.NRGBA); ok {
		t.Error("the PNG has an alpha channel that is not opaque")
	}
}

// Drawing a frame, cloth upload, patches and text included, allocates
// nothing: the view adds no garbage for the collector to stop the loops for.
func TestDrawAllocs(t *testing.T) {
	o := newTestOffscreen(t, Config{Width: 320, Height: 200})
	f := showcaseFrame(32)
	cam := StandCamera()
	req := newRequest(func() { o.drawOnly(f, cam) })
	o.th.call(req)
	if n := testing.AllocsPerRun(10, func() { o.th.call(req) }); n != 0 {
		t.Errorf("a frame allocates %v times", n)
	}
}

// Draw times a frame on the GL thread; Renderer and Config say what drew
// it and how.
func TestOffscreenDraw(t *testing.T) {
	o := newTestOffscreen(t, Config{Width: 96, Height: 64})
	d, err := o.Draw(showcaseFrame(8), StandCamera())
	if err != nil || d <= 0 {
		t.Fatalf("Draw: %v, %v", d, err)
	}
	if c := o.Config(); o.Renderer() == "" || c.Width != 96 || c.Height != 64 || c.Samples < 1 || c.Camera != DefaultCamera() {
		t.Errorf("renderer %q, config %+v", o.Renderer(), c)
	}
}

func TestOffscreenErrors(t *testing.T) {
	needDisplay(t)
	o, err := NewOffscreen(testThread, Config{Width: 64, Height: 32})
	if err != nil {
		t.Fatal(err)
	}
	if err := o.RenderTo(image.NewRGBA(image.Rect(0, 0, 32, 32)), showcaseFrame(8), StandCamera()); err == nil {
		t.Error("RenderTo into a wrongly sized image succeeded")
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	if err := o.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := o.Render(showcaseFrame(8), StandCamera()); !errors.Is(err, ErrClosed) {
		t.Errorf("Render after Close: %v, want ErrClosed", err)
	}
	if _, err := o.Draw(showcaseFrame(8), StandCamera()); !errors.Is(err, ErrClosed) {
		t.Errorf("Draw after Close: %v, want ErrClosed", err)
	}
	other := StartThread()
	defer other.Stop()
	if _, err := NewOffscreen(other, Config{}); err == nil {
		t.Error("an Offscreen on a second GLFW thread was allowed")
	}
}

// The haptexgldebug decorator turns a GL error into a panic that names
// the call, and lets good calls through.
func TestGLDebugDecorator(t *testing.T) {
	o := newTestOffscreen(t, Config{Width: 64, Height: 32})
	var got any
	o.th.Call(func() {
		makeCurrent(o.win)
		d := glw.NewDebug(o.r.gl)
		d.BindBuffer(0x8892, 0) // GL_ARRAY_BUFFER, fine
		defer func() { got = recover() }()
		d.BindBuffer(0x1234, 0) // not a buffer target
	})
	e, ok := got.(*glw.Error)
	if !ok || e.Call != "BindBuffer" || e.Code != 0x0500 {
		t.Errorf("panic %v, want *glw.Error for BindBuffer with GL_INVALID_ENUM", got)
	}
}

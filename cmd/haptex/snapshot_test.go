package main

import (
	"errors"
	"image"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/kes"
	"github.com/haptex/haptex/render"
	"github.com/haptex/haptex/sim"
)

// project returns the pixel of world point p seen by c in a w x h image
// (origin top-left, y down), the inverse of render.Camera.Ray.
func project(c render.Camera, p [3]float64, w, h int) (x, y float64) {
	eye := c.Eye()
	sub := func(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
	dot := func(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
	cross := func(a, b [3]float64) [3]float64 {
		return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
	}
	unit := func(a [3]float64) [3]float64 {
		n := math.Sqrt(dot(a, a))
		return [3]float64{a[0] / n, a[1] / n, a[2] / n}
	}
	f := unit(sub(c.Target, eye))
	s := unit(cross(f, [3]float64{0, 1, 0}))
	u := cross(s, f)
	d := sub(p, eye)
	tn := math.Tan(c.FovY / 2)
	aspect := float64(w) / float64(h)
	nx := dot(d, s) / dot(d, f) / (tn * aspect)
	ny := dot(d, u) / dot(d, f) / tn
	return (nx + 1) / 2 * float64(w), (1 - ny) / 2 * float64(h)
}

// differs reports whether two pixels differ by more than tol summed over
// the channels.
func differs(a, b *image.RGBA, x, y, tol int) bool {
	i := a.PixOffset(x, y)
	d := 0
	for k := range 3 {
		d += max(int(a.Pix[i+k])-int(b.Pix[i+k]), int(b.Pix[i+k])-int(a.Pix[i+k]))
	}
	return d > tol
}

// The default snapshot, at the held stretch of the showcase: each pad is
// at least 150 px across at 1280 x 720 (measured on the rendered image:
// the pixels the pad changes, on the row through its centre), and the
// cloth between and around the pads is visibly deformed (the pixels that
// change when the cloth is put back at rest, fingers hidden in both).
func TestSnapshotShowsThePinch(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the showcase to the pinch")
	}
	if err := render.Probe(); err != nil {
		t.Skipf("no display: %v", err)
	}
	fab, err := kes.Builtin(rig.DefaultFabric)
	if err != nil {
		t.Fatal(err)
	}
	// A 16-node cloth keeps the test's run short (under -race most of
	// all); the pull is the same, and so is what the camera frames.
	cfg, f, err := snapshotScene(fab, "showcase", defaultSnapshotAt, 16)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Width, cfg.Height = 1280, 720
	cam := render.DefaultCamera().AimedAt(f) // as render.Snapshot aims it
	th := render.StartThread()
	defer th.Stop()
	o, err := render.NewOffscreen(th, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	draw := func(fr *render.Frame) *image.RGBA {
		img, err := o.Render(fr, cam)
		if err != nil {
			t.Fatal(err)
		}
		return img
	}

	// Pads alone: no stalk, no force arrow, no contact patch.
	pads := *f
	pads.Sim = sim.Output{}
	for i := range pads.Fingers.Fingers {
		pads.Fingers.Fingers[i].Normal, pads.Fingers.Fingers[i].Force = [3]float64{}, [3]float64{}
	}
	none := pads
	for i := range none.Fingers.Fingers {
		none.Fingers.Fingers[i].Valid = false
	}
	img := draw(&none)
	for i, name := range []string{"thumb", "index"} {
		fi := pads.Fingers.Fingers[i]
		if !fi.Valid {
			t.Fatalf("the %s is not valid at the pinch", name)
		}
		// This pad alone, so that the other does not hide part of it.
		alone := none
		alone.Fingers.Fingers[i] = fi
		with := draw(&alone)
		cx, cy := project(cam, fi.Pos, 1280, 720)
		x, y := int(cx), int(cy)
		if !differs(with, img, x, y, 30) {
			t.Fatalf("the %s pad does not show at its centre (%d, %d)", name, x, y)
		}
		lo, hi := x, x
		for lo > 0 && differs(with, img, lo-1, y, 30) {
			lo--
		}
		for hi < 1279 && differs(with, img, hi+1, y, 30) {
			hi++
		}
		width := hi - lo + 1
		t.Logf("%s pad: %d px across at (%d, %d)", name, width, x, y)
		if width < 150 {
			t.Errorf("the %s pad is %d px across, want at least 150", name, width)
		}
	}

	// The cloth, fingers hidden, against the same cloth flat at rest.
	bare := none
	deformed := img
	top := f.Topology
	rest := sim.NewSnapshot(top.Nodes)
	corner := sim.Config{NodesU: 16, NodesV: 16}.Corner()
	var maxDisp float64
	for k := range top.Nodes {
		r := [3]float64{corner[0] + float64(top.UV[2*k]), corner[1] + float64(top.UV[2*k+1]), corner[2]}
		for j := range 3 {
			rest.Pos[3*k+j] = float32(r[j])
		}
		rest.Normal[3*k+2] = 1
		var d2 float64
		for j := range 3 {
			d := float64(f.Snapshot.Pos[3*k+j]) - r[j]
			d2 += d * d
		}
		maxDisp = max(maxDisp, math.Sqrt(d2))
	}
	flat := bare
	flat.Snapshot = &rest
	still := draw(&flat)
	mx, my := project(cam, midpoint(f), 1280, 720)
	win := image.Rect(int(mx)-320, int(my)-200, int(mx)+320, int(my)+200).Intersect(image.Rect(0, 0, 1280, 720))
	changed, total := 0, 0
	for y := win.Min.Y; y < win.Max.Y; y++ {
		for x := win.Min.X; x < win.Max.X; x++ {
			total++
			if differs(deformed, still, x, y, 30) {
				changed++
			}
		}
	}
	share := float64(changed) / float64(total)
	t.Logf("cloth: largest displacement from rest %.1f mm; %.1f %% of the %v pixels round the pinch change when it is put back at rest", maxDisp*1e3, 100*share, win.Size())
	// An undeformed cloth changes none; the showcase's pull about a fifth.
	if share < 0.1 {
		t.Errorf("only %.1f %% of the pixels round the pinch show the deformation, want at least 10 %%", 100*share)
	}
}

func midpoint(f *render.Frame) [3]float64 {
	a, b := f.Fingers.Fingers[0].Pos, f.Fingers.Fingers[1].Pos
	return [3]float64{(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2}
}

// What a snapshot cannot draw is refused in one line before anything is
// simulated: a time past the script's end (an hour of cloth took hours),
// a size no frame buffer holds, a magnification that is not a number or
// is below true scale (each was drawn at the default before).
func TestSnapshotRefuses(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.png")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-at", "1000h"}, "past the end of the showcase script"},
		{[]string{"-script", "fold", "-at", "1m"}, "past the end of the fold script"},
		{[]string{"-width", "0"}, "-width 0"},
		{[]string{"-height", "-5"}, "-height -5"},
		{[]string{"-width", "100000"}, "-width 100000"},
		{[]string{"-magnify", "NaN"}, "-magnify NaN"},
		{[]string{"-magnify", "0.5"}, "-magnify 0.5"},
		{[]string{"-magnify", "1e9"}, "-magnify 1e+09"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			err := runSnapshot(append([]string{"-o", out}, c.args...))
			if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%v, want one usage line with %q", err, c.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s written", out)
			}
		})
	}
}

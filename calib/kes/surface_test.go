package kes

import (
	"encoding/csv"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/haptex/haptex/tactile"
)

// Every built-in fabric maps to surface parameters the tactile renderer
// accepts, the weave maps as documented, and the fabric renders in the
// comfortable range without clipping (comfortable).
func TestBuiltinSurfaces(t *testing.T) {
	want := map[string]tactile.WeaveType{
		"cotton-shirting": tactile.Plain, "denim": tactile.Twill, "fleece": tactile.Pile,
		"knit-jersey": tactile.Knit, "silk-habutae": tactile.Plain, "wool-suiting": tactile.Twill,
	}
	contacts := showcaseContacts(t)
	for _, name := range List() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f, err := Builtin(name)
			if err != nil {
				t.Fatal(err)
			}
			p, err := f.SurfaceParams(0.3, 0.3)
			if err != nil {
				t.Fatal(err)
			}
			if w, ok := want[name]; ok && p.Weave != w {
				t.Errorf("weave %v, want %v", p.Weave, w)
			}
			if p.SMD != f.Roughness(Bias).SMD || p.WarpSpacing <= 0 {
				t.Errorf("%+v", p)
			}
			// A coarser k-space grid than the rig's 512²: the same
			// fabric, and a race build 6 times faster.
			p.GridN = 128
			s, err := tactile.NewSurface(p, 1)
			if err != nil {
				t.Fatalf("tactile rejects the mapping: %v", err)
			}
			comfortable(t, s, contacts)
		})
	}
}

// showcaseContacts reads the contacts the simulation produced in a
// lockstep run of the showcase handling script, recorded for the tactile
// package's tests (tactile/testdata/showcase_contacts.csv, which says how
// it was made).
func showcaseContacts(t *testing.T) []tactile.Contact {
	t.Helper()
	f, err := os.Open("../../tactile/testdata/showcase_contacts.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var cs []tactile.Contact
	for _, row := range rows[1:] {
		var v [9]float64
		for k := range v {
			if v[k], err = strconv.ParseFloat(row[2+k], 64); err != nil {
				t.Fatal(err)
			}
		}
		cs = append(cs, tactile.Contact{InContact: true, U: v[0], V: v[1], Orientation: v[2], SlipU: v[3], SlipV: v[4],
			NormalForce: v[5], Curvature: v[6], PadD: v[7], PadL: v[8]})
	}
	return cs
}

// comfortable renders fabric s on every contact of the showcase as
// recorded and, on every tenth, at normal forces of 0.01-1 N and stroke
// speeds of 3-300 mm/s in the recorded direction, with the renderer's
// default device limits (tighter than the simulated array's): no pin may
// be clamped, and none may be meant to deliver the comfortable range's
// top.
func comfortable(t *testing.T, s *tactile.Surface, contacts []tactile.Contact) {
	r, err := tactile.NewRenderer(s, tactile.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var peak40, peak320 float64
	var frames, compressed int
	render := func(c tactile.Contact) {
		in := [tactile.NumFingers]tactile.Contact{c, c}
		var out tactile.Frame
		r.Step(0, &in, &out)
		for f := range out.Fingers {
			ff := &out.Fingers[f]
			frames++
			compressed += ff.Compressed
			if ff.Clamped != 0 || !(ff.PeakSL40DB < tactile.DefaultComfort40DB) || !(ff.PeakSL320DB < tactile.DefaultComfort320DB) {
				t.Fatalf("%.3f N, %.0f mm/s: %d pin amplitudes clamped, peaks at %.2f dB SL (40 Hz) and %.2f dB SL (320 Hz)",
					c.NormalForce, math.Hypot(c.SlipU, c.SlipV)*1e3, ff.Clamped, ff.PeakSL40DB, ff.PeakSL320DB)
			}
			peak40, peak320 = math.Max(peak40, ff.PeakSL40DB), math.Max(peak320, ff.PeakSL320DB)
		}
	}
	for i, c := range contacts {
		render(c)
		speed := math.Hypot(c.SlipU, c.SlipV)
		if i%10 != 0 || speed == 0 {
			continue
		}
		for _, force := range []float64{0.01, 0.1, 0.3, 0.6, 1} {
			for _, v := range []float64{0.003, 0.03, 0.1, 0.3} {
				c := c
				c.NormalForce = force
				c.SlipU, c.SlipV = c.SlipU*v/speed, c.SlipV*v/speed
				render(c)
			}
		}
	}
	t.Logf("%5d finger frames: highest pin %.1f dB SL at 40 Hz, %.1f dB SL at 320 Hz; %d pin amplitudes compressed",
		frames, peak40, peak320, compressed)
}

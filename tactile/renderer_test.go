package tactile

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// Thumb and index stroking the same patch at the same velocity
// get the same channel levels (within 0.5 dB), whatever their orientation,
// face and calibration.
func TestThumbAndIndexSameChannelLevels(t *testing.T) {
	var worstLevel, worstDelivered float64
	defer func() {
		t.Logf("largest thumb-index difference: fabric levels %.2g dB, delivered levels %.2g dB", worstLevel, worstDelivered)
	}()
	recs := showcase(t)
	for _, name := range []string{"silk", "twill", "knit"} {
		s := surface(t, name)
		r, err := NewRenderer(s, Config{MaxA40Um: 1000, MaxA320Um: 1000, Mirror: [NumFingers]bool{fThumb: true}})
		if err != nil {
			t.Fatal(err)
		}
		// The thumb's user is 6 dB less sensitive at 40 Hz and 9 dB at
		// 320 Hz than the reference.
		thumb := DefaultCalibration()
		ref := ReferenceChannels()
		thumb.Channels, err = ref.WithUserThresholds(ref.Drive.NP40+6, ref.Drive.P320+9)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.SetCalibration(fThumb, thumb); err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(13, 1))
		for range 20 {
			speed := 0.005 + 0.3*rng.Float64()
			dir := 2 * math.Pi * rng.Float64()
			c := recs[rng.IntN(len(recs))].C
			c.SlipU, c.SlipV = speed*math.Cos(dir), speed*math.Sin(dir)
			in := [NumFingers]Contact{c, c}
			in[fThumb].Orientation = c.Orientation + math.Pi // facing the index
			var out Frame
			r.Step(0, &in, &out)
			th, ix := &out.Fingers[fThumb], &out.Fingers[fIndex]
			for ch := range NumChannels {
				worstLevel = math.Max(worstLevel, math.Abs(th.Level(ch)-ix.Level(ch)))
				if d := th.Level(ch) - ix.Level(ch); math.Abs(d) > 0.5 {
					t.Errorf("%s %.0f mm/s: channel %d level thumb %.2f dB, index %.2f dB", name, speed*1e3, ch, th.Level(ch), ix.Level(ch))
				}
				if th.Exact && ix.Exact {
					worstDelivered = math.Max(worstDelivered, math.Abs(dB(th.Achieved[ch], ix.Achieved[ch])))
					if d := dB(th.Achieved[ch], ix.Achieved[ch]); math.Abs(d) > 0.5 {
						t.Errorf("%s %.0f mm/s: channel %d delivered thumb %.4g, index %.4g (%.2f dB)", name, speed*1e3, ch, th.Achieved[ch], ix.Achieved[ch], d)
					}
				}
			}
			// The thumb's less sensitive user gets more drive.
			if th.Exact && ix.MetamerA320Um > 0 && !(th.MetamerA320Um > ix.MetamerA320Um) {
				t.Errorf("%s: thumb A320 %.3g µm not above index %.3g µm", name, th.MetamerA320Um, ix.MetamerA320Um)
			}
		}
	}
}

// Amplitudes are continuous in speed and never NaN or negative for
// speeds 0-500 mm/s in any direction.
func TestAmplitudesContinuousInSpeed(t *testing.T) {
	const step = 0.5e-3 // [m/s]
	rng := rand.New(rand.NewPCG(6, 500))
	recs := showcase(t)
	var worstRel, worstShrink float64
	defer func() {
		t.Logf("largest change per 0.5 mm/s step: %.1f %% of the amplitude's maximum; over a 100x smaller step it shrank to %.3f of that", 100*worstRel, worstShrink)
	}()
	for _, name := range []string{"silk", "twill", "knit", "nonwoven"} {
		r := renderer(t, surface(t, name))
		for range 6 {
			dir := 2*math.Pi*rng.Float64() - math.Pi
			c := recs[rng.IntN(len(recs))].C
			at := func(v float64) FingerFrame {
				var in [NumFingers]Contact
				in[fIndex] = c
				in[fIndex].SlipU, in[fIndex].SlipV = v*math.Cos(dir), v*math.Sin(dir)
				var out Frame
				r.Step(0, &in, &out)
				return out.Fingers[fIndex]
			}
			amps := func(f FingerFrame) [2]float64 { return [2]float64{f.MetamerA40Um, f.MetamerA320Um} }
			var prev FingerFrame
			var maxA, jump [2]float64
			var where [2]float64
			for i := 0; i <= 1000; i++ {
				v := float64(i) * step
				f := at(v)
				for p := range Pins {
					for _, a := range [...]float64{f.A40Um[p], f.A320Um[p]} {
						if !(a >= 0) || math.IsInf(a, 0) {
							t.Fatalf("%s dir %.2f speed %g: pin %d amplitude %g", name, dir, v, p, a)
						}
					}
				}
				for c, a := range amps(f) {
					if !(a >= 0) || math.IsInf(a, 0) {
						t.Fatalf("%s dir %.2f speed %g: amplitude %d = %g", name, dir, v, c, a)
					}
					maxA[c] = math.Max(maxA[c], a)
					if i > 0 {
						if d := math.Abs(a - amps(prev)[c]); d > jump[c] {
							jump[c], where[c] = d, v-step
						}
					}
				}
				prev = f
			}
			if v0 := at(0); v0.MetamerA40Um != 0 || v0.MetamerA320Um != 0 || v0.Driven != 0 {
				t.Errorf("%s: static finger gets A40 %g, A320 %g on %d pins", name, v0.MetamerA40Um, v0.MetamerA320Um, v0.Driven)
			}
			for c := range 2 {
				if maxA[c] == 0 {
					continue
				}
				rel := jump[c] / maxA[c]
				worstRel = math.Max(worstRel, rel)
				// The largest step-to-step change must shrink with the
				// step: at a discontinuity it would not. Amplitudes rise
				// steeply from 0 over the first few mm/s (linearly), and
				// A320 leaves 0 like a square root where the metamer
				// turns exact, so a 100 times smaller step must shrink
				// the change at least 5 times.
				fine := math.Abs(amps(at(where[c] + step/100))[c] - amps(at(where[c]))[c])
				worstShrink = math.Max(worstShrink, fine/jump[c])
				if fine > jump[c]/5 {
					t.Errorf("%s dir %.2f: amplitude %d jumps %.3g µm (%.1f %% of its maximum) at %.1f mm/s; over a 100x smaller step %.3g µm",
						name, dir, c, jump[c], 100*rel, where[c]*1e3, fine)
				}
			}
		}
	}
}

func TestNothingOutOfContact(t *testing.T) {
	r := renderer(t, surface(t, "twill"))
	var in [NumFingers]Contact
	in[fThumb] = pressing(t, 0.1)
	in[fThumb].InContact = false
	in[fIndex] = pressing(t, 0.1)
	in[fIndex].NormalForce = 0 // touching, but not pressing: no patch
	var out Frame
	out.Fingers[fThumb].A40Um[3] = 5 // stale data must be cleared
	r.Step(1500*time.Millisecond, &in, &out)
	if out.T != 1500*time.Millisecond {
		t.Errorf("frame time %v, want 1.5 s", out.T)
	}
	for f := range NumFingers {
		if out.Fingers[f] != (FingerFrame{PeakSL40DB: MinLevelDB, PeakSL320DB: MinLevelDB}) {
			t.Errorf("finger %d out of contact or without force: %+v", f, out.Fingers[f])
		}
	}
}

func TestBadInputIsSafe(t *testing.T) {
	r := renderer(t, surface(t, "twill"))
	good := pressing(t, 0.1)
	for _, tc := range []struct {
		name string
		edit func(*Contact)
	}{
		{"NaN slip", func(c *Contact) { c.SlipV = math.NaN() }},
		{"Inf force", func(c *Contact) { c.NormalForce = math.Inf(1) }},
		{"NaN curvature", func(c *Contact) { c.Curvature = math.NaN() }},
		{"NaN place on the pad", func(c *Contact) { c.PadL = math.NaN() }},
		{"NaN position", func(c *Contact) { c.U = math.NaN() }},
		{"Inf orientation", func(c *Contact) { c.Orientation = math.Inf(-1) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := [NumFingers]Contact{good, good}
			tc.edit(&in[fIndex])
			before := r.Stats().BadInput
			var out Frame
			r.Step(0, &in, &out)
			f := out.Fingers[fIndex]
			if !f.BadInput || f.MetamerA40Um != 0 || f.MetamerA320Um != 0 || f.A40Um != [Pins]float64{} || f.A320Um != [Pins]float64{} || f.Driven != 0 {
				t.Errorf("bad input rendered: %+v", f)
			}
			if r.Stats().BadInput != before+1 {
				t.Error("bad input not counted")
			}
			if out.Fingers[fThumb].MetamerA40Um == 0 || out.Fingers[fThumb].BadInput {
				t.Error("the other finger was affected")
			}
		})
	}
	// Absurd but finite values render finite amplitudes within the limits,
	// or nothing.
	for _, c := range []Contact{
		{InContact: true, SlipU: 1e300, SlipV: 1e300, NormalForce: 1},
		{InContact: true, SlipU: 0.1, NormalForce: 1e300},
		{InContact: true, SlipU: 1e-300, NormalForce: 1, U: -1e300, V: 1e300, Orientation: 1e300},
		{InContact: true, SlipV: 0.1, NormalForce: 1e-300},
		{InContact: true, SlipV: 0.1, NormalForce: 1, Curvature: 1e300},
		{InContact: true, SlipV: 0.1, NormalForce: 1, Curvature: -1e300, PadD: 1e300, PadL: -1e300},
	} {
		in := [NumFingers]Contact{c, c}
		var out Frame
		r.Step(0, &in, &out)
		f := out.Fingers[fIndex]
		for p := range Pins {
			if !(f.A40Um[p] >= 0 && f.A40Um[p] <= r.Config().MaxA40Um && f.A320Um[p] >= 0 && f.A320Um[p] <= r.Config().MaxA320Um) {
				t.Errorf("contact %+v: pin %d gets %g, %g µm", c, p, f.A40Um[p], f.A320Um[p])
			}
		}
	}
	// Negative normal force counts as none.
	in := [NumFingers]Contact{good, good}
	in[fIndex].NormalForce = -3
	var out Frame
	r.Step(0, &in, &out)
	if f := out.Fingers[fIndex]; f.Driven != 0 || f.Patch != (Patch{}) {
		t.Errorf("negative force drives %d pins, patch %+v", f.Driven, f.Patch)
	}
}

// Per pin: its offsets from the array's centre [m]: rows ±1, ±3, ±5 mm
// along the finger, columns ±1, ±3 mm across it at the default 2 mm pitch.
func pinOffsets(r *Renderer) (d, l [Pins]float64) {
	for p := range Pins {
		d[p], l[p] = r.PinOffset(p)
	}
	return d, l
}

// The contact patch follows the normal force as the fingertip model says,
// and the pins under it are the ones driven. The expected counts come from
// the model's formula, evaluated by hand: the pulp compresses by δ = ln(1 +
// m F / b) / m (b = 49 N/m, m = 2100 /m), the patch's semi-axes are
// √(2 R δ) with R = 12 mm along the finger and 8 mm across it, and a pin
// at (d, l) is under it when (d/a)² + (l/b)² < 1. At 0.01 N (a = 2.02 mm,
// b = 1.65 mm) only the four pins at (±1, ±1) mm are; at 0.05 N the ones at
// (±3, ±1) join them; at 0.1 N (±1, ±3); at 0.2 N (±3, ±3); at 0.5 N (±5,
// ±1); at 1 N (a = 6.57 mm, b = 5.37 mm) all 24. Below about 0.006 N the
// patch lies between the four central pins and none is driven.
func TestPatchFollowsForce(t *testing.T) {
	m, _ := UniformMap(0.3, 0.3, 1e-3)
	s, err := surface(t, "twill").WithMaps(m, m)
	if err != nil {
		t.Fatal(err)
	}
	r := renderer(t, s)
	// No comfortable-range compression here: the pins' amplitudes show
	// the pressure weighting alone.
	cal := DefaultCalibration()
	cal.Comfort40DB, cal.Comfort320DB = 60, 60
	if err := r.SetCalibration(fIndex, cal); err != nil {
		t.Fatal(err)
	}
	offD, offL := pinOffsets(r)
	for _, tc := range []struct {
		force float64
		pins  int
	}{{0.003, 0}, {0.005, 0}, {0.01, 4}, {0.02, 4}, {0.05, 8}, {0.1, 12}, {0.2, 16}, {0.5, 20}, {1, 24}, {3, 24}} {
		c := pressing(t, 0.1)
		c.NormalForce, c.Curvature, c.PadD, c.PadL = tc.force, 0, 0, 0
		in := [NumFingers]Contact{fIndex: c}
		var out Frame
		r.Step(0, &in, &out)
		f := out.Fingers[fIndex]
		depth := math.Log1p(DefaultPulpStiffening*tc.force/DefaultPulpStiffness) / DefaultPulpStiffening
		a, b := math.Sqrt(2*DefaultPadRadiusDistal*depth), math.Sqrt(2*DefaultPadRadiusLateral*depth)
		if area := math.Pi * a * b; area < DefaultMaxPatchArea && math.Abs(f.Patch.Area/area-1) > 1e-12 {
			t.Errorf("%g N: patch %.2f mm², the model gives %.2f mm²", tc.force, f.Patch.Area*1e6, area*1e6)
		}
		if f.Patch.Area > 0 && math.Abs(f.Patch.Pressure*f.Patch.Area/tc.force-1) > 1e-12 {
			t.Errorf("%g N: mean pressure %g Pa over %g m²", tc.force, f.Patch.Pressure, f.Patch.Area)
		}
		if f.Active != tc.pins || f.Driven != tc.pins {
			t.Errorf("%g N: %d pins under the patch, %d driven; want %d", tc.force, f.Active, f.Driven, tc.pins)
		}
		var sum40 float64
		for p := range Pins {
			rho2 := sq(offD[p]/f.Patch.A) + sq(offL[p]/f.Patch.B)
			want40 := 0.0
			if rho2 < 1 {
				// Pressure share: the paraboloid over its mean.
				want40 = f.MetamerA40Um * math.Sqrt(2*(1-rho2))
			}
			if math.Abs(f.A40Um[p]-want40) > 1e-12*f.MetamerA40Um {
				t.Errorf("%g N: pin %d at ρ² = %.3f has %g µm at 40 Hz, want %g", tc.force, p, rho2, f.A40Um[p], want40)
			}
			sum40 += sq(f.A40Um[p])
		}
		if f.Driven > 0 {
			if want := math.Sqrt(sum40 / float64(f.Driven)); math.Abs(f.RMSA40Um/want-1) > 1e-12 {
				t.Errorf("%g N: RMS over the driven pins %g µm, the pins' %g µm", tc.force, f.RMSA40Um, want)
			}
		}
		t.Logf("%5.3f N: patch %5.1f mm² (%.2f x %.2f mm), %2d pins", tc.force, f.Patch.Area*1e6, f.Patch.A*1e3, f.Patch.B*1e3, f.Driven)
	}
	// The cloth's curvature: wrapped round the pad it widens the patch, as
	// a flatter counter-surface would, and bulging towards it narrows it.
	flat := Fingertip{}.Patch(0.1, 0)
	wrap := Fingertip{}.Patch(0.1, 60)
	bulge := Fingertip{}.Patch(0.1, -60)
	want := math.Sqrt(1 / (1 - 60*DefaultPadRadiusDistal))
	if math.Abs(wrap.A/flat.A-want) > 1e-12 || !(bulge.A < flat.A && bulge.B < flat.B) {
		t.Errorf("0.1 N on a cloth curving 60 /m round the pad: semi-axis %.3f mm, flat %.3f mm (want x%.3f); bulging %.3f mm",
			wrap.A*1e3, flat.A*1e3, want, bulge.A*1e3)
	}
}

// Every contact the simulation produced in the showcase drives the pins
// under its modelled patch: the ones inside the ellipse round the contact
// point on the pad, and no other; the recorded summary is the driven
// pins'; and no contact of 0.01 N or more drives none.
func TestShowcasePins(t *testing.T) {
	r := renderer(t, surface(t, "twill"))
	r2, err := NewRenderer(surface(t, "twill"), Config{})
	if err != nil {
		t.Fatal(err)
	}
	offD, offL := pinOffsets(r)
	var light, none, frames int
	for _, rec := range showcase(t) {
		var in [NumFingers]Contact
		in[rec.Finger] = rec.C
		var out Frame
		r.Step(0, &in, &out)
		f := out.Fingers[rec.Finger]
		frames++
		speed := math.Hypot(rec.C.SlipU, rec.C.SlipV)
		want := 0
		for p := range Pins {
			rho2 := sq((offD[p]-rec.C.PadD)/f.Patch.A) + sq((offL[p]-rec.C.PadL)/f.Patch.B)
			inside := rho2 < 1
			if inside {
				want++
			}
			if on := f.A40Um[p] > 0 || f.A320Um[p] > 0; on != (inside && speed > 0) {
				t.Errorf("t %.3f s finger %d, %.4f N: pin %d at ρ² = %.3f driven %v", rec.T, rec.Finger, rec.C.NormalForce, p, rho2, on)
			}
		}
		if f.Active != want {
			t.Errorf("t %.3f s finger %d: %d pins under the patch, the ellipse holds %d", rec.T, rec.Finger, f.Active, want)
		}
		if rec.C.NormalForce >= 0.01 {
			light++
			if f.Driven == 0 {
				none++
				t.Errorf("t %.3f s finger %d: %.4f N drives no pin (patch %.2f x %.2f mm at %.2f, %.2f mm on the pad)",
					rec.T, rec.Finger, rec.C.NormalForce, f.Patch.A*1e3, f.Patch.B*1e3, rec.C.PadD*1e3, rec.C.PadL*1e3)
			}
		}
		// With the default device limits nothing clips.
		r2.Step(0, &in, &out)
		if c := out.Fingers[rec.Finger].Clamped; c != 0 {
			t.Errorf("t %.3f s finger %d: %d pin amplitudes clamped", rec.T, rec.Finger, c)
		}
	}
	t.Logf("%d recorded contacts, %d of 0.01 N or more, %d of those driving no pin", frames, light, none)
}

// Pins are placed on the fabric with the patch orientation, row 0 distal:
// on a map that is 1 for u >= 0.1 m and 0 below, a finger at u = 0.1 m
// pointing along +u has its distal rows on the 1 side; turned to point
// along +v, its columns split instead.
func TestPinsFollowOrientation(t *testing.T) {
	nu, nv := 301, 301
	vals := make([]float64, nu*nv)
	for j := range nv {
		for i := 100; i < nu; i++ {
			vals[j*nu+i] = 1
		}
	}
	step, err := NewMap(nu, nv, 1e-3, vals)
	if err != nil {
		t.Fatal(err)
	}
	s, err := surface(t, "twill").WithMaps(step, step)
	if err != nil {
		t.Fatal(err)
	}
	for _, mirror := range []bool{false, true} {
		r, err := NewRenderer(s, Config{MaxA40Um: 1000, MaxA320Um: 1000, Mirror: [NumFingers]bool{fIndex: mirror}})
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name   string
			orient float64
			lit    func(row, col int) bool
		}{
			{"distal along +u", 0, func(row, col int) bool { return row <= 2 }},
			{"distal along -u", math.Pi, func(row, col int) bool { return row >= 3 }},
			// Lateral axis (-sin, cos) = (-1, 0): columns 0 and 1 (negative
			// lateral offset) lie at u > 0.1; mirrored, columns 2 and 3.
			{"distal along +v", math.Pi / 2, func(row, col int) bool { return (col <= 1) != mirror }},
		} {
			var in [NumFingers]Contact
			// 3 N: the patch covers every pin.
			in[fIndex] = Contact{InContact: true, U: 0.1, V: 0.1, Orientation: tc.orient, SlipV: 0.1, NormalForce: 3}
			var out Frame
			r.Step(0, &in, &out)
			f := out.Fingers[fIndex]
			for p := range Pins {
				lit := f.A40Um[p] > 0.1*f.MetamerA40Um
				if want := tc.lit(p/Cols, p%Cols); lit != want {
					t.Errorf("mirror %v, %s: pin %d (row %d, col %d) lit %v, want %v", mirror, tc.name, p, p/Cols, p%Cols, lit, want)
				}
			}
		}
	}
}

func TestCalibrationAndLimits(t *testing.T) {
	m, _ := UniformMap(0.3, 0.3, 1e-3)
	s, _ := surface(t, "twill").WithMaps(m, m)
	r, err := NewRenderer(s, Config{MaxA40Um: 1000, MaxA320Um: 1000})
	if err != nil {
		t.Fatal(err)
	}
	// Out of the comfortable range's compression, gains are exact.
	open := DefaultCalibration()
	open.Comfort40DB, open.Comfort320DB = 60, 60
	if err := r.SetCalibration(fIndex, open); err != nil {
		t.Fatal(err)
	}
	base := stroke(t, r, fIndex, 0.3, 0.08)
	cal := open
	cal.Pin40DB[5] = 6
	cal.Pin320DB[6] = -20
	cal.Gain320DB = 3
	if err := r.SetCalibration(fIndex, cal); err != nil {
		t.Fatal(err)
	}
	f := stroke(t, r, fIndex, 0.3, 0.08)
	if !(base.A40Um[5] > 0 && base.A320Um[6] > 0 && base.A40Um[9] > 0) {
		t.Fatalf("pins 5, 6 and 9 not under the patch: %v", base.A40Um)
	}
	if d := ampDB(f.A40Um[5]) - ampDB(base.A40Um[5]); math.Abs(d-6) > 1e-9 {
		t.Errorf("pin 5 +6 dB at 40 Hz: changed %.3f dB", d)
	}
	if d := ampDB(f.A320Um[6]) - ampDB(base.A320Um[6]); math.Abs(d-(-20+3)) > 1e-9 {
		t.Errorf("pin 6 -20 dB at 320 Hz with +3 dB finger gain: changed %.3f dB", d)
	}
	if d := ampDB(f.A40Um[9]) - ampDB(base.A40Um[9]); math.Abs(d) > 1e-9 {
		t.Errorf("pin 9 changed %.3f dB at 40 Hz without calibration", d)
	}

	// A user 10 dB less sensitive at both frequencies gets 10 dB more on
	// both sines: the metamer scales row by row.
	ref := ReferenceChannels()
	user, _ := ref.WithUserThresholds(ref.Drive.NP40+10, ref.Drive.P320+10)
	if err := r.SetCalibration(fIndex, Calibration{Channels: user}); err != nil {
		t.Fatal(err)
	}
	f = stroke(t, r, fIndex, 0.3, 0.08)
	if d := ampDB(f.MetamerA40Um) - ampDB(base.MetamerA40Um); math.Abs(d-10) > 1e-6 {
		t.Errorf("user +10 dB thresholds: A40 changed %.3f dB, want +10", d)
	}
	if d := ampDB(f.MetamerA320Um) - ampDB(base.MetamerA320Um); math.Abs(d-10) > 1e-6 {
		t.Errorf("user +10 dB thresholds: A320 changed %.3f dB, want +10", d)
	}
	if f.Level(NonPacinian) != base.Level(NonPacinian) {
		t.Error("the user's calibration changed the fabric's excitation")
	}

	// Device limits below the comfortable range: the range's top comes
	// down to them (through each pin's calibration), so the pins approach
	// the limits without being cut.
	lim, err := NewRenderer(s, Config{MaxA40Um: base.RMSA40Um / 2, MaxA320Um: base.RMSA320Um / 3})
	if err != nil {
		t.Fatal(err)
	}
	cal = DefaultCalibration()
	cal.Pin40DB[5] = 6
	if err := lim.SetCalibration(fIndex, cal); err != nil {
		t.Fatal(err)
	}
	f = stroke(t, lim, fIndex, 0.3, 0.08)
	for p := range Pins {
		if f.A40Um[p] > base.RMSA40Um/2 || f.A320Um[p] > base.RMSA320Um/3 {
			t.Errorf("pin %d above the device limits: %g, %g µm", p, f.A40Um[p], f.A320Um[p])
		}
	}
	if f.Clamped != 0 || f.Compressed == 0 {
		t.Errorf("%d pin amplitudes clamped, %d compressed; want none clamped, some compressed", f.Clamped, f.Compressed)
	}

	for _, bad := range []Calibration{
		{Channels: ReferenceChannels(), Gain40DB: 50},
		{Channels: ReferenceChannels(), Gain320DB: math.NaN()},
		{Channels: ReferenceChannels(), Comfort40DB: 5},
		{Channels: ReferenceChannels(), Comfort320DB: math.Inf(1)},
		{},
	} {
		if err := r.SetCalibration(fIndex, bad); err == nil {
			t.Errorf("SetCalibration accepted %+v", bad.Gain40DB)
		}
	}
	if err := r.SetCalibration(2, DefaultCalibration()); err == nil {
		t.Error("SetCalibration accepted finger 2")
	}
}

// The comfortable range's mapping of one pin's amplitude: the identity up
// to the knee, 10 dB below the top, then rising with slope 1 in dB at the
// knee and ever more slowly, continuous and strictly increasing, never
// reaching the top.
func TestComfortLevelMap(t *testing.T) {
	var pinDB [Pins]float64
	pinDB[3] = 6 // pin 3 boosted: the device limit binds it first
	b := newBand(0, 12, DefaultComfort40DB, &pinDB, 100)
	top := dbToGain(12 + DefaultComfort40DB)
	if math.Abs(b.top[0]/top-1) > 1e-12 || math.Abs(b.top[3]*dbToGain(6)/100-1) > 1e-6 {
		t.Errorf("tops %g and %g µm, want %g (25 dB above 4 µm) and %g (100 µm through +6 dB)", b.top[0], b.top[3], top, 100/dbToGain(6))
	}
	for _, p := range []int{0, 3} {
		knee := b.top[p] * dbToGain(-ComfortKneeDB)
		prev := 0.0
		for db := -60.0; db < 60; db += 0.01 {
			a := knee * dbToGain(db)
			got, compressed := b.level(p, a)
			if compressed != (a > knee) {
				t.Fatalf("pin %d, %g µm: compressed %v", p, a, compressed)
			}
			if a <= knee && got != a {
				t.Fatalf("pin %d: %g µm below the knee mapped to %g", p, a, got)
			}
			if !(got > prev) || !(got < b.top[p]) {
				t.Fatalf("pin %d: %g µm mapped to %g after %g (top %g)", p, a, got, prev, b.top[p])
			}
			prev = got
		}
		// Slope 1 in dB on both sides of the knee.
		lo, _ := b.level(p, knee*dbToGain(-1e-4))
		hi, _ := b.level(p, knee*dbToGain(1e-4))
		if s := 20 * math.Log10(hi/lo) / 2e-4; math.Abs(s-1) > 1e-3 {
			t.Errorf("pin %d: slope %.5f dB/dB across the knee, want 1", p, s)
		}
	}
}

// The comfortable range holds however strong the fabric and the force: no
// pin is meant to deliver more than the range's top, none is clamped, and
// a user's raised thresholds raise the range with them.
func TestComfortableRange(t *testing.T) {
	recs := showcase(t)
	ref := ReferenceChannels()
	less, _ := ref.WithUserThresholds(ref.Drive.NP40+8, ref.Drive.P320+8)
	for _, name := range []string{"twill", "knit"} {
		r, err := NewRenderer(surface(t, name), Config{})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.SetCalibration(fThumb, Calibration{Channels: less}); err != nil {
			t.Fatal(err)
		}
		var peak [2][2]float64
		for i, rec := range recs {
			for _, force := range []float64{rec.C.NormalForce, 0.3, 1, 3} {
				c := rec.C
				c.NormalForce = force
				if i%3 == 0 { // a fast stroke in the recorded direction
					c.SlipU, c.SlipV = 25*c.SlipU, 25*c.SlipV
				}
				in := [NumFingers]Contact{c, c}
				var out Frame
				r.Step(0, &in, &out)
				for f := range NumFingers {
					ff := &out.Fingers[f]
					if ff.Clamped != 0 {
						t.Fatalf("%s %g N: finger %d has %d pin amplitudes clamped", name, force, f, ff.Clamped)
					}
					if ff.PeakSL40DB >= DefaultComfort40DB || ff.PeakSL320DB >= DefaultComfort320DB {
						t.Fatalf("%s %g N: finger %d peaks at %.2f dB SL (40 Hz), %.2f dB SL (320 Hz)", name, force, f, ff.PeakSL40DB, ff.PeakSL320DB)
					}
					peak[f][0] = math.Max(peak[f][0], ff.PeakSL40DB)
					peak[f][1] = math.Max(peak[f][1], ff.PeakSL320DB)
				}
				// The less sensitive thumb gets 8 dB more drive for the
				// same sensation level.
				th, ix := &out.Fingers[fThumb], &out.Fingers[fIndex]
				for p := range Pins {
					if ix.A320Um[p] > 0 {
						if d := ampDB(th.A320Um[p]) - ampDB(ix.A320Um[p]); math.Abs(d-8) > 1e-6 && th.Exact {
							t.Fatalf("%s %g N pin %d: thumb %+.3f dB over the index at 320 Hz, want +8", name, force, p, d)
						}
					}
				}
			}
		}
		t.Logf("%s: highest pin sensation levels: thumb %.1f dB SL (40 Hz), %.1f (320 Hz); index %.1f, %.1f", name, peak[0][0], peak[0][1], peak[1][0], peak[1][1])
	}
}

// More pressing force means a larger friction term and more vibration.
func TestNormalForceRaisesLevel(t *testing.T) {
	r := renderer(t, surface(t, "silk"))
	var prev float64
	for _, force := range []float64{0.01, 0.2, 0.5, 1, 2} {
		var in [NumFingers]Contact
		in[fThumb] = pressing(t, 0.1)
		in[fThumb].NormalForce = force
		in[fThumb].SlipU, in[fThumb].SlipV = 0.05, 0
		var out Frame
		r.Step(0, &in, &out)
		l := out.Fingers[fThumb].Level(Pacinian)
		if l <= prev {
			t.Errorf("force %g N: P level %.2f dB not above %.2f dB", force, l, prev)
		}
		prev = l
	}
}

func TestNewRendererErrors(t *testing.T) {
	s := surface(t, "silk")
	tip := func(ft Fingertip) (ts [NumFingers]Fingertip) { ts[fIndex] = ft; return ts }
	for _, cfg := range []Config{
		{PitchM: 0.1},
		{MaxA40Um: -1},
		{MaxA320Um: math.NaN()},
		{Fingertip: tip(Fingertip{PadRadiusDistalM: 1})},
		{Fingertip: tip(Fingertip{PulpStiffness: -5})},
		{Fingertip: tip(Fingertip{MaxAreaM2: math.NaN()})},
		{Fingertip: tip(Fingertip{ShearCornerHz: 1e9})},
	} {
		if _, err := NewRenderer(s, cfg); err == nil {
			t.Errorf("NewRenderer accepted %+v", cfg)
		}
	}
	if _, err := NewRenderer(nil, Config{}); err == nil {
		t.Error("NewRenderer accepted a nil surface")
	}
}

func TestStepAllocs(t *testing.T) {
	r := renderer(t, surface(t, "twill"))
	recs := showcase(t)
	var in [NumFingers]Contact
	var out Frame
	i := 0
	allocs := testing.AllocsPerRun(200, func() {
		i++
		for f := range in {
			in[f] = recs[(i+50*f)%len(recs)].C
		}
		if i%7 == 0 {
			in[fThumb].SlipU, in[fThumb].SlipV = 0, 0
		}
		if i%11 == 0 {
			in[fIndex].Curvature = math.NaN()
		}
		r.Step(time.Duration(i)*25*time.Millisecond, &in, &out)
	})
	if allocs != 0 {
		t.Errorf("Step allocates %v times per frame, want 0", allocs)
	}
}

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
			c := Contact{InContact: true, U: 0.1, V: 0.12, SlipU: speed * math.Cos(dir), SlipV: speed * math.Sin(dir), NormalForce: rng.Float64(), Area: 100e-6}
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
			if th.Exact && ix.A320 > 0 && !(th.A320 > ix.A320) {
				t.Errorf("%s: thumb A320 %.3g µm not above index %.3g µm", name, th.A320, ix.A320)
			}
		}
	}
}

// Amplitudes are continuous in speed and never NaN or negative for
// speeds 0-500 mm/s in any direction.
func TestAmplitudesContinuousInSpeed(t *testing.T) {
	const step = 0.5e-3 // [m/s]
	rng := rand.New(rand.NewPCG(6, 500))
	var worstRel, worstShrink float64
	defer func() {
		t.Logf("largest change per 0.5 mm/s step: %.1f %% of the amplitude's maximum; over a 100x smaller step it shrank to %.3f of that", 100*worstRel, worstShrink)
	}()
	for _, name := range []string{"silk", "twill", "knit", "nonwoven"} {
		r := renderer(t, surface(t, name))
		for range 6 {
			dir := 2*math.Pi*rng.Float64() - math.Pi
			force := rng.Float64()
			at := func(v float64) FingerFrame {
				var in [NumFingers]Contact
				in[fIndex] = Contact{InContact: true, U: 0.05, V: 0.07, Orientation: dir / 3, SlipU: v * math.Cos(dir), SlipV: v * math.Sin(dir), NormalForce: force, Area: 90e-6}
				var out Frame
				r.Step(0, &in, &out)
				return out.Fingers[fIndex]
			}
			var prev FingerFrame
			var maxA, jump [2]float64
			var where [2]float64
			for i := 0; i <= 1000; i++ {
				v := float64(i) * step
				f := at(v)
				amps := [2]float64{f.A40, f.A320}
				for p := range Pins {
					for _, a := range [...]float64{f.A40Um[p], f.A320Um[p]} {
						if !(a >= 0) || math.IsInf(a, 0) {
							t.Fatalf("%s dir %.2f speed %g: pin %d amplitude %g", name, dir, v, p, a)
						}
					}
				}
				for c, a := range amps {
					if !(a >= 0) || math.IsInf(a, 0) {
						t.Fatalf("%s dir %.2f speed %g: amplitude %d = %g", name, dir, v, c, a)
					}
					maxA[c] = math.Max(maxA[c], a)
					if i > 0 {
						prevA := [2]float64{prev.A40, prev.A320}[c]
						if d := math.Abs(a - prevA); d > jump[c] {
							jump[c], where[c] = d, v-step
						}
					}
				}
				prev = f
			}
			if v0 := at(0); v0.A40 != 0 || v0.A320 != 0 {
				t.Errorf("%s: static finger gets A40 %g, A320 %g", name, v0.A40, v0.A320)
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
				fine := math.Abs([2]float64{at(where[c] + step/100).A40, at(where[c] + step/100).A320}[c] - [2]float64{at(where[c]).A40, at(where[c]).A320}[c])
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
	in[fThumb] = Contact{InContact: false, SlipU: 0.1, NormalForce: 1, Area: 1e-4, U: 0.1, V: 0.1}
	in[fIndex] = Contact{InContact: true, SlipU: 0.1, NormalForce: 1, Area: 0, U: 0.1, V: 0.1}
	var out Frame
	out.Fingers[fThumb].A40Um[3] = 5 // stale data must be cleared
	r.Step(1500*time.Millisecond, &in, &out)
	if out.T != 1500*time.Millisecond {
		t.Errorf("frame time %v, want 1.5 s", out.T)
	}
	for f := range NumFingers {
		if out.Fingers[f] != (FingerFrame{}) {
			t.Errorf("finger %d out of contact or without area: %+v", f, out.Fingers[f])
		}
	}
}

func TestBadInputIsSafe(t *testing.T) {
	r := renderer(t, surface(t, "twill"))
	good := Contact{InContact: true, U: 0.1, V: 0.1, SlipU: 0.05, NormalForce: 0.5, Area: 80e-6}
	for _, tc := range []struct {
		name string
		edit func(*Contact)
	}{
		{"NaN slip", func(c *Contact) { c.SlipV = math.NaN() }},
		{"Inf force", func(c *Contact) { c.NormalForce = math.Inf(1) }},
		{"NaN area", func(c *Contact) { c.Area = math.NaN() }},
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
			if !f.BadInput || f.A40 != 0 || f.A320 != 0 || f.A40Um != [Pins]float64{} || f.A320Um != [Pins]float64{} {
				t.Errorf("bad input rendered: %+v", f)
			}
			if r.Stats().BadInput != before+1 {
				t.Error("bad input not counted")
			}
			if out.Fingers[fThumb].A40 == 0 || out.Fingers[fThumb].BadInput {
				t.Error("the other finger was affected")
			}
		})
	}
	// Absurd but finite values render finite amplitudes or nothing.
	for _, c := range []Contact{
		{InContact: true, SlipU: 1e300, SlipV: 1e300, NormalForce: 1, Area: 1e-4},
		{InContact: true, SlipU: 0.1, NormalForce: 1e300, Area: 1e-4},
		{InContact: true, SlipU: 1e-300, NormalForce: 1, Area: 1e300, U: -1e300, V: 1e300, Orientation: 1e300},
		{InContact: true, SlipV: 0.1, NormalForce: 1, Area: 1e-300},
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
	in[fIndex].NormalForce = 0
	var zero Frame
	r.Step(0, &in, &zero)
	if out.Fingers[fIndex].A40 != zero.Fingers[fIndex].A40 {
		t.Errorf("negative force gives A40 %g, zero force %g", out.Fingers[fIndex].A40, zero.Fingers[fIndex].A40)
	}
}

// Pins outside the contact ellipse are zero, pins deep inside are full,
// and the ones just inside the boundary fade.
func TestContactPatchGate(t *testing.T) {
	m, _ := UniformMap(0.3, 0.3, 1e-3)
	s, err := surface(t, "twill").WithMaps(m, m)
	if err != nil {
		t.Fatal(err)
	}
	r := renderer(t, s)
	for _, radius := range []float64{1.2e-3, 3.5e-3, 4.5e-3, 8e-3} {
		var in [NumFingers]Contact
		in[fIndex] = Contact{InContact: true, U: 0.1, V: 0.1, Orientation: 0.4, SlipU: 0.1, NormalForce: 0.5, Area: math.Pi * radius * radius}
		var out Frame
		r.Step(0, &in, &out)
		f := out.Fingers[fIndex]
		active := 0
		for p := range Pins {
			d := math.Hypot(r.offD[p], r.offL[p])
			switch {
			case d >= radius:
				if f.A40Um[p] != 0 || f.A320Um[p] != 0 {
					t.Errorf("radius %g mm: pin %d at %.2f mm outside the patch has %g, %g µm", radius*1e3, p, d*1e3, f.A40Um[p], f.A320Um[p])
				}
			case d <= radius-DefaultEdge:
				active++
				if math.Abs(f.A40Um[p]-f.A40) > 1e-12 || math.Abs(f.A320Um[p]-f.A320) > 1e-12 {
					t.Errorf("radius %g mm: pin %d at %.2f mm has %g µm, want the full %g µm", radius*1e3, p, d*1e3, f.A40Um[p], f.A40)
				}
			default:
				active++
				if !(f.A40Um[p] > 0 && f.A40Um[p] < f.A40) {
					t.Errorf("radius %g mm: pin %d at %.2f mm in the edge band has %g of %g µm", radius*1e3, p, d*1e3, f.A40Um[p], f.A40)
				}
			}
		}
		if f.Active != active {
			t.Errorf("radius %g mm: Active = %d, want %d", radius*1e3, f.Active, active)
		}
	}
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
			in[fIndex] = Contact{InContact: true, U: 0.1, V: 0.1, Orientation: tc.orient, SlipV: 0.1, NormalForce: 0.5, Area: 400e-6}
			var out Frame
			r.Step(0, &in, &out)
			f := out.Fingers[fIndex]
			for p := range Pins {
				lit := f.A40Um[p] > 0.5*f.A40
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
	base := stroke(r, fIndex, 0.3, 0.08)

	cal := DefaultCalibration()
	cal.Pin40DB[5] = 6
	cal.Pin320DB[7] = -20
	cal.Gain320DB = 3
	if err := r.SetCalibration(fIndex, cal); err != nil {
		t.Fatal(err)
	}
	f := stroke(r, fIndex, 0.3, 0.08)
	if d := ampDB(f.A40Um[5]) - ampDB(base.A40Um[5]); math.Abs(d-6) > 1e-9 {
		t.Errorf("pin 5 +6 dB at 40 Hz: changed %.3f dB", d)
	}
	if d := ampDB(f.A320Um[7]) - ampDB(base.A320Um[7]); math.Abs(d-(-20+3)) > 1e-9 {
		t.Errorf("pin 7 -20 dB at 320 Hz with +3 dB finger gain: changed %.3f dB", d)
	}
	if d := ampDB(f.A40Um[6]) - ampDB(base.A40Um[6]); math.Abs(d) > 1e-9 {
		t.Errorf("pin 6 changed %.3f dB at 40 Hz without calibration", d)
	}

	// A user 10 dB less sensitive at both frequencies gets 10 dB more on
	// both sines: the metamer scales row by row.
	ref := ReferenceChannels()
	user, _ := ref.WithUserThresholds(ref.Drive.NP40+10, ref.Drive.P320+10)
	if err := r.SetCalibration(fIndex, Calibration{Channels: user}); err != nil {
		t.Fatal(err)
	}
	f = stroke(r, fIndex, 0.3, 0.08)
	if d := ampDB(f.A40) - ampDB(base.A40); math.Abs(d-10) > 1e-6 {
		t.Errorf("user +10 dB thresholds: A40 changed %.3f dB, want +10", d)
	}
	if d := ampDB(f.A320) - ampDB(base.A320); math.Abs(d-10) > 1e-6 {
		t.Errorf("user +10 dB thresholds: A320 changed %.3f dB, want +10", d)
	}
	if f.Level(NonPacinian) != base.Level(NonPacinian) {
		t.Error("the user's calibration changed the fabric's excitation")
	}

	// Device limits.
	lim, err := NewRenderer(s, Config{MaxA40Um: base.A40 / 2, MaxA320Um: base.A320 / 3})
	if err != nil {
		t.Fatal(err)
	}
	f = stroke(lim, fIndex, 0.3, 0.08)
	for p := range Pins {
		if f.A40Um[p] > base.A40/2 || f.A320Um[p] > base.A320/3 {
			t.Errorf("pin %d above the device limits: %g, %g µm", p, f.A40Um[p], f.A320Um[p])
		}
	}
	if f.Clamped != 2*f.Active || lim.Stats().Clamped != uint64(f.Clamped) {
		t.Errorf("clamped %d pin amplitudes (stats %d), want %d", f.Clamped, lim.Stats().Clamped, 2*f.Active)
	}

	for _, bad := range []Calibration{
		{Channels: ReferenceChannels(), Gain40DB: 50},
		{Channels: ReferenceChannels(), Gain320DB: math.NaN()},
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

// More pressing force means a larger friction term and more vibration.
func TestNormalForceRaisesLevel(t *testing.T) {
	r := renderer(t, surface(t, "silk"))
	var prev float64
	for _, force := range []float64{0, 0.2, 0.5, 1, 2} {
		var in [NumFingers]Contact
		in[fThumb] = Contact{InContact: true, U: 0.1, V: 0.1, SlipU: 0.05, NormalForce: force, Area: 80e-6}
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
	for _, cfg := range []Config{
		{PitchM: 0.1},
		{MaxA40Um: -1},
		{MaxA320Um: math.NaN()},
		{EdgeM: 1},
		{PatchAspect: 10},
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
	var in [NumFingers]Contact
	var out Frame
	tm := 0.0
	allocs := testing.AllocsPerRun(200, func() {
		tm += 0.025
		strokeBoth(&in, tm)
		if int(tm*40)%7 == 0 {
			in[fThumb].SlipU, in[fThumb].SlipV = 0, 0
		}
		if int(tm*40)%11 == 0 {
			in[fIndex].Area = math.NaN()
		}
		r.Step(time.Duration(tm*float64(time.Second)), &in, &out)
	})
	if allocs != 0 {
		t.Errorf("Step allocates %v times per frame, want 0", allocs)
	}
}

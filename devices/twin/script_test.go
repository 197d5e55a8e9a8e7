package twin

import (
	"math"
	"testing"
	"time"
)

// The velocity At reports is the derivative of the position it reports
// (central differences), and positions are continuous across keyframes.
func TestScriptVelocityIsDerivative(t *testing.T) {
	s := DefaultScript(DefaultScene())
	const h = 10 * time.Microsecond
	for f := 0; f < 2; f++ {
		for ms := 1; ms < int(s.Duration()/time.Millisecond); ms += 7 {
			tt := time.Duration(ms) * time.Millisecond
			p0, _ := s.At(tt-h, f)
			p1, _ := s.At(tt+h, f)
			_, v := s.At(tt, f)
			for k := 0; k < 3; k++ {
				fd := (p1[k] - p0[k]) / (2 * h.Seconds())
				if math.Abs(fd-v[k]) > 1e-6+1e-4*math.Abs(v[k]) {
					t.Fatalf("finger %d t=%v axis %d: velocity %g, finite difference %g", f, tt, k, v[k], fd)
				}
			}
		}
	}
}

func TestScriptHitsKeyframes(t *testing.T) {
	s := DefaultScript(DefaultScene())
	for f, kf := range s.Fingers {
		for _, k := range kf {
			p, v := s.At(k.T, f)
			if p != k.Pos {
				t.Fatalf("finger %d at %v: %v, want %v", f, k.T, p, k.Pos)
			}
			if v != [3]float64{} {
				t.Fatalf("finger %d at keyframe %v moves at %v", f, k.T, v)
			}
		}
	}
}

// The default script does what its phases say: the index pad reaches past
// the fabric surface when touching, the pads squeeze the fabric in the pinch,
// and the stroke averages about 50 mm/s.
func TestDefaultScriptGeometry(t *testing.T) {
	sc := DefaultScene()
	s := DefaultScript(sc)
	surf := sc.PadRadius + sc.Thickness/2
	idx, _ := s.At(2*time.Second, 1)
	if idx[2] >= surf {
		t.Fatalf("index during the stroke at z=%g, not pressing (surface contact at %g)", idx[2], surf)
	}
	th, _ := s.At(6400*time.Millisecond, 0)
	ix, _ := s.At(6400*time.Millisecond, 1)
	if gap := ix[2] - th[2]; gap >= 2*surf {
		t.Fatalf("pinch gap between pad centres %g, does not squeeze (touch at %g)", gap, 2*surf)
	}
	a, _ := s.At(2100*time.Millisecond, 1)
	b, _ := s.At(3300*time.Millisecond, 1)
	if v := math.Abs(a[0]-b[0]) / 1.2; math.Abs(v-0.05) > 0.001 {
		t.Fatalf("stroke averages %g m/s, want 0.05", v)
	}
	if got := s.PhaseAt(7 * time.Second); got != "stretch" {
		t.Fatalf("phase at 7 s: %q", got)
	}
	if s.Duration() != 10*time.Second {
		t.Fatalf("duration %v", s.Duration())
	}
}

func TestNewScriptRejectsBadInput(t *testing.T) {
	ok := []Keyframe{{0, [3]float64{}}}
	cases := []struct {
		name         string
		thumb, index []Keyframe
	}{
		{"empty", nil, ok},
		{"nan", ok, []Keyframe{{0, [3]float64{math.NaN(), 0, 0}}}},
		{"backwards", ok, []Keyframe{{time.Second, [3]float64{}}, {0, [3]float64{}}}},
	}
	for _, c := range cases {
		if _, err := NewScript(c.thumb, c.index, nil); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

func TestScriptAtAllocs(t *testing.T) {
	s := DefaultScript(DefaultScene())
	if a := testing.AllocsPerRun(100, func() { s.At(3*time.Second, 1) }); a != 0 {
		t.Fatalf("At allocates %v", a)
	}
}

func TestDefaultScriptEndsWhereItStarts(t *testing.T) {
	s := DefaultScript(DefaultScene())
	for f := range 2 {
		a, _ := s.At(0, f)
		b, _ := s.At(s.Duration(), f)
		if a != b {
			t.Fatalf("finger %d starts at %v, ends at %v", f, a, b)
		}
	}
}

func TestShortScriptsEndWhereTheyStart(t *testing.T) {
	sc := DefaultScene()
	for name, s := range map[string]*Script{"pinch": PinchScript(sc), "rest": RestScript(sc),
		"stretch": StretchScript(sc), "bend": BendScript(sc), "stroke": StrokeScript(sc)} {
		for f := range 2 {
			a, _ := s.At(0, f)
			b, _ := s.At(s.Duration(), f)
			if a != b {
				t.Fatalf("%s finger %d starts at %v, ends at %v", name, f, a, b)
			}
		}
	}
	if d := PinchScript(DefaultScene()).Duration(); d != 3*time.Second {
		t.Fatalf("pinch script lasts %v", d)
	}
}

// The experiment motions do what their documentation says: the stretch
// grips the fabric (each pad's intent Grip past its surface), pulls the
// pinched point by Stretch and back in its "precondition" phase, then
// moves it by exactly Stretch within its "stretch" phase and holds it; the
// bend does the same with Lift, without the first cycle; the stroke presses both
// pads into the fabric from either side and sweeps the index ±Rub while
// the thumb holds still; every motion's velocity is its position's derivative.
func TestExperimentMotions(t *testing.T) {
	sc := DefaultScene()
	surf := sc.PadRadius + sc.Thickness/2
	for _, c := range []struct {
		name       string
		s          *Script
		phase      string
		start, end time.Duration
		move       [3]float64
	}{{"stretch", StretchScript(sc), "stretch", 2400 * time.Millisecond, 2900 * time.Millisecond, sc.Stretch},
		{"bend", BendScript(sc), "bend", 1500 * time.Millisecond, 2 * time.Second, sc.Lift}} {
		t.Run(c.name, func(t *testing.T) {
			start, end, ok := c.s.PhaseSpan(c.phase)
			if !ok || start != c.start || end != c.end {
				t.Fatalf("phase %q spans %v..%v (%v), want %v..%v", c.phase, start, end, ok, c.start, c.end)
			}
			if pre, _, ok := c.s.PhaseSpan("precondition"); ok != (c.name == "stretch") {
				t.Fatalf("precondition phase: %v", ok)
			} else if ok {
				// The first cycle goes as far as the measured stretch and
				// comes back to where it started.
				for f := range 2 {
					a, _ := c.s.At(pre, f)
					m, _ := c.s.At(pre+400*time.Millisecond, f)
					b, _ := c.s.At(start, f)
					for k := range 3 {
						if math.Abs(m[k]-a[k]-c.move[k]) > 1e-12 || b[k] != a[k] {
							t.Fatalf("finger %d: precondition from %v to %v and back to %v", f, a, m, b)
						}
					}
				}
			}
			for f := range 2 {
				a, _ := c.s.At(start, f)
				b, _ := c.s.At(end, f)
				h, _ := c.s.At(end+500*time.Millisecond, f)
				for k := range 3 {
					if math.Abs(b[k]-a[k]-c.move[k]) > 1e-12 || h[k] != b[k] {
						t.Fatalf("finger %d moved %v in the phase (want %v), then to %v", f, [3]float64{b[0] - a[0], b[1] - a[1], b[2] - a[2]}, c.move, h)
					}
				}
				// The thumb (f = 0) comes from -z, the index from +z; a grip
				// deeper than the pad's reach crosses the mid-plane.
				side := float64(2*f - 1)
				if want := side * (surf - sc.Grip); math.Abs(a[2]-want) > 1e-12 {
					t.Fatalf("finger %d grips at z = %g, want %g", f, a[2], want)
				}
			}
			scriptDerivative(t, c.s)
		})
	}
	s := StrokeScript(sc)
	lo, hi := math.Inf(1), math.Inf(-1)
	for ms := 800; ms <= 2600; ms += 10 {
		p, _ := s.At(time.Duration(ms)*time.Millisecond, 1)
		if p[2] != surf-sc.Press {
			t.Fatalf("index at z = %g while stroking, want %g", p[2], surf-sc.Press)
		}
		lo, hi = math.Min(lo, p[0]), math.Max(hi, p[0])
		if th, _ := s.At(time.Duration(ms)*time.Millisecond, 0); th != [3]float64{sc.Touch[0], sc.Touch[1], -(surf - sc.Press)} {
			t.Fatalf("thumb at %v while stroking, want it still at the touch point, pressing by %g", th, sc.Press)
		}
	}
	if math.Abs(hi-sc.Touch[0]-sc.Rub) > 1e-9 || math.Abs(sc.Touch[0]-lo-sc.Rub) > 1e-9 {
		t.Fatalf("stroke spans %g..%g m, want ±%g about %g", lo, hi, sc.Rub, sc.Touch[0])
	}
	scriptDerivative(t, s)
	if _, _, ok := s.PhaseSpan("stretch"); ok {
		t.Fatal("the stroke has a stretch phase")
	}
}

// scriptDerivative checks that s's velocity is its position's derivative.
func scriptDerivative(t *testing.T, s *Script) {
	t.Helper()
	const h = 10 * time.Microsecond
	for f := range 2 {
		for ms := 1; ms < int(s.Duration()/time.Millisecond); ms += 7 {
			tt := time.Duration(ms) * time.Millisecond
			p0, _ := s.At(tt-h, f)
			p1, _ := s.At(tt+h, f)
			_, v := s.At(tt, f)
			for k := range 3 {
				if fd := (p1[k] - p0[k]) / (2 * h.Seconds()); math.Abs(fd-v[k]) > 1e-6+1e-4*math.Abs(v[k]) {
					t.Fatalf("finger %d t=%v axis %d: velocity %g, finite difference %g", f, tt, k, v[k], fd)
				}
			}
		}
	}
}

// MinJerkTime inverts the path At follows between two keyframes: the
// time it returns puts the pad where asked, to rounding (in time too, away
// from the segment's ends, where the pad is at rest and its time is not
// determined to better than about 1e-6).
func TestMinJerkTime(t *testing.T) {
	for _, s := range []float64{0, 1e-3, 0.2, 0.5, 0.9, 1} {
		if got := minJerk(MinJerkTime(s)); math.Abs(got-s) > 1e-15 {
			t.Errorf("s(MinJerkTime(%g)) = %.17g", s, got)
		}
	}
	for _, tau := range []float64{0.1, 0.3266, 0.5, 0.9} {
		if got := MinJerkTime(minJerk(tau)); math.Abs(got-tau) > 1e-12 {
			t.Errorf("MinJerkTime(s(%g)) = %.15g", tau, got)
		}
	}
}

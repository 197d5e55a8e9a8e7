package experiment

import (
	"math"
	"testing"
	"time"

	"github.com/haptex/haptex/devices/twin"
)

// The scan is the stroke's rub five times a second: the thumb holds the
// fabric still from behind, the index presses it as in the stroke and
// rubs ±Rub about the touch point at 2 Rub/scanLeg on average (60 mm/s),
// over the stroke's 3 s. Roughness uses it; the tactile level keeps the
// stroke.
func TestScanScript(t *testing.T) {
	sc := twin.DefaultScene()
	s, st := scanScript(sc), twin.StrokeScript(sc)
	if s.Duration() != st.Duration() {
		t.Errorf("the scan lasts %v, the stroke %v", s.Duration(), st.Duration())
	}
	surf := sc.PadRadius + sc.Thickness/2
	touchZ := surf - sc.Press
	lo, hi := math.Inf(1), math.Inf(-1)
	var path float64
	prev, _ := s.At(850*time.Millisecond, 1)
	for ms := 851; ms <= 2250; ms++ {
		at := time.Duration(ms) * time.Millisecond
		p, _ := s.At(at, 1)
		if p[2] != touchZ || p[1] != sc.Touch[1] {
			t.Fatalf("index at %v at %v, want it on the touch line pressing by %g", p, at, sc.Press)
		}
		if th, _ := s.At(at, 0); th != [3]float64{sc.Touch[0], sc.Touch[1], -touchZ} {
			t.Fatalf("thumb at %v at %v, want it still at the touch point", th, at)
		}
		lo, hi = math.Min(lo, p[0]), math.Max(hi, p[0])
		path += math.Abs(p[0] - prev[0])
		prev = p
	}
	if math.Abs(hi-sc.Touch[0]-sc.Rub) > 1e-9 || math.Abs(sc.Touch[0]-lo-sc.Rub) > 1e-9 {
		t.Errorf("the scan spans %g..%g m, want ±%g about %g", lo, hi, sc.Rub, sc.Touch[0])
	}
	if v, want := path/1.4, 2*sc.Rub/scanLeg.Seconds(); math.Abs(v/want-1) > 1e-6 {
		t.Errorf("the index rubs at %.4g m/s on average, want %.4g", v, want)
	}
	if got := dimensions[Roughness].motion; got != "scan" {
		t.Errorf("roughness handles the fabric with %q, want the scan", got)
	}
	if got := dimensions[TactileLevel].motion; got != "stroke" {
		t.Errorf("the tactile level handles the fabric with %q, want the stroke", got)
	}
}

package experiment

import (
	"math"
	"testing"

	"github.com/haptex/haptex/devices/twin"
)

// The draw's measured phase begins where the pads have drawn drawTakeUp
// and ends where they have drawn drawTakeUp + drawLength, in one movement
// that does not stop between (twin.MinJerkTime against the script's own path).
func TestDrawTakeUp(t *testing.T) {
	s := drawScript(twin.DefaultScene())
	start, end, ok := s.PhaseSpan(drawPhase)
	if !ok {
		t.Fatal("no draw phase")
	}
	up, _, _ := s.PhaseSpan("take-up")
	for f := range 2 {
		p0, _ := s.At(up, f)
		p1, v1 := s.At(start, f)
		p2, _ := s.At(end, f)
		if d := p0[1] - p1[1]; math.Abs(d-drawTakeUp) > 1e-9 {
			t.Errorf("finger %d: drawn %.6f m at the draw's start, want %.6f", f, d, drawTakeUp)
		}
		if d := p0[1] - p2[1]; math.Abs(d-drawTakeUp-drawLength) > 1e-9 {
			t.Errorf("finger %d: drawn %.6f m at its end, want %.6f", f, d, drawTakeUp+drawLength)
		}
		if !(-v1[1] > 0.01) {
			t.Errorf("finger %d: %.4f m/s down where the draw's measure begins: the movement stopped", f, -v1[1])
		}
	}
}

package servobench

import (
	"math"
	"testing"

	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/haptics"
)

// TestContactResponse checks the contact-response measurement against
// what the plant makes certain. Without the drive's Coulomb friction (and
// none compensated), the force loop with its integral action renders a
// slow change of the model's force: at 1 Hz the fingertip force follows
// within 15 %, and it follows less at 16 Hz, beyond the loop's bandwidth.
// (With the plant's friction the drive sticks while the finger is still;
// `haptex bench control` reports that response.)
func TestContactResponse(t *testing.T) {
	cfg := haptics.DefaultConfig()
	p := twin.DefaultExoParams()
	p.Drive.Coulomb = [3]float64{}
	cfg.Velocity.Friction = [3]float64{}
	free, err := runContactResponse(cfg, p, []float64{1000}, []float64{1, 4, 16})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range free {
		t.Logf("%+v", r)
		if !(r.Gain >= 0) || math.IsInf(r.Gain, 0) || !(r.DesMN > 0) {
			t.Fatalf("not a measurement: %+v", r)
		}
	}
	if g := free[0].Gain; math.Abs(g-1) > 0.15 {
		t.Errorf("frictionless drive, 1 Hz: gain %.3f, want 1 ± 0.15", g)
	}
	if free[2].Gain > 0.8*free[0].Gain {
		t.Errorf("frictionless drive: gain %.3f at 16 Hz, %.3f at 1 Hz; want it to fall", free[2].Gain, free[0].Gain)
	}
}

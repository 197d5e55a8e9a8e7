package servobench

import (
	"math"
	"testing"

	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/haptics"
)

// TestRenderedStiffness: a soft spring is felt within 5 % of what was
// asked, and the contact holds still.
func TestRenderedStiffness(t *testing.T) {
	sp, err := runStiffness(haptics.DefaultConfig(), twin.DefaultExoParams(), 300)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", sp)
	if math.Abs(sp.ErrPct) > 5 || sp.HFRMSUm > 20 {
		t.Errorf("300 N/m spring felt as %.0f N/m (%.1f %%), motion above 20 Hz %.1f µm RMS", sp.FeltNpm, sp.ErrPct, sp.HFRMSUm)
	}
}

// TestWallStability: the Z-width criterion tells a soft wall the loop
// holds from a stiff one it cannot (the rendered-stiffness bench sees the
// latter oscillate by hundreds of µm).
func TestWallStability(t *testing.T) {
	cfg, p := haptics.DefaultConfig(), twin.DefaultExoParams()
	for _, tc := range []struct {
		k    float64
		want bool
	}{{100, true}, {3000, false}} {
		ok, err := wallStable(cfg, p, tc.k, 0)
		if err != nil {
			t.Fatal(err)
		}
		if ok != tc.want {
			t.Errorf("wall of %g N/m: stable %v, want %v", tc.k, ok, tc.want)
		}
	}
}

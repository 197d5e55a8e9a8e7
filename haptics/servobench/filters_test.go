package servobench

import (
	"math"
	"testing"

	"github.com/haptex/haptex/haptics"
)

// The filter figures agree with the phase they imply: the delay at the
// crossover is the slope of the phase there (central differences of the
// reported phase at neighbouring frequencies), every low-pass passes a
// constant input, and every pole is inside the unit circle.
func TestFilterFigures(t *testing.T) {
	cfg := haptics.DefaultConfig()
	const fc, df = 12.0, 0.01
	at := func(f float64) []FilterFigures {
		r, err := filterFigures(cfg, f)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	mid, lo, hi := at(fc), at(fc-df), at(fc+df)
	if len(mid) != 4 {
		t.Fatalf("%d filters, want 4", len(mid))
	}
	for i, f := range mid {
		slope := -(hi[i].PhaseCrossDeg - lo[i].PhaseCrossDeg) / 360 / (2 * df) * 1e3 // ms
		if math.Abs(f.DelayCrossMs-slope) > 1e-3*math.Abs(slope) {
			t.Errorf("%s: delay %.6f ms at %g Hz, the phase's slope says %.6f ms", f.Name, f.DelayCrossMs, fc, slope)
		}
		if f.DelayDCMs <= 0 || f.MaxPoleRadius <= 0 || f.MaxPoleRadius >= 1 {
			t.Errorf("%s: %+v", f.Name, f)
		}
		if f.Name != "velocity_loop" && math.Abs(f.DCGain-1) > 1e-9 {
			t.Errorf("%s: DC gain %g, want 1", f.Name, f.DCGain)
		}
	}
	if none := at(0); none[0].DelayCrossMs != 0 || none[0].PhaseCrossDeg != 0 {
		t.Errorf("without a crossover: %+v", none[0])
	}
}

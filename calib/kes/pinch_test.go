package kes

import (
	"flag"
	"math"
	"testing"
	"time"

	"github.com/haptex/haptex/sim"
)

var long = flag.Bool("long", false, "run the long tests: the showcase pinch with every built-in fabric, the check at the corners of the class bounds")

// TestPinchBuiltin (with -long): every built-in fabric's material runs
// the showcase pinch and pull (the rig's default handling,
// sim.ShowcasePinch) in the showcase scene, on a 16 × 16 mesh at the
// rig's 5 ms step, without a failed step, and the fingers feel the
// fabric: a grip force while pinched, none once released.
func TestPinchBuiltin(t *testing.T) {
	if !*long {
		t.Skip("run with -long")
	}
	names := List()
	for _, name := range names {
		f, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		m, err := f.Material()
		if err != nil {
			t.Fatal(err)
		}
		cfg := sim.DefaultConfig()
		cfg.NodesU, cfg.NodesV = 16, 16
		cfg.Material = m
		c, err := sim.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		s := sim.ShowcasePinch(m.Thickness)
		var in sim.FingerState
		var out sim.Output
		var peak, held float64
		var maxIter int
		for c.Time() < s.Duration() {
			s.Sample(c.Time()+cfg.Dt, &in)
			c.Step(c.Time(), &in)
			st := c.Stats()
			if st.Status == sim.StatusRecovered {
				t.Fatalf("%s: step %d at %v failed and recovered", name, st.Step, st.T)
			}
			maxIter = max(maxIter, st.CGIters)
			c.Output(&out)
			fz := out.Local[sim.Thumb].F0[2]
			peak = math.Max(peak, math.Abs(fz))
			if st.T > 1200*time.Millisecond && st.T < 2700*time.Millisecond {
				held = math.Max(held, math.Abs(fz))
			}
		}
		c.Output(&out)
		if held < 0.01 {
			t.Errorf("%s: held force %.3g N, want a grip", name, held)
		}
		for k := range sim.NumFingers {
			if out.Local[k].InContact {
				t.Errorf("%s: %s still in contact after the release", name, sim.FingerName(k))
			}
		}
		t.Logf("%s: peak thumb normal force %.3g N, held %.3g N, max CG iterations %d, recoveries %d", name, peak, held, maxIter, c.Stats().Recoveries)
	}
}

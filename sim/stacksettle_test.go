package sim

import (
	"math"
	"testing"
	"time"
)

// TestStaticStackSettles: the fold scene's pads pinch the laid fold and
// then hold still (the script frozen at the pinch's closing) for 3.5 s,
// the cloth stepping every 5 ms. Over the hold's last 2 s the force each
// pad's local model publishes may creep as the hanging cloth settles, but
// it may not jump: from one step to the next it changes by less than
// 5 mN. While the pads' probes touched a rim triangle in one step and
// missed it in the next, the stack's pairs round it left and rejoined it
// every few steps and the static pinch's force wandered by up to 0.07 N
// from a step to the next (markPressed).
func TestStaticStackSettles(t *testing.T) {
	c := newTestCloth(t, func(cfg *Config) { cfg.NodesU, cfg.NodesV = 24, 24 })
	s := FoldScript(c.cfg)
	closed := FoldLanded + 500*time.Millisecond
	end := closed + 3500*time.Millisecond
	var in FingerState
	var out Output
	var prev [NumFingers][3]float64
	var jump, lo, hi [NumFingers]float64
	for k := range NumFingers {
		lo[k] = math.Inf(1)
	}
	for tm := time.Duration(0); tm < end; tm += c.cfg.Dt {
		s.Sample(min(tm, closed), &in)
		c.Step(tm, &in)
		c.Output(&out)
		for k := range NumFingers {
			f := out.Local[k].F0
			if tm >= end-2*time.Second {
				jump[k] = max(jump[k], norm3(sub3(f, prev[k])))
				lo[k], hi[k] = min(lo[k], norm3(f)), max(hi[k], norm3(f))
			}
			prev[k] = f
		}
	}
	if min(c.self.layers[Thumb], c.self.layers[IndexFinger]) < 2 {
		t.Fatalf("the pads hold %v layers at the hold's end, want two each", c.self.layers)
	}
	for k := range NumFingers {
		t.Logf("%s: over the hold's last 2 s the force is %.4f-%.4f N, its largest change in a step %.2f mN", FingerName(k), lo[k], hi[k], 1e3*jump[k])
		if jump[k] > 0.005 {
			t.Errorf("%s: the static pinch's force changed by %.1f mN in one step", FingerName(k), 1e3*jump[k])
		}
	}
}

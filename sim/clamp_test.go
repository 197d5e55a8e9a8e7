package sim

import (
	"math"
	"testing"
	"time"
)

// Two clamped rows hold the fabric as a clamp does: a swatch hanging
// from them, with gravity turned across its plane, sags as a cantilever
// under its own weight, w = W·g·L⁴/(8·B) at the free edge (small
// deflection; L the overhang from the clamp's edge at the boundary of the
// first free row's cell, n + ½ elements, docs/cloth.md §3). One row is a
// hinge: the swatch swings down to hang along gravity.
func TestPinLinesClamp(t *testing.T) {
	m := DefaultMaterial()
	const l, h, g = 0.0125, 0.0025, 9.81
	want := m.ArealMass * g * math.Pow(l+h/2, 4) / (8 * m.BendWarp)
	for _, lines := range []int{1, 2} {
		c, err := New(Config{
			Width: 0.03, Height: l + h, NodesU: 13, NodesV: 7, Material: m, PinLines: lines, NoRod: true,
			Gravity: [3]float64{0, 0, -g}, Dt: 50 * time.Millisecond, Tolerance: 1e-8, MaxIterations: 2000,
		})
		if err != nil {
			t.Fatal(err)
		}
		var in FingerState
		for range 200 {
			c.Step(c.Time(), &in)
		}
		x := c.Positions()
		var w float64
		for i := range 13 {
			w -= x[3*i+2] / 13
		}
		t.Logf("%d clamped rows: the free edge %.4g mm below the clamp's plane (cantilever %.4g mm)", lines, 1e3*w, 1e3*want)
		if lines == 2 && math.Abs(w/want-1) > 0.05 {
			t.Errorf("two clamped rows: the free edge sags %.4g mm, a cantilever %.4g mm", 1e3*w, 1e3*want)
		}
		if lines == 1 && !(w > l/2) {
			t.Errorf("one clamped row: the free edge %.4g mm below the hinge, want it hanging (about %.3g mm)", 1e3*w, 1e3*l)
		}
	}
	if _, err := New(Config{NodesU: 4, NodesV: 4, PinLines: 4}); err == nil {
		t.Error("four clamped rows of a four-row mesh accepted")
	}
}

package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// pressModel is a local model of a finger pressing along -z with 0.5 N,
// the cloth giving way at 400 N/m, drifting along y.
func pressModel() LocalModel {
	return LocalModel{
		T: time.Second, Valid: true, InContact: true,
		X0: [3]float64{0, 0.1, 0.01}, F0: [3]float64{0.05, 0, 0.5},
		K:      [3][3]float64{{-100, 0, 0}, {0, -100, 0}, {0, 0, -400}},
		Normal: [3]float64{0, 0, -1}, Depth: 0.5 / 400,
		V: [3]float64{0, 0.02, 0},
	}
}

func TestLocalModelEval(t *testing.T) {
	m := pressModel()
	if f := m.Eval(m.X0); f != m.F0 {
		t.Errorf("at X0: %v, want F0 %v", f, m.F0)
	}
	// The reference point drifts with V.
	if f := m.EvalAt(1010*time.Millisecond, add3(m.X0, scale3(0.01, m.V))); norm3(sub3(f, m.F0)) > 1e-12 {
		t.Errorf("drifted X0: %v, want %v", f, m.F0)
	}
	// Zero when invalid or out of contact.
	for _, edit := range []func(*LocalModel){func(m *LocalModel) { m.Valid = false }, func(m *LocalModel) { m.InContact = false }} {
		mm := pressModel()
		edit(&mm)
		if f := mm.Eval(mm.X0); f != ([3]float64{}) {
			t.Errorf("not in contact: %v", f)
		}
	}
	// Leaving along the normal: the force falls continuously to zero at
	// Depth and stays zero.
	prev := m.Eval(m.X0)
	const steps = 1000
	for i := 1; i <= steps; i++ {
		x := add3(m.X0, scale3(-2*m.Depth*float64(i)/steps, m.Normal))
		f := m.Eval(x)
		if d := norm3(sub3(f, prev)); d > 0.01 {
			t.Fatalf("jump of %.3g N at %.3g mm", d, 1000*2*m.Depth*float64(i)/steps)
		}
		if i >= steps/2 && norm3(f) > 1e-12 {
			t.Fatalf("force %v beyond Depth", f)
		}
		prev = f
	}
	// Never pulls into the cloth; continuous everywhere.
	rng := rand.New(rand.NewPCG(1, 1))
	for range 10000 {
		x := add3(m.X0, [3]float64{0.004 * rng.NormFloat64(), 0.004 * rng.NormFloat64(), 0.002 * rng.NormFloat64()})
		f := m.Eval(x)
		if dot3(f, m.Normal) > 1e-12 {
			t.Fatalf("force %v pulls the finger into the cloth at %v", f, x)
		}
		h := [3]float64{1e-9, -1e-9, 1e-9}
		if d := norm3(sub3(m.Eval(add3(x, h)), f)); d > 1e-5 {
			t.Fatalf("discontinuity of %.3g N at %v", d, x)
		}
	}
	if a := testing.AllocsPerRun(100, func() { _ = m.EvalAt(1002*time.Millisecond, m.X0) }); a != 0 {
		t.Errorf("%v allocations", a)
	}
}

func ExampleLocalModel_EvalAt() {
	// A finger pressing a hanging cloth: 0.5 N back along +z; the cloth
	// gives way at 400 N/m, so 1.25 mm of retreat ends the contact (the
	// last quarter of it ramps to zero).
	m := LocalModel{
		T: time.Second, Valid: true, InContact: true,
		X0:     [3]float64{0, 0.1, 0.01},
		F0:     [3]float64{0, 0, 0.5},
		K:      [3][3]float64{{-100, 0, 0}, {0, -100, 0}, {0, 0, -400}},
		Normal: [3]float64{0, 0, -1}, Depth: 0.00125,
	}
	for _, dz := range []float64{0, -0.0005, 0.0005, 0.001, 0.002} {
		f := m.EvalAt(1001*time.Millisecond, [3]float64{0, 0.1, 0.01 + dz})
		fmt.Printf("finger %+.1f mm: Fz = %.3f N\n", 1000*dz, f[2])
	}
	// Output:
	// finger +0.0 mm: Fz = 0.500 N
	// finger -0.5 mm: Fz = 0.700 N
	// finger +0.5 mm: Fz = 0.300 N
	// finger +1.0 mm: Fz = 0.080 N
	// finger +2.0 mm: Fz = 0.000 N
}

func TestFingerByName(t *testing.T) {
	for f := range NumFingers {
		if got := FingerByName(FingerName(f)); got != f {
			t.Errorf("FingerByName(%q) = %d, want %d", FingerName(f), got, f)
		}
	}
	for _, bad := range []string{"", "finger?", "Thumb", "middle"} {
		if got := FingerByName(bad); got != -1 {
			t.Errorf("FingerByName(%q) = %d, want -1", bad, got)
		}
	}
}

package sim

import (
	"testing"
	"time"
)

// TestSetStepIsNew: a cloth built at 5 ms and set to 1 ms before its
// first step has the step-dependent scales of a cloth built at 1 ms and
// runs the fold scene bit for bit as that cloth does (under -race its
// first 1.5 s: the pad lifts and turns the flap); so SetStep leaves
// nothing of the old step behind. A step that is not positive is refused.
func TestSetStepIsNew(t *testing.T) {
	edit := func(dt time.Duration) func(*Config) {
		return func(cfg *Config) { cfg.NodesU, cfg.NodesV, cfg.Dt = 12, 12, dt }
	}
	a := newTestCloth(t, edit(time.Millisecond))
	b := newTestCloth(t, edit(5*time.Millisecond))
	if err := b.SetStep(time.Millisecond); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []time.Duration{0, -time.Millisecond} {
		if err := a.SetStep(bad); err == nil {
			t.Errorf("SetStep(%v) took it", bad)
		}
	}
	for _, q := range []struct {
		name string
		a, b float64
	}{
		{"δt", a.it.dt, b.it.dt}, {"residual floor", a.it.floor, b.it.floor},
		{"Φ's round-off", a.it.eFloor, b.it.eFloor}, {"a step's energy", a.it.eStep, b.it.eStep},
	} {
		if q.a != q.b {
			t.Errorf("%s: %g set, %g built at 1 ms", q.name, q.b, q.a)
		}
	}
	s := FoldScript(a.cfg)
	var in FingerState
	var oa, ob Output
	for i := range int(pick(s.Duration(), 1500*time.Millisecond) / time.Millisecond) {
		tm := time.Duration(i) * time.Millisecond
		s.Sample(tm, &in)
		a.Step(tm, &in)
		b.Step(tm, &in)
		a.Output(&oa)
		b.Output(&ob)
		for k := range a.x {
			if a.x[k] != b.x[k] || a.v[k] != b.v[k] {
				t.Fatalf("step %d: node %d differs: x %g against %g, v %g against %g", i, k/3, a.x[k], b.x[k], a.v[k], b.v[k])
			}
		}
		if oa.Local != ob.Local {
			t.Fatalf("step %d: the local models differ", i)
		}
	}
}

package sim

import (
	"math"
	"testing"
	"time"
)

// retime changes the cloth's step to dt between two steps: what the
// step length enters (the integrator's δt, its residual floor and energy
// scales) is recomputed as newCloth computes it. Tests use it to continue
// a run at a finer step from the state a coarser one reached.
func (c *Cloth) retime(dt time.Duration) {
	r := dt.Seconds() / c.dt
	c.cfg.Dt, c.dt = dt, dt.Seconds()
	c.it.dt = c.dt
	c.it.floor *= r
	c.it.eFloor *= r * r
	c.it.eStep *= r * r
}

// TestRetimeIsNew: a cloth built at 5 ms and retimed to 1 ms before its
// first step has the step-dependent scales of a cloth built at 1 ms and
// runs the fold scene bit for bit as that cloth does (under -race its
// first 1.5 s: the pad lifts and turns the flap); so retime leaves
// nothing of the old step behind.
func TestRetimeIsNew(t *testing.T) {
	edit := func(dt time.Duration) func(*Config) {
		return func(cfg *Config) { cfg.NodesU, cfg.NodesV, cfg.Dt = 12, 12, dt }
	}
	a := newTestCloth(t, edit(time.Millisecond))
	b := newTestCloth(t, edit(5*time.Millisecond))
	b.retime(time.Millisecond)
	for _, q := range []struct {
		name string
		a, b float64
	}{
		{"δt", a.it.dt, b.it.dt}, {"residual floor", a.it.floor, b.it.floor},
		{"Φ's round-off", a.it.eFloor, b.it.eFloor}, {"a step's energy", a.it.eStep, b.it.eStep},
	} {
		if math.Abs(q.a-q.b) > 1e-12*math.Abs(q.a) {
			t.Errorf("%s: %g retimed, %g built at 1 ms", q.name, q.b, q.a)
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

package sim

import (
	"math"
	"slices"
	"testing"
)

// The rod's contact force is minus the gradient of the energy energyAt
// measures (central differences), linearize counts that same energy, and
// only the free nodes inside the rod, off its axis, are in contact.
func TestRodForceIsEnergyGradient(t *testing.T) {
	c := newTestCloth(t, func(cfg *Config) { cfg.NodesU, cfg.NodesV = 8, 8 })
	r := &c.rod
	if !r.enabled {
		t.Fatal("the default cloth has no rod")
	}
	reff := r.reach()
	x := slices.Clone(c.x)
	place := func(k int, depth, angle float64) {
		d := reff - depth
		x[3*k+1], x[3*k+2] = r.y+d*math.Cos(angle), r.z+d*math.Sin(angle)
	}
	var free, pinned []int
	for k := range c.n {
		if c.cons.free[k] {
			free = append(free, k)
		} else {
			pinned = append(pinned, k)
		}
	}
	if len(free) < 6 || len(pinned) == 0 {
		t.Fatalf("%d free and %d pinned nodes", len(free), len(pinned))
	}
	// Four free nodes in contact at different depths and sides, one on the
	// axis, one just outside, and a pinned node inside.
	inside := free[:4]
	for i, k := range inside {
		place(k, reff*(0.05+0.2*float64(i)), -2+1.3*float64(i))
	}
	place(free[4], reff, 0)
	place(free[5], -1e-6, 1)
	place(pinned[0], 0.5*reff, 0.3)

	f := make([]float64, len(x))
	e := r.linearize(x, f)
	if got := r.energyAt(x); got != e || !(e > 0) {
		t.Fatalf("energyAt %g, linearize %g", got, e)
	}
	if len(r.list) != len(inside) {
		t.Fatalf("%d contacts, want %d: %+v", len(r.list), len(inside), r.list)
	}
	for i, rc := range r.list {
		if int(rc.node) != inside[i] {
			t.Errorf("contact %d at node %d, want %d", i, rc.node, inside[i])
		}
	}
	// The node on the axis is left out: a step off it makes a contact.
	const h = 1e-7 // [m], against depths of 0.25 mm and more
	for _, k := range append(slices.Clone(inside), free[5], pinned[0]) {
		for a := range 3 {
			x0 := x[3*k+a]
			x[3*k+a] = x0 + h
			ep := r.energyAt(x)
			x[3*k+a] = x0 - h
			em := r.energyAt(x)
			x[3*k+a] = x0
			want := -(ep - em) / (2 * h)
			if math.Abs(f[3*k+a]-want) > 1e-6*math.Abs(want)+1e-12 {
				t.Errorf("node %d axis %d: force %.9g N, -dE/dx %.9g N", k, a, f[3*k+a], want)
			}
		}
	}
}

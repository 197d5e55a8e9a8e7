package sim

import (
	"math"
	"runtime"
	"testing"
	"time"
)

// The two parallel parts of the element pass share no node, and every
// triangle is in exactly one part.
func TestSplitTris(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Config)
	}{
		{"24²", func(c *Config) { c.NodesU, c.NodesV = 24, 24 }},
		{"9 × 5", func(c *Config) { c.NodesU, c.NodesV = 9, 5 }},
		{"2 × 2", func(c *Config) { c.NodesU, c.NodesV = 2, 2 }},
		{"graded 17²", func(c *Config) {
			c.NodesU, c.NodesV = 17, 17
			c.Refine = Refinement{Centre: [2]float64{0.1, 0.2}, Radius: RefineRadius, Ratio: RefineRatio}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestCloth(t, tc.edit)
			parts := splitTris(c.m)
			seen := make([]int, len(c.m.tris))
			owner := make([]int, c.n)
			for i := range owner {
				owner[i] = -1
			}
			for p, ids := range parts {
				for _, i := range ids {
					seen[i]++
					if p == 2 {
						continue
					}
					for _, n := range c.m.tris[i].n {
						if owner[n] == 1-p {
							t.Fatalf("node %d is in both parts", n)
						}
						owner[n] = p
					}
				}
			}
			for i, k := range seen {
				if k != 1 {
					t.Fatalf("triangle %d is in %d parts", i, k)
				}
			}
			if c.m.nv >= 8 && len(parts[2]) > len(c.m.tris)/3 {
				t.Errorf("the seam holds %d of %d triangles", len(parts[2]), len(c.m.tris))
			}
		})
	}
}

// A cloth stepping with SetParallel(true) computes bit for bit what it
// computes on one goroutine, through a pinch and pull, and switching
// midway changes nothing either.
func TestParallelIsBitIdentical(t *testing.T) {
	n := pick(24, 12)
	edit := func(cfg *Config) { cfg.NodesU, cfg.NodesV = n, n }
	serial, par := newTestCloth(t, edit), newTestCloth(t, edit)
	par.SetParallel(true)
	s := ShowcasePinch(serial.cfg.Material.Thickness)
	var in FingerState
	steps := int(1.8 / serial.cfg.Dt) // to 0.3 s into the pull
	var pinch float64
	for i := range steps {
		if i == steps/2 {
			par.SetParallel(false)
		}
		if i == 3*steps/4 {
			par.SetParallel(true)
		}
		tm := float64(i) * serial.cfg.Dt
		s.Sample(tm, &in)
		serial.Step(tm, &in)
		par.Step(tm, &in)
		for k := range serial.x {
			if math.Float64bits(serial.x[k]) != math.Float64bits(par.x[k]) || math.Float64bits(serial.v[k]) != math.Float64bits(par.v[k]) {
				t.Fatalf("step %d, coordinate %d: x %v vs %v, v %v vs %v", i, k, serial.x[k], par.x[k], serial.v[k], par.v[k])
			}
		}
		if a, b := serial.Stats(), par.Stats(); a != b {
			t.Fatalf("step %d: stats differ\n%+v\n%+v", i, a, b)
		}
		pinch = max(pinch, min(serial.out.Contact[Thumb].NormalForce, serial.out.Contact[Index].NormalForce))
	}
	if !(pinch > 0.5) {
		t.Fatalf("the script did not pinch (largest normal force of the lighter pad %g N)", pinch)
	}
}

// BenchmarkTeam times a fork and join of two 100 µs halves, against the
// two halves in a row: with the helper spinning (back to back, and after
// a 1 ms pause, shorter than teamSpin) and parked (after 5 ms).
func BenchmarkTeam(b *testing.B) {
	type owner struct{}
	o := &owner{}
	tm := newTeam(o)
	half := func(int) { spin(100 * time.Microsecond) }
	for _, v := range []struct {
		name  string
		t     *team
		pause time.Duration
	}{{"serial", nil, 0}, {"team", tm, 0}, {"team-after-1ms", tm, time.Millisecond}, {"team-after-5ms", tm, 5 * time.Millisecond}} {
		b.Run(v.name, func(b *testing.B) {
			var busy time.Duration
			for b.Loop() {
				st := time.Now()
				v.t.run(half)
				busy += time.Since(st)
				spin(v.pause)
			}
			b.ReportMetric(float64(busy.Microseconds())/float64(b.N), "µs/fork")
		})
	}
	runtime.KeepAlive(o)
}

func spin(d time.Duration) {
	for st := time.Now(); time.Since(st) < d; {
	}
}

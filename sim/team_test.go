package sim

import (
	"math"
	"runtime"
	"sync/atomic"
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

// assistant calls assist (Cloth.Assist) from a goroutine of its own until
// stop returns, as the lockstep runner does while it waits.
func assistant(assist func() bool) (stop func()) {
	var quit atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for n := 1; !quit.Load(); n++ {
			if !assist() && n%256 == 0 {
				runtime.Gosched()
			}
		}
	}()
	return func() { quit.Store(true); <-done }
}

// Every part of every job runs exactly once, whoever claims it, and run
// returns only after both parts ended. In every other job part 0 waits a
// while for the assistant to claim part 1, so both ways are taken.
func TestTeamRunsEachPartOnce(t *testing.T) {
	var tm team
	var claimed atomic.Int64
	stop := assistant(func() bool {
		ok := tm.assist()
		if ok {
			claimed.Add(1)
		}
		return ok
	})
	var runs [2]int64
	var inside [2]atomic.Int64
	var wait bool
	job := func(p int) {
		inside[p].Add(1)
		for i := 0; p == 0 && wait && tm.state.Load() == teamPosted && i < 100000; i++ {
			runtime.Gosched()
		}
	}
	n := pick(20000, 2000)
	for k := range n {
		wait = k%2 == 0
		tm.run(job)
		for p := range runs {
			runs[p]++
			if got := inside[p].Load(); got != runs[p] {
				t.Fatalf("part %d ran %d times in %d jobs", p, got, runs[p])
			}
		}
	}
	stop()
	if (*team)(nil).assist() {
		t.Fatal("a nil team offered work")
	}
	t.Logf("the assistant claimed %d of %d second parts", claimed.Load(), n)
	if c := claimed.Load(); c == 0 || c == int64(n) {
		t.Errorf("the assistant claimed %d of %d: one way was never taken", c, n)
	}
}

// A cloth stepping with SetParallel(true) and an assistant computes bit
// for bit what it computes on one goroutine, through a pinch and pull,
// and switching midway changes nothing either.
func TestParallelIsBitIdentical(t *testing.T) {
	for _, hyst := range []bool{false, true} {
		t.Run(map[bool]string{false: "elastic", true: "hysteresis"}[hyst], func(t *testing.T) { parallelIsBitIdentical(t, hyst) })
	}
}

func parallelIsBitIdentical(t *testing.T, hyst bool) {
	n := pick(24, 12)
	edit := func(cfg *Config) {
		cfg.NodesU, cfg.NodesV = n, n
		if hyst {
			cfg.Material.Hysteresis = testHysteresis()
		}
	}
	serial, par := newTestCloth(t, edit), newTestCloth(t, edit)
	par.SetParallel(true)
	stop := assistant(par.Assist)
	defer stop()
	s := ShowcasePinch(serial.cfg.Material.Thickness)
	var in FingerState
	steps := int(1.8 / serial.cfg.Dt.Seconds()) // to 0.3 s into the pull
	var pinch float64
	for i := range steps {
		if i == steps/2 {
			par.SetParallel(false)
		}
		if i == 3*steps/4 {
			par.SetParallel(true)
		}
		tm := time.Duration(i) * serial.cfg.Dt
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
		pinch = max(pinch, min(serial.out.Contact[Thumb].NormalForce, serial.out.Contact[IndexFinger].NormalForce))
	}
	if !(pinch > 0.5) {
		t.Fatalf("the script did not pinch (largest normal force of the lighter pad %g N)", pinch)
	}
}

// BenchmarkTeam times a fork and join of two 100 µs halves, against the
// two halves in a row, with an assistant polling on another goroutine.
func BenchmarkTeam(b *testing.B) {
	half := func(int) { spin(100 * time.Microsecond) }
	for _, v := range []struct {
		name string
		t    *team
	}{{"serial", nil}, {"team", new(team)}} {
		b.Run(v.name, func(b *testing.B) {
			stop := assistant(v.t.assist)
			defer stop()
			for b.Loop() {
				v.t.run(half)
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/fork")
		})
	}
}

func spin(d time.Duration) {
	for st := time.Now(); time.Since(st) < d; {
	}
}

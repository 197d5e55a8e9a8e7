package sim

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestGridLines checks the graded lines: they span the side in increasing
// order, the spacing at Radius from the centre is Ratio times the finest,
// the finest pair of lines straddles the centre, and each line's second
// difference is proportional to its distance from the centre, the
// property the bending force's accuracy rests on (Refinement).
func TestGridLines(t *testing.T) {
	r := Refinement{Centre: [2]float64{0.20, 0.10}, Radius: RefineRadius, Ratio: RefineRatio}
	for axis, n := range []int{64, 97} {
		g := gridLines(n, 0.3, r, axis)
		if g[0] != 0 || g[n-1] != 0.3 {
			t.Fatalf("axis %d: lines span [%g, %g], want [0, 0.3]", axis, g[0], g[n-1])
		}
		c := r.Centre[axis]
		fine, atRadius := math.Inf(1), 0.0
		for i := 1; i < n; i++ {
			h := g[i] - g[i-1]
			if !(h > 0) {
				t.Fatalf("axis %d: lines %d, %d at %g, %g not increasing", axis, i-1, i, g[i-1], g[i])
			}
			fine = min(fine, h)
			// The spacing at c + Radius, linear between the midpoints of
			// the intervals either side: off by θ²/32 of it, and the
			// discrete spacings differ from the hyperbola by about θ²/8.
			if i > 1 {
				m0, m1, h0 := (g[i-2]+g[i-1])/2, (g[i-1]+g[i])/2, g[i-1]-g[i-2]
				if x := c + r.Radius; m0 <= x && x < m1 {
					atRadius = h0 + (h-h0)*(x-m0)/(m1-m0)
				}
			}
		}
		if got := atRadius / fine; math.Abs(got-r.Ratio) > 0.005*r.Ratio {
			t.Errorf("axis %d, %d lines: spacing at Radius over the finest %.4f, want %g", axis, n, got, r.Ratio)
		}
		i := 0
		for g[i+1] < c {
			i++
		}
		if h := g[i+1] - g[i]; h > 1.01*fine {
			t.Errorf("axis %d: the line pair round the centre is %.4g m apart, the finest %.4g m", axis, h, fine)
		}
		// g[i+1] − 2g[i] + g[i-1] = (2·cosh θ − 2)·(g[i] − c).
		a := r.Radius / math.Sqrt(r.Ratio*r.Ratio-1)
		theta := (math.Asinh((0.3-c)/a) + math.Asinh(c/a)) / float64(n-1)
		beta := 2*math.Cosh(theta) - 2
		for k := 1; k < n-1; k++ {
			d2, want := g[k+1]-2*g[k]+g[k-1], beta*(g[k]-c)
			if math.Abs(d2-want) > 1e-12*fine {
				t.Fatalf("axis %d, line %d: second difference %.6g m, want %.6g", axis, k, d2, want)
			}
		}
	}
	u := gridLines(5, 0.3, Refinement{}, 0)
	for i, want := range []float64{0, 0.075, 0.15, 0.225, 0.3} {
		if math.Abs(u[i]-want) > 1e-15 {
			t.Errorf("uniform line %d at %g, want %g", i, u[i], want)
		}
	}
}

func TestRefinementValidate(t *testing.T) {
	cfg := DefaultConfig()
	for _, tc := range []struct {
		r  Refinement
		ok bool
	}{
		{Refinement{}, true},
		{Refinement{Ratio: 1}, true},
		{Refinement{Centre: [2]float64{0.2, 0.1}, Radius: 0.02, Ratio: 4}, true},
		{Refinement{Centre: [2]float64{0.3, 0.3}, Radius: 0.02, Ratio: 4}, true},
		{Refinement{Centre: [2]float64{0.31, 0.1}, Radius: 0.02, Ratio: 4}, false},
		{Refinement{Centre: [2]float64{0.2, -0.01}, Radius: 0.02, Ratio: 4}, false},
		{Refinement{Centre: [2]float64{math.NaN(), 0.1}, Radius: 0.02, Ratio: 4}, false},
		{Refinement{Centre: [2]float64{0.2, 0.1}, Radius: 0, Ratio: 4}, false},
		{Refinement{Centre: [2]float64{0.2, 0.1}, Radius: math.Inf(1), Ratio: 4}, false},
		{Refinement{Centre: [2]float64{0.2, 0.1}, Radius: 0.02, Ratio: 1000}, false},
		{Refinement{Ratio: -1}, false},
		{Refinement{Ratio: math.NaN()}, false},
	} {
		cfg.Refine = tc.r
		_, err := New(cfg)
		if (err == nil) != tc.ok {
			t.Errorf("%+v: error %v, want ok %v", tc.r, err, tc.ok)
		}
	}
}

// TestGradedMesh checks what the element and contact code assume of a
// graded mesh: a rigid motion is force-free, bending conserves momentum
// (the plate energy is TestBendingEnergyMatchesPlate's), the nodes' lumped
// areas and the contact probes' areas both add up to the fabric's, and no
// probe stands for more than ProbeSpacing² of it.
func TestGradedMesh(t *testing.T) {
	c := newTestCloth(t, func(cfg *Config) {
		cfg.NodesU, cfg.NodesV = 24, 24
		cfg.Refine = Refinement{Centre: [2]float64{0.20, 0.10}, Radius: RefineRadius, Ratio: RefineRatio}
	})
	m := c.m
	m.setBending(1e-5, 2e-5, 1.4e-5)
	rng := rand.New(rand.NewPCG(3, 4))
	x := rigidMesh(rng, m)
	f := make([]float64, len(x))
	m.bend.mulAdd(f, x, -1)
	if mx := maxAbs(f); mx > 1e-12 {
		t.Errorf("bending force %.3g N on a rigid motion", mx)
	}
	var nodeArea, probeArea, largest float64
	for _, a := range m.area {
		nodeArea += a
	}
	for ti := range m.tris {
		pa := c.pads.probes.area(int32(ti))
		probeArea += pa * float64(len(c.pads.probes.bary[c.pads.probes.sub[ti]]))
		largest = max(largest, pa)
	}
	want := c.cfg.Width * c.cfg.Height
	if math.Abs(nodeArea-want) > 1e-12 || math.Abs(probeArea-want) > 1e-12 {
		t.Errorf("areas: nodes %.15g, probes %.15g m², want %g", nodeArea, probeArea, want)
	}
	if s := c.cfg.ProbeSpacing; largest > s*s {
		t.Errorf("a probe stands for %.3g m², more than ProbeSpacing² = %.3g", largest, s*s)
	}
}

// TestRegradeKeepsRest regrades a flat cloth at rest: the new nodes lie on
// the old (affine) shape exactly, and the cloth stays at rest with no force
// beyond its weight's.
func TestRegradeKeepsRest(t *testing.T) {
	c := newTestCloth(t, func(cfg *Config) {
		cfg.NodesU, cfg.NodesV = 24, 24
		cfg.Refine = Refinement{Centre: [2]float64{0.05, 0.25}, Radius: RefineRadius, Ratio: RefineRatio}
		cfg.NoGravity = true
	})
	if err := c.Regrade([2]float64{0.20, 0.10}); err != nil {
		t.Fatal(err)
	}
	if c.cfg.Refine.Centre != [2]float64{0.20, 0.10} {
		t.Fatalf("centre %v after the regrade", c.cfg.Refine.Centre)
	}
	for k := range c.n {
		o := c.cfg.Corner()
		want := [3]float64{o[0] + c.m.uv[2*k], o[1] + c.m.uv[2*k+1], o[2]}
		if d := math.Sqrt(dist2(at3(c.x, int32(k)), want)); d > 1e-15 {
			t.Fatalf("node %d at %v after the regrade, its rest point is %v", k, at3(c.x, int32(k)), want)
		}
	}
	for range 20 {
		c.Step(c.t, nil)
	}
	if e := c.Energy().Total(); math.Abs(e) > 1e-12 || maxAbs(c.v) > 1e-9 {
		t.Errorf("after 20 steps at rest: energy %.3g J, largest speed %.3g m/s", e, maxAbs(c.v))
	}
}

// TestRegradeRefuses lists what Regrade will not do.
func TestRegradeRefuses(t *testing.T) {
	graded := func(cfg *Config) {
		cfg.NodesU, cfg.NodesV = 12, 12
		cfg.Refine = Refinement{Centre: [2]float64{0.15, 0.15}, Radius: RefineRadius, Ratio: RefineRatio}
	}
	uniform := newTestCloth(t, func(cfg *Config) { cfg.NodesU, cfg.NodesV = 12, 12 })
	if err := uniform.Regrade([2]float64{0.1, 0.1}); err == nil {
		t.Error("regraded a uniform mesh")
	}
	c := newTestCloth(t, graded)
	if err := c.Regrade([2]float64{0.4, 0.1}); err == nil {
		t.Error("regraded round a point off the cloth")
	}
	// A pad pressing the cloth.
	var in FingerState
	in.Fingers[IndexFinger] = Finger{Valid: true, Pos: [3]float64{0, 0.15, c.cfg.PadRadius[IndexFinger] - 0.001}}
	for range 3 {
		c.Step(c.t, &in)
	}
	if c.Stats().Probes[IndexFinger] == 0 {
		t.Fatal("the pad does not touch the cloth")
	}
	if err := c.Regrade([2]float64{0.1, 0.1}); err == nil {
		t.Error("regraded while a pad touches the cloth")
	}
}

// TestFollowMovesTheGrading pinches and pulls a 24² cloth whose grading
// starts far from the pinch and follows the fingers: the mesh is regraded
// round the pinch before the pads touch, and the force curve is the one
// of a cloth graded there from the start, within 1.5 % of its peak (1.07 %
// at 10 mm of the pull, 0.78 % at 2 mm, where the grip's edge slides over
// the regraded mesh's probes).
func TestFollowMovesTheGrading(t *testing.T) {
	if testing.Short() {
		t.Skip("two pinch-and-pull runs")
	}
	var at []float64
	for d := 0.002; d <= 0.0121; d += 0.002 {
		at = append(at, d)
	}
	follow := Refinement{Centre: [2]float64{0.05, 0.25}, Radius: RefineRadius, Ratio: RefineRatio, Follow: true}
	c := newTestCloth(t, func(cfg *Config) {
		cfg.NodesU, cfg.NodesV = 24, 24
		cfg.Refine = follow
	})
	s, err := PinchAndPull(pinchPoint, pinchPull, 0.008, c.cfg.Material.Thickness, 0.002)
	if err != nil {
		t.Fatal(err)
	}
	var touched time.Duration
	runScript(c, s, s.Keys[3].T, func(_ int, tm time.Duration) {
		if touched == 0 && c.Stats().Probes != [NumFingers]int{} {
			touched = tm
		}
	})
	// The cloth hangs a little off its rest plane, so its material point
	// under the pads is the pinch point to within a millimetre.
	if c.grading != 1 || math.Hypot(c.cfg.Refine.Centre[0]-pinchUV[0], c.cfg.Refine.Centre[1]-pinchUV[1]) > 0.001 || touched == 0 {
		t.Fatalf("after the approach: %d regrades, centre %v (pinch at %v), first touch at %v", c.grading, c.cfg.Refine.Centre, pinchUV, touched)
	}
	fixed := Refinement{Centre: pinchUV, Radius: RefineRadius, Ratio: RefineRatio}
	want, _ := pullCurve(t, 24, fixed, 3, at)
	got, _ := pullCurve(t, 24, follow, 3, at)
	var peak, worst float64
	for i := range at {
		peak = max(peak, math.Abs(want[i]))
		worst = max(worst, math.Abs(got[i]-want[i]))
		t.Logf("pull %4.1f mm: following %.4f N, fixed at the pinch %.4f N", 1000*at[i], got[i], want[i])
	}
	if worst > 0.015*peak {
		t.Errorf("following grading: curve differs by %.3g N from the fixed grading's (peak %.3g N)", worst, peak)
	}
}

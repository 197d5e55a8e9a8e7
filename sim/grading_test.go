package sim

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGridLines checks the graded lines: they span the side in increasing
// order, and the spacing at the centre over that far away is the ratio
// (the density is 1 + (Ratio-1)·exp(-d²/Radius²)).
func TestGridLines(t *testing.T) {
	r := Refinement{Centre: [2]float64{0.20, 0.10}, Radius: 0.02, Ratio: 4}
	for axis, n := range []int{64, 97} {
		g := gridLines(n, 0.3, r, axis)
		if g[0] != 0 || g[n-1] != 0.3 {
			t.Fatalf("axis %d: lines span [%g, %g], want [0, 0.3]", axis, g[0], g[n-1])
		}
		fine, coarse := math.Inf(1), 0.0
		for i := 1; i < n; i++ {
			h := g[i] - g[i-1]
			if !(h > 0) {
				t.Fatalf("axis %d: lines %d, %d at %g, %g not increasing", axis, i-1, i, g[i-1], g[i])
			}
			fine, coarse = min(fine, h), max(coarse, h)
		}
		// The finest and coarsest spacings sample the density at the centre
		// and 0.20 m (10 radii) from it, where it is 1 to 1e-43.
		if got := coarse / fine; math.Abs(got-4) > 0.02*4 {
			t.Errorf("axis %d, %d lines: spacing ratio %.3f, want 4", axis, n, got)
		}
		i := 0
		for g[i+1] < r.Centre[axis] {
			i++
		}
		if h := g[i+1] - g[i]; h > 1.01*fine {
			t.Errorf("axis %d: the line pair round the centre is %.4g m apart, the finest %.4g m", axis, h, fine)
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
		pa := c.contact.probeArea(int32(ti))
		probeArea += pa * float64(len(c.contact.bary[c.contact.sub[ti]]))
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

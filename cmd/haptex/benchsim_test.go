package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/haptex/haptex/calib/kes"
	"github.com/haptex/haptex/sim"
)

// BenchmarkSimFabric is the step of `haptex bench sim -fabric
// cotton-shirting` (the same material, simOptions) at the bench's sizes
// and steps, on the showcase pinch from 1.5 s (rewound each 1.2 s, as
// sim's BenchmarkStep) and on the fold from 2.5 s with self-collision
// (the layers pinched; at most 320 steps at 10 ms stay within its
// script), with the fabric's internal friction off, in its in-plane modes
// only, and in every mode: what the friction costs a session. For
// instruction counts, callgrind with
// --toggle-collect='github.com/haptex/haptex/cmd/haptex.simFabricLoop'.
func BenchmarkSimFabric(b *testing.B) {
	for _, sc := range []struct {
		n  int
		dt time.Duration
	}{{24, time.Millisecond}, {32, 5 * time.Millisecond}, {64, 10 * time.Millisecond}} {
		for _, scene := range []string{"pinch", "fold"} {
			for _, fr := range []string{"off", "inplane", "all"} {
				b.Run(fmt.Sprintf("side=%d/scene=%s/friction=%s", sc.n, scene, fr), func(b *testing.B) {
					c, s, t0 := simFabricCloth(b, sc.n, sc.dt, scene == "fold", fr)
					simFabricLoop(b, c, s, t0)
				})
			}
		}
	}
}

// simFabricCloth returns the scene's cloth of cotton shirting with the
// friction fr, stepped to where the measurement starts.
func simFabricCloth(b *testing.B, n int, dt time.Duration, fold bool, fr string) (*sim.Cloth, *sim.Script, time.Duration) {
	opt, err := simOptions(benchOpts{fabric: "cotton-shirting", library: kes.Library{}})
	if err != nil {
		b.Fatal(err)
	}
	cfg := sim.DefaultConfig()
	cfg.NodesU, cfg.NodesV, cfg.Dt = n, n, dt
	cfg.NoSelfCollision = !fold
	opt.Edit(&cfg)
	switch h := &cfg.Material.Hysteresis; fr {
	case "off":
		*h = sim.Hysteresis{}
	case "inplane":
		h.BendWeft, h.BendWarp, h.BendCurvature = 0, 0, 0
	}
	c, err := sim.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	s, t0 := sim.ShowcasePinch(cfg.Material.Thickness), 1500*time.Millisecond
	if fold {
		s, t0 = sim.FoldScript(cfg), 2500*time.Millisecond
	}
	var in sim.FingerState
	for t := time.Duration(0); t < t0; t += dt {
		s.Sample(t, &in)
		in.T = t
		c.Step(t, &in)
	}
	return c, s, t0
}

// simFabricLoop steps c along s from t0 (the showcase rewound each 1.2 s)
// and reports the CG iterations per step.
func simFabricLoop(b *testing.B, c *sim.Cloth, s *sim.Script, t0 time.Duration) {
	dt := c.Config().Dt
	wrap := int(1200 * time.Millisecond / dt)
	if s.Duration() > 5*time.Second { // the fold: never rewound
		wrap = int((s.Duration() - t0) / dt)
	}
	var in sim.FingerState
	tm := t0
	var iters int
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		s.Sample(t0+time.Duration(i%wrap)*dt, &in)
		in.T = tm
		c.Step(tm, &in)
		tm += dt
		iters += c.Stats().CGIters
	}
	b.ReportMetric(float64(iters)/float64(b.N), "cg-iters/step")
}

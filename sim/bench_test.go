package sim

import (
	"fmt"
	"testing"
	"time"
)

// benchCloth returns a cloth of the showcase scene on an n × n mesh,
// pinched and pulling (1.5 s into ShowcasePinch), and the script.
func benchCloth(b *testing.B, n int, dt float64, edit func(*Config)) (*Cloth, *Script) {
	b.Helper()
	c := newTestCloth(b, func(cfg *Config) {
		cfg.NodesU, cfg.NodesV, cfg.Dt = n, n, sec(dt)
		if edit != nil {
			edit(cfg)
		}
	})
	s := ShowcasePinch(c.cfg.Material.Thickness)
	runScript(c, s, sec(1.5), nil)
	return c, s
}

// stepLoop steps c along s from 1.5 s, rewinding the script (not the
// cloth) each 1.2 s so that the fingers keep pinching and pulling.
func stepLoop(b *testing.B, c *Cloth, s *Script) {
	var in FingerState
	tm := c.t
	var iters int
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		st := sec(1.5) + time.Duration(i%int(sec(1.2)/c.cfg.Dt))*c.cfg.Dt
		s.Sample(st, &in)
		in.T = tm
		c.Step(tm, &in)
		tm += c.cfg.Dt
		iters += c.Stats().CGIters
	}
	b.ReportMetric(float64(iters)/float64(b.N), "cg-iters/step")
}

// BenchmarkStep is the showcase step over the mesh ladder at the issue's
// steps (5 ms; 1 ms at 24²; 10 ms at 64²).
func BenchmarkStep(b *testing.B) {
	for _, sc := range []struct {
		n  int
		dt float64
	}{{16, 0.005}, {24, 0.001}, {24, 0.005}, {32, 0.005}, {64, 0.010}} {
		b.Run(fmt.Sprintf("side=%d/dt=%gms", sc.n, 1000*sc.dt), func(b *testing.B) {
			c, s := benchCloth(b, sc.n, sc.dt, nil)
			stepLoop(b, c, s)
		})
	}
}

// BenchmarkOperator compares the ways of applying the system matrix and
// of preconditioning on the same pinched 32² cloth at 5 ms: whole steps,
// and one product of the matrix alone. The package documentation records
// the decision this benchmark supports.
func BenchmarkOperator(b *testing.B) {
	for _, v := range []struct {
		name string
		edit func(*Config)
	}{
		{"op=assembled/pre=twogrid", nil},
		{"op=assembled/pre=twolevel", func(c *Config) { c.Preconditioner = TwoLevel }},
		{"op=assembled/pre=jacobi", func(c *Config) { c.Preconditioner = BlockJacobi }},
		{"op=matrixfree/pre=jacobi", func(c *Config) { c.Operator, c.Preconditioner = MatrixFree, BlockJacobi }},
	} {
		b.Run("step/"+v.name, func(b *testing.B) {
			c, s := benchCloth(b, 32, 0.005, v.edit)
			stepLoop(b, c, s)
		})
	}
	for _, op := range []Operator{Assembled, MatrixFree} {
		name := map[Operator]string{Assembled: "assembled", MatrixFree: "matrixfree"}[op]
		b.Run("product/op="+name, func(b *testing.B) {
			c, _ := benchCloth(b, 32, 0.005, func(cfg *Config) { cfg.Operator, cfg.Preconditioner = op, BlockJacobi })
			p, q := make([]float64, 3*c.n), make([]float64, 3*c.n)
			for i := range p {
				p[i] = float64(i%7) - 3
			}
			b.ReportAllocs()
			for b.Loop() {
				c.dyn.mulA(q, p)
			}
		})
	}
}

// BenchmarkRegrade is the cost of moving a following grading (the step
// that regrades takes this much longer; it happens only while no pad
// touches the cloth).
func BenchmarkRegrade(b *testing.B) {
	for _, n := range []int{24, 32, 64} {
		b.Run(fmt.Sprintf("side=%d", n), func(b *testing.B) {
			c := newTestCloth(b, func(cfg *Config) {
				cfg.NodesU, cfg.NodesV = n, n
				cfg.Refine = Refinement{Centre: [2]float64{0.1, 0.1}, Radius: RefineRadius, Ratio: RefineRatio}
			})
			centres := [2][2]float64{{0.2, 0.1}, {0.1, 0.2}}
			for i := 0; b.Loop(); i++ {
				if err := c.Regrade(centres[i%2]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCoarse times the coarse level alone on the pinched showcase:
// its build (assembly and banded factorisation) and one solve with the
// factor.
func BenchmarkCoarse(b *testing.B) {
	for _, sc := range []struct {
		n  int
		dt float64
	}{{24, 0.001}, {32, 0.005}, {64, 0.010}} {
		c, _ := benchCloth(b, sc.n, sc.dt, nil)
		co := c.dyn.pc.co
		b.Run(fmt.Sprintf("build/side=%d", sc.n), func(b *testing.B) {
			for b.Loop() {
				co.build(c.dyn.op.a, nil)
			}
		})
		for i := range co.rc {
			co.rc[i] = float64(i%7) - 3
		}
		b.Run(fmt.Sprintf("solve/side=%d", sc.n), func(b *testing.B) {
			for b.Loop() {
				bandSolve(co.zc, co.rc, co.band, co.ut, co.dinv, co.bw)
			}
		})
	}
}

// BenchmarkSelfCollision steps the showcase (pinched and pulling, 1.5 s
// in) and the fold scene (the fold pinched, 3.2 s in, the pinch sliding
// along the fold) with self-collision and without, at the sizes
// and steps.
func BenchmarkSelfCollision(b *testing.B) {
	for _, sc := range []struct {
		n  int
		dt float64
	}{{24, 0.001}, {32, 0.005}, {64, 0.010}} {
		for _, off := range []bool{false, true} {
			edit := func(cfg *Config) { cfg.NoSelfCollision = off }
			b.Run(fmt.Sprintf("showcase/side=%d/dt=%gms/off=%v", sc.n, 1000*sc.dt, off), func(b *testing.B) {
				c, s := benchCloth(b, sc.n, sc.dt, edit)
				stepLoop(b, c, s)
			})
			b.Run(fmt.Sprintf("fold/side=%d/dt=%gms/off=%v", sc.n, 1000*sc.dt, off), func(b *testing.B) {
				c := newTestCloth(b, func(cfg *Config) {
					cfg.NodesU, cfg.NodesV, cfg.Dt = sc.n, sc.n, sec(sc.dt)
					edit(cfg)
				})
				s := FoldScript(c.cfg)
				runScript(c, s, sec(3.2), nil)
				var in FingerState
				tm := c.t
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; b.Loop(); i++ {
					st := sec(3.2) + time.Duration(i%int(sec(1.2)/c.cfg.Dt))*c.cfg.Dt
					s.Sample(st, &in)
					in.T = tm
					c.Step(tm, &in)
					tm += c.cfg.Dt
				}
			})
		}
	}
}

// BenchmarkFoldStack steps the 32² fold's pinched stack at 5 ms, the
// scene's slowest steps: from 3.9 s (the pads pressing the fold flat,
// then sliding it) to 4.6 s, the script (not the cloth) starting over
// there. Each step is a call of foldStack.step, so that callgrind's
// --toggle-collect='*foldStack).step' counts the steps alone
// (docs/cloth-contact.md).
func BenchmarkFoldStack(b *testing.B) {
	c := newTestCloth(b, func(cfg *Config) { cfg.NodesU, cfg.NodesV, cfg.Dt = 32, 32, sec(0.005) })
	st := &foldStack{c: c, s: FoldScript(c.cfg), from: sec(3.9), span: int(sec(0.7) / c.cfg.Dt)}
	runScript(c, st.s, st.from, nil)
	st.run(b)
}

// BenchmarkFoldSlide1ms steps the 24² fold's pinched slide at 1 ms, the
// steps at the p99.9 of bench sim's 24² fold: the cloth laid at 5 ms to
// the flap's landing (FoldLanded, as simbench lays it), stepped at 1 ms to
// 3.9 s, then 300 steps from there, the script (not the cloth) starting
// over. Under callgrind, --toggle-collect='*foldStack).step' counts the
// steps alone (docs/cloth-contact.md).
func BenchmarkFoldSlide1ms(b *testing.B) {
	c := newTestCloth(b, func(cfg *Config) { cfg.NodesU, cfg.NodesV, cfg.Dt = 24, 24, 5*time.Millisecond })
	s := FoldScript(c.cfg)
	runScript(c, s, FoldLanded, nil)
	if err := c.SetStep(time.Millisecond); err != nil {
		b.Fatal(err)
	}
	var in FingerState
	for tm := FoldLanded; tm < sec(3.9); tm += c.cfg.Dt {
		s.Sample(tm, &in)
		in.T = c.t
		c.Step(c.t, &in)
	}
	st := &foldStack{c: c, s: s, from: sec(3.9), span: 300}
	st.run(b)
}

type foldStack struct {
	c        *Cloth
	s        *Script
	in       FingerState
	from     time.Duration
	span     int // steps before the script starts over
	n        int // steps so far
	cg, sens int // their CG and sensitivity iterations
}

// run times the steps and reports their iterations.
func (f *foldStack) run(b *testing.B) {
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		f.step()
	}
	b.ReportMetric(float64(f.cg)/float64(f.n), "cg-iters/step")
	b.ReportMetric(float64(f.sens)/float64(f.n), "sens-iters/step")
}

//go:noinline
func (f *foldStack) step() {
	c := f.c
	f.s.Sample(f.from+time.Duration(f.n%f.span)*c.cfg.Dt, &f.in)
	f.in.T = c.t
	c.Step(c.t, &f.in)
	f.n++
	f.cg += c.stats.CGIters
	f.sens += c.stats.SensIters
}

// BenchmarkFoldScript runs the whole fold scene, a new cloth each time,
// with self-collision and without. Under callgrind it gives the
// instructions per step and the self-collision's share of them
// (docs/cloth-contact.md gives the command).
func BenchmarkFoldScript(b *testing.B) {
	for _, sc := range []struct {
		n  int
		dt float64
	}{{24, 0.001}, {32, 0.005}, {64, 0.010}} {
		for _, off := range []bool{false, true} {
			b.Run(fmt.Sprintf("side=%d/dt=%gms/off=%v", sc.n, 1000*sc.dt, off), func(b *testing.B) {
				for b.Loop() {
					b.StopTimer()
					c := newTestCloth(b, func(cfg *Config) {
						cfg.NodesU, cfg.NodesV, cfg.Dt = sc.n, sc.n, sec(sc.dt)
						cfg.NoSelfCollision = off
					})
					s := FoldScript(c.cfg)
					b.StartTimer()
					runScript(c, s, s.Duration(), nil)
				}
			})
		}
	}
}

// BenchmarkHysteresis is the showcase step with the internal friction of
// the hysteresis tests (testHysteresis) off, in the in-plane modes only,
// and in every mode (bending too), at the steps.
func BenchmarkHysteresis(b *testing.B) {
	for _, sc := range []struct {
		n  int
		dt float64
	}{{24, 0.001}, {32, 0.005}, {64, 0.010}} {
		for _, on := range []string{"off", "inplane", "all"} {
			b.Run(fmt.Sprintf("side=%d/dt=%gms/friction=%s", sc.n, 1000*sc.dt, on), func(b *testing.B) {
				c, s := benchCloth(b, sc.n, sc.dt, func(cfg *Config) {
					switch on {
					case "inplane":
						h := testHysteresis()
						h.BendWeft, h.BendWarp, h.BendCurvature = 0, 0, 0
						cfg.Material.Hysteresis = h
					case "all":
						cfg.Material.Hysteresis = testHysteresis()
					}
				})
				stepLoop(b, c, s)
			})
		}
	}
}

package sim

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestSubdivideLayout checks the probe order probeRows assumes: row i
// holds sub-i upward centroids at ((i+⅓)/sub, (j+⅓)/sub), each followed
// by a downward one at ((i+⅔)/sub, (j+⅔)/sub) but the last.
func TestSubdivideLayout(t *testing.T) {
	for sub := 1; sub <= 12; sub++ {
		bary := subdivide(sub)
		if len(bary) != sub*sub {
			t.Fatalf("sub %d: %d probes, want %d", sub, len(bary), sub*sub)
		}
		f := float64(sub)
		q := 0
		for i := range sub {
			for j := range sub - i {
				for _, d := range [2]float64{1.0 / 3, 2.0 / 3} {
					if d > 0.5 && j == sub-i-1 {
						continue
					}
					w := bary[q]
					if math.Abs(w[1]-(float64(i)+d)/f) > 1e-14 || math.Abs(w[2]-(float64(j)+d)/f) > 1e-14 {
						t.Fatalf("sub %d probe %d = %v, want row %d, j %d, offset %.3f", sub, q, w, i, j, d)
					}
					q++
				}
			}
		}
	}
}

// TestCollectEveryProbe compares collect, which tests only the probes
// probeRows finds near a pad, with testing every probe of every triangle,
// on crumpled uniform and graded meshes and pads of all sizes, including
// pads that graze a probe.
func TestCollectEveryProbe(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, graded := range []bool{false, true} {
		c := newTestCloth(t, func(cfg *Config) {
			cfg.NodesU, cfg.NodesV = 12, 12
			if graded {
				cfg.Refine = Refinement{Centre: [2]float64{0.15, 0.2}, Radius: RefineRadius, Ratio: RefineRatio}
			}
		})
		s := &c.pads
		x := c.x
		got, want := make([]contactPt, 0, s.capac), []contactPt(nil)
		for trial := range 300 {
			copy(x, c.xGood)
			amp := []float64{0, 0.002, 0.02}[trial%3]
			for i := range x {
				x[i] += amp * (2*rng.Float64() - 1)
			}
			s.search.bound(x)
			fc := &s.f[0]
			n := rng.IntN(c.n)
			r := 0.001 + 0.02*rng.Float64()
			for a := range 3 {
				fc.in.c[a] = x[3*n+a] + r*(2*rng.Float64()-1)
			}
			if trial%10 == 0 {
				// Graze a probe of a triangle at node n: put it just inside
				// the pad's surface.
				tris := c.m.nodeTris[n]
				ti := tris[rng.IntN(len(tris))]
				q := rng.IntN(len(s.probes.bary[s.probes.sub[ti]]))
				p := s.probes.pos(&contactPt{tri: ti, w: s.probes.bary[s.probes.sub[ti]][q]}, x)
				u := [3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
				u = scale3(r/norm3(u), u)
				fc.in.c = [3]float64{p[0] + u[0], p[1] + u[1], p[2] + u[2]}
				r = math.Sqrt(dist2(p, fc.in.c)) * (1 + 1e-12)
			}
			fc.in.r, fc.in.present = r, true
			got = s.collect(0, x, nil, got)
			if s.overflow > 0 {
				t.Fatalf("trial %d: %d probes overflowed", trial, s.overflow)
			}
			want = everyProbe(s, fc, x, want[:0])
			byProbe := func(a, b contactPt) int { return cmp.Compare(a.probe, b.probe) }
			slices.SortFunc(got, byProbe)
			slices.SortFunc(want, byProbe)
			if !slices.Equal(got, want) {
				t.Fatalf("graded %v, trial %d: collect found %d contacts, testing every probe %d", graded, trial, len(got), len(want))
			}
		}
	}
}

// everyProbe is collect's narrow phase over every probe of every triangle.
func everyProbe(s *padContact, fc *fingerContact, x []float64, dst []contactPt) []contactPt {
	in := &fc.in
	outer := in.r * in.r * (1 + 1e-9)
	centre := vec{in.c[0], in.c[1], in.c[2]}
	for ti, t := range s.c.m.tris {
		va, vb, vc := vecAt(x, t.n[0]), vecAt(x, t.n[1]), vecAt(x, t.n[2])
		for q, w := range s.probes.bary[s.probes.sub[ti]] {
			pv := va.scale(w[0]).add(vb.scale(w[1])).add(vc.scale(w[2]))
			dv := pv.sub(centre)
			if dv.dot(dv) > outer {
				continue
			}
			dist := norm3(dv.arr())
			pen := in.r - dist
			if pen <= 0 || dist < 1e-9 {
				continue
			}
			id := s.probes.first[ti] + int32(q)
			dst = append(dst, contactPt{probe: id, tri: int32(ti), w: w, n: scale3(1/dist, dv.arr()), pen: pen,
				k: s.c.fab.compression * s.probes.area(int32(ti)), offset: sub3(pv.arr(), in.last)})
		}
	}
	return dst
}

// TestPadsSlideAtKineticFriction: two pads pinch a swatch held by a clamp
// along its top edge and draw it 12 mm down between them, as one draws a
// fabric between finger and thumb. The clamp holds the fabric, so the pads
// slide over it the whole way, and Coulomb's law gives each pad a
// tangential force of μ_k times its normal force, early in the draw as
// late. (With a sliding probe's friction spring left at its last anchor,
// the force eased off as the cloth gave towards it: the pads felt a third
// of μ_k·N or less.)
func TestPadsSlideAtKineticFriction(t *testing.T) {
	for _, tc := range []struct {
		mu, squeeze float64
	}{{0.2, 0.0001}, {0.4, 0.0001}, {0.4, 0.0002}} {
		t.Run(fmt.Sprintf("mu=%g/squeeze=%gmm", tc.mu, 1000*tc.squeeze), func(t *testing.T) {
			c := newTestCloth(t, func(cfg *Config) {
				cfg.Width, cfg.Height = 0.03, 0.04
				cfg.NodesU, cfg.NodesV = 13, 17
				cfg.Pin, cfg.PinLines, cfg.NoRod = PinTopEdge, 2, true
				cfg.Offset = [3]float64{0.05, 0.07, 0}
				cfg.Material.FrictionStatic, cfg.Material.FrictionKinetic = 1.25*tc.mu, tc.mu
			})
			s, err := PinchAndPull([3]float64{0.05, 0.10, 0}, [3]float64{0, -0.012, 0}, 0.008, c.cfg.Material.Thickness, tc.squeeze)
			if err != nil {
				t.Fatal(err)
			}
			// The draw runs from Keys[3] to Keys[4]; its middle 60 % in
			// two halves, past the onset and before the stop.
			t0, t1 := s.Keys[3].T, s.Keys[4].T
			a, mid, b := t0+(t1-t0)/5, t0+(t1-t0)/2, t1-(t1-t0)/5
			var ft, fn [2]float64
			var out Output
			runScript(c, s, t1, func(step int, tm time.Duration) {
				if tm < a || tm >= b {
					return
				}
				c.Output(&out)
				h := 0
				if tm >= mid {
					h = 1
				}
				for k := range NumFingers {
					if !out.Contact[k].InContact {
						t.Fatalf("%v: the %s lost the fabric", tm, FingerName(k))
					}
					ft[h] += out.Local[k].F0[1] // the cloth holds the pads back: along +y
					fn[h] += out.Contact[k].NormalForce
				}
			})
			for h, name := range []string{"first", "second"} {
				got := ft[h] / fn[h]
				t.Logf("%s half of the draw: tangential over normal force %.4f, μ_k %.3g", name, got, tc.mu)
				if math.Abs(got/tc.mu-1) > 0.02 {
					t.Errorf("%s half of the draw: the pads feel %.4f of their normal force along the draw, want μ_k = %.3g within 2 %%", name, got, tc.mu)
				}
			}
		})
	}
}

package sim

import (
	"flag"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/haptex/haptex/sim/tritri"
	"github.com/haptex/haptex/sim/tritri/tritritest"
)

var folds = flag.Int("sim.folds", 20, "number of randomised fold-and-pinch trajectories TestRandomFoldAndPinch runs (200 for the full set; at most 4 under the race detector)")

// layerCheck is what the oracle found over a run: intersecting pairs of
// triangles that share no node (exact test, every step) and the closest
// two layers came (tritritest's Measure over pairs at least 2·thickness
// apart on the rest surface), against the limit 0.45·thickness.
type layerCheck struct {
	steps, intersections, firstBad int
	closest, thick                 float64
	contacts, collisions, frozen   int
}

func (l *layerCheck) ok() bool {
	return l.intersections == 0 && !(l.closest < 0.45*l.thick) && l.frozen == 0
}

// checkLayers runs s on c to its end plus tail and calls the oracle after
// every step.
func checkLayers(c *Cloth, s *Script, tail time.Duration) layerCheck {
	chk := tritri.NewChecker(c.Topology().Triangles)
	layers := tritritest.NewLayers(c.Topology().Triangles)
	th := c.fab.thick
	l := layerCheck{closest: math.Inf(1), thick: th, firstBad: -1}
	runScript(c, s, s.Duration()+tail, func(step int, _ time.Duration) {
		st := c.Stats()
		l.steps++
		l.contacts = max(l.contacts, st.SelfContacts)
		l.collisions += st.Collisions
		if st.Frozen {
			l.frozen++
		}
		if n, _ := chk.Intersections(c.x); n > 0 {
			l.intersections += n
			if l.firstBad < 0 {
				l.firstBad = step
			}
		}
		d, _ := layers.Measure(c.x, c.m.uv, 2*th, 0.45*th)
		l.closest = math.Min(l.closest, d)
	})
	return l
}

// TestSelfCollisionScenes runs the fold and crumple scenes at 24², 32² and
// 64² at 5 ms (the fold at 16² alone under the race detector) with the exact oracle
// after every step: no two triangles that share no node ever intersect, no
// two layers come closer than 0.45 of the fabric's thickness, the
// fail-safe never freezes the cloth, and both scenes do lay the cloth on
// itself. (At 10 ms the 64² flap once slid off the lifting pad and never
// landed; it now lands, with self-contact in 215 of the scene's 550 steps,
// and the bench's 64² fold times that step: sim/simbench.)
func TestSelfCollisionScenes(t *testing.T) {
	type size struct {
		side int
		dt   time.Duration
	}
	sizes := []size{{24, 5 * time.Millisecond}, {32, 5 * time.Millisecond}, {64, 5 * time.Millisecond}}
	scenes := []string{"fold", "crumple"}
	if raceEnabled {
		sizes, scenes = []size{{16, 5 * time.Millisecond}}, scenes[:1]
	}
	for _, scene := range scenes {
		for _, sz := range sizes {
			t.Run(scene+"/"+strconv.Itoa(sz.side), func(t *testing.T) {
				t.Parallel()
				c := newTestCloth(t, func(cfg *Config) { cfg.NodesU, cfg.NodesV, cfg.Dt = sz.side, sz.side, sz.dt })
				s := FoldScript(c.cfg)
				if scene == "crumple" {
					s = CrumpleScript(c.cfg)
				}
				l := checkLayers(c, s, 0)
				t.Logf("%s %d²: %d steps, %d intersections, closest layers %.3f mm (thickness %.3f), most self-contact pairs %d, collisions caught %d",
					scene, sz.side, l.steps, l.intersections, 1e3*l.closest, 1e3*l.thick, l.contacts, l.collisions)
				if !l.ok() {
					t.Errorf("%d intersections (first after step %d), closest layers %.3f mm against %.3f, %d frozen steps",
						l.intersections, l.firstBad, 1e3*l.closest, 1e3*0.45*l.thick, l.frozen)
				}
				if l.contacts < 20 {
					t.Errorf("at most %d self-contact pairs: the scene does not lay the cloth on itself", l.contacts)
				}
			})
		}
	}
}

// randomFold is a randomised fold-and-pinch trajectory: a push fold
// (fold) of one of the bottom corners, lifted 3 cm in from both edges,
// over a fold line that cuts the bottom edge 10 to 18 cm from the corner
// and the side edge 10 to 18 cm up, onto the front or the back of the
// cloth, turned over in 1 to 3 s, then a pinch of the fold that slides up
// to 4 cm along it.
func randomFold(rng *rand.Rand, corner [3]float64, width, surf, thickness float64) *Script {
	sx := 1.0 // the corner's side: +1 the left one, -1 the right one
	base := corner
	if rng.IntN(2) == 0 {
		sx, base[0] = -1, corner[0]+width
	}
	a, b := 0.10+0.08*rng.Float64(), 0.10+0.08*rng.Float64() // the fold line's legs along the bottom and the side
	// The line through (a, 0) and (0, b) from the corner, in the corner's
	// frame (x inwards): its unit normal away from the corner and the
	// corner's distance from it.
	nx, ny := b/math.Hypot(a, b), a/math.Hypot(a, b)
	p0 := [3]float64{base[0] + sx*0.03, base[1] + 0.03, base[2]}
	dist := a*b/math.Hypot(a, b) - 0.03*(nx+ny)
	f := fold{
		p0:    p0,
		d:     [3]float64{sx * nx, ny, 0},
		rho:   dist,
		front: rng.IntN(2) == 0,
		swing: sec(1 + 2*rng.Float64()),
		slide: 0.04 * (2*rng.Float64() - 1),
	}
	s, err := NewScript(f.keys(corner[2], surf, thickness))
	if err != nil {
		panic(err)
	}
	return s
}

// TestRandomFoldAndPinch runs randomised fold-and-pinch trajectories
// (-sim.folds, default 20; the full set is 200; at most 4 under the race
// detector) on the showcase cloth at 24² and 5 ms (16² under the race
// detector) with the exact oracle after every step, as
// TestSelfCollisionScenes, and checks that most of them do lay the cloth
// on itself. (At 10 ms the lifting pad often loses the flap: see
// docs/cloth-contact.md.)
func TestRandomFoldAndPinch(t *testing.T) {
	n, count := pick(24, 16), pick(*folds, min(*folds, 4))
	var (
		mu                sync.Mutex
		closest           = math.Inf(1)
		bad, contacts     int
		folded, ran       int
		collisions, steps int
	)
	t.Run("group", func(t *testing.T) {
		for i := range count {
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				t.Parallel()
				rng := rand.New(rand.NewPCG(uint64(i), 0xf01d))
				c := newTestCloth(t, func(cfg *Config) {
					cfg.NodesU, cfg.NodesV, cfg.Dt = n, n, 5*time.Millisecond
				})
				surf := c.cfg.PadRadius[Thumb] + c.fab.thick/2
				l := checkLayers(c, randomFold(rng, c.corner, c.cfg.Width, surf, c.fab.thick), 200*time.Millisecond)
				if !l.ok() {
					t.Errorf("trajectory %d: %d intersections (first after step %d), %d frozen steps, closest layers %.3f mm against %.3f; %d collisions caught by the fail-safe",
						i, l.intersections, l.firstBad, l.frozen, 1e3*l.closest, 1e3*0.45*l.thick, l.collisions)
				}
				mu.Lock()
				closest = math.Min(closest, l.closest)
				contacts = max(contacts, l.contacts)
				collisions += l.collisions
				steps += l.steps
				ran++
				if !l.ok() {
					bad++
				}
				if l.contacts >= 20 {
					folded++
				}
				mu.Unlock()
			})
		}
	})
	t.Logf("%d trajectories on %d² at 5 ms, %d steps: %d brought layers closer than 0.45 thickness, %d laid the cloth on itself; closest layers %.3f mm; most self-contact pairs %d; collisions the fail-safe caught %d",
		ran, n, steps, bad, folded, 1e3*closest, contacts, collisions)
	if 2*folded < ran {
		t.Errorf("only %d of %d trajectories laid the cloth on itself (20 or more self-contact pairs)", folded, ran)
	}
}

// TestSelfCollisionOffIsIdentical: where the cloth never comes near
// itself (the showcase pinch), a step with self-collision is the step
// without it, bit for bit.
func TestSelfCollisionOffIsIdentical(t *testing.T) {
	var runs [2]*Cloth
	for i, off := range []bool{false, true} {
		c := newTestCloth(t, func(cfg *Config) { cfg.NodesU, cfg.NodesV, cfg.NoSelfCollision = 16, 16, off })
		s := ShowcasePinch(c.cfg.Material.Thickness)
		runScript(c, s, pick(s.Duration(), time.Second), func(int, time.Duration) {
			if c.Stats().SelfContacts != 0 {
				t.Fatalf("the showcase pinch met the cloth itself")
			}
		})
		runs[i] = c
	}
	for i := range runs[0].x {
		if runs[0].x[i] != runs[1].x[i] || runs[0].v[i] != runs[1].v[i] {
			t.Fatalf("state differs at %d: %v against %v", i, runs[0].x[i], runs[1].x[i])
		}
	}
	var a, b Output
	runs[0].Output(&a)
	runs[1].Output(&b)
	if a != b {
		t.Errorf("outputs differ: %+v against %+v", a.Local, b.Local)
	}
}

// TestFoldStepAllocs: a step of the pinched fold, with self-contact pairs,
// a pinched stack in the solve and the fail-safe's traversal, allocates
// nothing once the cloth has folded.
func TestFoldStepAllocs(t *testing.T) {
	c := newTestCloth(t, func(cfg *Config) { cfg.NodesU, cfg.NodesV, cfg.Dt = 16, 16, 5*time.Millisecond })
	s := FoldScript(c.cfg)
	tm := s.Keys[16].T // pinched, pressed flat
	runScript(c, s, tm, nil)
	var in FingerState
	allocs := testing.AllocsPerRun(20, func() {
		s.Sample(tm, &in)
		c.Step(tm, &in)
		tm += c.cfg.Dt
	})
	if allocs != 0 {
		t.Errorf("%v allocations per step", allocs)
	}
	if st := c.Stats(); st.SelfContacts == 0 || st.Stacked == 0 {
		t.Errorf("no self-contact during the allocation test: %+v", st)
	}
}

// TestFoldFirstContactAllocs: a new cloth's first fold allocates nothing
// once its first step is made: the self-contact springs' couplings join
// the operator's matrices and the smoother's lists in room reserved when
// the cloth was built. Before, each new cloth sized them at its first
// self-contact, in a step (10 allocations in each run of bench sim's
// fold). Each measured run folds a cloth of its own, stepped once.
func TestFoldFirstContactAllocs(t *testing.T) {
	edit := func(cfg *Config) { cfg.NodesU, cfg.NodesV, cfg.Dt = 16, 16, 5*time.Millisecond }
	s := FoldScript(newTestCloth(t, edit).cfg)
	tm := s.Keys[16].T // pinched, pressed flat
	var clothes []*Cloth
	for range 2 {
		c := newTestCloth(t, edit)
		runScript(c, s, c.cfg.Dt, nil)
		clothes = append(clothes, c)
	}
	var in FingerState
	var pairs, stacked int
	allocs := testing.AllocsPerRun(1, func() {
		c := clothes[0]
		clothes = clothes[1:]
		for k := 1; time.Duration(k)*c.cfg.Dt < tm; k++ {
			at := time.Duration(k) * c.cfg.Dt
			s.Sample(at, &in)
			c.Step(at, &in)
			pairs, stacked = max(pairs, c.Stats().SelfContacts), max(stacked, c.Stats().Stacked)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations in a new cloth's fold", allocs)
	}
	if pairs == 0 || stacked == 0 {
		t.Errorf("the fold made %d self-contact pairs, %d stacked", pairs, stacked)
	}
}

// TestStackSpringsInLineSearch: the Newton iteration's line search
// evaluates the potential alone (forces.potential) and its trial points
// the forces (forces.contacts). In the pressed fold, whose pinched stack's
// springs are in the step, both carry the springs: the contacts' energy
// is the same in either, and the springs' forces are their energy's
// negative gradient (central differences along random directions), so
// that a Newton step descends on the potential the line search measures.
func TestStackSpringsInLineSearch(t *testing.T) {
	c := newTestCloth(t, func(cfg *Config) { cfg.NodesU, cfg.NodesV, cfg.Dt = 16, 16, 5*time.Millisecond })
	s := FoldScript(c.cfg)
	tm := s.Keys[16].T // pinched, pressed flat
	runScript(c, s, tm, nil)
	var in FingerState
	s.Sample(tm, &in)
	c.pads.setFingers(&in, tm+c.cfg.Dt)
	c.self.begin(c.x)
	if len(c.self.stack) == 0 {
		t.Fatal("no pinched stack in the pressed fold")
	}
	fo := &c.dyn.force
	n := len(c.x)
	y := append([]float64(nil), c.x...)
	V := make([]float64, n)
	f := make([]float64, n)
	eF := fo.contacts(y, f, true, false)
	eP, _, _ := fo.potential(y, V)
	eS := c.self.energy(y)
	if !(eS > 0) {
		t.Fatalf("the stack's springs hold no energy at the fold (%g J)", eS)
	}
	if math.Abs(eF-eP.Contact) > 1e-12*eF {
		t.Fatalf("contacts' energy %g J at the trial point, %g J in the line search's potential (the stack's %g J)", eF, eP.Contact, eS)
	}
	clear(f)
	c.self.linearize(y, f)
	rng := rand.New(rand.NewPCG(3, 2))
	d := make([]float64, n)
	yp, ym := make([]float64, n), make([]float64, n)
	const h = 1e-8 // m, against a 0.45 mm thickness
	for trial := range 5 {
		for i := range d {
			d[i] = rng.NormFloat64()
			yp[i], ym[i] = y[i]+h*d[i], y[i]-h*d[i]
		}
		fd := (c.self.energy(yp) - c.self.energy(ym)) / (2 * h)
		var fdotd, scale float64
		for i := range d {
			fdotd += f[i] * d[i]
			scale += math.Abs(f[i] * d[i])
		}
		if math.Abs(fd+fdotd) > 1e-6*scale {
			t.Errorf("direction %d: the springs' dE/dh %g, -f·d %g (scale %g)", trial, fd, -fdotd, scale)
		}
	}
}

// TestProximityReplay: the proximity pairs a step takes from the last
// separation sweep (selfContact.proximity with replay) are those the
// closest-point tests find again on the same square pairs at the same
// positions, bit for bit, in every step of the fold at 16² (5 ms), of
// the 24² fold's pinch at 1 ms (laid at 5 ms, as bench sim does), of the
// crumple at 16², and of the crumple at 32² (not under the race
// detector), whose last separation sweeps move nodes after some square
// pairs' turns, which must then be measured again.
func TestProximityReplay(t *testing.T) {
	type scene struct {
		name   string
		side   int
		dt     time.Duration
		lay    bool
		script func(Config) *Script
		until  time.Duration // end of the measured steps (0: the script's)
		again  bool          // some square pairs must be measured again
	}
	for _, sc := range []scene{
		{"fold16@5ms", 16, 5 * time.Millisecond, false, FoldScript, 0, false},
		{"fold24@1ms", 24, time.Millisecond, true, FoldScript, pick(4300*time.Millisecond, 2900*time.Millisecond), false},
		{"crumple16@5ms", 16, 5 * time.Millisecond, false, CrumpleScript, 0, false},
		{"crumple32@5ms", 32, 5 * time.Millisecond, false, CrumpleScript, 0, true},
	} {
		if sc.again && raceEnabled {
			continue
		}
		t.Run(sc.name, func(t *testing.T) {
			dt0 := sc.dt
			if sc.lay {
				dt0 = 5 * time.Millisecond
			}
			c := newTestCloth(t, func(cfg *Config) { cfg.NodesU, cfg.NodesV, cfg.Dt = sc.side, sc.side, dt0 })
			s := sc.script(c.cfg)
			var t0 time.Duration
			if sc.lay {
				runScript(c, s, FoldLanded, nil)
				if err := c.SetStep(sc.dt); err != nil {
					t.Fatal(err)
				}
				t0 = FoldLanded
			}
			end := s.Duration()
			if sc.until > 0 {
				end = sc.until
			}
			sf := c.self
			r := sf.reach()
			var want []featPair
			var in FingerState
			steps, compared, pairs, replayed, stale := 0, 0, 0, 0, 0
			for tm := t0; tm < end; tm += sc.dt {
				steps++
				if sf.replayable(c.x) {
					sf.proximity(c.x, sf.cand, r, false)
					want = append(want[:0], sf.prox...)
					sf.proximity(c.x, sf.cand, r, true)
					if !sameFeatPairs(sf.prox, want) {
						t.Fatalf("%v: the replayed proximity pairs (%d) are not the measured ones (%d)", tm, len(sf.prox), len(want))
					}
					compared++
					pairs += len(want)
					for k, sq := range sf.cand {
						if sf.settled(sq, k) {
							replayed++
						} else {
							stale++
						}
					}
				}
				s.Sample(tm, &in)
				in.T = c.t
				c.Step(c.t, &in)
			}
			t.Logf("%d steps, %d replayable: %d proximity pairs the same; square pairs replayed %d, measured again %d", steps, compared, pairs, replayed, stale)
			if compared < steps/2 || pairs == 0 || replayed == 0 {
				t.Errorf("the replay was not exercised: %d of %d steps, %d pairs, %d square pairs", compared, steps, pairs, replayed)
			}
			if sc.again && stale == 0 {
				t.Errorf("no square pair was measured again")
			}
		})
	}
}

// sameFeatPairs reports whether two lists of pairs are the same, bit for
// bit.
func sameFeatPairs(a, b []featPair) bool {
	if len(a) != len(b) {
		return false
	}
	bits := func(p *featPair) []uint64 {
		u := []uint64{math.Float64bits(p.nrm.x), math.Float64bits(p.nrm.y), math.Float64bits(p.nrm.z),
			math.Float64bits(p.dist), math.Float64bits(p.area)}
		for _, w := range p.w {
			u = append(u, math.Float64bits(w))
		}
		return u
	}
	for i := range a {
		if a[i].n != b[i].n || a[i].edge != b[i].edge || !slices.Equal(bits(&a[i]), bits(&b[i])) {
			return false
		}
	}
	return true
}

// TestSortCouplings: the counting sort orders couplings as a stable sort
// by row, then column, does: equal rows and columns keep their order.
func TestSortCouplings(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, tc := range []struct{ n, nodes int }{{0, 4}, {1, 4}, {50, 4}, {2000, 576}, {3000, 40}} {
		t.Run(strconv.Itoa(tc.n)+"/"+strconv.Itoa(tc.nodes), func(t *testing.T) {
			cpl := make([]scalarCoupling, tc.n)
			for q := range cpl {
				cpl[q] = scalarCoupling{int32(rng.IntN(tc.nodes)), int32(rng.IntN(tc.nodes)), float64(q)}
			}
			want := slices.Clone(cpl)
			slices.SortStableFunc(want, func(p, q scalarCoupling) int {
				if p.i != q.i {
					return int(p.i - q.i)
				}
				return int(p.j - q.j)
			})
			sortCouplings(cpl, make([]scalarCoupling, tc.n), make([]int32, tc.nodes+1))
			if !slices.Equal(cpl, want) {
				t.Errorf("not the stable order by row and column")
			}
		})
	}
}

// TestSquareFoldedOnItself: a grid square whose one triangle folds over
// its diagonal onto the other, so that its far vertex passes through the
// other triangle within the step, is a collision the fail-safe's
// continuous tests find. Its two triangles share nodes, so no pair of
// squares holds that vertex and that triangle: a random fold at 24² once
// ended a step so, with the triangles of the squares round it
// intersecting.
func TestSquareFoldedOnItself(t *testing.T) {
	c := newTestCloth(t, func(cfg *Config) { cfg.NodesU, cfg.NodesV = 8, 8 })
	s := c.self
	chk := tritri.NewChecker(c.Topology().Triangles)
	for _, sq := range []int32{3*7 + 3, 2*7 + 4} {
		t0, t1 := squareTris(sq)
		a, b := &c.m.tris[t0], &c.m.tris[t1]
		// v: the vertex of t0 that is not t1's; p, q: the diagonal.
		var v int32 = -1
		var diag []int32
		for _, n := range a.n {
			if n == b.n[0] || n == b.n[1] || n == b.n[2] {
				diag = append(diag, n)
			} else {
				v = n
			}
		}
		if v < 0 || len(diag) != 2 {
			t.Fatalf("square %d: triangles %v and %v do not share a diagonal", sq, a.n, b.n)
		}
		p, q := vecAt(c.x, diag[0]), vecAt(c.x, diag[1])
		u, _ := unitVec(q.sub(p))
		rel := vecAt(c.x, v).sub(p)
		along := u.scale(rel.dot(u))
		r := rel.sub(along).scale(0.5) // halfway to the diagonal: it lands inside t1
		at := func(deg float64) vec {
			th := deg * math.Pi / 180
			return p.add(along).add(r.scale(math.Cos(th))).add(u.cross(r).scale(math.Sin(th)))
		}
		x0, x1 := slices.Clone(c.x), slices.Clone(c.x)
		addVecAt(x0, v, at(170).sub(vecAt(c.x, v)))
		addVecAt(x1, v, at(190).sub(vecAt(c.x, v)))
		if n, _ := chk.Intersections(x0); n != 0 {
			t.Fatalf("square %d: the start intersects", sq)
		}
		// The vertex crosses t1's plane inside t1.
		b0, b1, b2 := vecAt(c.x, b.n[0]), vecAt(c.x, b.n[1]), vecAt(c.x, b.n[2])
		nrm := b1.sub(b0).cross(b2.sub(b0))
		if s0, s1 := at(170).sub(b0).dot(nrm), at(190).sub(b0).dot(nrm); s0*s1 >= 0 {
			t.Fatalf("square %d: the vertex does not cross the triangle's plane (%g, %g)", sq, s0, s1)
		}
		m := at(180)
		for k := range 3 {
			e0, e1 := vecAt(c.x, b.n[k]), vecAt(c.x, b.n[(k+1)%3])
			if e1.sub(e0).cross(m.sub(e0)).dot(nrm) <= 0 {
				t.Fatalf("square %d: the vertex crosses the plane outside the triangle", sq)
			}
		}
		copy(s.x0, x0)
		s.bvh.refit(s.x0, x1, 0)
		if hits := s.collisions(x1, nil, ccdTolerance*c.fab.thick, false); hits == 0 {
			t.Errorf("square %d folded through itself: no collision found", sq)
		}
	}
}

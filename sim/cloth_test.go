package sim

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

// pick returns normal, or underRace when the race detector is on.
func pick[T any](normal, underRace T) T {
	if raceEnabled {
		return underRace
	}
	return normal
}

// sec returns s seconds as a time.Duration, to the nanosecond.
func sec(s float64) time.Duration { return time.Duration(math.Round(s * float64(time.Second))) }

// newTestCloth builds a cloth from DefaultConfig edited by edit.
func newTestCloth(t testing.TB, edit func(*Config)) *Cloth {
	t.Helper()
	cfg := DefaultConfig()
	if edit != nil {
		edit(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// runScript steps c along s from 0 to its end (or until tEnd) and calls
// each after every step.
func runScript(c *Cloth, s *Script, tEnd time.Duration, each func(step int, tm time.Duration)) {
	var in FingerState
	dt := c.cfg.Dt
	n := int(math.Round(float64(tEnd) / float64(dt)))
	for i := range n {
		tm := time.Duration(i) * dt
		s.Sample(tm, &in)
		c.Step(tm, &in)
		if each != nil {
			each(i, tm+dt)
		}
	}
}

func TestStepAllocs(t *testing.T) {
	type variant struct {
		name     string
		edit     func(*Config)
		parallel bool
	}
	variants := []variant{
		{"twogrid", nil, false},
		{"twolevel", func(c *Config) { c.Preconditioner = TwoLevel }, false},
		{"matrixfree", func(c *Config) { c.Operator, c.Preconditioner = MatrixFree, BlockJacobi }, false},
		{"bdf2 sensitivity-cg", func(c *Config) { c.Scheme, c.SensitivityIterations = BDF2, 3 }, false},
		{"graded following", func(c *Config) {
			c.Refine = Refinement{Centre: [2]float64{0.20, 0.10}, Radius: RefineRadius, Ratio: RefineRatio, Follow: true}
		}, false},
		{"parallel", nil, true},
		{"hysteresis", func(c *Config) { c.Material.Hysteresis = testHysteresis() }, false},
	}
	for _, tc := range pick(variants, []variant{variants[0], variants[len(variants)-1]}) {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestCloth(t, func(cfg *Config) {
				cfg.NodesU, cfg.NodesV = 12, 12
				cfg.Dt = pick(5*time.Millisecond, 20*time.Millisecond)
				if tc.edit != nil {
					tc.edit(cfg)
				}
			})
			c.SetParallel(tc.parallel)
			s := ShowcasePinch(c.cfg.Material.Thickness)
			runScript(c, s, sec(1.5), nil) // pinched and pulling
			var in FingerState
			var out Output
			snap := NewSnapshot(c.n)
			tm := sec(1.5)
			allocs := testing.AllocsPerRun(20, func() {
				s.Sample(tm, &in)
				c.Step(tm, &in)
				c.Output(&out)
				c.SnapshotTo(&snap)
				_ = c.Stats()
				_ = out.Local[IndexFinger].Eval(in.Fingers[IndexFinger].Pos)
				tm += c.cfg.Dt
			})
			if allocs != 0 {
				t.Errorf("%v allocations per step", allocs)
			}
			if c.Stats().Probes[IndexFinger] == 0 {
				t.Errorf("no contact during the allocation test")
			}
		})
	}
}

// TestPerturbationStability is the stability test of the HAPTEX tutorial
// (Figure 10): a free square whose every vertex is displaced at random by
// up to 30 % of the mesh spacing in each direction settles, for every step
// from 0.5 ms to 100 ms, without NaN and with the total energy never more
// than 1 % above its start after the first step.
func TestPerturbationStability(t *testing.T) {
	for _, sc := range []struct {
		name  string
		s     Scheme
		alpha float64
	}{{"euler", Euler, 1}, {"bdf2", BDF2, 1}} {
		for _, dtMs := range []float64{0.5, 1, 5, 10, 40, 100} {
			c := newTestCloth(t, func(cfg *Config) {
				cfg.NodesU, cfg.NodesV = pick(12, 8), pick(12, 8)
				cfg.Pin, cfg.NoRod, cfg.NoGravity = PinNone, true, true
				cfg.NoStrainLimit = true // the integrator alone
				cfg.Dt = sec(dtMs / 1000)
				cfg.Scheme, cfg.Alpha = sc.s, sc.alpha
			})
			rng := rand.New(rand.NewPCG(uint64(dtMs*10), 7))
			for i := range c.x {
				c.x[i] += 0.3 * (c.m.gu[1] - c.m.gu[0]) * (2*rng.Float64() - 1)
			}
			e0 := c.Energy().Total()
			steps := max(20, int(sec(pick(0.25, 0.05))/c.cfg.Dt))
			var worst float64
			for i := range steps {
				c.Step(time.Duration(i)*c.cfg.Dt, nil)
				e := c.Energy().Total()
				if c.Stats().Status == StatusRecovered || math.IsNaN(e) {
					t.Fatalf("%s dt=%g ms: step %d failed (%v)", sc.name, dtMs, i, c.Stats().Status)
				}
				worst = math.Max(worst, e/e0)
			}
			eEnd := c.Energy().Total()
			t.Logf("%s dt=%5.1f ms: E0 %.3g J, max E/E0 after step 1 %.4f, end %.3g (%d steps)", sc.name, dtMs, e0, worst, eEnd/e0, steps)
			if worst > 1.01 {
				t.Errorf("%s dt=%g ms: energy rose to %.4f of its start", sc.name, dtMs, worst)
			}
			if eEnd > 0.5*e0 {
				t.Errorf("%s dt=%g ms: did not settle, energy %.3g of its start", sc.name, dtMs, eEnd/e0)
			}
		}
	}
}

// TestBadInput: non-finite or invalid finger samples are ignored (the
// finger is absent), never propagated into the cloth; a broken state is
// recovered.
func TestBadInput(t *testing.T) {
	c := newTestCloth(t, func(cfg *Config) {
		cfg.NodesU, cfg.NodesV, cfg.Dt = 10, 10, pick(5*time.Millisecond, 20*time.Millisecond)
	})
	s := ShowcasePinch(c.cfg.Material.Thickness)
	runScript(c, s, sec(1.2), nil)
	var in FingerState
	s.Sample(sec(1.2), &in)
	in.Fingers[Thumb].Pos[0] = math.NaN()
	in.Fingers[IndexFinger].Vel[2] = math.Inf(1)
	c.Step(sec(1.2), &in)
	st := c.Stats()
	if st.BadFingers != 2 || st.Probes != [NumFingers]int{} || st.Status == StatusRecovered {
		t.Errorf("NaN fingers: stats %+v", st)
	}
	var out Output
	c.Output(&out)
	for k, lm := range out.Local {
		if lm.InContact || !lm.Valid || lm.Eval(in.Fingers[IndexFinger].Pos) != ([3]float64{}) {
			t.Errorf("finger %d after a NaN sample: %+v", k, lm)
		}
	}
	if !allFinite(c.x) {
		t.Fatal("NaN reached the cloth")
	}
	// A state corrupted between steps (as by a stray write) is detected and
	// replaced by the last good one.
	good := append([]float64(nil), c.x...)
	c.x[7] = math.NaN()
	c.Step(sec(1.205), nil)
	if c.Stats().Status != StatusRecovered || c.Stats().Recoveries != 1 {
		t.Errorf("corrupt state: status %v", c.Stats().Status)
	}
	for i := range good {
		if c.x[i] != good[i] || c.v[i] != 0 {
			t.Fatalf("recovery did not restore the last good state at rest (entry %d)", i)
		}
	}
	for i := range 10 {
		c.Step(sec(1.21)+time.Duration(i)*c.cfg.Dt, nil)
	}
	if c.Stats().Status == StatusRecovered || !allFinite(c.x) {
		t.Errorf("after recovery: %v", c.Stats().Status)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.NodesU = 1 }, "mesh"},
		{func(c *Config) { c.Width = math.NaN() }, "size"},
		{func(c *Config) { c.Dt = -1 }, "time step"},
		{func(c *Config) { c.Alpha = 1.5 }, "alpha"},
		{func(c *Config) { c.Tolerance = -1 }, "tolerance"},
		{func(c *Config) { c.Operator, c.Preconditioner = MatrixFree, TwoGrid }, "needs the assembled"},
		{func(c *Config) { c.PadRadius[IndexFinger] = -1 }, "index pad radius"},
		{func(c *Config) { c.Gravity[1] = math.Inf(-1) }, "gravity"},
		{func(c *Config) { c.Material.ArealMass = 0 }, "areal mass"},
		{func(c *Config) { c.CoarseSize = 1 }, "coarse"},
	} {
		cfg := DefaultConfig()
		tc.edit(&cfg)
		_, err := New(cfg)
		if err == nil || !strings.HasPrefix(err.Error(), "sim: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New: %v, want a sim: error mentioning %q", err, tc.want)
		}
	}
}

// TestZeroConfigIsDefault checks that the zero Config is the default
// scene, that the No fields turn their settings off, and that filling in
// the defaults twice changes nothing.
func TestZeroConfigIsDefault(t *testing.T) {
	if !reflect.DeepEqual(Config{}.WithDefaults(), DefaultConfig()) {
		t.Errorf("the zero config with its defaults %+v differs from DefaultConfig %+v", Config{}.WithDefaults(), DefaultConfig())
	}
	c, err := New(Config{})
	if err != nil {
		t.Fatalf("New(Config{}): %v", err)
	}
	if !reflect.DeepEqual(c.Config(), DefaultConfig()) {
		t.Errorf("New(Config{}) built %+v, want DefaultConfig", c.Config())
	}
	if d := DefaultConfig(); d.Preconditioner != TwoGrid || d.Operator != Assembled || d.Pin != PinTopEdge || d.Scheme != Euler {
		t.Errorf("default solver %v, %v, pinning %v, scheme %v", d.Preconditioner, d.Operator, d.Pin, d.Scheme)
	}
	if o := (Config{}).Corner(); o != [3]float64{-0.15, 0, 0} {
		t.Errorf("default corner %v, want the bottom edge centred on the origin", o)
	}
	off := Config{NoRod: true, NoGravity: true, NoStrainLimit: true, RodRadius: 0.01, Gravity: [3]float64{0, 0, -1}, StrainLimit: 0.1}.WithDefaults()
	if off.RodRadius != 0 || off.Gravity != [3]float64{} || off.StrainLimit != 0 {
		t.Errorf("the No fields left rod %g, gravity %v, strain limit %g", off.RodRadius, off.Gravity, off.StrainLimit)
	}
	if again := off.WithDefaults(); !reflect.DeepEqual(again, off) {
		t.Errorf("defaults filled in twice: %+v, once: %+v", again, off)
	}
	nr, err := New(Config{NoRod: true})
	if err != nil {
		t.Fatal(err)
	}
	if tp := nr.Topology(); tp.RodRadius != 0 {
		t.Errorf("NoRod: a rod of radius %g", tp.RodRadius)
	}
}

// TestPreconditionerNames checks that a configuration records its
// preconditioner by name, and reads it back.
func TestPreconditionerNames(t *testing.T) {
	for _, p := range []Preconditioner{TwoGrid, BlockJacobi, TwoLevel} {
		cfg := Config{Preconditioner: p}
		js, err := json.Marshal(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if want := `"Preconditioner":"` + p.String() + `"`; !strings.Contains(string(js), want) {
			t.Errorf("%v recorded as %s, want %s", p, js, want)
		}
		var back Config
		if err := json.Unmarshal(js, &back); err != nil || back.Preconditioner != p {
			t.Errorf("%v read back as %v (%v)", p, back.Preconditioner, err)
		}
	}
	var c Config
	if err := json.Unmarshal([]byte(`{"Preconditioner":2}`), &c); err == nil {
		t.Error("a preconditioner recorded by number was accepted")
	}
	if err := json.Unmarshal([]byte(`{"Preconditioner":"multigrid"}`), &c); err == nil {
		t.Error("an unknown preconditioner was accepted")
	}
}

func TestTopologyAndSnapshot(t *testing.T) {
	c := newTestCloth(t, func(cfg *Config) { cfg.NodesU, cfg.NodesV = 5, 4 })
	tp := c.Topology()
	if tp.Nodes != 20 || len(tp.Triangles) != 3*2*4*3 || len(tp.UV) != 40 {
		t.Fatalf("topology sizes: %d nodes, %d indices, %d uv", tp.Nodes, len(tp.Triangles), len(tp.UV))
	}
	// Counter-clockwise seen from +z at rest: positive z of the normal.
	for i := 0; i < len(tp.Triangles); i += 3 {
		a, b, d := tp.Triangles[i], tp.Triangles[i+1], tp.Triangles[i+2]
		ab := [2]float32{tp.UV[2*b] - tp.UV[2*a], tp.UV[2*b+1] - tp.UV[2*a+1]}
		ad := [2]float32{tp.UV[2*d] - tp.UV[2*a], tp.UV[2*d+1] - tp.UV[2*a+1]}
		if ab[0]*ad[1]-ab[1]*ad[0] <= 0 {
			t.Errorf("triangle %d not counter-clockwise", i/3)
		}
	}
	if tp.RodRadius != 0.005 || math.Abs(tp.RodCenter[1]-(0.30+0.005+c.cfg.Material.Thickness/2)) > 1e-12 {
		t.Errorf("rod %g at %v", tp.RodRadius, tp.RodCenter)
	}
	var snap Snapshot
	c.SnapshotTo(&snap)
	if len(snap.Pos) != 60 {
		t.Fatalf("snapshot not sized: %d", len(snap.Pos))
	}
	for k := range 20 {
		if snap.Normal[3*k+2] < 0.999 {
			t.Errorf("flat cloth normal %d: %v", k, snap.Normal[3*k:3*k+3])
		}
	}
}

func TestScriptValidate(t *testing.T) {
	if _, err := NewScript(nil); err == nil {
		t.Error("empty script accepted")
	}
	k := Keyframe{T: time.Second}
	if _, err := NewScript([]Keyframe{k, k}); err == nil {
		t.Error("repeated time accepted")
	}
	k.Pos[IndexFinger][1] = math.NaN()
	if _, err := NewScript([]Keyframe{k}); err == nil {
		t.Error("NaN position accepted")
	}
	if _, err := PinchAndPull([3]float64{}, [3]float64{math.Inf(1), 0, 0}, 0.008, 0.0005, 0.001); err == nil {
		t.Error("infinite pull accepted")
	}
	// Minimum-jerk segments start and end at rest and reach the keyframes.
	s := ShowcasePinch(0.0005)
	var in FingerState
	for _, key := range s.Keys {
		s.Sample(key.T, &in)
		for f := range NumFingers {
			if in.Fingers[f].Pos != key.Pos[f] || in.Fingers[f].Vel != ([3]float64{}) || !in.Fingers[f].Valid {
				t.Errorf("at keyframe %v finger %d: %+v", key.T, f, in.Fingers[f])
			}
		}
	}
}

// TestStrainLimit: a cloth far too soft for its weight (its curves a
// thousandth of cotton's, so that it would hang stretched by several times
// its length) keeps every triangle's principal strain within the strain
// limit after every step, while the limiter is at work, at a short and a
// long step; its corrections never add kinetic energy.
func TestStrainLimit(t *testing.T) {
	for _, dt := range []time.Duration{5 * time.Millisecond, 50 * time.Millisecond} {
		c := newTestCloth(t, func(cfg *Config) {
			cfg.NodesU, cfg.NodesV, cfg.Dt, cfg.NoRod = 12, 12, dt, true
			cfg.Material.Weft, cfg.Material.Warp, cfg.Material.Shear = LinearCurve(0.3), LinearCurve(0.3), LinearCurve(0.03)
		})
		lim := c.cfg.StrainLimit
		var worst float64
		limited := 0
		steps := int(sec(pick(1.0, 0.3)) / dt)
		for i := range steps {
			c.Step(time.Duration(i)*dt, nil)
			if c.Stats().Status == StatusRecovered {
				t.Fatalf("dt %v, step %d: recovered", dt, i)
			}
			worst = math.Max(worst, c.MaxStrain())
			limited += c.Stats().Limited
		}
		t.Logf("dt %v: %d steps, %d corrections, largest principal strain %.4f (limit %.2f)", dt, steps, limited, worst, lim)
		if limited == 0 {
			t.Errorf("dt %v: the limiter never acted; the test needs a cloth it must hold", dt)
		}
		if worst > 1.01*lim {
			t.Errorf("dt %v: principal strain %.4f beyond the limit %.2f", dt, worst, lim)
		}
	}
	// One correction of a triangle stretched along its diagonal while its
	// vertices fly apart: the stretch comes to the limit, and the
	// kinetic energy falls.
	m := newMesh(2, 2, 0.01, 0.01, 0)
	c := &Cloth{m: m, n: 4, cfg: Config{StrainLimit: 0.3}, x: make([]float64, 12), v: make([]float64, 12)}
	c.cons.init(4)
	c.fab.mass = []float64{1, 2, 3, 4}
	for k := range 4 {
		u, v := m.uv[2*k], m.uv[2*k+1]
		// Shear along the diagonal (1, -1), which no edge of the first
		// triangle measures.
		c.x[3*k], c.x[3*k+1] = u+2*(u-v), v-2*(u-v)
		c.v[3*k], c.v[3*k+1], c.v[3*k+2] = u-v, v-u, 0.1*float64(k)
	}
	ke := func() (e float64) {
		for k := range 4 {
			e += 0.5 * c.fab.mass[k] * dot3(at3(c.v, int32(k)), at3(c.v, int32(k)))
		}
		return e
	}
	t0 := &m.tris[0]
	before, k0 := principalStrain(t0, c.x), ke()
	if !c.limitTri(t0, 1.3, 1.3) {
		t.Fatalf("a triangle at principal strain %.3f was not corrected", before)
	}
	after, k1 := principalStrain(t0, c.x), ke()
	t.Logf("one correction: principal strain %.4f → %.6f, kinetic energy %.4g → %.4g J", before, after, k0, k1)
	if math.Abs(after-0.3) > 1e-9 || !(k1 < k0) {
		t.Errorf("one correction: strain %.6f (want 0.3), kinetic energy %g → %g", after, k0, k1)
	}
}

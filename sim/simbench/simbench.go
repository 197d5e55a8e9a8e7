// Package simbench measures the cloth simulation on two scenes of a
// 30 cm × 30 cm cotton square hanging from its top edge: the showcase,
// pinched between two 8 mm pads and pulled 3 cm away and 2 cm down on a
// scripted path (sim.ShowcasePinch), and the fold, a corner carried
// across onto the cloth and the two layers pinched (sim.FoldScript), with
// self-collision on and off, at several mesh resolutions and step lengths.
// A fold at a step shorter than FoldLayStep is laid at FoldLayStep and
// measured from the flap's landing on.
//
// It owns the timing loop and its statistics: per-step wall time
// percentiles, CG iterations, self-contact pairs and heap allocations per
// step, on one locked OS thread, and an untimed pass of the exact
// triangle-triangle oracle (sim/tritri) over the same steps. It never changes the simulation; everything it measures is
// package sim's Step. It reads the wall clock, which package sim never does.
package simbench

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/haptex/haptex/internal/latency"
	"github.com/haptex/haptex/sim"
	"github.com/haptex/haptex/sim/tritri"
)

// Scene is one measured configuration.
type Scene struct {
	// Script is the handling: "showcase" (the default) or "fold".
	Script string
	Side   int     // nodes per side
	DtMs   float64 // simulation step [ms]
	// SelfCollisionOff turns the cloth's contact with itself off
	// (sim.Config.NoSelfCollision).
	SelfCollisionOff bool
	// GoalMs is the step-time goal the README sets for the scene [ms] and
	// GoalPercentile the percentile it applies to ("p99", "p999"); both are
	// reported, not enforced.
	GoalMs         float64
	GoalPercentile string
}

// DefaultScenes are the README's: the showcase with self-collision off at
// 24² and 1 ms (p99.9 ≤ 1 ms), 32² at 5 ms (p99 ≤ 2 ms) and 64² at 10 ms
// (p99 ≤ 10 ms) and with it on (as a session runs it), then the fold at
// the same sizes with self-collision on (p99.9 ≤ 1.2 ms, p99 ≤ 2.5 ms,
// p99 ≤ 12 ms) and off beside it.
func DefaultScenes() []Scene {
	var sc []Scene
	for _, g := range []struct {
		script string
		off    bool
		goals  [3]float64
	}{
		{"showcase", true, [3]float64{1, 2, 10}},
		{"showcase", false, [3]float64{}},
		{"fold", false, [3]float64{1.2, 2.5, 12}},
		{"fold", true, [3]float64{}},
	} {
		sc = append(sc,
			Scene{Script: g.script, SelfCollisionOff: g.off, Side: 24, DtMs: 1, GoalMs: g.goals[0], GoalPercentile: "p999"},
			Scene{Script: g.script, SelfCollisionOff: g.off, Side: 32, DtMs: 5, GoalMs: g.goals[1], GoalPercentile: "p99"},
			Scene{Script: g.script, SelfCollisionOff: g.off, Side: 64, DtMs: 10, GoalMs: g.goals[2], GoalPercentile: "p99"},
		)
	}
	return sc
}

// FoldLayStep is the step a fold is laid at when its scene asks for a
// shorter one. At 1 ms the thumb does not carry the flap over (it is held
// only by the pad's push, which the 5 ms step's linearised contact
// overstates: docs/cloth-contact.md), so a fold stepped at 1 ms
// throughout lays no cloth on itself and its figure would be the step's
// without self-contact. Such a scene's cloth steps every FoldLayStep,
// unmeasured, until sim.FoldLanded, then at the scene's step
// (sim.Cloth.SetStep) through the pinch of both layers, its press and
// slide and the release, which is what is measured.
const FoldLayStep = 5 * time.Millisecond

// Options configure Bench. Zero values select the defaults.
type Options struct {
	Scenes []Scene // default DefaultScenes()
	// MinSteps is the least number of measured steps per scene; the script
	// (3.6 s of simulated time for the showcase, on the same cloth; 5.5 s
	// for the fold, each time on a new cloth) is repeated until it is
	// reached. Default 2000.
	MinSteps int
	// Edit, when set, changes each scene's sim.Config before the cloth is
	// built (to compare solver settings on the same scenes).
	Edit func(*sim.Config) `json:"-"`
}

// Iterations summarises counts per step (CG iterations, self-contact
// pairs).
type Iterations struct {
	P50 int `json:"p50"`
	Max int `json:"max"`
}

// SceneResult is one scene's measurement.
type SceneResult struct {
	Script        string              `json:"script"`
	SelfCollision bool                `json:"self_collision"`
	Side          int                 `json:"side"` // nodes per side
	Triangles     int                 `json:"triangles"`
	DtMs          float64             `json:"dt_ms"`
	Steps         int                 `json:"steps"`
	StepMs        latency.Percentiles `json:"step_ms"`
	CGIters       Iterations          `json:"cg_iters"`
	AllocsPerStep float64             `json:"allocs_per_step"` // heap allocations of the whole process per step
	MaxIterSteps  int                 `json:"max_iter_steps"`  // steps whose CG or Newton iteration hit its cap
	// NewtonSteps counts the steps that took more than one Newton
	// iteration, Backtracks the line searches' shortened trial points
	// over all steps (sim.Stats).
	NewtonSteps int                 `json:"newton_steps"`
	Backtracks  int                 `json:"backtracks"`
	Recoveries  uint64              `json:"recoveries"`
	StepMsQuiet latency.Percentiles `json:"step_ms_quiet_estimate"` // StepMs / Calibration.LoadFactor
	// LaidAtMs is the step the fold was laid at [ms] and FromS when the
	// measured steps begin [s] (FoldLayStep; zero when the whole script is
	// measured at DtMs).
	LaidAtMs float64 `json:"laid_at_ms,omitempty"`
	FromS    float64 `json:"from_s,omitempty"`
	// SelfContacts counts the self-contact pairs (sim.Stats.SelfContacts)
	// per measured step; Collisions the collisions the fail-safe caught
	// over them all.
	SelfContacts Iterations `json:"self_contacts"`
	Collisions   int        `json:"collisions"`
	// Penetrations is how many pairs of triangles that share no node
	// intersect, summed over every step of one run of the script (the
	// exact test of sim/tritri, untimed, on its own cloth: the step is
	// deterministic, so every timed run goes through the same states);
	// PenetrationSteps how many steps had any.
	Penetrations     int `json:"penetrations"`
	PenetrationSteps int `json:"penetration_steps"`
	// Calibration is the kernel timed between this scene's steps.
	Calibration Calibration `json:"calibration"`
	// StepCPUMs is the CPU time of the stepping thread per step [ms] (Linux;
	// zero elsewhere): unlike StepMs it leaves out the time the thread
	// waited for a core, the bulk of the tail on a shared machine, but
	// keeps the slowdown other processes cause through shared caches.
	StepCPUMs      latency.Percentiles `json:"step_cpu_ms"`
	GoalMs         float64             `json:"goal_ms"`
	GoalPercentile string              `json:"goal_percentile"`
	GoalMet        bool                `json:"goal_met"`
}

// Result is what Bench reports; `haptex bench sim -json` prints it.
type Result struct {
	Bench       string        `json:"bench"`
	Go          string        `json:"go"`
	CPUs        int           `json:"cpus"`
	Scenes      []SceneResult `json:"scenes"`
	Calibration Calibration   `json:"calibration"`
}

// Calibration times a reference kernel in the same run, so that figures
// taken on a loaded machine can be compared with a quiet one: the 3×3-block
// sparse product of a 32 × 32 grid cut along one diagonal (7 blocks per
// row), which took QuietUs on the development host when it was quiet (the
// README compares step times with it). The kernel runs interleaved with the
// scene's steps (a warm batch every calibEvery steps), so it sees the load the
// steps see; LoadFactor is its median time over QuietUs, at least 1, and
// StepMsQuiet divides by it. It is an estimate for reading loaded runs,
// not a measurement: the kernel and the step do not slow down alike.
type Calibration struct {
	Kernel     string              `json:"kernel"`
	QuietUs    float64             `json:"quiet_us"`
	Us         latency.Percentiles `json:"us"`
	LoadFactor float64             `json:"load_factor"`
}

const refKernelQuietUs = 14.5

// Bench runs the scenes one after the other on the calling goroutine,
// locked to its OS thread, and returns their statistics. It takes about
// (steps × step time) per scene: around a minute on a quiet machine.
func Bench(opt Options) (Result, error) {
	if opt.Scenes == nil {
		opt.Scenes = DefaultScenes()
	}
	if opt.MinSteps == 0 {
		opt.MinSteps = 2000
	}
	if opt.MinSteps < 1 {
		return Result{}, fmt.Errorf("simbench: min steps %d, want >= 1", opt.MinSteps)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	res := Result{Bench: "sim", Go: runtime.Version(), CPUs: runtime.NumCPU()}
	k := newKernel()
	var all []float64
	for _, sc := range opt.Scenes {
		r, us, err := runScene(sc, opt, k)
		if err != nil {
			return res, err
		}
		res.Scenes = append(res.Scenes, r)
		all = append(all, us...)
	}
	if len(all) > 0 {
		res.Calibration = calibration(all)
	}
	return res, nil
}

const (
	// calibEvery is how many steps apart the kernel runs between steps:
	// prime, so that over repeated scripts the untimed step after it (whose
	// caches the kernel has cooled) falls on every phase of the script.
	calibEvery = 97
	// calibWarm runs of the kernel bring its data back into the caches the
	// step has taken (QuietUs was measured warm, 2000 runs in a row), then
	// calibReps runs are timed.
	calibWarm = 10
	calibReps = 20
)

// calibrateWarm runs the kernel calibWarm times untimed and calibReps
// times timed, appending their times to us.
func calibrateWarm(k *kernel, us []float64) []float64 {
	for range calibWarm {
		k.time()
	}
	for range calibReps {
		us = append(us, k.time())
	}
	return us
}

// kernel is the calibration kernel (see Calibration) with its data.
type kernel struct {
	rowPtr, col []int32
	val         [][3][3]float64
	x, y        []float64
}

func newKernel() *kernel {
	const g = 32
	n := g * g
	k := &kernel{rowPtr: []int32{0}}
	for j := range g {
		for i := range g {
			for _, d := range [][2]int{{-1, -1}, {0, -1}, {-1, 0}, {0, 0}, {1, 0}, {0, 1}, {1, 1}} {
				ii, jj := i+d[0], j+d[1]
				if ii >= 0 && jj >= 0 && ii < g && jj < g {
					k.col = append(k.col, int32(jj*g+ii))
				}
			}
			k.rowPtr = append(k.rowPtr, int32(len(k.col)))
		}
	}
	k.val = make([][3][3]float64, len(k.col))
	for q := range k.val {
		for a := range 3 {
			for b := range 3 {
				k.val[q][a][b] = float64((q+3*a+b)%7) - 3
			}
		}
	}
	k.x, k.y = make([]float64, 3*n), make([]float64, 3*n)
	for i := range k.x {
		k.x[i] = float64(i%5) - 2
	}
	return k
}

// time runs the kernel once and returns its wall time [µs].
func (k *kernel) time() float64 {
	start := time.Now()
	x, y, val := k.x, k.y, k.val
	for i := range len(k.rowPtr) - 1 {
		var a0, a1, a2 float64
		for q := k.rowPtr[i]; q < k.rowPtr[i+1]; q++ {
			j := 3 * int(k.col[q])
			b := &val[q]
			a0 += b[0][0]*x[j] + b[0][1]*x[j+1] + b[0][2]*x[j+2]
			a1 += b[1][0]*x[j] + b[1][1]*x[j+1] + b[1][2]*x[j+2]
			a2 += b[2][0]*x[j] + b[2][1]*x[j+1] + b[2][2]*x[j+2]
		}
		y[3*i], y[3*i+1], y[3*i+2] = a0, a1, a2
	}
	return time.Since(start).Seconds() * 1e6
}

// calibration summarises kernel times [µs] (sorted in place).
func calibration(us []float64) Calibration {
	c := Calibration{
		Kernel:  "3x3-block SpMV, 32x32 grid, 7 blocks/row",
		QuietUs: refKernelQuietUs,
		Us:      latency.Of(us),
	}
	c.LoadFactor = max(1, c.Us.P50/refKernelQuietUs)
	return c
}

// sceneScript returns the scene's handling script, whether each run of it
// starts on a new cloth (the fold lays the cloth on itself and lets go, so
// a second run on the same cloth would start from a crumpled cloth) and
// until when a new cloth is laid at FoldLayStep (zero: not at all).
func sceneScript(name string, cfg sim.Config) (*sim.Script, bool, time.Duration, error) {
	switch name {
	case "", "showcase":
		return sim.ShowcasePinch(cfg.Material.Thickness), false, 0, nil
	case "fold":
		var lay time.Duration
		if cfg.Dt < FoldLayStep {
			lay = sim.FoldLanded
		}
		return sim.FoldScript(cfg), true, lay, nil
	}
	return nil, false, 0, fmt.Errorf("simbench: unknown script %q (showcase, fold)", name)
}

// newCloth builds a cloth of configuration cfg and, if lay is positive,
// steps it along script every FoldLayStep until lay, then sets it to
// cfg.Dt; each calls each after every step of the laying.
func newCloth(cfg sim.Config, script *sim.Script, lay time.Duration, each func(*sim.Cloth)) (*sim.Cloth, error) {
	if lay <= 0 {
		return sim.New(cfg)
	}
	dt := cfg.Dt
	cfg.Dt = FoldLayStep
	c, err := sim.New(cfg)
	if err != nil {
		return nil, err
	}
	var in sim.FingerState
	for t := time.Duration(0); t < lay; t += FoldLayStep {
		script.Sample(t, &in)
		c.Step(t, &in)
		if each != nil {
			each(c)
		}
	}
	return c, c.SetStep(dt)
}

// penetrations runs the script once on a new cloth (laid as newCloth
// does) and counts, after every step, the pairs of triangles that share
// no node and intersect (exact).
func penetrations(cfg sim.Config, script *sim.Script, lay time.Duration) (pairs, steps int, err error) {
	var chk *tritri.Checker
	count := func(c *sim.Cloth) {
		if chk == nil {
			chk = tritri.NewChecker(c.Topology().Triangles)
		}
		if k, _ := chk.Intersections(c.Positions()); k > 0 {
			pairs += k
			steps++
		}
	}
	c, err := newCloth(cfg, script, lay, count)
	if err != nil {
		return 0, 0, err
	}
	var in sim.FingerState
	n := int(math.Round(float64(script.Duration()-lay) / float64(cfg.Dt)))
	for i := range n {
		t := lay + time.Duration(i)*cfg.Dt
		script.Sample(t, &in)
		c.Step(t, &in)
		count(c)
	}
	return pairs, steps, nil
}

func runScene(sc Scene, opt Options, k *kernel) (SceneResult, []float64, error) {
	cfg := sim.DefaultConfig()
	cfg.NodesU, cfg.NodesV = sc.Side, sc.Side
	cfg.Dt = time.Duration(math.Round(sc.DtMs * float64(time.Millisecond)))
	cfg.NoSelfCollision = sc.SelfCollisionOff
	if opt.Edit != nil {
		opt.Edit(&cfg)
	}
	script, fresh, lay, err := sceneScript(sc.Script, cfg)
	if err != nil {
		return SceneResult{}, nil, err
	}
	c, err := newCloth(cfg, script, lay, nil)
	if err != nil {
		return SceneResult{}, nil, fmt.Errorf("simbench: scene %d² at %g ms: %w", sc.Side, sc.DtMs, err)
	}
	name := sc.Script
	if name == "" {
		name = "showcase"
	}
	r := SceneResult{Script: name, SelfCollision: !cfg.NoSelfCollision, Side: sc.Side,
		Triangles: len(c.Topology().Triangles) / 3, DtMs: sc.DtMs,
		GoalMs: sc.GoalMs, GoalPercentile: sc.GoalPercentile}
	if lay > 0 {
		r.LaidAtMs, r.FromS = float64(FoldLayStep)/float64(time.Millisecond), lay.Seconds()
	}
	if r.Penetrations, r.PenetrationSteps, err = penetrations(cfg, script, lay); err != nil {
		return SceneResult{}, nil, fmt.Errorf("simbench: scene %d² at %g ms: %w", sc.Side, sc.DtMs, err)
	}
	perRun := int(math.Round(float64(script.Duration()-lay) / float64(cfg.Dt)))
	// One step in calibEvery is not timed, nor the first of a new cloth.
	want := (opt.MinSteps*calibEvery+calibEvery-2)/(calibEvery-1) + 1
	runs := (want + perRun - 1) / perRun
	steps := runs * perRun
	durs := make([]float64, 0, steps)
	cpus := make([]float64, 0, steps)
	iters := make([]int, 0, steps)
	selfs := make([]int, 0, steps)
	us := make([]float64, 0, calibReps*(steps/calibEvery+1))
	var in sim.FingerState
	var out sim.Output
	var mallocs, stepped uint64
	var n int
	for run := range runs {
		if run > 0 && fresh {
			if c, err = newCloth(cfg, script, lay, nil); err != nil {
				return SceneResult{}, nil, err
			}
		}
		first := 0
		t := c.Time()
		if run == 0 || fresh {
			// One unmeasured step builds every lazily sized buffer.
			script.Sample(lay, &in)
			in.T = t
			c.Step(t, &in)
			t += cfg.Dt
			first = 1
		}
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := first; i < perRun; i++ {
			script.Sample(lay+time.Duration(i)*cfg.Dt, &in)
			in.T = t // the sample is for the step's start on the cloth's clock
			cpu0, cpuOK := latency.ThreadCPU()
			start := time.Now()
			c.Step(t, &in)
			d := time.Since(start)
			cpu1, ok := latency.ThreadCPU()
			c.Output(&out)
			t += cfg.Dt
			st := c.Stats()
			if st.Status == sim.StatusMaxIter {
				r.MaxIterSteps++
			}
			if st.Newton > 1 {
				r.NewtonSteps++
			}
			r.Backtracks += st.Backtracks
			if n++; n%calibEvery == 1 && n > 1 {
				continue // after the kernel: not timed
			}
			if ok && cpuOK {
				cpus = append(cpus, float64(cpu1-cpu0)/float64(time.Millisecond))
			}
			durs = append(durs, d.Seconds()*1000)
			iters = append(iters, st.CGIters)
			selfs = append(selfs, st.SelfContacts)
			r.Collisions += st.Collisions
			if n%calibEvery == 0 {
				us = calibrateWarm(k, us)
			}
		}
		runtime.ReadMemStats(&after)
		mallocs += after.Mallocs - before.Mallocs
		stepped += uint64(perRun - first)
		if fresh || run == runs-1 {
			r.Recoveries += c.Stats().Recoveries
		}
	}
	r.Steps = len(durs)
	r.AllocsPerStep = float64(mallocs) / float64(stepped)
	slices.Sort(iters)
	slices.Sort(selfs)
	r.SelfContacts = Iterations{P50: selfs[len(selfs)/2], Max: selfs[len(selfs)-1]}
	if len(cpus) == len(durs) {
		r.StepCPUMs = latency.Of(cpus)
	}
	r.StepMs = latency.Of(durs)
	if len(us) > 0 {
		r.Calibration = calibration(slices.Clone(us))
		f := r.Calibration.LoadFactor
		s := &r.StepMs
		r.StepMsQuiet = latency.Percentiles{P50: s.P50 / f, P99: s.P99 / f, P999: s.P999 / f, Max: s.Max / f}
	}
	r.CGIters = Iterations{P50: iters[len(iters)/2], Max: iters[len(iters)-1]}
	goal := r.StepMs.P99
	if sc.GoalPercentile == "p999" {
		goal = r.StepMs.P999
	}
	r.GoalMet = sc.GoalMs > 0 && goal <= sc.GoalMs
	return r, us, nil
}

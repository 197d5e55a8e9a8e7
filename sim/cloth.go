package sim

import (
	"fmt"
	"math"
	"time"
)

// Status is the outcome of a step.
type Status int

const (
	StatusOK        Status = iota // the CG converged to the tolerance
	StatusMaxIter                 // a CG hit its cap, or a free step's Newton iteration MaxNewton; the step used its last iterate (see Stats.Residual)
	StatusRecovered               // the step failed (non-finite state or a broken solve); the cloth was restored to its previous shape at rest
)

func (s Status) String() string {
	switch s {
	case StatusOK:
		return "ok"
	case StatusMaxIter:
		return "max-iterations"
	case StatusRecovered:
		return "recovered"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Energy is the cloth's mechanical energy [J]. Gravity's potential is
// relative to the rest shape.
type Energy struct {
	Kinetic, Tensile, Bending, Gravity, Contact float64
}

// Total returns the sum of the parts.
func (e Energy) Total() float64 { return e.Kinetic + e.Tensile + e.Bending + e.Gravity + e.Contact }

// Stats describes the last step.
type Stats struct {
	Step       uint64
	T          time.Duration // simulation time after the step
	Status     Status
	CGIters    int     // CG iterations of the step's solves
	Residual   float64 // their largest relative residual
	Newton     int     // Newton iterations of the step (see integrator)
	Backtracks int     // halvings of its line searches
	SensIters  int     // iterations of the local-model solves, all fingers
	Energy     Energy  // at the start of the step
	MaxStrain  float64 // largest principal strain of any triangle at the start of the step
	Probes     [NumFingers]int
	Limited    int  // edges the strain limiter shortened
	Regraded   bool // the mesh was regraded before the step (Refinement.Follow)
	// Friction is the work the cloth's deformation did against its
	// internal friction over the step [J] (Material.Hysteresis): what the
	// friction dissipated, plus what its elements store (they give that
	// back on the way back). Over a cycle that returns the cloth to its
	// shape, the sum is what the friction dissipated.
	Friction   float64
	BadFingers int // finger samples ignored because they were not finite
	// Dropped counts contact probes left out because a finger's contact
	// list was full (sized for a pad sunk to its equator; 0 in practice).
	Dropped    int
	Recoveries uint64
	// Self-collision (selfcontact.go): the pairs of nearby features at
	// the step's start, of which Stacked in a pinch, the corrections the
	// response made, the collisions the fail-safe found and the impact
	// zones it formed; Frozen when it kept the cloth's start-of-step shape.
	SelfContacts, Stacked, SelfCorrections, Collisions, Zones int
	Frozen                                                    bool
}

// Cloth is a simulated piece of fabric. It is not safe for concurrent use:
// one loop steps it and reads its outputs.
type Cloth struct {
	cfg    Config     // with its defaults
	dt     float64    // cfg.Dt [s], for the numerics
	corner [3]float64 // world position of the (u, v) = (0, 0) corner [m]
	m      *mesh
	n      int // nodes
	fab    fabric
	it     *integrator
	dyn    clothDynamics
	x, v   []float64
	// xGood, vGood hold the state after the last successful step: a failed
	// step, or a state corrupted between steps, returns there.
	xGood, vGood []float64

	cons     constraints
	pads     padContact   // the finger pads' contact model
	rod      rod          // the stand's rod
	self     *selfContact // the cloth's contact with itself; nil when off
	coupling coupling     // what a step publishes for the haptics and tactile loops
	out      Output
	stats    Stats
	t        time.Duration
	steps    uint64
	normals  []float64 // SnapshotTo's vertex normals

	bias    float64 // the weft's angle from world x (tests only)
	grading uint64  // counts regrades (Snapshot.Grading)
	team    *team   // splits the step's jobs: nil unless SetParallel
	helper  *team   // the team SetParallel turns on; made with the cloth, so Assist never races SetParallel

	grips map[Edge]*grip // edges held by Grip
	gripF []float64      // GripForce's forces
}

// SetParallel makes each step offer half of its element pass (the forces
// and the assembly of the system matrix) and half the rows of each matrix
// product to another goroutine that calls Assist while the step runs; a
// half nobody claims in time the step runs itself. false returns to one
// goroutine. The result is bit for bit the same either way: the pass is
// split the same way (splitTris), and rows are independent. The solve
// stays on the stepping goroutine. Call it between steps. The lockstep
// runner uses it, lending its own goroutine between and after the other
// loops' ticks; a real-time run does not, as the 1 kHz loop holds the
// second core.
func (c *Cloth) SetParallel(on bool) {
	c.team = nil
	if on {
		c.team = c.helper
	}
}

// Assist runs the half of a split job that a step in flight on another
// goroutine offers, if there is one nobody claimed, and reports whether it
// ran one. It is safe to call at any time from one goroutine other than
// the stepping one; it returns false at once when there is nothing to do
// or SetParallel is off. Call it in a loop while waiting for a step.
func (c *Cloth) Assist() bool { return c.helper.assist() }

// New builds a cloth at rest, flat, per cfg.
func New(cfg Config) (*Cloth, error) { return newCloth(cfg, 0) }

// newCloth builds a cloth whose weft makes the angle bias with the grid's
// first axis (world x); tests cut bias samples with it.
func newCloth(cfg Config, bias float64) (*Cloth, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	c := &Cloth{cfg: cfg, dt: cfg.Dt.Seconds(), corner: cfg.Corner(), bias: bias, helper: new(team)}
	c.m = gradedMesh(&cfg, cfg.Refine, bias)
	c.n = c.m.nodes()
	n3 := 3 * c.n
	c.x, c.v = make([]float64, n3), make([]float64, n3)
	c.xGood, c.vGood = make([]float64, n3), make([]float64, n3)
	c.flat(c.x)
	c.normals = make([]float64, n3)
	c.cons.init(c.n)
	if cfg.Pin == PinTopEdge {
		for j := range max(cfg.PinLines, 1) {
			for i := range cfg.NodesU {
				c.pin(int32((cfg.NodesV-1-j)*cfg.NodesU + i))
			}
		}
	}
	c.fab.init(&cfg.Material, c.m)
	c.it = newIntegrator(c.fab.mass, 3, cfg.Scheme, cfg.Alpha, c.dt, cfg.Tolerance, 0, cfg.MaxIterations, cfg.NewtonTolerance, cfg.MaxNewton)
	c.it.contactNewton = cfg.ContactNewton
	c.stepScales()
	if err := c.it.validate(); err != nil {
		return nil, err
	}
	copy(c.xGood, c.x)
	c.dyn.init(c)
	c.pads.init(c)
	c.coupling.init(c)
	c.rod.init(c)
	if !cfg.NoSelfCollision {
		c.self = new(selfContact)
		c.self.init(c)
	}
	for k := range c.out.Local {
		c.out.Local[k].Valid = true
	}
	return c, nil
}

// flat writes the flat rest shape of the mesh's grid into x: the grid
// coordinates from the corner, in the plane z = corner[2].
func (c *Cloth) flat(x []float64) {
	for j, v := range c.m.gv {
		for i, u := range c.m.gu {
			k := j*c.m.nu + i
			x[3*k], x[3*k+1], x[3*k+2] = c.corner[0]+u, c.corner[1]+v, c.corner[2]
		}
	}
}

// pin clamps node k at its current position.
func (c *Cloth) pin(k int32) { c.cons.pin(k, c.x) }

// Config returns the configuration the cloth was built with (its Material
// is the one last set).
func (c *Cloth) Config() Config {
	cfg := c.cfg
	cfg.Material = c.fab.cur.m
	return cfg
}

// Topology returns the mesh's fixed render data (allocated; call once).
// Its UV are those of the mesh as built; a following grading changes them
// (Snapshot.UV).
func (c *Cloth) Topology() Topology {
	tp := Topology{Nodes: c.n, WidthU: c.cfg.Width, HeightV: c.cfg.Height,
		Triangles: make([]uint32, 0, 3*len(c.m.tris)), UV: make([]float32, 2*c.n)}
	for _, t := range c.m.tris {
		tp.Triangles = append(tp.Triangles, uint32(t.n[0]), uint32(t.n[1]), uint32(t.n[2]))
	}
	for i, u := range c.m.uv {
		tp.UV[i] = float32(u)
	}
	if c.rod.enabled {
		tp.RodRadius = c.rod.radius
		tp.RodCenter = [3]float64{c.corner[0] + c.cfg.Width/2, c.rod.y, c.rod.z}
	}
	return tp
}

// SnapshotTo writes the current shape into dst, reallocating dst's slices
// only if they do not fit the mesh.
func (c *Cloth) SnapshotTo(dst *Snapshot) {
	if len(dst.Pos) != 3*c.n || len(dst.Normal) != 3*c.n || len(dst.UV) != 2*c.n {
		*dst = NewSnapshot(c.n)
	}
	dst.T, dst.Step, dst.Grading = c.t, c.steps, c.grading
	for i, u := range c.m.uv {
		dst.UV[i] = float32(u)
	}
	for i, p := range c.x {
		dst.Pos[i] = float32(p)
	}
	nrm := c.normals
	clear(nrm)
	for _, t := range c.m.tris {
		a, b, d := at3(c.x, t.n[0]), at3(c.x, t.n[1]), at3(c.x, t.n[2])
		fn := cross3(sub3(b, a), sub3(d, a)) // length = twice the area: area weighting
		for _, k := range t.n {
			addAt3(nrm, k, 1, fn)
		}
	}
	for k := range c.n {
		u, l := unit(at3(nrm, int32(k)))
		if l == 0 {
			u = [3]float64{0, 0, 1}
		}
		dst.Normal[3*k], dst.Normal[3*k+1], dst.Normal[3*k+2] = float32(u[0]), float32(u[1]), float32(u[2])
	}
}

// Output writes what the last step publishes into dst.
func (c *Cloth) Output(dst *Output) { *dst = c.out }

// Stats returns the statistics of the last step.
func (c *Cloth) Stats() Stats { return c.stats }

// SetStep changes the step to dt between two steps, for a run that goes
// on at another step from the state it has reached (simbench lays the
// fold at 5 ms and pinches it at 1 ms, where the pad does not carry the
// flap over). What the step length enters is recomputed as New computes
// it: the integrator's δt, its residual floor and its energy scales. A
// BDF-2 cloth's next step is an Euler step, as its first is, since the
// two-step formula holds for equal steps only.
func (c *Cloth) SetStep(dt time.Duration) error {
	if dt <= 0 {
		return fmt.Errorf("sim: time step %v, want > 0", dt)
	}
	c.cfg.Dt, c.dt = dt, dt.Seconds()
	c.stepScales()
	c.it.forget()
	return nil
}

// stepScales sets what the step length c.dt enters in the integrator:
// its δt; the CG's residual floor, a thousandth of the cloth's weight
// impulse per step, so that a cloth at rest does not chase round-off;
// Φ's floor, the energy of that residual as a velocity change of the
// whole cloth; and a step's energy scale, the cloth falling freely for
// one step from rest (the Newton iteration ends when what is left of a
// step is NewtonTolerance of this or less: see integrator).
func (c *Cloth) stepScales() {
	var mg float64
	for _, a := range c.m.area {
		mg += a * c.cfg.Material.ArealMass
	}
	g := math.Max(norm3(c.cfg.Gravity), 1)
	mg *= g
	mass := mg / g
	c.it.dt = c.dt
	c.it.floor = 1e-3 * mg * c.dt
	c.it.eFloor = 0.5 * c.it.floor * c.it.floor / mass
	c.it.eStep = 0.5 * (mg * c.dt) * (mg * c.dt) / mass
}

// Time returns the simulation time of the current state.
func (c *Cloth) Time() time.Duration { return c.t }

// Positions returns the node positions (3 per node, world frame). The slice
// is the cloth's own: read it between steps, do not keep or modify it.
func (c *Cloth) Positions() []float64 { return c.x }

// Velocities returns the node velocities, like Positions.
func (c *Cloth) Velocities() []float64 { return c.v }

// Step advances the cloth by one step of Config.Dt, from time t to t+dt,
// with the fingers of in: each valid finger's pad is placed at its sample
// extrapolated to t+dt with its velocity (at most MaxExtrapolation ahead).
// A finger that is not Valid or not finite is absent for this step. Step
// allocates nothing. If the step fails (a non-finite state or a broken
// solve) the cloth returns to its previous shape at rest, Stats.Status says
// StatusRecovered and the local models publish no force.
func (c *Cloth) Step(t time.Duration, in *FingerState) {
	c.stats = Stats{Recoveries: c.stats.Recoveries}
	if c.cfg.Refine.Follow {
		c.stats.Regraded = c.follow(in)
	}
	c.pads.setFingers(in, t+c.cfg.Dt)
	c.it.eWork = c.pads.work(&c.out)
	c.fab.advance(c.dt)
	if c.self != nil {
		c.self.begin(c.x)
	}
	res := c.it.step(&c.dyn, c.x, c.v)
	ok := !res.broke && allFinite(c.x) && allFinite(c.v)
	// At the last trial point (the usual end of a step), its pass
	// measured every triangle's strain and bounded the rows for the
	// contact search.
	atTrial := ok && c.dyn.atTrial(c.x, c.v)
	if ok && c.cfg.StrainLimit > 0 && !(atTrial && c.dyn.tStrain <= c.cfg.StrainLimit) {
		if c.stats.Limited = c.limitStrain(); c.stats.Limited > 0 {
			atTrial = false
		}
	}
	if ok && c.self != nil {
		// The response and the fail-safe act on the solve's result,
		// outside the potential its line search minimised: they are
		// projections onto states free of intersection, not forces with
		// an energy. Their velocity changes take kinetic energy away: an
		// approach stopped, friction at most the slip it removes, and an
		// impact zone moving at its nodes' mean displacement over dt (for
		// backward Euler, their mean velocity, which carries no more
		// kinetic energy than they did). Their moves of positions, up to
		// a thickness, can store elastic energy that the step's guarantee
		// (integrator) does not cover.
		s := c.self
		c.stats.SelfCorrections = s.respond(c.x, c.v)
		s.failsafe(c.x, c.v)
		s.settle(c.x)
		c.stats.SelfContacts, c.stats.Stacked = s.nProx, s.nStack
		c.stats.Collisions, c.stats.Zones, c.stats.Frozen = s.nCCD, s.nZones, s.frozen
		// The response and the fail-safe move nodes after the solve: the
		// trial point's pass (the contact search's bounds) holds only for
		// a state they left alone.
		atTrial = atTrial && c.dyn.atTrial(c.x, c.v)
	}
	if ok {
		c.it.commit(c.x, c.v)
		c.stats.Friction = c.dyn.force.commitHyst(c.x, atTrial)
		copy(c.xGood, c.x)
		copy(c.vGood, c.v)
	} else {
		copy(c.x, c.xGood)
		clear(c.v)
		c.it.reset()
		c.pads.reset()
		if c.self != nil {
			c.self.fresh = false
		}
		c.stats.Recoveries++
	}
	c.t = t + c.cfg.Dt
	c.steps++
	c.stats.Step, c.stats.T = c.steps, c.t
	c.stats.CGIters, c.stats.Residual = res.iters, res.residual
	c.stats.Newton, c.stats.Backtracks = c.it.newton, c.it.backtracks
	switch {
	case !ok:
		c.stats.Status = StatusRecovered
	case res.ok && (c.it.converged || c.it.inContact):
		// A step in contact stops at ContactNewton by design (Stats.Newton
		// says how many it made); only MaxNewton is a cap hit.
		c.stats.Status = StatusOK
	default:
		c.stats.Status = StatusMaxIter
	}
	c.publish(ok, atTrial)
}

// publish evaluates the contacts at the new state, updating their
// friction state, and fills the output. After a failed step (ok false)
// the fingers publish no contact. atTrial says the state is the last
// trial point's.
func (c *Cloth) publish(ok, atTrial bool) {
	c.out.T, c.out.Step = c.t, c.steps
	if ok && c.pads.anyPresent() && !(atTrial && c.pads.boundsOf == boundsTrial) {
		c.pads.search.bound(c.x)
		c.pads.boundsOf = boundsState
	}
	c.coupling.iters = 0
	for k := range NumFingers {
		lm := &c.out.Local[k]
		cp := &c.out.Contact[k]
		*lm = LocalModel{T: c.t, Step: c.steps, Valid: true, X0: c.pads.f[k].in.c}
		*cp = ContactPatch{T: c.t}
		if !ok || !c.pads.f[k].in.present {
			c.coupling.forget(k)
			continue
		}
		sum := c.pads.settle(k)
		c.coupling.publish(k, &sum, lm, cp)
	}
	c.stats.SensIters = c.coupling.iters
	for k := range NumFingers {
		c.stats.Probes[k] = len(c.pads.f[k].state)
	}
	c.stats.BadFingers = c.pads.bad
	c.stats.Dropped = c.pads.overflow
	c.pads.overflow = 0
	if c.self != nil {
		c.self.markPressed()
	}
}

// limitStrain keeps every triangle's principal strains at most the strain
// limit and returns the number of corrections. A triangle stretched beyond
// it has its deformation gradient F = [U V] clamped: with F's singular
// values σᵢ and right singular vectors qᵢ (rest space), F' = F +
// Σ (lim - σᵢ)·êᵢ·qᵢᵀ over the σᵢ above the limit, êᵢ = F·qᵢ/σᵢ, and each
// vertex moves by (F' - F)·(X_k - X̄), X its rest position and X̄ the
// vertices' mass-weighted mean, so the momentum is kept and a clamped
// vertex (infinite mass) stays. Then the velocities lose the rate at
// which each clamped stretch still grows, as an inelastic impulse along
// its gradient (vertex k: g_k·êᵢ, g_k = ru[k]·qᵢ₀ + rv[k]·qᵢ₁, weighted by
// 1/m_k), which takes kinetic energy away and never adds it. Gauss-Seidel
// sweeps over the triangles go on until none exceeds the limit by more
// than a hundredth of it (at most maxLimitSweeps); each correction aims a
// hundredth below the limit, so that neighbours settle within the band.
//
// Provot's correction of the edges (Provot 1995), which this replaces,
// cannot bound the principal strain: a triangle's three edges leave its
// shear along the other diagonal free, and a swinging cloth stepped at
// 100 ms reached principal strains of 98-263 % with its edges limited to
// 30 %. An edge is a line of its element, so its strain is at most the
// principal one.
func (c *Cloth) limitStrain() int {
	l := c.cfg.StrainLimit
	target, tol := 1+0.99*l, 1+1.01*l
	count := 0
	for range maxLimitSweeps {
		sweep := 0
		for i := range c.m.tris {
			if c.limitTri(&c.m.tris[i], target, tol) {
				sweep++
			}
		}
		count += sweep
		if sweep == 0 {
			break
		}
	}
	return count
}

// maxLimitSweeps caps limitStrain's sweeps.
const maxLimitSweeps = 100

// limitTri applies limitStrain's correction to triangle t if a principal
// stretch exceeds tol, clamping it to target, and reports whether it did.
func (c *Cloth) limitTri(t *tri, target, tol float64) bool {
	u, v := t.weftWarp(c.x)
	a, b, d := u.dot(u), u.dot(v), v.dot(v)
	half, disc := 0.5*(a+d), math.Sqrt(math.Max(0.25*(a-d)*(a-d)+b*b, 0))
	if half+disc <= tol*tol {
		return false
	}
	// The right singular vectors: eigenvectors of FᵀF = [[a b] [b d]].
	l1 := half + disc
	q0, q1 := b, l1-a
	if math.Abs(l1-d) > math.Abs(q1) {
		q0, q1 = l1-d, b
	}
	if qn := math.Hypot(q0, q1); qn > 0 {
		q0, q1 = q0/qn, q1/qn
	} else {
		q0, q1 = 1, 0
	}
	dirs := [2][3]float64{{q0, q1, l1}, {-q1, q0, half - disc}}
	// The vertices' mass-weighted rest centre; clamped vertices hold it.
	var w [3]float64
	var cu, cv, ws float64
	for k, n := range t.n {
		w[k] = c.invMass(n)
	}
	fixed := w[0] == 0 || w[1] == 0 || w[2] == 0
	for k, n := range t.n {
		wk := 1 / w[k]
		if fixed {
			wk = 0
			if w[k] == 0 {
				wk = 1
			}
		}
		cu += wk * c.m.uv[2*n]
		cv += wk * c.m.uv[2*n+1]
		ws += wk
	}
	cu, cv = cu/ws, cv/ws
	for _, q := range dirs {
		sig := math.Sqrt(math.Max(q[2], 0))
		if sig <= tol {
			continue
		}
		e := u.scale(q[0]).add(v.scale(q[1]))
		eh, _ := unitVec(e)
		var g [3]float64
		var gw, rate float64
		for k, n := range t.n {
			if w[k] != 0 {
				r := q[0]*(c.m.uv[2*n]-cu) + q[1]*(c.m.uv[2*n+1]-cv)
				addVecAt(c.x, n, eh.scale((target-sig)*r))
			}
			g[k] = t.ru[k]*q[0] + t.rv[k]*q[1]
			gw += g[k] * g[k] * w[k]
			rate += g[k] * eh.dot(vecAt(c.v, n))
		}
		if rate > 0 && gw > 0 {
			for k, n := range t.n {
				addVecAt(c.v, n, eh.scale(-rate/gw*w[k]*g[k]))
			}
		}
	}
	return true
}

// refresh is the interval at which slowly varying parts of the solve (the
// coarse factorisation, the local models' sensitivities) are renewed at
// short steps.
const refresh = 2 * time.Millisecond

// refreshSteps is refresh in steps, at least one.
func (c *Cloth) refreshSteps() int { return max(1, int(refresh.Seconds()/c.dt+0.5)) }

func (c *Cloth) invMass(k int32) float64 {
	if !c.cons.free[k] {
		return 0
	}
	return 1 / c.fab.mass[k]
}

// Energy returns the cloth's energy at the current state (one pass over
// the mesh; allocates nothing).
func (c *Cloth) Energy() Energy {
	return c.dyn.energy(c.x, c.v)
}

// MaxStrain returns the largest principal strain of any triangle now.
func (c *Cloth) MaxStrain() float64 {
	var mx float64
	for i := range c.m.tris {
		mx = math.Max(mx, principalStrain(&c.m.tris[i], c.x))
	}
	return mx
}

// principalStrain is the largest singular value of the element's
// deformation gradient [U V], minus one.
func principalStrain(t *tri, x []float64) float64 {
	u, v := t.weftWarp(x)
	a, b, d := u.dot(u), u.dot(v), v.dot(v)
	tr, det := a+d, a*d-b*b
	return math.Sqrt(0.5*(tr+math.Sqrt(math.Max(tr*tr-4*det, 0)))) - 1
}

func allFinite(x []float64) bool {
	var s float64
	for _, v := range x {
		s += v * 0
	}
	return s == 0
}

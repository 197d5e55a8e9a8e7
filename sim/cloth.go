package sim

import (
	"fmt"
	"math"
)

// Pinning selects the nodes clamped at construction.
type Pinning int

const (
	PinTopEdge Pinning = iota // the top row (largest v) is clamped to the stand
	PinNone                   // nothing is clamped
)

// Operator selects how the CG applies the system matrix.
type Operator int

const (
	// Assembled stores the in-plane, contact and mass blocks in a 3×3-block
	// sparse matrix each step (and the constant bending operator once); it
	// is the default (see the package documentation for the benchmark).
	Assembled Operator = iota
	// MatrixFree recomputes the products from each element's linearisation
	// (HAPTEX's "on the fly" products); it supports block Jacobi only.
	MatrixFree
)

// Preconditioner selects the CG preconditioner.
type Preconditioner int

const (
	// TwoGrid is a two-grid V(1,1) cycle: a forward block Gauss-Seidel
	// sweep, the coarse correction on the residual, a backward sweep
	// (symmetric, so CG can use it; Assembled only). It is the default.
	TwoGrid Preconditioner = iota
	BlockJacobi
	// TwoLevel is block Jacobi plus an additive coarse correction on
	// aggregates of CoarseSize² nodes (Assembled only).
	TwoLevel
)

var preconditionerNames = [...]string{TwoGrid: "two-grid", BlockJacobi: "block-jacobi", TwoLevel: "two-level"}

func (p Preconditioner) String() string {
	if p >= 0 && int(p) < len(preconditionerNames) {
		return preconditionerNames[p]
	}
	return fmt.Sprintf("Preconditioner(%d)", int(p))
}

// MarshalText writes the preconditioner's name, so that a recorded
// configuration (a session's session.json) does not depend on the order
// of the constants.
func (p Preconditioner) MarshalText() ([]byte, error) {
	if p < 0 || int(p) >= len(preconditionerNames) {
		return nil, fmt.Errorf("sim: unknown preconditioner %d", int(p))
	}
	return []byte(preconditionerNames[p]), nil
}

// UnmarshalText reads a name MarshalText wrote.
func (p *Preconditioner) UnmarshalText(b []byte) error {
	for i, n := range preconditionerNames {
		if n == string(b) {
			*p = Preconditioner(i)
			return nil
		}
	}
	return fmt.Errorf("sim: unknown preconditioner %q", b)
}

// Config configures a Cloth. Its zero value is the showcase scene that
// DefaultConfig spells out: every zero field takes its default, so a
// caller sets only what differs. Where zero would be a meaningful
// setting (no rod, no gravity, no strain limit) an explicit field asks
// for it.
type Config struct {
	Width, Height  float64    // fabric size along u (world x) and v (world y) [m] (0: 0.30 m)
	NodesU, NodesV int        // mesh resolution, at least 2 × 2 (0: 32)
	Refine         Refinement // nodes packed round the grip; the zero value is a uniform mesh
	// Offset moves the cloth from its default place [m]: with a zero
	// Offset the fabric's bottom edge (v = 0) is centred on the world
	// origin, in the plane z = 0. Corner gives the resulting position of
	// the (u, v) = (0, 0) corner.
	Offset [3]float64
	// Material is the fabric; the zero Material takes DefaultMaterial.
	Material Material
	Pin      Pinning
	// RodRadius is the radius of the stand's rod [m] (0: 5 mm); NoRod
	// removes the rod. The rod runs along x just above the top edge: its
	// axis is RodRadius + Thickness/2 above the top row, so the clamped
	// edge hangs from its underside. Only meaningful with PinTopEdge.
	RodRadius float64
	NoRod     bool

	Dt     float64 // fixed step [s] (0: 5 ms)
	Scheme Scheme
	Alpha  float64 // implicitness α in (0, 1] (0: 1)
	// Gravity is the acceleration of gravity [m/s²] (zero: 9.81 m/s²
	// along -y); NoGravity turns it off.
	Gravity   [3]float64
	NoGravity bool

	PadRadius [NumFingers]float64 // fingertip pad sphere radius [m] (0: 8 mm)
	// Distal is each finger's distal axis (towards the fingertip) in the
	// world frame, used for ContactPatch.Orientation (zero: +y).
	Distal [NumFingers][3]float64

	Tolerance      float64 // CG relative residual (0: 1e-2)
	MaxIterations  int     // CG iteration cap per step (0: 100)
	Preconditioner Preconditioner
	Operator       Operator
	// CoarseSize is the side of the coarse level's aggregates [nodes]; 0
	// picks a coarse grid of a third of the mesh side, between 8 × 8 and
	// 16 × 16 aggregates (24²: 3, 32²: 3, 64²: 4; on the 64² pinch a 16 × 16
	// grid takes 9.3 CG iterations a step against 13.4 with 8 × 8).
	CoarseSize int
	// SensitivityIterations caps the CG iterations of each of the three
	// solves per finger in contact that give LocalModel.K; 0 (the default)
	// approximates each with one application of the preconditioner (with
	// TwoGrid a V-cycle, most of a CG iteration's work). While a contact
	// lasts, one of its three solves is renewed per refresh interval
	// (2 ms), so at 5 ms steps each finger costs one a step.
	SensitivityIterations int

	// StrainLimit is the largest edge strain kept after each step (Provot's
	// post-correction, a safety net far beyond fabric strains; 0: 0.3);
	// NoStrainLimit turns the correction off.
	StrainLimit   float64
	NoStrainLimit bool
	// ProbeSpacing is the largest spacing of the contact probes sampled on
	// each triangle [m] (0: 2.5 mm): finger contact is resolved on the
	// surface, not at the nodes, so coarse meshes grip like fine ones.
	ProbeSpacing float64
	// MaxDepth caps LocalModel.Depth [m] (0: 5 mm).
	MaxDepth float64
	// MaxExtrapolation caps how far ahead a finger sample is extrapolated
	// with its velocity to the end of a step [s] (0: 20 ms).
	MaxExtrapolation float64
}

// DefaultConfig returns the zero Config with its defaults filled in (see
// WithDefaults): the showcase scene, a 30 cm × 30 cm cotton square, 32 ×
// 32 nodes, hanging in the plane z = 0 from a 5 mm rod at y = 0.30 m,
// centred on x = 0, backward Euler at 5 ms, 8 mm pads.
func DefaultConfig() Config { return Config{}.WithDefaults() }

// WithDefaults returns c with every zero field at its default, and the
// settings its No fields turn off at zero. New applies it; a caller uses
// it to read the values a configuration leaves to sim.
func (c Config) WithDefaults() Config {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.Width, 0.30)
	def(&c.Height, 0.30)
	if c.NodesU == 0 {
		c.NodesU = 32
	}
	if c.NodesV == 0 {
		c.NodesV = 32
	}
	if c.Material.isZero() {
		c.Material = DefaultMaterial()
	}
	def(&c.RodRadius, 0.005)
	if c.NoRod {
		c.RodRadius = 0
	}
	def(&c.Dt, 0.005)
	def(&c.Alpha, 1)
	switch {
	case c.NoGravity:
		c.Gravity = [3]float64{}
	case c.Gravity == [3]float64{}:
		c.Gravity = [3]float64{0, -9.81, 0}
	}
	for k := range NumFingers {
		def(&c.PadRadius[k], 0.008)
		if c.Distal[k] == ([3]float64{}) {
			c.Distal[k] = [3]float64{0, 1, 0}
		}
	}
	def(&c.Tolerance, 1e-2)
	if c.MaxIterations == 0 {
		c.MaxIterations = 100
	}
	def(&c.StrainLimit, 0.3)
	if c.NoStrainLimit {
		c.StrainLimit = 0
	}
	def(&c.ProbeSpacing, 0.0025)
	def(&c.MaxDepth, 0.005)
	def(&c.MaxExtrapolation, 0.02)
	return c
}

// Corner returns the world position of the fabric's (u, v) = (0, 0)
// corner [m] for c with its defaults.
func (c Config) Corner() [3]float64 {
	d := c.WithDefaults()
	return [3]float64{d.Offset[0] - d.Width/2, d.Offset[1], d.Offset[2]}
}

func (c *Config) validate() error {
	switch {
	case !(c.Width > 0) || !(c.Height > 0) || !isFinite(c.Width) || !isFinite(c.Height):
		return fmt.Errorf("sim: fabric size %g × %g m, want positive", c.Width, c.Height)
	case c.NodesU < 2 || c.NodesV < 2 || c.NodesU*c.NodesV > 1<<20:
		return fmt.Errorf("sim: mesh %d × %d nodes, want 2..1M", c.NodesU, c.NodesV)
	case c.Pin != PinTopEdge && c.Pin != PinNone:
		return fmt.Errorf("sim: unknown pinning %d", c.Pin)
	case !(c.RodRadius >= 0) || !isFinite(c.RodRadius):
		return fmt.Errorf("sim: rod radius %g m", c.RodRadius)
	case !(c.Tolerance > 0) || c.Tolerance >= 1:
		return fmt.Errorf("sim: CG tolerance %g outside (0, 1)", c.Tolerance)
	case c.MaxIterations < 1:
		return fmt.Errorf("sim: CG iteration cap %d, want >= 1", c.MaxIterations)
	case c.SensitivityIterations < 0:
		return fmt.Errorf("sim: sensitivity iterations %d, want >= 0", c.SensitivityIterations)
	case c.Operator != Assembled && c.Operator != MatrixFree:
		return fmt.Errorf("sim: unknown operator %d", c.Operator)
	case c.Preconditioner != TwoLevel && c.Preconditioner != BlockJacobi && c.Preconditioner != TwoGrid:
		return fmt.Errorf("sim: unknown preconditioner %d", c.Preconditioner)
	case c.Preconditioner != BlockJacobi && c.Operator == MatrixFree:
		return fmt.Errorf("sim: preconditioner %d needs the assembled operator", c.Preconditioner)
	case c.CoarseSize < 0 || c.CoarseSize == 1:
		return fmt.Errorf("sim: coarse aggregate size %d, want 0 (automatic) or >= 2", c.CoarseSize)
	case !(c.StrainLimit >= 0):
		return fmt.Errorf("sim: strain limit %g, want >= 0", c.StrainLimit)
	case !(c.ProbeSpacing > 0):
		return fmt.Errorf("sim: probe spacing %g m, want > 0", c.ProbeSpacing)
	case !(c.MaxDepth > 0):
		return fmt.Errorf("sim: max depth %g m, want > 0", c.MaxDepth)
	case !(c.MaxExtrapolation >= 0):
		return fmt.Errorf("sim: max extrapolation %g s, want >= 0", c.MaxExtrapolation)
	}
	for k := range NumFingers {
		if !(c.PadRadius[k] > 0) || !isFinite(c.PadRadius[k]) {
			return fmt.Errorf("sim: %s pad radius %g m, want > 0", FingerName(k), c.PadRadius[k])
		}
	}
	for _, g := range c.Gravity {
		if !isFinite(g) {
			return fmt.Errorf("sim: gravity %v not finite", c.Gravity)
		}
	}
	if err := c.Refine.validate(c.Width, c.Height); err != nil {
		return err
	}
	return c.Material.Validate()
}

// Status is the outcome of a step.
type Status int

const (
	StatusOK        Status = iota // the CG converged to the tolerance
	StatusMaxIter                 // the CG hit its cap; the step used its last iterate (see Stats.Residual)
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
	T          float64 // simulation time after the step [s]
	Status     Status
	CGIters    int     // iterations of the main solve
	Residual   float64 // its relative residual
	SensIters  int     // iterations of the local-model solves, all fingers
	Energy     Energy  // at the start of the step
	MaxStrain  float64 // largest principal strain of any triangle at the start of the step
	Probes     [NumFingers]int
	Limited    int  // edges the strain limiter shortened
	Regraded   bool // the mesh was regraded before the step (Refinement.Follow)
	BadFingers int  // finger samples ignored because they were not finite
	// Dropped counts contact probes left out because a finger's contact
	// list was full (sized for a pad sunk to its equator; 0 in practice).
	Dropped    int
	Recoveries uint64
}

// Cloth is a simulated piece of fabric. It is not safe for concurrent use:
// one loop steps it and reads its outputs.
type Cloth struct {
	cfg    Config     // with its defaults
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

	pinned []bool
	free   []bool
	fixed  []int32      // the nodes not free, for the per-vector passes over them
	proj   [][3]float64 // constraint direction for projected (roller) nodes; zero when none
	target []float64    // prescribed positions of pinned nodes

	contact contactState
	rod     rodState
	out     Output
	stats   Stats
	t       float64
	steps   uint64

	bias    float64 // the weft's angle from world x (tests only)
	grading uint64  // counts regrades (Snapshot.Grading)
	team    *team   // splits the step's jobs: nil unless SetParallel
	helper  *team   // the team SetParallel turns on; made with the cloth, so Assist never races SetParallel
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
	c := &Cloth{cfg: cfg, corner: cfg.Corner(), bias: bias, helper: new(team)}
	c.m = gradedMesh(&cfg, cfg.Refine, bias)
	c.n = c.m.nodes()
	n3 := 3 * c.n
	c.x, c.v = make([]float64, n3), make([]float64, n3)
	c.xGood, c.vGood = make([]float64, n3), make([]float64, n3)
	c.flat(c.x)
	c.pinned, c.free = make([]bool, c.n), make([]bool, c.n)
	c.proj, c.target = make([][3]float64, c.n), make([]float64, n3)
	for k := range c.n {
		c.free[k] = true
	}
	if cfg.Pin == PinTopEdge {
		for i := range cfg.NodesU {
			c.pin(int32((cfg.NodesV-1)*cfg.NodesU + i))
		}
	}
	c.fab.init(&cfg.Material, c.m)
	var mg float64
	for _, a := range c.m.area {
		mg += a * cfg.Material.ArealMass
	}
	mg *= math.Max(norm3(cfg.Gravity), 1)
	// The CG residual floor: a thousandth of the cloth's weight impulse per
	// step, so a cloth at rest does not chase round-off.
	c.it = newIntegrator(n3, cfg.Scheme, cfg.Alpha, cfg.Dt, cfg.Tolerance, 1e-3*mg*cfg.Dt, cfg.MaxIterations)
	if err := c.it.validate(); err != nil {
		return nil, err
	}
	copy(c.xGood, c.x)
	c.dyn.init(c)
	c.contact.init(c)
	c.rod.init(c)
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
func (c *Cloth) pin(k int32) {
	c.dyn.planned = false
	c.pinned[k] = true
	c.constrain(k)
	copy(c.target[3*k:3*k+3], c.x[3*k:3*k+3])
}

// roll constrains node k to move only across dir (unit): its position along
// dir is prescribed by target (set with setTarget).
func (c *Cloth) roll(k int32, dir [3]float64) {
	c.dyn.planned = false
	c.proj[k] = dir
	c.constrain(k)
	copy(c.target[3*k:3*k+3], c.x[3*k:3*k+3])
}

// constrain marks node k as not free.
func (c *Cloth) constrain(k int32) {
	if c.free[k] {
		c.free[k] = false
		c.fixed = append(c.fixed, k)
	}
}

// setTarget moves the prescribed position of a constrained node.
func (c *Cloth) setTarget(k int32, p [3]float64) { copy(c.target[3*k:3*k+3], p[:]) }

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
	nrm := c.dyn.normals
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

// Time returns the simulation time of the current state [s].
func (c *Cloth) Time() float64 { return c.t }

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
func (c *Cloth) Step(t float64, in *FingerState) {
	c.stats = Stats{Recoveries: c.stats.Recoveries}
	if c.cfg.Refine.Follow {
		c.stats.Regraded = c.follow(in)
	}
	c.contact.setFingers(in, t+c.cfg.Dt)
	c.fab.advance(c.cfg.Dt)
	res := c.it.step(&c.dyn, c.x, c.v)
	ok := !res.broke && allFinite(c.x) && allFinite(c.v)
	if ok && c.cfg.StrainLimit > 0 {
		c.stats.Limited = c.limitStrain()
	}
	if ok {
		c.it.commit(c.x, c.v)
		copy(c.xGood, c.x)
		copy(c.vGood, c.v)
	} else {
		copy(c.x, c.xGood)
		clear(c.v)
		c.it.reset()
		c.contact.reset()
		c.stats.Recoveries++
	}
	c.t = t + c.cfg.Dt
	c.steps++
	c.stats.Step, c.stats.T = c.steps, c.t
	c.stats.CGIters, c.stats.Residual = res.iters, res.residual
	switch {
	case !ok:
		c.stats.Status = StatusRecovered
	case res.ok:
		c.stats.Status = StatusOK
	default:
		c.stats.Status = StatusMaxIter
	}
	c.publish(ok)
}

// publish evaluates the contacts at the new state and fills the output.
func (c *Cloth) publish(ok bool) {
	c.out.T, c.out.Step = c.t, c.steps
	if ok && c.contact.anyPresent() {
		c.contact.bound(c.x)
	}
	for k := range NumFingers {
		lm := &c.out.Local[k]
		cp := &c.out.Contact[k]
		*lm = LocalModel{T: c.t, Step: c.steps, Valid: true, X0: c.contact.f[k].in.c}
		*cp = ContactPatch{T: c.t}
		if !ok {
			continue
		}
		c.contact.finish(k, lm, cp)
	}
	c.stats.SensIters = c.contact.sensIters
	for k := range NumFingers {
		c.stats.Probes[k] = len(c.contact.f[k].state)
	}
	c.stats.BadFingers = c.contact.bad
	c.stats.Dropped = c.contact.overflow
	c.contact.overflow = 0
}

// limitStrain shortens edges stretched beyond the strain limit (a few
// Gauss-Seidel sweeps, Provot 1995; source 004 §2.2) and adds the
// correction to the velocities. It returns the number of corrections.
func (c *Cloth) limitStrain() int {
	lim := 1 + c.cfg.StrainLimit
	count := 0
	x := c.x
	for range 4 {
		sweep := 0
		for _, e := range c.m.edges {
			// Scalars, not [3]float64 values: the compiler keeps these in
			// registers, and this test is all most edges ever see.
			i, j := 3*int(e.a), 3*int(e.b)
			pa, pb := x[i:i+3:i+3], x[j:j+3:j+3]
			d0, d1, d2 := pb[0]-pa[0], pb[1]-pa[1], pb[2]-pa[2]
			maxL := lim * e.rest
			if d0*d0+d1*d1+d2*d2 <= maxL*maxL {
				continue
			}
			d := [3]float64{d0, d1, d2}
			l := norm3(d)
			wa, wb := c.invMass(e.a), c.invMass(e.b)
			if wa+wb == 0 {
				continue
			}
			corr := (l - maxL) / (l * (wa + wb))
			addAt3(c.x, e.a, corr*wa, d)
			addAt3(c.x, e.b, -corr*wb, d)
			addAt3(c.v, e.a, corr*wa/c.cfg.Dt, d)
			addAt3(c.v, e.b, -corr*wb/c.cfg.Dt, d)
			sweep++
		}
		count += sweep
		if sweep == 0 {
			break
		}
	}
	return count
}

// refresh is the interval [s] at which slowly varying parts of the solve
// (the coarse factorisation, the local models' sensitivities) are renewed
// at short steps.
const refresh = 0.002

// refreshSteps is refresh in steps, at least one.
func (c *Cloth) refreshSteps() int { return max(1, int(refresh/c.cfg.Dt+0.5)) }

func (c *Cloth) invMass(k int32) float64 {
	if !c.free[k] {
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

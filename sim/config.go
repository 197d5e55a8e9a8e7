package sim

import (
	"fmt"
	"time"
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
	// PinLines is how many node rows PinTopEdge clamps, from the top (0:
	// 1). One row is a hinge the fabric turns about, as it hangs from
	// the stand; two hold the element between them as a clamp does, so
	// that a short swatch below it bends as a cantilever.
	PinLines int
	// RodRadius is the radius of the stand's rod [m] (0: 5 mm); NoRod
	// removes the rod. The rod runs along x just above the top edge: its
	// axis is RodRadius + Thickness/2 above the top row, so the clamped
	// edge hangs from its underside. Only meaningful with PinTopEdge.
	RodRadius float64
	NoRod     bool

	Dt     time.Duration // fixed step (0: 5 ms)
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

	Tolerance     float64 // CG relative residual (0: 1e-2)
	MaxIterations int     // CG iteration cap per solve (0: 100)
	// NewtonTolerance ends a step's Newton iteration when what is left of
	// the step's change of its incremental potential is below this
	// fraction of it (0: 1e-2, with BDF2 1e-4: its potential is not the
	// energy, and a swinging cloth stepped with BDF-2 at 10 ms rose to
	// 2-5 % of its drop energy at 1e-2); MaxNewton caps the iterations
	// (0: 10). See integrator.
	NewtonTolerance float64
	MaxNewton       int
	// ContactNewton caps the Newton iterations of a step in which a
	// finger pad touches the cloth (0: 1): the line search still keeps
	// such a step from raising the step's potential, and the step takes
	// as long as a single linearised solve (see integrator).
	ContactNewton  int
	Preconditioner Preconditioner
	Operator       Operator
	// CoarseSize is the side of the coarse level's aggregates [nodes]; 0
	// picks a coarse grid of a third of the mesh side, between 8 × 8 and
	// 16 × 16 aggregates (24²: 3, 32²: 3, 64²: 4): a finer coarse grid
	// saves CG iterations, but its factorisation grows as the fourth power
	// of its side.
	CoarseSize int
	// SensitivityIterations caps the CG iterations of each of the three
	// solves per finger in contact that give LocalModel.K; 0 (the default)
	// approximates each with one application of the preconditioner (with
	// TwoGrid a V-cycle, most of a CG iteration's work; two CG iterations
	// while the pad holds a stack of layers). While a contact
	// lasts, its three solves are renewed together every three refresh
	// intervals (at 5 ms steps every sixth step) and whenever its contacts
	// or their stick/slip states change.
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
	// with its velocity to the end of a step (0: 20 ms).
	MaxExtrapolation time.Duration
	// NoSelfCollision turns off the cloth's contact with itself
	// (selfcontact.go): layers then pass through each other.
	NoSelfCollision bool
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
	if c.Dt == 0 {
		c.Dt = 5 * time.Millisecond
	}
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
	if c.Scheme == BDF2 {
		def(&c.NewtonTolerance, 1e-4)
	}
	def(&c.NewtonTolerance, 1e-2)
	if c.MaxNewton == 0 {
		c.MaxNewton = 10
	}
	if c.ContactNewton == 0 {
		c.ContactNewton = 1
	}
	def(&c.StrainLimit, 0.3)
	if c.NoStrainLimit {
		c.StrainLimit = 0
	}
	def(&c.ProbeSpacing, 0.0025)
	def(&c.MaxDepth, 0.005)
	if c.MaxExtrapolation == 0 {
		c.MaxExtrapolation = 20 * time.Millisecond
	}
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
	case c.PinLines < 0 || c.PinLines >= c.NodesV:
		return fmt.Errorf("sim: %d clamped rows of a %d-row mesh", c.PinLines, c.NodesV)
	case !(c.RodRadius >= 0) || !isFinite(c.RodRadius):
		return fmt.Errorf("sim: rod radius %g m", c.RodRadius)
	case !(c.Tolerance > 0) || c.Tolerance >= 1:
		return fmt.Errorf("sim: CG tolerance %g outside (0, 1)", c.Tolerance)
	case c.MaxIterations < 1:
		return fmt.Errorf("sim: CG iteration cap %d, want >= 1", c.MaxIterations)
	case !(c.NewtonTolerance > 0) || c.NewtonTolerance >= 1:
		return fmt.Errorf("sim: Newton tolerance %g outside (0, 1)", c.NewtonTolerance)
	case c.MaxNewton < 1 || c.ContactNewton < 1:
		return fmt.Errorf("sim: Newton iteration caps %d and %d (in contact), want >= 1", c.MaxNewton, c.ContactNewton)
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
	case c.MaxExtrapolation < 0:
		return fmt.Errorf("sim: max extrapolation %v, want >= 0", c.MaxExtrapolation)
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

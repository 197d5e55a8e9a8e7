package kes

import (
	"fmt"
	"math"
	"time"

	"github.com/haptex/haptex/internal/vec3"
	"github.com/haptex/haptex/sim"
)

// The virtual Kawabata instruments. Each runs the cloth simulation (sim,
// through its public API only) on a specimen of the mapped material and
// reads the fabric's response back the way the instrument does, along the
// fabric's own axis: a warp specimen has its length along sim's v, a weft
// specimen along sim's u, so both of the element's directions are tested
// with the material as the mapping made it.
//
// The tensile and shear tests hold their specimens in chucks (sim's Grip):
// one chuck stays, the other moves, and its load cell (GripForce) reads
// the force, as KES-FB1's do. The bending tests hang a strip from a clamp
// that two finger pads form with a line of gripped nodes (newCantilever).

// quasiStaticDt is the time step of the virtual instruments. It is far
// longer than any specimen's slowest vibration period, so each backward
// Euler step is a Newton solve towards static equilibrium (the inertia
// term only regularises it), as in sim's own fidelity tests.
const quasiStaticDt = 50 * time.Millisecond

// axisOf is sim's axis of a specimen cut along direction d: warp along v
// (1), weft along u (0).
func axisOf(d Direction) int {
	if d == Weft {
		return 0
	}
	return 1
}

// instrumentConfig is the configuration of a specimen of length l along
// axis and width w across it, with n elements along and across elements
// across.
func instrumentConfig(m sim.Material, axis int, l, w float64, n, across int) sim.Config {
	cfg := sim.Config{
		Width: w, Height: l, NodesU: across + 1, NodesV: n + 1,
		Material: m, Pin: sim.PinNone, NoRod: true, NoGravity: true, NoStrainLimit: true,
		Dt: quasiStaticDt, Tolerance: 1e-6, MaxIterations: 2000,
		// Each step a full Newton solve, in contact too: settling, not speed.
		ContactNewton: 10,
	}
	if axis == 0 {
		cfg.Width, cfg.Height, cfg.NodesU, cfg.NodesV = l, w, n+1, across+1
	}
	if m.Hysteresis != (sim.Hysteresis{}) {
		// The friction's stiffness changes at a reversal, so a Newton
		// iteration that starts there takes the stiffer side and leaves
		// the rest to the next (sim's Dahl): without this tolerance the
		// first is taken as converged, the step's energy being far below
		// gravity's scale, and the specimen creeps towards equilibrium
		// over hundreds of steps.
		cfg.NewtonTolerance = 1e-8
	}
	if cfg.NodesU*cfg.NodesV < 400 {
		// Measured fastest on small meshes; the two-grid cycle on large.
		cfg.Preconditioner = sim.TwoLevel
	}
	return cfg
}

// chucks returns the edges a specimen along axis is held by: the one that
// stays and the one that moves (towards +axis).
func chucks(axis int) (fixed, moving sim.Edge) {
	if axis == 0 {
		return sim.EdgeLeft, sim.EdgeRight
	}
	return sim.EdgeBottom, sim.EdgeTop
}

// relax steps c until no node moves more than tol [m] in a step, or
// frictionSettled of the cloth's size when its fabric has internal
// friction: friction makes the equilibrium a kink of the step's potential
// (the friction's stiffness differs on either side of a reversal), and
// the Newton iteration's last moves about it are round-off of that order.
func relax(c *sim.Cloth, in *sim.FingerState, maxSteps int, tol float64) (int, error) {
	if cfg := c.Config(); cfg.Material.Hysteresis != (sim.Hysteresis{}) {
		tol = max(tol, frictionSettled*max(cfg.Width, cfg.Height))
	}
	x := c.Positions()
	prev := make([]float64, len(x))
	copy(prev, x)
	for i := range maxSteps {
		c.Step(c.Time(), in)
		if st := c.Stats(); st.Status == sim.StatusRecovered {
			return i + 1, fmt.Errorf("the simulation failed at step %d and recovered", i+1)
		}
		x = c.Positions()
		var mx float64
		for k := range x {
			mx = math.Max(mx, math.Abs(x[k]-prev[k]))
		}
		copy(prev, x)
		if !(mx < math.Inf(1)) {
			return i + 1, fmt.Errorf("the specimen left the finite world at step %d", i+1)
		}
		if mx < tol {
			return i + 1, nil
		}
	}
	return maxSteps, fmt.Errorf("no equilibrium after %d steps", maxSteps)
}

// frictionSettled is the motion per step, relative to the specimen's
// size, below which relax takes a fabric with internal friction as
// settled (the Newton iteration's motion about the friction's kink was
// about 2e-9 of it in the tensile test).
const frictionSettled = 1e-7

// tensileReading is what the virtual FB1 tensile test recovers.
type tensileReading struct {
	EMT, WT, LT float64 // strain at F_m [1], the chuck's work to F_m per area [J/m²], linearity
	Points      []Point // (strain, force per width [N/m]) at each position of the chuck, loading
	Work        float64 // the chuck's work per area to its last loading position [J/m²]
	Stored      float64 // the specimen's elastic energy per area there, by sim's count [J/m²]
	// Unloading holds the points of the return, from the reversal to
	// where the force vanishes; Recovered is the work per area the
	// specimen gives back over it [J/m²] and RT = Recovered/Work.
	Unloading     []Point
	Recovered, RT float64
	Steps         int
}

// tensileSpecimen is the KES-FB1 standard specimen: 20 cm wide, 5 cm
// between the chucks.
const tensileWidth, tensileLength = 0.20, 0.05

// tensilePositions is how many positions of the chuck the virtual tensile
// test takes up to the fabric's EMT (an instrument setting: the reading
// comes from the forces, not from it); the return takes unloadPositions
// for each of them, as the friction's reversal drops the force over a
// small fraction of EMT (Material, tensileFrictionStrain).
const (
	tensilePositions = 20
	unloadPositions  = 5
)

// virtualTensile runs KES-FB1's tensile test on a strip of the material
// along the fabric's direction d, n elements between the chucks: the
// moving chuck extends the strip step by step (emt/tensilePositions of
// strain each, emt the fabric's EMT as the instrument's setting) until its
// load cell reads F_m per width; at each position the specimen settles.
// EMT is the strain where the force reaches F_m (quadratic interpolation),
// WT the work the chuck did up to there per area of the strip, ∫F·dε
// (trapezoids), and LT = WT/(F_m·EMT/2), as KES-FB1 computes them. The
// strip's elastic energy at the last position (Stored) is sim's own count
// of that work, for the tests to compare. Then the chuck returns, in steps
// unloadPositions times finer, until the load cell reads no force (or the
// strain is zero): RT is the work recovered on the way over the work done
// loading, to the reversal, as KES-FB1's WT'/WT.
func virtualTensile(m sim.Material, d Direction, fm, emt float64, n int) (tensileReading, error) {
	axis := axisOf(d)
	// Poisson is zero, so the strip stays uniform across its width: two
	// elements across are as good as many.
	c, err := sim.New(instrumentConfig(m, axis, tensileLength, tensileWidth, n, 2))
	if err != nil {
		return tensileReading{}, err
	}
	fixed, moving := chucks(axis)
	if err := c.Grip(fixed, 1); err != nil {
		return tensileReading{}, err
	}
	if err := c.Grip(moving, 1); err != nil {
		return tensileReading{}, err
	}
	var r tensileReading
	r.Points = append(r.Points, Point{})
	var in sim.FingerState
	de := emt / tensilePositions
	for i := 1; r.Points[len(r.Points)-1].Y < fm; i++ {
		if i > 4*tensilePositions {
			return r, fmt.Errorf("the force reached %.4g of %.4g N/m at %.3g %% strain", r.Points[len(r.Points)-1].Y, fm, 100*de*float64(i-1))
		}
		var disp [3]float64
		disp[axis] = de * float64(i) * tensileLength
		if err := c.MoveGrip(moving, disp); err != nil {
			return r, err
		}
		steps, err := relax(c, &in, 200, 1e-10*tensileLength)
		r.Steps += steps
		if err != nil {
			return r, err
		}
		f, err := c.GripForce(moving)
		if err != nil {
			return r, err
		}
		r.Points = append(r.Points, Point{de * float64(i), -f[axis] / tensileWidth})
	}
	r.Stored = c.Energy().Tensile / (tensileWidth * tensileLength)
	// ε at F_m, then the work up to there.
	k := len(r.Points) - 1
	r.EMT = lagrange3(r.Points[k-2:k+1], fm)
	for i := 1; i < len(r.Points); i++ {
		a, b := r.Points[i-1], r.Points[i]
		switch {
		case b.X <= r.EMT:
			r.WT += (a.Y + b.Y) / 2 * (b.X - a.X)
		case a.X < r.EMT:
			fe := a.Y + (b.Y-a.Y)*(r.EMT-a.X)/(b.X-a.X)
			r.WT += (a.Y + fe) / 2 * (r.EMT - a.X)
		}
		r.Work += (a.Y + b.Y) / 2 * (b.X - a.X)
	}
	r.LT = r.WT / (fm * r.EMT / 2)
	top := r.Points[len(r.Points)-1]
	r.Unloading = append(r.Unloading, top)
	for i := 1; ; i++ {
		e := top.X - de/unloadPositions*float64(i)
		if e < 0 {
			e = 0
		}
		var disp [3]float64
		disp[axis] = e * tensileLength
		if err := c.MoveGrip(moving, disp); err != nil {
			return r, err
		}
		steps, err := relax(c, &in, 200, 1e-10*tensileLength)
		r.Steps += steps
		if err != nil {
			return r, err
		}
		f, err := c.GripForce(moving)
		if err != nil {
			return r, err
		}
		a, b := r.Unloading[len(r.Unloading)-1], Point{e, -f[axis] / tensileWidth}
		if b.Y <= 0 {
			// The force vanishes between a and b.
			e0 := a.X + (b.X-a.X)*a.Y/(a.Y-b.Y)
			r.Recovered += a.Y / 2 * (a.X - e0)
			r.Unloading = append(r.Unloading, Point{e0, 0})
			break
		}
		r.Recovered += (a.Y + b.Y) / 2 * (a.X - b.X)
		r.Unloading = append(r.Unloading, b)
		if e == 0 {
			break
		}
	}
	r.RT = r.Recovered / r.Work
	return r, nil
}

// lagrange3 interpolates x at y through three points (x_i, y_i), y
// increasing: the inverse of the curve, ε at a force.
func lagrange3(p []Point, y float64) float64 {
	var x float64
	for i := range 3 {
		l := 1.0
		for j := range 3 {
			if j != i {
				l *= (y - p[j].Y) / (p[i].Y - p[j].Y)
			}
		}
		x += l * p[i].X
	}
	return x
}

// shearReading is what the virtual FB1 shear test recovers.
type shearReading struct {
	G      float64 // slope of force per width against angle over 0.5-5° [N/(m·rad)]
	Points []Point // (shear angle [rad], force per width [N/m]) at each angle
	Steps  int
}

// shearSteps is how many angles the virtual shear test takes up to 5°.
const shearSteps = 10

// shearSpecimen builds the shear tests' specimen, gripped at both ends,
// with rows elements along the warp and across over the width, and
// returns its pull: place the top chuck at (dx, dy) sideways and along
// the warp, let the cloth settle (adding the steps to *steps), and read
// the load cell's sideways and along-warp force per width [N/m].
func shearSpecimen(m sim.Material, rows, across int, steps *int) (pull func(dx, dy float64) (side, along float64, err error), err error) {
	const w, l = tensileWidth, tensileLength
	c, err := sim.New(instrumentConfig(m, 1, l, w, rows, across))
	if err != nil {
		return nil, err
	}
	if err := c.Grip(sim.EdgeBottom, 1); err != nil {
		return nil, err
	}
	if err := c.Grip(sim.EdgeTop, 1); err != nil {
		return nil, err
	}
	var in sim.FingerState
	return func(dx, dy float64) (side, along float64, err error) {
		if err := c.MoveGrip(sim.EdgeTop, [3]float64{dx, dy, 0}); err != nil {
			return 0, 0, err
		}
		n, err := relax(c, &in, 200, 1e-9*l)
		*steps += n
		if err != nil {
			return 0, 0, err
		}
		f, err := c.GripForce(sim.EdgeTop)
		return -f[0] / w, -f[1] / w, err
	}, nil
}

// virtualShear runs KES-FB1's shear test: the standard specimen, 20 cm
// wide (along the weft, sim's u) and 5 cm between the chucks (along the
// warp), under the standard tension: at each angle φ the moving chuck
// stands off sideways by (5 cm + dy)·tan φ and along the warp by dy, as
// far as brings its load cell's pull to tension·width (a secant search),
// and the sideways force per width is the reading at the angle the line
// between the chucks makes. G is its least-squares slope
// over 0.5-5°, as KES-FB1 defines it.
//
// The convention the mapping and this test share: KES's G is the slope of
// the force the instrument measures, which includes the tension's part:
// the tension along the warp, tilted by φ, pulls sideways by
// tension·tan φ. sim's element takes that part from its own geometry (its
// warp stress acts along the tilted warp), so the mapping gives sim the
// fabric's own shear stiffness, G less the tension per radian
// (Material), and this test, under the tension, reads G again.
func virtualShear(m sim.Material, tension float64, nu, nv int) (shearReading, error) {
	const l = tensileLength
	var r shearReading
	pull, err := shearSpecimen(m, nv-1, nu-1, &r.Steps)
	if err != nil {
		return r, err
	}
	dy := 0.0
	for i := 1; i <= shearSteps; i++ {
		// The angle is the tilt of the line between the chucks, whose
		// distance the tension lengthens by dy.
		dx := (l + dy) * math.Tan(fiveDegrees*float64(i)/shearSteps)
		// The secant search for the tension, from the last angle's.
		y0, y1 := dy, dy+1e-6*l
		_, t0, err := pull(dx, y0)
		if err != nil {
			return r, err
		}
		var side float64
		for range 20 {
			var t1 float64
			if side, t1, err = pull(dx, y1); err != nil {
				return r, err
			}
			if math.Abs(t1-tension) <= 1e-3*tension || t1 == t0 {
				break
			}
			y0, y1, t0 = y1, y1+(tension-t1)*(y1-y0)/(t1-t0), t1
		}
		dy = y1
		r.Points = append(r.Points, Point{math.Atan(dx / (l + dy)), side})
	}
	r.G, err = slopeOver(r.Points, halfDegree, fiveDegrees)
	return r, err
}

// shearLoopReading is what the virtual FB1 shear cycle recovers.
type shearLoopReading struct {
	G       float64    // mean slope of the loop's branches over 0.5-5° [N/(m·rad)]
	HG, HG5 float64    // the loop's widths at 0.5° and 5°, KES's 2HG and 2HG5 [N/m]
	Legs    [3][]Point // (shear angle [rad], force per width [N/m]): 0 to +8°, +8° to -8°, -8° to +8°
	Steps   int
}

// shearStep is the angle the virtual shear test moves by between readings.
const shearStep = 0.5 * math.Pi / 180

// virtualShearLoop runs KES-FB1's shear cycle on the standard specimen
// (20 cm wide along the weft, 5 cm between the chucks along the warp)
// held at every node: one element between the chucks, across elements
// across, so the shear is uniform, as the instrument intends it, and the
// loop is the material's, friction and all. The cycle runs from 0 to
// maxAngle, back to -maxAngle and forth to maxAngle again, in steps of
// half a degree; at each angle the chuck is placed as virtualShear places
// it, under the test's tension (a secant search). As KES-FB1 reads the
// loop: G is the mean of the least-squares slopes of its two branches over
// 0.5-5°, on both sides, and 2HG and 2HG5 are the widths between the
// branches at ±0.5° and ±5°, each the mean of the two sides. The first
// leg, from the unsheared state, only brings the loop to its cycle.
//
// Why every node is held: with free nodes between the chucks, the secant
// search's moves back and forth trace small loops in the friction of the
// nodes' quasi-static settling, and a specimen of six elements read the
// widths 5-25 % low, depending on the fabric, where one element reads
// them within 10 %.
func virtualShearLoop(m sim.Material, tension, maxAngle float64, across int) (shearLoopReading, error) {
	const l = tensileLength
	var r shearLoopReading
	pull, err := shearSpecimen(m, 1, across, &r.Steps)
	if err != nil {
		return r, err
	}
	n := int(math.Round(maxAngle / shearStep))
	if n < 10 {
		return r, fmt.Errorf("maximum angle %.3g°, want at least 5°", maxAngle*180/math.Pi)
	}
	dy := 0.0
	for leg, ends := range [3][2]int{{0, n}, {n, -n}, {-n, n}} {
		step := 1
		if ends[1] < ends[0] {
			step = -1
		}
		for k := ends[0] + step; k != ends[1]+step; k += step {
			// The angle is the tilt of the line between the chucks, whose
			// distance the tension lengthens by dy.
			dx := (l + dy) * math.Tan(shearStep*float64(k))
			// The secant search for the tension, from the last angle's.
			y0, y1 := dy, dy+1e-6*l
			_, t0, err := pull(dx, y0)
			if err != nil {
				return r, err
			}
			var side float64
			for range 20 {
				var t1 float64
				if side, t1, err = pull(dx, y1); err != nil {
					return r, err
				}
				if math.Abs(t1-tension) <= 1e-3*tension || t1 == t0 {
					break
				}
				y0, y1, t0 = y1, y1+(tension-t1)*(y1-y0)/(t1-t0), t1
			}
			dy = y1
			r.Legs[leg] = append(r.Legs[leg], Point{math.Atan(dx / (l + dy)), side})
		}
	}
	up, down := r.Legs[2], r.Legs[1]
	var slopes float64
	for _, br := range [2][]Point{up, down} {
		for _, sign := range []float64{1, -1} {
			pts := make([]Point, len(br))
			for i, p := range br {
				pts[i] = Point{sign * p.X, sign * p.Y}
			}
			g, err := slopeOver(pts, halfDegree, fiveDegrees)
			if err != nil {
				return r, err
			}
			slopes += g / 4
		}
	}
	r.G = slopes
	width := func(a float64) float64 {
		return (at(up, a) - at(down, a) + at(up, -a) - at(down, -a)) / 2
	}
	r.HG, r.HG5 = width(halfDegree), width(fiveDegrees)
	return r, nil
}

// at interpolates a leg's force at angle a, linearly between the two
// readings either side (a leg runs one way: its angles are monotone).
func at(leg []Point, a float64) float64 {
	for i := 1; i < len(leg); i++ {
		p, q := leg[i-1], leg[i]
		if (p.X-a)*(q.X-a) <= 0 && p.X != q.X {
			return p.Y + (q.Y-p.Y)*(a-p.X)/(q.X-p.X)
		}
	}
	return math.NaN()
}

// slopeOver is the least-squares slope of the points whose x lies in
// [lo, hi].
func slopeOver(pts []Point, lo, hi float64) (float64, error) {
	var n, sx, sy, sxx, sxy float64
	for _, p := range pts {
		if p.X < lo*(1-1e-9) || p.X > hi*(1+1e-9) {
			continue
		}
		n++
		sx += p.X
		sy += p.Y
		sxx += p.X * p.X
		sxy += p.X * p.Y
	}
	d := n*sxx - sx*sx
	if n < 3 || !(d > 0) {
		return 0, fmt.Errorf("%v points in [%.4g, %.4g], want at least 3", n, lo, hi)
	}
	return (n*sxy - sx*sy) / d, nil
}

// The bending specimen scales with its overhang l, so that every fabric
// meets the same dimensionless problem (the heavy elastica depends only on
// l/c): a strip l/20 wide, three nodes across (a symmetric mesh, so the
// strip does not twist).
const (
	bendWidthPerL = 1.0 / 20
	bendNodes     = 3
)

// cantilever is a strip of the fabric along one of its directions, held
// at one end by a clamp (sim's Grip of the two end lines of nodes, which
// holds the element between them) and bending under gravity g along -z.
type cantilever struct {
	c       *sim.Cloth
	axis    int       // sim's axis the strip runs along
	lines   int       // node lines across the strip, from the tip (0) to the clamped end (lines-1)
	across  int       // nodes across
	cell    []float64 // each line's share of the strip's length, half the spacing to each neighbour [m]
	rho     float64   // areal mass [kg/m²]
	support int       // the first free bending line: the clamp's inner line
	g       float64   // [m/s²]
	l       float64   // overhang [m]
	steps   int
}

// line returns the mean position of node line j (0 the tip).
func (cl *cantilever) line(j int) [3]float64 {
	x := cl.c.Positions()
	nu := cl.across
	if cl.axis == 0 {
		nu = cl.lines
	}
	var p [3]float64
	for i := range cl.across {
		k := 3 * (j*nu + i)
		if cl.axis == 0 {
			k = 3 * (i*nu + cl.lines - 1 - j)
		}
		p[0] += x[k]
		p[1] += x[k+1]
		p[2] += x[k+2]
	}
	for c := range p {
		p[c] /= float64(cl.across)
	}
	return p
}

// newCantilever builds a strip along axis with an overhang of l beyond the
// clamp's edge in n elements, and lets it settle. The clamp holds the
// strip's end element flat and level (its two lines of nodes gripped);
// sim's curvature lives at the lines of nodes, each standing for the strip
// of its dual cell, half an element either side, so the clamp's edge, where
// the bending strip begins, is the inner boundary of the first free line's
// cell: half an element into the clamped element. The overhang is measured
// from there, n + ½ elements. (Measured from the clamp's inner line of
// nodes instead, the strip is charged with the curvature of the half cell
// the clamp holds, and reads c 20 % low at three elements.)
//
// With at >= 0 sim grades the strip's lines as a -refine mesh
// (sim.RefineRadius, sim.RefineRatio) round the point at the fraction at
// of its length from the tip (0) to the clamped end (1), and the strip's
// length is set so that the overhang, from the middle of the clamped
// element, is l; each line then carries the fabric of its own dual cell.
func newCantilever(m sim.Material, axis int, l, g float64, n int, at float64) (*cantilever, error) {
	lines := n + 2
	w := bendWidthPerL * l
	length := l * float64(lines-1) / (float64(n) + 0.5)
	var cfg sim.Config
	var s []float64 // the lines' rest distances from the tip
	// On a graded strip the clamped element's length depends on the
	// strip's, weakly: a few rounds bring the overhang close to l, and the
	// strip is read with the overhang it has.
	for range 8 {
		cfg = instrumentConfig(m, axis, length, w, lines-1, bendNodes-1)
		if at >= 0 {
			cfg.Refine = sim.Refinement{Centre: [2]float64{w / 2, at * length}, Radius: sim.RefineRadius, Ratio: sim.RefineRatio}
			if axis == 0 {
				cfg.Refine.Centre = [2]float64{(1 - at) * length, w / 2}
			}
		}
		c, err := sim.New(cfg)
		if err != nil {
			return nil, err
		}
		cl := &cantilever{c: c, axis: axis, lines: lines, across: bendNodes}
		o := cl.line(0)
		s = s[:0]
		for j := range lines {
			s = append(s, horizontal(cl.line(j), o))
		}
		length += l - (s[lines-2]+s[lines-1])/2
		if at < 0 {
			break
		}
	}
	cfg.NoGravity, cfg.Gravity = false, [3]float64{0, 0, -g}
	c, err := sim.New(cfg)
	if err != nil {
		return nil, err
	}
	clamp := sim.EdgeTop
	if axis == 0 {
		clamp = sim.EdgeLeft
	}
	if err := c.Grip(clamp, 2); err != nil {
		return nil, err
	}
	cl := &cantilever{c: c, axis: axis, lines: lines, across: bendNodes, rho: m.ArealMass, support: lines - 2, g: g, l: (s[lines-2] + s[lines-1]) / 2}
	for j := range lines {
		cl.cell = append(cl.cell, (s[min(j+1, lines-1)]-s[max(j-1, 0)])/2)
	}
	// Settled to a ten-millionth of the overhang a step.
	if cl.steps, err = relax(c, nil, 1000, 1e-7*l); err != nil {
		return nil, err
	}
	return cl, nil
}

// horizontal is the distance of a and b in the horizontal plane.
func horizontal(a, b [3]float64) float64 { return math.Hypot(a[0]-b[0], a[1]-b[1]) }

// moment is the bending moment per unit width [N] at node line j, by
// statics: the weight of the lines beyond it (towards the tip, line 0;
// each line holds its dual cell's fabric, the tip's half an element) times
// their horizontal lever arm.
func (cl *cantilever) moment(j int) float64 {
	pj := cl.line(j)
	var m float64
	for k := range j {
		m += cl.cell[k] * horizontal(pj, cl.line(k))
	}
	return cl.rho * cl.g * m
}

// curvature is the curvature [1/m] at node line j: the circle through
// lines j-1, j and j+1.
func (cl *cantilever) curvature(j int) float64 {
	a, b, d := cl.line(j+1), cl.line(j), cl.line(j-1)
	u, v, w := vec3.Sub(b, a), vec3.Sub(d, b), vec3.Sub(d, a)
	return 2 * vec3.Norm(vec3.Cross(u, v)) / (vec3.Norm(u) * vec3.Norm(v) * vec3.Norm(w))
}

// bendingReading is what the virtual bending tests recover from one
// cantilever.
type bendingReading struct {
	B          float64 // slope of moment against curvature [N·m]
	MaxK       float64 // largest curvature read [1/m]
	Length     float64 // Peirce's bending length [m]
	ChordAngle float64 // θ of the tip below the clamp's edge [rad]
	Steps      int
}

// virtualBending loads a strip of the material along direction d as
// Peirce's cantilever (Peirce 1930) under standard gravity, with an
// overhang l = 2c, twice the bending length (B/(W·g))^(1/3) of the
// material along d, where Peirce's test reads (θ ≈ 41.5°), in n elements
// (graded round the fraction at of the strip from its tip when at >= 0,
// newCantilever), and reads it twice:
//
//   - Moment against curvature, KES-FB2's reading: each cross-section of
//     the cantilever serves as one reading, its moment from
//     statics (the weight beyond it times its lever arm), its curvature
//     from the deformed strip. B is the least-squares slope over every
//     section, through the origin. FB2 reads B over 0.5-1.5 cm⁻¹; the cantilever reaches 1.6/c
//     at its root (testdata/elastica_ref.json; 0.6-1.4 cm⁻¹ for the
//     built-in fabrics) and sim's bending is linear, so the slope does not
//     depend on the range.
//   - Peirce's bending length: the chord from the clamp's edge to the tip
//     makes the angle θ with the horizontal, and c = l·(cos(θ/2)/(8·tan
//     θ))^(1/3).
//
// Both are the loop's mid-line, the elastic part, as G is: the strip
// droops on the material without its bending friction, which, loaded once
// from flat, would hold it on the loading branch, M = B·K + 2HB/2, and
// read B twice too high (cotton shirting's warp: +97 %). KES-FB2's cycle
// reads the friction (virtualPureBending).
func virtualBending(m sim.Material, d Direction, n int, at float64) (bendingReading, error) {
	m.Hysteresis.BendWeft, m.Hysteresis.BendWarp, m.Hysteresis.BendCurvature = 0, 0, 0
	b := m.BendWarp
	if d == Weft {
		b = m.BendWeft
	}
	c0 := math.Cbrt(b / (m.ArealMass * StandardGravity))
	cl, err := newCantilever(m, axisOf(d), 2*c0, StandardGravity, n, at)
	if err != nil {
		return bendingReading{}, err
	}
	r := bendingReading{Steps: cl.steps}
	// The least-squares slope through the origin: sim's bending is linear,
	// and a strip of two elements gives only two sections.
	var km, kk float64
	for j := 1; j <= cl.support; j++ {
		k := cl.curvature(j)
		km += k * cl.moment(j)
		kk += k * k
		r.MaxK = math.Max(r.MaxK, k)
	}
	if !(kk > 0) {
		return r, fmt.Errorf("the strip did not bend")
	}
	r.B = km / kk
	root, tip, end := cl.line(cl.support), cl.line(0), cl.line(cl.lines-1)
	edge := vec3.Scale(0.5, vec3.Add(root, end))
	r.ChordAngle = math.Atan2(edge[2]-tip[2], horizontal(edge, tip))
	if !(r.ChordAngle > 0 && r.ChordAngle < math.Pi/2) {
		return r, fmt.Errorf("the strip settled with its tip at %.1f° from the clamp, not hanging below it as a cantilever", r.ChordAngle*180/math.Pi)
	}
	r.Length = cl.l * math.Cbrt(math.Cos(r.ChordAngle/2)/(8*math.Tan(r.ChordAngle)))
	return r, nil
}

// KES-FB2, the pure bending tester, bends a specimen 1 cm long between its
// chucks (20 cm wide; the virtual one is fb2Width wide, as the moment is
// read per width) to ±2.5 1/cm and back: fb2Length is the bent length,
// fb2Step the curvature step of the virtual cycle (every node is held, so
// each step's friction is exact however long the step: a step only has
// to land on ±1 1/cm, where 2HB is read), and a specimen gets at least
// fb2MinElements along its bent length: KES's largest curvature is a
// circle of 4 mm radius, which an element longer than 8 mm cannot span.
const (
	fb2Length      = 0.01
	fb2Width       = 0.01
	fb2Across      = 2
	fb2Step        = 0.25 / 0.01 // 0.25 1/cm [1/m]
	fb2MinElements = 4
	oneCurvature   = 1 / 0.01 // 1 1/cm [1/m]: where KES reads 2HB
)

// pureBendingReading is what the virtual FB2 test recovers.
type pureBendingReading struct {
	// HB is the loop's width at K = ±1 1/cm, the mean of both sides [N].
	HB float64
	// Legs are the cycle's (curvature [1/m], moment per width [N]): 0 →
	// +max, +max → −max, −max → +max.
	Legs  [3][]Point
	Steps int
}

// virtualPureBending runs KES-FB2's cycle, 0 → +maxK → −maxK → +maxK, on
// a specimen of the material along the fabric's direction d, n elements
// along its bent length. The chucks hold every node (sim's Grip of all
// the node lines): at each curvature K the nodes lie on a circle of
// curvature K, each at the rest distance from the next along the
// specimen, so the cloth is not stretched and sim's bending hinges, whose
// curvature is the second difference over the nodes' spacing, measure K
// itself. The moment per width is the load of the chucks by virtual work:
// the derivative of the cloth's energy and friction work in K, over the
// bent area, the cells of the interior node lines that carry sim's
// bending (the specimen reaches half an element beyond them at either
// end). 2HB is the width between the branches at ±1 1/cm, as KES-FB2
// reads it.
func virtualPureBending(m sim.Material, d Direction, maxK float64, n int) (pureBendingReading, error) {
	var r pureBendingReading
	if n < 2 {
		return r, fmt.Errorf("%d elements along the specimen, want at least 2", n)
	}
	if maxK < 2*oneCurvature {
		return r, fmt.Errorf("maximum curvature %.3g 1/cm, want at least 2", maxK/100)
	}
	axis := axisOf(d)
	h := fb2Length / float64(n-1)
	if maxK*h/2 >= 1 {
		return r, fmt.Errorf("elements of %.3g mm cannot bend to %.3g 1/cm", 1e3*h, maxK/100)
	}
	cfg := instrumentConfig(m, axis, float64(n)*h, fb2Width, n, fb2Across)
	c, err := sim.New(cfg)
	if err != nil {
		return r, err
	}
	// The specimen's frame: its axis, its normal (u × v) and its centre.
	x := c.Positions()
	nu := cfg.NodesU
	node := func(k int) [3]float64 { return [3]float64{x[3*k], x[3*k+1], x[3*k+2]} }
	unit := func(a [3]float64) [3]float64 { return vec3.Scale(1/vec3.Norm(a), a) }
	eu, ev := unit(vec3.Sub(node(1), node(0))), unit(vec3.Sub(node(nu), node(0)))
	ea, en := eu, unit(vec3.Cross(eu, ev))
	if axis == 1 {
		ea = ev
	}
	var centre [3]float64
	for k := range len(x) / 3 {
		centre = vec3.Add(centre, vec3.Scale(3/float64(len(x)), node(k)))
	}
	// place puts a node on the circle of curvature k: its turning angle
	// from the centre is its distance along the axis over the spacing
	// times the angle a chord of length h subtends.
	place := func(k float64) func(o [3]float64) [3]float64 {
		return func(o [3]float64) [3]float64 {
			p := vec3.Sub(o, centre)
			s := vec3.Dot(p, ea)
			base := vec3.Add(centre, vec3.Sub(p, vec3.Scale(s, ea)))
			if k == 0 {
				return vec3.Add(base, vec3.Scale(s, ea))
			}
			phi := s / h * 2 * math.Asin(k*h/2)
			sh := math.Sin(phi / 2)
			return vec3.Add(base, vec3.Add(vec3.Scale(math.Sin(phi)/k, ea), vec3.Scale(2*sh*sh/k, en)))
		}
	}
	fixed, moving := chucks(axis)
	if err := c.Grip(fixed, n); err != nil {
		return r, err
	}
	if err := c.Grip(moving, 1); err != nil {
		return r, err
	}
	dk := 1e-6 * maxK
	moment := func(k float64) (float64, error) {
		lo, hi := place(k-dk), place(k+dk)
		d := func(o [3]float64) [3]float64 {
			return vec3.Scale(1/(2*dk), vec3.Sub(hi(o), lo(o)))
		}
		var w float64
		for _, e := range []sim.Edge{fixed, moving} {
			we, err := c.GripWork(e, d)
			if err != nil {
				return 0, err
			}
			w += we
		}
		return -w / (fb2Length * fb2Width), nil
	}
	var in sim.FingerState
	steps := int(math.Round(maxK / fb2Step))
	for leg, ends := range [3][2]int{{0, steps}, {steps, -steps}, {-steps, steps}} {
		step := 1
		if ends[1] < ends[0] {
			step = -1
		}
		for i := ends[0] + step; i != ends[1]+step; i += step {
			k := maxK * float64(i) / float64(steps)
			for _, e := range []sim.Edge{fixed, moving} {
				if err := c.PlaceGrip(e, place(k)); err != nil {
					return r, err
				}
			}
			st, err := relax(c, &in, 20, 1e-9*fb2Length)
			r.Steps += st
			if err != nil {
				return r, err
			}
			mk, err := moment(k)
			if err != nil {
				return r, err
			}
			r.Legs[leg] = append(r.Legs[leg], Point{k, mk})
		}
	}
	up, down := r.Legs[2], r.Legs[1]
	r.HB = (at(up, oneCurvature) - at(down, oneCurvature) + at(up, -oneCurvature) - at(down, -oneCurvature)) / 2
	return r, nil
}

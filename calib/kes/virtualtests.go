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
// reads the fabric's response back the way the instrument does.
//
// sim clamps only the top row of nodes (Config.Pin) and offers no
// prescribed displacements, so the instruments load their specimens by
// body force, as dead-load tests: gravity, scaled and turned as each test
// needs, with the top row clamped. Statics then gives the load on every
// row of the specimen exactly, whatever the material: the strip below a
// cut carries the weight of what hangs under it. The simulation gives the
// deformation. Each row of elements is one reading of the instrument, and a
// single equilibrium traces the whole loading curve.
//
// sim's top row is a line of pinned nodes, a hinge; the bending tests need
// a clamp, which the two finger pads supply by pinching the strip's first
// element (see newCantilever).
//
// sim pins the edge at the top of v, the warp, so every specimen is loaded
// along v. A weft test runs the transposed material (weft curve and bending
// rigidity in the warp's place); sim's element treats u and v alike.

// specimen is one virtual test piece: a cloth of nu × nv nodes clamped
// along its top row.
type specimen struct {
	c      *sim.Cloth
	nu, nv int
	dv     float64 // element length along v [m]
	rho    float64 // areal mass [kg/m²]
	in     sim.FingerState
	prev   [][3]float64
}

// quasiStaticDt is the time step of the virtual instruments. It is far
// longer than any specimen's slowest vibration period, so each backward
// Euler step is a Newton step towards static equilibrium (the inertia term
// only regularises it), as in sim's own fidelity tests.
const quasiStaticDt = 50 * time.Millisecond

// newSpecimen builds a w × h metre specimen of nu × nv nodes under gravity
// g, hanging from its top row, with finger pads of radius pad (0: the
// default, unused).
func newSpecimen(m sim.Material, w, h float64, nu, nv int, g [3]float64, pad float64) (*specimen, error) {
	cfg := sim.Config{
		Width: w, Height: h, NodesU: nu, NodesV: nv,
		Material: m, Pin: sim.PinTopEdge, NoRod: true, Gravity: g, NoGravity: g == [3]float64{}, NoStrainLimit: true,
		Dt: quasiStaticDt, Tolerance: 1e-6, MaxIterations: 2000,
		// Measured fastest on these small meshes.
		Preconditioner: sim.TwoLevel,
	}
	if pad > 0 {
		cfg.PadRadius = [sim.NumFingers]float64{pad, pad}
		// One probe per triangle: the pinch holds the first element's
		// triangles by their centroids.
		cfg.ProbeSpacing = 1
	}
	c, err := sim.New(cfg)
	if err != nil {
		return nil, err
	}
	return &specimen{c: c, nu: nu, nv: nv, dv: h / float64(nv-1), rho: m.ArealMass, prev: make([][3]float64, nv)}, nil
}

// relax steps the specimen until no row of nodes moves more than tol [m]
// in a step. Rows, not nodes: each reading is a row's mean position, and
// the free side edges of a narrow strip may keep creeping across it long
// after the rows have settled.
func (s *specimen) relax(maxSteps int, tol float64) (int, error) {
	for j := range s.nv {
		s.prev[j] = s.row(j)
	}
	for i := range maxSteps {
		s.c.Step(s.c.Time(), &s.in)
		if st := s.c.Stats(); st.Status == sim.StatusRecovered {
			return i + 1, fmt.Errorf("the simulation failed at step %d and recovered", i+1)
		}
		var mx float64
		for j := range s.nv {
			p := s.row(j)
			mx = math.Max(mx, vec3.Norm(vec3.Sub(p, s.prev[j])))
			s.prev[j] = p
		}
		if !(mx < math.Inf(1)) {
			return i + 1, fmt.Errorf("the specimen left the finite world at step %d", i+1)
		}
		if mx < tol {
			return i + 1, nil
		}
	}
	return maxSteps, fmt.Errorf("no equilibrium after %d steps", maxSteps)
}

// row returns the mean position of node row j (j = 0 the bottom edge).
func (s *specimen) row(j int) [3]float64 {
	x := s.c.Positions()
	var p [3]float64
	for i := range s.nu {
		k := 3 * (j*s.nu + i)
		p[0] += x[k]
		p[1] += x[k+1]
		p[2] += x[k+2]
	}
	for c := range p {
		p[c] /= float64(s.nu)
	}
	return p
}

func (s *specimen) node(i, j int) [3]float64 {
	x := s.c.Positions()
	k := 3 * (j*s.nu + i)
	return [3]float64{x[k], x[k+1], x[k+2]}
}

// rowWeight is the weight per unit width [N/m] of node rows 0..j under
// gravity g [m/s²]: sim lumps a third of each triangle's area on each of its
// nodes, so every grid square gives half its area to each of its two node
// rows: rows 0..j hold (j + 1/2)·dv of fabric.
func (s *specimen) rowWeight(j int, g float64) float64 {
	return s.rho * g * s.dv * (float64(j) + 0.5)
}

// transposed swaps the material's weft and warp, so that a test along v
// measures the weft.
func transposed(m sim.Material) sim.Material {
	m.Weft, m.Warp = m.Warp, m.Weft
	m.BendWeft, m.BendWarp = m.BendWarp, m.BendWeft
	m.Viscosity.Weft, m.Viscosity.Warp = m.Viscosity.Warp, m.Viscosity.Weft
	return m
}

// tensileReading is what the virtual FB1 tensile test recovers.
type tensileReading struct {
	EMT, WT, LT float64 // strain at F_m [1], energy to F_m [J/m²], linearity
	Points      []Point // (strain, force per width [N/m]) of every row of elements
	Steps       int
}

// tensileStrip is the KES-FB1 standard specimen: 20 cm wide, 5 cm between
// the chucks.
const tensileWidth, tensileLength = 0.20, 0.05

// virtualTensile hangs the standard strip, warp (v) vertical, from its top
// edge under a gravity that loads the top row of elements to overload×F_m.
// Row j of elements carries the weight of the rows below it, which is the
// instrument's force per width at that row's strain: the rows trace the
// loading curve from 0 to overload·F_m. EMT is read where the curve reaches
// F_m (quadratic interpolation between rows), WT = ∫₀^EMT F dε =
// F_m·EMT − ∫₀^F_m ε dF (the trapezoidal rule over the rows), LT =
// WT/(F_m·EMT/2), as KES-FB1 computes them.
func virtualTensile(m sim.Material, fm float64, nv int) (tensileReading, error) {
	const overload = 1.1
	// Poisson is zero, so the strip stays uniform across its width: three
	// nodes across are as good as many.
	const nu = 3
	dv := tensileLength / float64(nv-1)
	g := overload * fm / (m.ArealMass * dv * (float64(nv-2) + 0.5))
	s, err := newSpecimen(m, tensileWidth, tensileLength, nu, nv, [3]float64{0, -g, 0}, 0)
	if err != nil {
		return tensileReading{}, err
	}
	var r tensileReading
	if r.Steps, err = s.relax(400, 1e-10); err != nil {
		return r, err
	}
	for j := range nv - 1 {
		e := vec3.Norm(vec3.Sub(s.row(j+1), s.row(j)))/dv - 1
		r.Points = append(r.Points, Point{e, s.rowWeight(j, g)})
	}
	// ε(F) at F_m, then the complementary energy up to F_m.
	k := 0
	for k < len(r.Points)-1 && r.Points[k+1].Y < fm {
		k++
	}
	k = min(max(k, 1), len(r.Points)-2)
	r.EMT = lagrange3(r.Points[k-1:k+2], fm)
	comp := 0.0
	prev := Point{}
	for _, p := range r.Points {
		if p.Y >= fm {
			break
		}
		comp += (p.Y - prev.Y) * (p.X + prev.X) / 2
		prev = p
	}
	comp += (fm - prev.Y) * (r.EMT + prev.X) / 2
	r.WT = fm*r.EMT - comp
	r.LT = r.WT / (fm * r.EMT / 2)
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
	Points []Point // (shear angle [rad], force per width [N/m]) per row of elements
	Steps  int
}

// virtualShear hangs the standard 20 cm × 5 cm specimen from its top edge
// and loads it in its own plane by a gravity along the weft (x): the rows
// below a cut push on it sideways with their weight, a shear force per
// width that grows linearly to the top, where it shears the fabric to
// about maxAngle. Each row of elements gives one point of the KES shear
// curve: the force per width from statics, and the shear angle, the change
// of the angle between warp and weft, averaged over the row. G is the
// least-squares slope over 0.5-5°, as KES-FB1 defines it.
//
// The specimen is not under the instrument's 10 gf/cm tension: sim's shear
// energy does not depend on tension, which would add only its geometric
// term (the tension's sideways component on the tilted warp), and statics
// could not separate it from the shear force row by row. Averaging the
// angle across the whole width makes the reading exact for a linear shear
// law despite the free side edges, where the shear vanishes: the rows'
// total sideways force is the shear stress integrated across the width.
func virtualShear(m sim.Material, maxAngle float64, nu, nv int) (shearReading, error) {
	const w, h = tensileWidth, tensileLength
	dv := h / float64(nv-1)
	k, _ := m.Shear.Eval(maxAngle)
	g := k / (m.ArealMass * dv * (float64(nv-2) + 0.5))
	s, err := newSpecimen(m, w, h, nu, nv, [3]float64{g, 0, 0}, 0)
	if err != nil {
		return shearReading{}, err
	}
	var r shearReading
	if r.Steps, err = s.relax(400, 1e-10); err != nil {
		return r, err
	}
	for j := range nv - 1 {
		var sum float64
		for i := range nu - 1 {
			a, b := s.node(i, j), s.node(i+1, j)
			c, d := s.node(i, j+1), s.node(i+1, j+1)
			u := [3]float64{(b[0] - a[0] + d[0] - c[0]) / 2, (b[1] - a[1] + d[1] - c[1]) / 2, (b[2] - a[2] + d[2] - c[2]) / 2}
			v := [3]float64{(c[0] - a[0] + d[0] - b[0]) / 2, (c[1] - a[1] + d[1] - b[1]) / 2, (c[2] - a[2] + d[2] - b[2]) / 2}
			sum += -math.Asin(vec3.Dot(u, v) / (vec3.Norm(u) * vec3.Norm(v)))
		}
		r.Points = append(r.Points, Point{sum / float64(nu-1), s.rowWeight(j, g)})
	}
	r.G, err = slopeOver(r.Points, halfDegree, fiveDegrees)
	return r, err
}

// slopeOver is the least-squares slope of the points whose x lies in
// [lo, hi].
func slopeOver(pts []Point, lo, hi float64) (float64, error) {
	var n, sx, sy, sxx, sxy float64
	for _, p := range pts {
		if p.X < lo || p.X > hi {
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
// strip does not twist), pinched by pads of radius l/8. The pads must curve
// away faster than the strip droops from the clamp (root curvature 1.6/c
// = 3.2/l, testdata/elastica_ref.json), or the strip rests on the
// thumb beyond the clamp: fixed 5 mm pads read c 10 % high for a heavy
// limp fabric with c = 5 mm.
const (
	bendWidthPerL = 1.0 / 20
	bendNodes     = 3
	padRadiusPerL = 1.0 / 8
)

// The pinch's contact parameters replace the fabric's in the bending tests:
// they belong to the clamp, not to the fabric, and play no part in what is
// measured. The pinch must hold the strip's root moment without slipping or
// squeezing the fabric in its plane: each pinched probe presses
// pinchGrip times the strip's weight (stiffer grips slow the relaxation,
// and ten times stiffer strain the knit's soft tensile curve under the
// pads and let the clamp turn), with high friction, and the layer is thin
// enough (10 µm) that the pads touch only the first element.
const (
	pinchGrip      = 10
	pinchFriction  = 1
	pinchThickness = 1e-5
)

// cantilever is a strip hanging from its top row (the hinge) and held
// horizontal by a pinch of both finger pads on its first element, bending
// under gravity g along -z.
type cantilever struct {
	s       *specimen
	support int     // the clamp's edge: the node row where the free strip starts
	g       float64 // [m/s²]
	l       float64 // overhang [m]
	steps   int
}

// newCantilever builds a strip with an overhang of l beyond the clamp in n
// elements and lets it settle. sim pins only a line of nodes, a hinge, so
// the clamp is that hinge plus a pinch: thumb below and index above, both
// centred on the middle of the first element and pressing into the strip
// until the centroids of its triangles, a sixth of an element from the
// middle, are inside both pads and the next element's are not (each pad
// overlaps the mid-plane by e = (dv/4)²/(2R)). sim's triangles are flat
// and bend only across their shared edges, so the pinched element is held
// flat and level and the strip's first bending edge, the clamp's edge, is
// the row below it.
func newCantilever(m sim.Material, l, g float64, n int) (*cantilever, error) {
	dv := l / float64(n)
	nv := n + 2
	w, r := bendWidthPerL*l, padRadiusPerL*l
	e := (dv / 4) * (dv / 4) / (2 * r)
	probe := w / (bendNodes - 1) * dv / 2 // one probe per triangle
	m.FrictionStatic, m.FrictionKinetic = pinchFriction, pinchFriction
	m.Compression = pinchGrip * m.ArealMass * g * w * l / (probe * e)
	m.Thickness = pinchThickness
	s, err := newSpecimen(m, w, dv*float64(nv-1), bendNodes, nv, [3]float64{0, 0, -g}, r)
	if err != nil {
		return nil, err
	}
	y := dv * (float64(nv) - 1.5)
	reach := r + m.Thickness/2
	th, ix := &s.in.Fingers[sim.Thumb], &s.in.Fingers[sim.IndexFinger]
	th.Valid, th.Normal, th.Pos = true, [3]float64{0, 0, 1}, [3]float64{0, y, -reach + e}
	ix.Valid, ix.Normal, ix.Pos = true, [3]float64{0, 0, -1}, [3]float64{0, y, reach - e}
	c := &cantilever{s: s, support: nv - 2, g: g, l: l}
	// Rows settled to a ten-millionth of the overhang a step.
	if c.steps, err = s.relax(1000, 1e-7*l); err != nil {
		return nil, err
	}
	return c, nil
}

// moment is the bending moment per unit width [N] at node row j, by
// statics: the weight of the rows beyond it (towards the tip, row 0; the
// tip row holds half a row of fabric) times their horizontal lever arm.
func (c *cantilever) moment(j int) float64 {
	s := c.s
	pj := s.row(j)
	var m float64
	for k := range j {
		wk := 1.0
		if k == 0 {
			wk = 0.5
		}
		pk := s.row(k)
		m += wk * math.Hypot(pj[0]-pk[0], pj[1]-pk[1])
	}
	return s.rho * c.g * s.dv * m
}

// curvature is the curvature [1/m] at node row j: the circle through rows
// j-1, j and j+1.
func (c *cantilever) curvature(j int) float64 {
	a, b, d := c.s.row(j+1), c.s.row(j), c.s.row(j-1)
	u, v, w := vec3.Sub(b, a), vec3.Sub(d, b), vec3.Sub(d, a)
	return 2 * vec3.Norm(vec3.Cross(u, v)) / (vec3.Norm(u) * vec3.Norm(v) * vec3.Norm(w))
}

// bendingReading is what the virtual bending tests recover from one
// cantilever.
type bendingReading struct {
	B          float64 // slope of moment against curvature [N·m]
	MaxK       float64 // largest curvature read [1/m]
	Length     float64 // Peirce's bending length [m]
	ChordAngle float64 // θ of the tip below the clamp, less the clamp's tilt [rad]
	Steps      int
}

// virtualBending loads a strip of the material as Peirce's cantilever
// (Peirce 1930) under standard gravity, with an
// overhang l = 2c, twice the bending length (B/(W·g))^(1/3) of the material,
// where Peirce's test reads (θ ≈ 41.5°), and reads it twice:
//
//   - Moment against curvature, KES-FB2's reading: sim cannot hold a strip
//     in an arc of prescribed curvature as FB2 does, so each cross-section
//     of the cantilever serves as one reading instead, its moment from
//     statics (the weight beyond it times its lever arm), its curvature
//     from the deformed strip. B is the least-squares slope over every
//     section. FB2 reads B over 0.5-1.5 cm⁻¹; the cantilever reaches 1.6/c
//     at its root (testdata/elastica_ref.json; 0.6-1.4 cm⁻¹ for the
//     built-in fabrics) and sim's bending is linear, so the slope does not
//     depend on the range.
//   - Peirce's bending length: the chord from the clamp's edge to the tip
//     makes the angle θ with the horizontal, and c = l·(cos(θ/2)/(8·tan
//     θ))^(1/3). The clamp's tilt, if the pinch let it turn, is measured
//     and taken off θ, as a tilted platform would be.
func virtualBending(m sim.Material, n int) (bendingReading, error) {
	c0 := math.Cbrt(m.BendWarp / (m.ArealMass * StandardGravity))
	cl, err := newCantilever(m, 2*c0, StandardGravity, n)
	if err != nil {
		return bendingReading{}, err
	}
	r := bendingReading{Steps: cl.steps}
	var pts []Point
	for j := 1; j <= cl.support; j++ {
		k := cl.curvature(j)
		pts = append(pts, Point{k, cl.moment(j)})
		r.MaxK = math.Max(r.MaxK, k)
	}
	if r.B, err = slopeOver(pts, 0, math.Inf(1)); err != nil {
		return r, err
	}
	s := cl.s
	root, tip, hinge := s.row(cl.support), s.row(0), s.row(s.nv-1)
	tilt := math.Atan2(hinge[2]-root[2], hinge[1]-root[1])
	r.ChordAngle = math.Atan2(root[2]-tip[2], root[1]-tip[1]) - tilt
	if !(r.ChordAngle > 0 && r.ChordAngle < math.Pi/2) {
		return r, fmt.Errorf("the strip settled with its tip at %.1f° from the clamp, not hanging below it as a cantilever", r.ChordAngle*180/math.Pi)
	}
	r.Length = cl.l * math.Cbrt(math.Cos(r.ChordAngle/2)/(8*math.Tan(r.ChordAngle)))
	return r, nil
}

package sim

import (
	"fmt"
	"math"
	"sort"
)

// Refinement grades the mesh: it packs the grid lines around one point of
// the fabric, where the fingers grip, so that the elements there are
// smaller than the grip. A uniform mesh whose elements are larger than
// the pads cannot bend the membrane round the grip, and its pull
// stiffness then depends on the mesh (TestPinchPullResolution); a graded
// one puts the nodes where the strain varies.
//
// The spacing grows with the distance d from Centre along u as the
// hyperbola h₀·√(1 + (d/a)²), a = Radius/√(Ratio² − 1), so that it is
// Ratio times the finest at Radius from Centre, and likewise along v: line
// i sits at Centre + a·sinh(s₀ + i·θ) (gridLines). The mesh keeps its grid
// topology (every solver and preconditioner works unchanged) and its
// union-jack triangulation; the fine columns and rows cross at the centre.
// The zero value is a uniform mesh.
//
// Why a hyperbola. The three-point curvature on unequal spacings is off by
// (h₂ − h₁)/3·z‴, and the bending force is a second difference of the
// curvatures, so on a cubic surface the force is the plate's (zero) only if
// h₂ − h₁ is a linear function of u. On these lines it is exactly, (2·cosh
// θ − 2)·(u − Centre), and on a quartic surface the force is the plate's
// with its u⁴ part scaled by 1 + 5β/6 + β²/6 at every interior line, β =
// 2·cosh θ − 2 (and its v⁴ part by the same of the v lines'): a uniform
// error, second order in θ (TestBendingForceQuartic). A spacing that
// levels off (the Gaussian density this grading replaced) leaves an error
// of order one where it does.
type Refinement struct {
	Centre [2]float64 // (u, v) of the refined point from the (0, 0) corner [m]
	Radius float64    // distance from Centre at which the spacing is Ratio times the finest [m]
	Ratio  float64    // the spacing at Radius from Centre over that at Centre; <= 1 is uniform
	// Follow moves the grading to where a finger approaches: when a pad
	// comes within FollowReach of the cloth while no pad touches it, and
	// the point of the cloth under it lies more than Radius/2 from Centre
	// along u or v, the step first regrades the mesh round that point
	// (Cloth.Regrade). Centre is then only the starting point. The first
	// approaching pad decides (the thumb's when both approach).
	Follow bool
}

// FollowReach is how close a pad's surface comes to the cloth before a
// following grading moves to it [m]: at 0.2 m/s a pad covers it in 50 ms,
// ten 5 ms steps, so the regrade is done well before the touch.
const FollowReach = 0.01

// RefineRadius and RefineRatio are the grading TestPinchPullResolution
// validates for the showcase's 8 mm pads: with them 24² and 32² meshes
// pinch and pull within 5 % of 64². The spacing doubles 3 cm from the
// pinch: a finer centre costs bending accuracy (θ grows with the
// hyperbola's reach, TestBendingForceQuartic), a coarser one made 24²
// pinch stiffer than 64² by more than 5 % (docs/cloth.md, "Graded
// meshes").
const (
	RefineRadius = 0.03
	RefineRatio  = 2
)

func (r Refinement) active() bool { return r.Ratio > 1 }

func (r Refinement) validate(width, height float64) error {
	switch {
	case !r.active():
		if r.Ratio < 0 || math.IsNaN(r.Ratio) {
			return fmt.Errorf("sim: refinement ratio %g, want >= 0", r.Ratio)
		}
		return nil
	case !isFinite(r.Ratio) || r.Ratio > 100:
		return fmt.Errorf("sim: refinement ratio %g, want at most 100", r.Ratio)
	case !(r.Radius > 0) || !isFinite(r.Radius):
		return fmt.Errorf("sim: refinement radius %g m, want > 0", r.Radius)
	case !(r.Centre[0] >= 0 && r.Centre[0] <= width && r.Centre[1] >= 0 && r.Centre[1] <= height):
		return fmt.Errorf("sim: refinement centre (%g, %g) m outside the %g × %g m fabric", r.Centre[0], r.Centre[1], width, height)
	}
	return nil
}

// Regrade rebuilds the mesh graded round centre (the rest coordinates (u,
// v) of a point of the cloth [m]) and carries the cloth's state over: each
// new node takes the position and velocity of its material point on the
// old mesh (linear within the old triangle), so the shape is kept to the
// old mesh's resolution. The warm start and the BDF-2 history are dropped.
// It refuses while a pad touches the cloth (the friction state lives on the
// old mesh's triangles), on a mesh that is not graded, and on a bias-cut
// cloth. Regrade allocates the new mesh and takes milliseconds
// (BenchmarkRegrade): it is meant for the moments no finger touches, as
// Follow uses it.
func (c *Cloth) Regrade(centre [2]float64) error {
	r := c.cfg.Refine
	r.Centre = centre
	switch {
	case !r.active():
		return fmt.Errorf("sim: regrade of a uniform mesh (Refinement.Ratio %g)", r.Ratio)
	case c.bias != 0:
		return fmt.Errorf("sim: regrade of a bias-cut cloth")
	case c.pads.touching():
		return fmt.Errorf("sim: regrade while a pad touches the cloth")
	}
	if err := r.validate(c.cfg.Width, c.cfg.Height); err != nil {
		return err
	}
	if c.cons.rollers() {
		return fmt.Errorf("sim: regrade with roller constraints")
	}
	old := c.m
	m := gradedMesh(&c.cfg, r, 0)
	for _, s := range [][]float64{c.x, c.v, c.cons.target} {
		old.resample(m, s, s)
	}
	copy(c.xGood, c.x)
	copy(c.vGood, c.v)
	c.cfg.Refine = r
	c.m = m
	c.fab.m = m
	c.fab.update()
	c.dyn = clothDynamics{} // a new coarse plan, too
	c.dyn.init(c)
	c.flat(c.dyn.force.rest)
	c.pads.init(c)
	c.coupling.init(c)
	c.rod.init(c)
	if c.self != nil {
		c.self = new(selfContact)
		c.self.init(c)
	}
	c.it.reset()
	c.grading++
	return nil
}

// follow regrades the mesh round the cloth point under a pad that approaches
// (Refinement.Follow); it reports whether it did.
func (c *Cloth) follow(in *FingerState) bool {
	if in == nil || c.pads.touching() {
		return false
	}
	r := &c.cfg.Refine
	for k := range NumFingers {
		fg := &in.Fingers[k]
		if !fg.Valid || !isFinite(fg.Pos[0]) || !isFinite(fg.Pos[1]) || !isFinite(fg.Pos[2]) {
			continue
		}
		reach := c.cfg.PadRadius[k] + c.fab.thick/2 + FollowReach
		best, d2 := -1, reach*reach
		for n := range c.n {
			if e := dist2(at3(c.x, int32(n)), fg.Pos); e < d2 {
				best, d2 = n, e
			}
		}
		if best < 0 {
			continue
		}
		u, v := c.restPoint(int32(best), fg.Pos)
		if math.Abs(u-r.Centre[0]) <= r.Radius/2 && math.Abs(v-r.Centre[1]) <= r.Radius/2 {
			return false
		}
		return c.Regrade([2]float64{u, v}) == nil
	}
	return false
}

// restPoint returns the rest coordinates of the point of the cloth nearest
// p among the triangles round node n: where p projects inside one of them
// along its normal, else node n's own.
func (c *Cloth) restPoint(n int32, p [3]float64) (u, v float64) {
	u, v = c.m.uv[2*n], c.m.uv[2*n+1]
	best := math.Inf(1)
	for _, ti := range c.m.nodeTris[n] {
		t := &c.m.tris[ti]
		a, b, d := at3(c.x, t.n[0]), at3(c.x, t.n[1]), at3(c.x, t.n[2])
		e1, e2, q := sub3(b, a), sub3(d, a), sub3(p, a)
		nrm := cross3(e1, e2)
		nn := dot3(nrm, nrm)
		if nn == 0 {
			continue
		}
		// Barycentric coordinates of p's projection on the triangle's plane.
		w1 := dot3(cross3(q, e2), nrm) / nn
		w2 := dot3(cross3(e1, q), nrm) / nn
		w0 := 1 - w1 - w2
		if w0 < 0 || w1 < 0 || w2 < 0 {
			continue
		}
		if h := math.Abs(dot3(q, nrm)) / math.Sqrt(nn); h < best {
			best = h
			u = w0*c.m.uv[2*t.n[0]] + w1*c.m.uv[2*t.n[1]] + w2*c.m.uv[2*t.n[2]]
			v = w0*c.m.uv[2*t.n[0]+1] + w1*c.m.uv[2*t.n[1]+1] + w2*c.m.uv[2*t.n[2]+1]
		}
	}
	return u, v
}

// resample sets dst (3 values per node of to) to src (3 per node of m)
// interpolated at to's rest coordinates: linearly within the triangle of m
// that holds each point, as the elements interpolate. dst may be src.
// Both meshes span the same rectangle and are unrotated.
func (m *mesh) resample(to *mesh, src, dst []float64) {
	out := make([]float64, 3*to.nodes())
	for j, v := range to.gv {
		jj := cell(m.gv, v)
		for i, u := range to.gu {
			ii := cell(m.gu, u)
			s := (u - m.gu[ii]) / (m.gu[ii+1] - m.gu[ii])
			t := (v - m.gv[jj]) / (m.gv[jj+1] - m.gv[jj])
			id := func(a, b int) int32 { return int32((jj+b)*m.nu + ii + a) }
			// The cell's two triangles, as newGridMesh cuts it.
			var n [3]int32
			var w [3]float64
			if (ii+jj)%2 == 0 { // diagonal (0,0)-(1,1)
				if s >= t {
					n, w = [3]int32{id(0, 0), id(1, 0), id(1, 1)}, [3]float64{1 - s, s - t, t}
				} else {
					n, w = [3]int32{id(0, 0), id(1, 1), id(0, 1)}, [3]float64{1 - t, s, t - s}
				}
			} else { // diagonal (1,0)-(0,1)
				if s+t <= 1 {
					n, w = [3]int32{id(0, 0), id(1, 0), id(0, 1)}, [3]float64{1 - s - t, s, t}
				} else {
					n, w = [3]int32{id(1, 0), id(1, 1), id(0, 1)}, [3]float64{1 - t, s + t - 1, 1 - s}
				}
			}
			k := j*to.nu + i
			for a := range 3 {
				out[3*k+a] = w[0]*src[3*n[0]+int32(a)] + w[1]*src[3*n[1]+int32(a)] + w[2]*src[3*n[2]+int32(a)]
			}
		}
	}
	copy(dst, out)
}

// cell returns i with g[i] <= x <= g[i+1], clamped to the grid.
func cell(g []float64, x float64) int {
	i := sort.SearchFloat64s(g, x) - 1
	return min(max(i, 0), len(g)-2)
}

// gradedMesh builds cfg's mesh graded by r, its weft at angle bias.
func gradedMesh(cfg *Config, r Refinement, bias float64) *mesh {
	return newGridMesh(gridLines(cfg.NodesU, cfg.Width, r, 0), gridLines(cfg.NodesV, cfg.Height, r, 1), bias)
}

// gridLines places n grid lines on [0, length] graded by r along axis (0:
// u, 1: v): line i at c + a·sinh(s₀ + i·θ), c the centre along axis and a
// = Radius/√(Ratio² − 1), s₀ and θ such that the first line is at 0 and the
// last at length.
func gridLines(n int, length float64, r Refinement, axis int) []float64 {
	g := make([]float64, n)
	for i := range n {
		g[i] = length * float64(i) / float64(n-1)
	}
	if !r.active() {
		return g
	}
	c, a := r.Centre[axis], r.Radius/math.Sqrt(r.Ratio*r.Ratio-1)
	s0, s1 := math.Asinh(-c/a), math.Asinh((length-c)/a)
	for i := 1; i < n-1; i++ {
		g[i] = c + a*math.Sinh(s0+(s1-s0)*float64(i)/float64(n-1))
	}
	return g
}

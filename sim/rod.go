package sim

import "math"

// rod is the stand's rod: a cylinder along x the cloth cannot enter,
// resolved at the nodes (frictionless).
type rod struct {
	c       *Cloth
	enabled bool
	radius  float64
	y, z    float64
	list    []rodContact
}

type rodContact struct {
	node int32
	n    [3]float64
	k    float64
}

func (r *rod) init(c *Cloth) {
	r.c = c
	if c.cfg.RodRadius <= 0 || c.cfg.Pin != PinTopEdge {
		return
	}
	r.enabled = true
	r.radius = c.cfg.RodRadius
	top := c.corner[1] + c.cfg.Height
	r.y = top + r.radius + c.cfg.Material.Thickness/2
	r.z = c.corner[2]
	r.list = make([]rodContact, 0, c.n)
}

func (r *rod) linearize(x, f []float64) float64 {
	r.list = r.list[:0]
	if !r.enabled {
		return 0
	}
	reff, free := r.reach(), r.c.cons.free
	var e float64
	for k := range r.c.n {
		pen, ny, nz := r.inside(x, free, k, reff)
		if pen <= 0 {
			continue
		}
		n := [3]float64{0, ny, nz}
		kk := r.stiffness(k)
		addAt3(f, int32(k), kk*pen, n)
		e += 0.5 * kk * pen * pen
		r.list = append(r.list, rodContact{node: int32(k), n: n, k: kk})
	}
	return e
}

// energyAt returns the rod contacts' energy at x, as linearize counts it.
func (r *rod) energyAt(x []float64) float64 {
	if !r.enabled {
		return 0
	}
	reff, free := r.reach(), r.c.cons.free
	var e float64
	for k := range r.c.n {
		if pen, _, _ := r.inside(x, free, k, reff); pen > 0 {
			e += 0.5 * r.stiffness(k) * pen * pen
		}
	}
	return e
}

func (r *rod) assemble(a *bcsr, cK float64) {
	for _, rc := range r.list {
		nn := outer(rc.n, rc.n)
		a.addBlock(a.diag[rc.node], cK*rc.k, &nn)
	}
}

func (r *rod) addDiag(d [][3][3]float64, cK float64) {
	for _, rc := range r.list {
		nn := outer(rc.n, rc.n)
		addTo33(&d[rc.node], cK*rc.k, &nn)
	}
}

// mulAdd adds c·J·p for the rod contacts (J = -k·n·nᵀ).
func (r *rod) mulAdd(dst, p []float64, c float64) {
	for _, rc := range r.list {
		s := -c * rc.k * dot3(rc.n, at3(p, rc.node))
		addAt3(dst, rc.node, s, rc.n)
	}
}

// reach is the distance from the rod's axis at which a node's layer of
// cloth touches it: the radius and half the fabric's thickness.
func (r *rod) reach() float64 { return r.radius + r.c.fab.thick/2 }

// stiffness is node k's contact stiffness against the rod [N/m]: the
// fabric's compression over the node's area.
func (r *rod) stiffness(k int) float64 { return r.c.fab.compression * r.c.m.area[k] }

// inside is the one contact test of linearize and energyAt: how deep
// node k is inside the rod at x (closer to its axis than reff) [m], and
// the y and z of the rod's outward normal there. Depth 0 or less means no
// contact: the node is outside, pinned (not free[k]) or within 1 nm of
// the axis, where the normal is undefined. Small enough to inline.
func (r *rod) inside(x []float64, free []bool, k int, reff float64) (pen, ny, nz float64) {
	// Most nodes are far from the rod: a squared distance rules them out
	// before the root.
	dy, dz := x[3*k+1]-r.y, x[3*k+2]-r.z
	d2 := dy*dy + dz*dz
	if d2 >= reff*reff || d2 < 1e-18 || !free[k] {
		return 0, 0, 0
	}
	d := math.Sqrt(d2)
	return reff - d, dy / d, dz / d
}

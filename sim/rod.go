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
	var e float64
	r.contacts(x, func(k int, pen float64, n [3]float64) {
		kk := r.stiffness(k)
		addAt3(f, int32(k), kk*pen, n)
		e += 0.5 * kk * pen * pen
		r.list = append(r.list, rodContact{node: int32(k), n: n, k: kk})
	})
	return e
}

// energyAt returns the rod contacts' energy at x, as linearize counts it.
func (r *rod) energyAt(x []float64) float64 {
	var e float64
	r.contacts(x, func(k int, pen float64, _ [3]float64) {
		e += 0.5 * r.stiffness(k) * pen * pen
	})
	return e
}

// contacts calls fn for every free node inside the rod at x, with how
// deep it is [m] and the rod's outward normal there: the one contact test
// of linearize and energyAt. A node within 1 nm of the axis, where the
// normal is undefined, is left out.
func (r *rod) contacts(x []float64, fn func(k int, pen float64, n [3]float64)) {
	if !r.enabled {
		return
	}
	c := r.c
	reff := r.reach()
	for k := range c.n {
		// Most nodes are far from the rod: a squared distance rules them
		// out before the root.
		dy, dz := x[3*k+1]-r.y, x[3*k+2]-r.z
		if dy*dy+dz*dz >= reff*reff || !c.cons.free[k] {
			continue
		}
		d := math.Sqrt(dy*dy + dz*dz)
		pen := reff - d
		if pen <= 0 || d < 1e-9 {
			continue
		}
		fn(k, pen, [3]float64{0, dy / d, dz / d})
	}
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

// stiffness is node k's contact stiffness against the rod [N/m]: the
// fabric's compression over the node's area.
func (r *rod) stiffness(k int) float64 { return r.c.fab.compression * r.c.m.area[k] }

// reach is the distance from the rod's axis at which a node's layer of
// cloth touches it: the radius and half the fabric's thickness.
func (r *rod) reach() float64 { return r.radius + r.c.fab.thick/2 }

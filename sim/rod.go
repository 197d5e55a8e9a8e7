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
	c := r.c
	reff := r.radius + c.fab.thick/2
	var e float64
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
		kk := c.fab.compression * c.m.area[k]
		n := [3]float64{0, dy / d, dz / d}
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
	c := r.c
	reff := r.radius + c.fab.thick/2
	var e float64
	for k := range c.n {
		dy, dz := x[3*k+1]-r.y, x[3*k+2]-r.z
		if dy*dy+dz*dz >= reff*reff || !c.cons.free[k] {
			continue
		}
		d := math.Sqrt(dy*dy + dz*dz)
		if pen := reff - d; pen > 0 && d >= 1e-9 {
			e += 0.5 * c.fab.compression * c.m.area[k] * pen * pen
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

package sim

import "fmt"

// Edge names a side of the fabric: the line of nodes at v = 0 (bottom),
// v = Height (top), u = 0 (left) or u = Width (right).
type Edge int

const (
	EdgeBottom Edge = iota
	EdgeTop
	EdgeLeft
	EdgeRight
)

var edgeNames = [...]string{EdgeBottom: "bottom", EdgeTop: "top", EdgeLeft: "left", EdgeRight: "right"}

func (e Edge) String() string {
	if e >= 0 && int(e) < len(edgeNames) {
		return edgeNames[e]
	}
	return fmt.Sprintf("Edge(%d)", int(e))
}

// grip is an edge held by a chuck.
type grip struct {
	nodes  []int32
	origin []float64 // the nodes' positions when gripped
}

// edgeNodes returns the nodes of the lines outermost node lines at edge
// e.
func (c *Cloth) edgeNodes(e Edge, lines int) []int32 {
	nu, nv := c.m.nu, c.m.nv
	var out []int32
	for l := range lines {
		switch e {
		case EdgeBottom, EdgeTop:
			j := l
			if e == EdgeTop {
				j = nv - 1 - l
			}
			for i := range nu {
				out = append(out, int32(j*nu+i))
			}
		case EdgeLeft, EdgeRight:
			i := l
			if e == EdgeRight {
				i = nu - 1 - l
			}
			for j := range nv {
				out = append(out, int32(j*nu+i))
			}
		}
	}
	return out
}

// Grip clamps the nodes of the lines outermost node lines at edge e where
// they are, as the chuck of a test instrument holds a specimen: from then
// on they move only as MoveGrip moves them, rigidly. One line is a hinge
// the cloth turns about; two hold the elements between them as a clamp
// does. The virtual Kawabata instruments (calib/kes) hold their specimens
// so. Grip allocates; call it between steps.
func (c *Cloth) Grip(e Edge, lines int) error {
	if e < EdgeBottom || e > EdgeRight {
		return fmt.Errorf("sim: grip of an unknown edge %d", int(e))
	}
	if across := map[bool]int{true: c.m.nv, false: c.m.nu}[e == EdgeBottom || e == EdgeTop]; lines < 1 || lines >= across {
		return fmt.Errorf("sim: grip of %d lines of a %d-line mesh", lines, across)
	}
	if c.grips == nil {
		c.grips = make(map[Edge]*grip)
	}
	g := &grip{nodes: c.edgeNodes(e, lines)}
	for _, k := range g.nodes {
		c.pin(k)
		g.origin = append(g.origin, c.x[3*k], c.x[3*k+1], c.x[3*k+2])
	}
	c.grips[e] = g
	c.it.reset()
	return nil
}

// MoveGrip moves edge e's chuck to d [m] from where it gripped: the next
// step brings the gripped nodes there, over the step.
func (c *Cloth) MoveGrip(e Edge, d [3]float64) error {
	g := c.grips[e]
	if g == nil {
		return fmt.Errorf("sim: the %v edge is not gripped", e)
	}
	if !isFinite(d[0]) || !isFinite(d[1]) || !isFinite(d[2]) {
		return fmt.Errorf("sim: grip displacement %v not finite", d)
	}
	for i, k := range g.nodes {
		for q := range 3 {
			c.cons.target[3*k+int32(q)] = g.origin[3*i+q] + d[q]
		}
	}
	return nil
}

// GripForce returns the force the cloth exerts on edge e's chuck [N] in
// the current state: the sum over the gripped nodes of the elements',
// bending and viscous forces, what the chuck's load cell reads (the
// gripped nodes' own weight and any finger's contact left out). It takes
// a forces pass.
func (c *Cloth) GripForce(e Edge) ([3]float64, error) {
	g := c.grips[e]
	if g == nil {
		return [3]float64{}, fmt.Errorf("sim: the %v edge is not gripped", e)
	}
	if c.gripF == nil {
		c.gripF = make([]float64, 3*c.n)
	}
	c.dyn.pending = false
	c.dyn.force.elastic(c.x, c.v, c.gripF, nil)
	grav := c.cfg.Gravity
	var f [3]float64
	for _, k := range g.nodes {
		m := c.fab.mass[k]
		for q := range 3 {
			f[q] += c.gripF[3*k+int32(q)] - m*grav[q]
		}
	}
	return f, nil
}

// PlaceGrip moves each of edge e's gripped nodes to place(its position
// when gripped) [m]: a chuck that bends or turns its specimen, not only
// shifts it (MoveGrip). The next step brings the nodes there, over the
// step.
func (c *Cloth) PlaceGrip(e Edge, place func(origin [3]float64) [3]float64) error {
	g := c.grips[e]
	if g == nil {
		return fmt.Errorf("sim: the %v edge is not gripped", e)
	}
	for i, k := range g.nodes {
		p := place([3]float64{g.origin[3*i], g.origin[3*i+1], g.origin[3*i+2]})
		if !isFinite(p[0]) || !isFinite(p[1]) || !isFinite(p[2]) {
			return fmt.Errorf("sim: grip position %v not finite", p)
		}
		for q := range 3 {
			c.cons.target[3*k+int32(q)] = p[q]
		}
	}
	return nil
}

// GripWork returns the work the cloth's forces on edge e's gripped nodes
// (those GripForce sums) do over the virtual displacement d(origin) of
// each node [J]: with d the derivative of PlaceGrip's placement in a
// parameter, minus the derivative of the cloth's energy in it, the load a
// bending instrument reads by virtual work. It takes a forces pass.
func (c *Cloth) GripWork(e Edge, d func(origin [3]float64) [3]float64) (float64, error) {
	g := c.grips[e]
	if g == nil {
		return 0, fmt.Errorf("sim: the %v edge is not gripped", e)
	}
	if c.gripF == nil {
		c.gripF = make([]float64, 3*c.n)
	}
	c.dyn.pending = false
	c.dyn.force.elastic(c.x, c.v, c.gripF, nil)
	grav := c.cfg.Gravity
	var w float64
	for i, k := range g.nodes {
		dk := d([3]float64{g.origin[3*i], g.origin[3*i+1], g.origin[3*i+2]})
		m := c.fab.mass[k]
		for q := range 3 {
			w += (c.gripF[3*k+int32(q)] - m*grav[q]) * dk[q]
		}
	}
	return w, nil
}

package sim

import (
	"math"
	"sort"
)

// mesh is a rectangular fabric of nu × nv nodes, node (i, j) at index
// j*nu + i, i along the weft (u) and j along the warp (v). Each grid square
// is cut along one diagonal, alternating like a chequerboard ("union jack"),
// so that no diagonal direction is preferred: a square (i, j) with i+j even
// is cut from (i, j) to (i+1, j+1), the others from (i+1, j) to (i, j+1).
//
// With this pattern every interior grid edge sees exactly one second
// difference of the surface: edges along v measure ∂²z/∂u², edges along u
// measure ∂²z/∂v², diagonals measure the twist ∂²z/∂u∂v. The bending
// stiffness of each edge family is set so that the discrete bending energy
// equals the plate energy for any quadratic surface (see bendStencils).
type mesh struct {
	nu, nv    int
	gu, gv    []float64 // grid lines: the rest u of each column, v of each row [m]
	uv        []float64 // 2 per node: rest coordinates (u, v) [m]
	tris      []tri
	edges     []edge
	bend      scalarCSR    // bending pattern; val is filled by bendParts × rigidities
	bendParts [3][]float64 // bending operator values per unit rigidity: weft, warp, twist
	bendGen   uint64       // counts the changes of bend.val
	hinges    []hinge      // the weft and warp bending edges, for the bending friction (bendhyst.go)
	area      []float64    // lumped rest area per node: its dual cell [m²]
	nodeTris  [][]int32    // triangles around each node
}

// tri is one triangle element with its precomputed shape-function gradients
// (Volino's R coefficients, eq. 6): U = Σ ru[k]·P_k, V = Σ rv[k]·P_k.
type tri struct {
	n      [3]int32
	ru, rv [3]float64
	area   float64 // rest area [m²]
	// Largest eigenvalue, per unit coefficient, of each geometric term's
	// 9×9 matrix: area·Σ r², for r = ru, rv, ru+rv, ru-rv.
	su2, sv2, sw2, sz2 float64
}

// edge is a mesh edge with its rest length, for strain limiting.
type edge struct {
	a, b int32
	rest float64
}

// newGridMesh builds a fabric on the grid lines gu (columns) and gv (rows),
// each increasing from 0. The rest coordinates are the grid coordinates
// rotated by angle (radians; the weft's angle from the grid's first axis):
// angle 0 is the usual fabric, π/4 a bias cut. Bending anisotropy assumes
// angle 0.
func newGridMesh(gu, gv []float64, angle float64) *mesh {
	nu, nv := len(gu), len(gv)
	m := &mesh{nu: nu, nv: nv, gu: gu, gv: gv}
	n := nu * nv
	m.uv = make([]float64, 2*n)
	c, s := math.Cos(angle), math.Sin(angle)
	for j := range nv {
		for i := range nu {
			x, y := gu[i], gv[j]
			k := j*nu + i
			m.uv[2*k], m.uv[2*k+1] = c*x+s*y, -s*x+c*y
		}
	}
	id := func(i, j int) int32 { return int32(j*nu + i) }
	for j := range nv - 1 {
		for i := range nu - 1 {
			a, b, cc, d := id(i, j), id(i+1, j), id(i+1, j+1), id(i, j+1)
			if (i+j)%2 == 0 {
				m.addTri(a, b, cc)
				m.addTri(a, cc, d)
			} else {
				m.addTri(a, b, d)
				m.addTri(b, cc, d)
			}
		}
	}
	// Each node's share of the area is its cell of the dual grid, a
	// quarter of each grid square it is a corner of (the tensor product of
	// the trapezoidal rule), so a uniform mesh has uniform node masses. A
	// third of each triangle, the barycentric lumping of linear elements,
	// gives the nodes where four diagonals meet twice the mass of the
	// others on the union-jack grid, while gravity, inertia and bending
	// are uniform per square.
	m.area = make([]float64, n)
	for j := range nv {
		for i := range nu {
			m.area[j*nu+i] = halfCell(gu, i) * halfCell(gv, j)
		}
	}
	m.nodeTris = make([][]int32, n)
	for t, tr := range m.tris {
		for _, k := range tr.n {
			m.nodeTris[k] = append(m.nodeTris[k], int32(t))
		}
	}
	m.buildEdges()
	m.bendStencils()
	return m
}

func (m *mesh) nodes() int { return m.nu * m.nv }

// halfCell is the extent of grid line i's dual cell: half the spacing to
// each of its neighbours.
func halfCell(g []float64, i int) float64 {
	return (g[min(i+1, len(g)-1)] - g[max(i-1, 0)]) / 2
}

func (m *mesh) addTri(a, b, c int32) {
	ua, va := m.uv[2*a], m.uv[2*a+1]
	ub, vb := m.uv[2*b], m.uv[2*b+1]
	uc, vc := m.uv[2*c], m.uv[2*c+1]
	d := ua*(vb-vc) + ub*(vc-va) + uc*(va-vb)
	t := tri{
		n:    [3]int32{a, b, c},
		ru:   [3]float64{(vb - vc) / d, (vc - va) / d, (va - vb) / d},
		rv:   [3]float64{(uc - ub) / d, (ua - uc) / d, (ub - ua) / d},
		area: math.Abs(d) / 2,
	}
	for k := range 3 {
		t.su2 += t.area * t.ru[k] * t.ru[k]
		t.sv2 += t.area * t.rv[k] * t.rv[k]
		t.sw2 += t.area * (t.ru[k] + t.rv[k]) * (t.ru[k] + t.rv[k])
		t.sz2 += t.area * (t.ru[k] - t.rv[k]) * (t.ru[k] - t.rv[k])
	}
	m.tris = append(m.tris, t)
}

func (m *mesh) restDist(a, b int32) float64 {
	return math.Hypot(m.uv[2*a]-m.uv[2*b], m.uv[2*a+1]-m.uv[2*b+1])
}

// buildEdges lists every triangle edge once.
func (m *mesh) buildEdges() {
	seen := make(map[[2]int32]bool)
	for _, t := range m.tris {
		for k := range 3 {
			a, b := t.n[k], t.n[(k+1)%3]
			if a > b {
				a, b = b, a
			}
			if !seen[[2]int32{a, b}] {
				seen[[2]int32{a, b}] = true
				m.edges = append(m.edges, edge{a, b, m.restDist(a, b)})
			}
		}
	}
	sort.Slice(m.edges, func(i, j int) bool {
		if m.edges[i].a != m.edges[j].a {
			return m.edges[i].a < m.edges[j].a
		}
		return m.edges[i].b < m.edges[j].b
	})
}

// bendStencils builds Volino's linear bending (eq. 12-21) for every
// interior edge (C, D): a bending vector R = Σ α_k·P_k with coefficients
// from the rest shape (eq. 15), forces F_k = -λ·α_k·R (eq. 17), energy
// ½λ|R|². The coefficients sum to zero and cancel every affine image of
// the rest shape, so R vanishes for any flat (even stretched)
// configuration and the forces conserve linear and angular momentum
// exactly; the Jacobian -λ·α·αᵀ is constant.
//
// Stencils. For an edge between triangles (A, C, D) and (B, D, C), eq. 15
// gives αA = hB/(hA+hB), αB = hA/(hA+hB) and -αC, -αD the weights of the
// point where AB crosses CD. On the union-jack grid the two vertices
// opposite an edge along v lie on the same row, so edges along v would
// sample each row's curvature at every other node only, leaving a
// chequerboard hinge mode that only the twist resists (a cantilever came
// out 2-7 times too soft, worse on finer meshes). Edges along the grid
// lines therefore use eq. 15 averaged over both diagonals of each of the
// two grid squares beside the edge — the stencil the edge would have for
// any triangulation — which is half the second difference across the edge
// at each of its two ends. Diagonals keep eq. 15 on their own square.
//
// λ: eq. 20 sets λ = (2/3)·µ·l·(hA+hB)/(hA·hB)², equating the edge's moment
// with a third of the plate's because on an irregular mesh three edge
// directions share each curvature. On this grid each curvature component is
// carried by a single edge family, so each edge takes its full share:
// λ = 2·B·l·(hA+hB)/(hA·hB)² with B = BendWeft for edges along v, BendWarp
// for edges along u (hA, hB the spacings of the grid lines either side),
// and λ = 8·BendTwist/(Δu·Δv) for the diagonal of a Δu × Δv square. Then the
// discrete energy of any quadratic surface z = ½(p·u² + 2q·uv + s·v²) is
// ½(BendWeft·p² + BendWarp·s²) + BendTwist·q² per area, as for a plate
// (TestBendingEnergyMatchesPlate).
//
// The three operators Σ λ/B·α·αᵀ are stored per unit rigidity, so a
// material change only recombines them.
func (m *mesh) bendStencils() {
	m.hinges = m.hinges[:0]
	n := m.nodes()
	var bld csrBuilder
	bld.init(n)
	id := func(i, j int) int32 { return int32(j*m.nu + i) }
	// volino adds eq. 15's coefficients for quad (a, b; c, d), weighted.
	volino := func(acc map[int32]float64, pa, pb, pc, pd int32, w float64) {
		hA, hB := m.lineDist(pa, pc, pd), m.lineDist(pb, pc, pd)
		dC, dD := m.lineDist(pc, pa, pb), m.lineDist(pd, pa, pb)
		acc[pa] += w * hB / (hA + hB)
		acc[pb] += w * hA / (hA + hB)
		acc[pc] -= w * dD / (dC + dD)
		acc[pd] -= w * dC / (dC + dD)
	}
	add := func(acc map[int32]float64, fam int, lam float64) {
		for r, ar := range acc {
			for c, ac := range acc {
				bld.add(r, c, fam, lam*ar*ac)
			}
		}
	}
	for _, e := range m.edges {
		ia, ja := int(e.a)%m.nu, int(e.a)/m.nu
		ib, jb := int(e.b)%m.nu, int(e.b)/m.nu
		acc := make(map[int32]float64)
		switch {
		case ia == ib: // along v: curvature along u
			if ia == 0 || ia == m.nu-1 {
				continue
			}
			j := min(ja, jb)
			c, d := id(ia, j), id(ia, j+1)
			for _, l := range []int32{id(ia-1, j), id(ia-1, j+1)} {
				for _, r := range []int32{id(ia+1, j), id(ia+1, j+1)} {
					volino(acc, l, r, c, d, 0.25)
				}
			}
			h1, h2 := m.gu[ia]-m.gu[ia-1], m.gu[ia+1]-m.gu[ia]
			add(acc, 0, 2*e.rest*(h1+h2)/(h1*h1*h2*h2))
			m.hinges = append(m.hinges, newHinge(acc, 0, [6]int32{id(ia-1, j), id(ia-1, j+1), c, d, id(ia+1, j), id(ia+1, j+1)}, e.rest, h1, h2))
		case ja == jb: // along u: curvature along v
			if ja == 0 || ja == m.nv-1 {
				continue
			}
			i := min(ia, ib)
			c, d := id(i, ja), id(i+1, ja)
			for _, l := range []int32{id(i, ja-1), id(i+1, ja-1)} {
				for _, r := range []int32{id(i, ja+1), id(i+1, ja+1)} {
					volino(acc, l, r, c, d, 0.25)
				}
			}
			h1, h2 := m.gv[ja]-m.gv[ja-1], m.gv[ja+1]-m.gv[ja]
			add(acc, 1, 2*e.rest*(h1+h2)/(h1*h1*h2*h2))
			m.hinges = append(m.hinges, newHinge(acc, 1, [6]int32{id(i, ja-1), id(i+1, ja-1), c, d, id(i, ja+1), id(i+1, ja+1)}, e.rest, h1, h2))
		default: // a diagonal: the other diagonal of its square
			i, j := min(ia, ib), min(ja, jb)
			corners := [4]int32{id(i, j), id(i+1, j), id(i+1, j+1), id(i, j+1)}
			var opp []int32
			for _, k := range corners {
				if k != e.a && k != e.b {
					opp = append(opp, k)
				}
			}
			volino(acc, opp[0], opp[1], e.a, e.b, 1)
			add(acc, 2, 8/((m.gu[i+1]-m.gu[i])*(m.gv[j+1]-m.gv[j])))
		}
	}
	m.bend, m.bendParts = bld.build()
	for k := range m.hinges {
		m.hinges[k].locate(&m.bend)
	}
}

// lineDist is the rest-space distance of node p from the line through a, b.
func (m *mesh) lineDist(p, a, b int32) float64 {
	ax, ay := m.uv[2*a], m.uv[2*a+1]
	ex, ey := m.uv[2*b]-ax, m.uv[2*b+1]-ay
	px, py := m.uv[2*p]-ax, m.uv[2*p+1]-ay
	return math.Abs(ex*py-ey*px) / math.Hypot(ex, ey)
}

// scalarCSR is a symmetric scalar sparse matrix acting on each of the three
// coordinates alike (the bending operators are multiples of the identity
// per node pair, eq. 21).
type scalarCSR struct {
	rowPtr []int32
	col    []int32
	val    []float64
	none   []int32 // a zero per row: empty block ranges for mulRows
}

// mulAdd sets dst += c·(S ⊗ I₃)·x for 3-vectors per node.
func (s *scalarCSR) mulAdd(dst, x []float64, c float64) {
	for i := range len(s.rowPtr) - 1 {
		var a0, a1, a2 float64
		for k := s.rowPtr[i]; k < s.rowPtr[i+1]; k++ {
			j, w := 3*int(s.col[k]), s.val[k]
			a0 += w * x[j]
			a1 += w * x[j+1]
			a2 += w * x[j+2]
		}
		dst[3*i] += c * a0
		dst[3*i+1] += c * a1
		dst[3*i+2] += c * a2
	}
}

// setRows sets rows i0 to i1-1 of dst to those of (S ⊗ I₃)·x, through
// mulRows as a matrix of couplings only (its kernel's order of sums).
func (s *scalarCSR) setRows(dst, x []float64, i0, i1 int) {
	mulRows(dst[3*i0:3*i1], x, s.none[i0:i1], s.none[i0:i1], nil, nil, s.rowPtr[i0:i1], s.rowPtr[i0+1:i1+1], s.col, s.val)
}

type csrBuilder struct {
	rows []map[int32][3]float64
}

func (b *csrBuilder) init(n int) {
	b.rows = make([]map[int32][3]float64, n)
	for i := range b.rows {
		b.rows[i] = make(map[int32][3]float64)
	}
}

func (b *csrBuilder) add(i, j int32, part int, v float64) {
	e := b.rows[i][j]
	e[part] += v
	b.rows[i][j] = e
}

func (b *csrBuilder) build() (s scalarCSR, parts [3][]float64) {
	s.rowPtr = make([]int32, len(b.rows)+1)
	for i, r := range b.rows {
		cols := make([]int32, 0, len(r))
		for j := range r {
			cols = append(cols, j)
		}
		sort.Slice(cols, func(a, c int) bool { return cols[a] < cols[c] })
		for _, j := range cols {
			s.col = append(s.col, j)
			for p := range parts {
				parts[p] = append(parts[p], r[j][p])
			}
		}
		s.rowPtr[i+1] = int32(len(s.col))
	}
	s.val = make([]float64, len(s.col))
	s.none = make([]int32, len(b.rows))
	return s, parts
}

// setBending fills the bending operator for the rigidities of the weft, warp
// and twist families.
func (m *mesh) setBending(weft, warp, twist float64) {
	m.bendGen++
	for k := range m.bend.val {
		m.bend.val[k] = weft*m.bendParts[0][k] + warp*m.bendParts[1][k] + twist*m.bendParts[2][k]
	}
}

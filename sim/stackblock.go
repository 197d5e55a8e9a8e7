package sim

import (
	"math"
	"slices"
)

// stackBlocks is the two-grid preconditioner's smoother for a pinched
// stack: exact solves of the smoother's matrix Ã restricted to the nodes
// the stack's springs join (a block Gauss-Seidel step whose blocks are
// the stack's connected pieces). The springs are ten times the fabric's
// compression stiffness (stackStiffness) and join nodes of two layers
// that lie far apart in the grid. Node-by-node Gauss-Seidel relaxes such a
// pair one node at a time, each held by the other's spring, so the mode in
// which the layers move together converges slowly; the coarse level's
// aggregates (4 × 4 nodes at 32²) cannot represent it either (the pressed
// region is a few nodes of each layer). Solving each piece at once
// removes it (docs/cloth-contact.md, "Speed").
type stackBlocks struct {
	nodes []int32   // the stack's free nodes, block by block, each in grid order
	start []int32   // block b holds nodes[start[b]:start[b+1]]
	off   []int     // block b's factor starts at fac[off[b]]
	idx   []int32   // per node: its place in nodes, or -1
	root  []int32   // per node: union-find parent while the blocks are built
	fac   []float64 // per block of m unknowns: its Cholesky factor L (m×m, row-major), then Lᵀ
	res   []float64 // scratch: a block's residual, then its correction
	dz    []float64 // the first pass's correction, per stack unknown
	ok    bool      // blocks are set and factorised
}

// maxStackBlock caps a block's nodes, so that its dense factorisation
// (cubic in its size) stays small against a step: a longer piece of the
// stack is cut into blocks of consecutive nodes, each solved in turn.
const maxStackBlock = 32

func (sb *stackBlocks) init(n int) {
	sb.idx = make([]int32, n)
	sb.root = make([]int32, n)
	for i := range sb.idx {
		sb.idx[i], sb.root[i] = -1, int32(i)
	}
	// Room for the stacks the scenes form (about 50 nodes at most, the
	// crumple's), so that a pinch does not allocate in its steps; the
	// lists still grow if they must.
	sb.nodes = make([]int32, 0, 128)
	sb.start = make([]int32, 0, 64)
	sb.off = make([]int, 0, 64)
	sb.fac = make([]float64, 0, 4*(3*maxStackBlock)*(3*maxStackBlock))
	sb.res = make([]float64, 3*maxStackBlock)
	sb.dz = make([]float64, 0, 3*128)
}

func (sb *stackBlocks) find(k int32) int32 {
	for sb.root[k] != k {
		sb.root[k] = sb.root[sb.root[k]]
		k = sb.root[k]
	}
	return k
}

// buildStack sets the stack's blocks for the smoother's matrix (its
// coupling lists and its diagonal blocks, dinv before inversion, which it
// keeps in dsm for the stack's nodes) and factorises them; without a
// stack, or if a factorisation fails, the V-cycle goes without them.
func (pc *preconditioner) buildStack() {
	sb := &pc.sb
	for _, k := range sb.nodes {
		sb.idx[k], sb.root[k] = -1, k
	}
	sb.nodes, sb.start, sb.off, sb.fac = sb.nodes[:0], sb.start[:0], sb.off[:0], sb.fac[:0]
	sb.ok = false
	c := pc.c
	if c.self == nil || len(c.self.stack) == 0 || !pc.mixed {
		return
	}
	cons := &c.cons
	use := func(sp *stackPair, q int) bool {
		k := sp.n[q]
		return sp.w[q] != 0 && cons.free[k] && cons.proj[k] == [3]float64{}
	}
	for i := range c.self.stack {
		sp := &c.self.stack[i]
		first := int32(-1)
		for q, k := range sp.n {
			if !use(sp, q) {
				continue
			}
			if sb.idx[k] < 0 {
				sb.idx[k] = 0
				sb.nodes = append(sb.nodes, k)
			}
			if first < 0 {
				first = sb.find(k)
			} else if r := sb.find(k); r != first {
				sb.root[r] = first
			}
		}
	}
	// The pieces in the order of their lowest nodes, each in grid order:
	// idx of a piece's root holds the place of its lowest node meanwhile.
	// Every node's root is set directly, for the sort and cutBlocks.
	slices.Sort(sb.nodes)
	for _, k := range sb.nodes {
		sb.idx[k] = -1
	}
	for _, k := range sb.nodes {
		sb.root[k] = sb.find(k)
	}
	for p, k := range sb.nodes {
		if r := sb.root[k]; sb.idx[r] < 0 {
			sb.idx[r] = int32(p)
		}
	}
	slices.SortStableFunc(sb.nodes, func(a, b int32) int {
		return int(sb.idx[sb.root[a]] - sb.idx[sb.root[b]])
	})
	dsm := pc.dsm
	for _, k := range sb.nodes {
		dsm[k] = pc.dinv[k]
	}
	pc.cutBlocks()
	a := pc.op.a
	row, _, col, val := pc.smoother()
	for b := range len(sb.start) - 1 {
		lo, hi := sb.start[b], sb.start[b+1]
		m := 3 * int(hi-lo)
		o := len(sb.fac)
		sb.off = append(sb.off, o)
		sb.fac = slices.Grow(sb.fac, 2*m*m)[:o+2*m*m]
		f := sb.fac[o : o+m*m]
		clear(f)
		for p := lo; p < hi; p++ {
			i := sb.nodes[p]
			r0 := 3 * int(p-lo)
			for k := a.rowPtr[i]; k < a.rowPtr[i+1]; k++ {
				j := a.col[k]
				q := sb.idx[j]
				if j > i || q < lo || q >= hi {
					continue
				}
				blk := &a.val[k]
				if j == i {
					blk = &dsm[i]
				}
				c0 := 3 * int(q-lo)
				for r := range 3 {
					for s := range 3 {
						f[(r0+r)*m+c0+s] = blk[r][s]
					}
				}
			}
			for e := row[i]; e < row[i+1]; e++ {
				j := col[e]
				q := sb.idx[j]
				if j > i || q < lo || q >= hi {
					continue
				}
				c0 := 3 * int(q-lo)
				for r := range 3 {
					f[(r0+r)*m+c0+r] += val[e]
				}
			}
		}
		if !cholesky(f, m) {
			return
		}
		ft := sb.fac[o+m*m : o+2*m*m]
		for i := range m {
			for k := i; k < m; k++ {
				ft[i*m+k] = f[k*m+i]
			}
		}
	}
	sb.ok = true
}

// cutBlocks numbers the stack's nodes (idx) and cuts nodes, sorted piece
// by piece, into blocks of at most maxStackBlock nodes of one piece.
func (pc *preconditioner) cutBlocks() {
	sb := &pc.sb
	sb.start = append(sb.start, 0)
	for p, k := range sb.nodes {
		if p > 0 && (sb.root[k] != sb.root[sb.nodes[p-1]] || int32(p)-sb.start[len(sb.start)-1] == maxStackBlock) {
			sb.start = append(sb.start, int32(p))
		}
	}
	sb.start = append(sb.start, int32(len(sb.nodes)))
	for p, k := range sb.nodes {
		sb.idx[k] = int32(p)
	}
}

// cholesky factorises the symmetric m×m matrix a (its lower triangle,
// row-major) in place into L, L·Lᵀ = a, and reports whether a is
// positive definite.
func cholesky(a []float64, m int) bool {
	for j := range m {
		rj := a[j*m : j*m+j]
		d := a[j*m+j] - dot8(rj, rj)
		if !(d > 0) {
			return false
		}
		d = math.Sqrt(d)
		a[j*m+j] = d
		for i := j + 1; i < m; i++ {
			a[i*m+j] = (a[i*m+j] - dot8(a[i*m:i*m+j], rj)) / d
		}
	}
	return true
}

// choleskySolve overwrites x with a⁻¹·x from cholesky's factor L of a
// and its transpose lt (each m×m, row-major), both solves along rows.
func choleskySolve(l, lt, x []float64, m int) {
	for i := range m {
		x[i] = (x[i] - dot8(l[i*m:i*m+i], x)) / l[i*m+i]
	}
	for i := m - 1; i >= 0; i-- {
		x[i] = (x[i] - dot8(lt[i*m+i+1:i*m+m], x[i+1:m])) / lt[i*m+i]
	}
}

// stackPass solves the stack's blocks in turn, forward or backward (a
// block Gauss-Seidel step on them), each for the residual r − Ã·z of its
// rows as z then stands, and adds the corrections to z. With gs, gs
// holds r − Ã·z for z as it was, and is kept so.
func (pc *preconditioner) stackPass(z, r, gs []float64, backward bool) {
	sb := &pc.sb
	nb := len(sb.start) - 1
	if gs != nil {
		sb.dz = slices.Grow(sb.dz[:0], 3*len(sb.nodes))[:3*len(sb.nodes)]
	}
	for t := range nb {
		b := t
		if backward {
			b = nb - 1 - t
		}
		lo, hi := sb.start[b], sb.start[b+1]
		m := 3 * int(hi-lo)
		x := sb.res[:m]
		pc.stackResidual(x, z, r, sb.nodes[lo:hi])
		o := sb.off[b]
		choleskySolve(sb.fac[o:o+m*m], sb.fac[o+m*m:o+2*m*m], x, m)
		for p, i := range sb.nodes[lo:hi] {
			zi := z[3*i : 3*i+3 : 3*i+3]
			d := x[3*p : 3*p+3 : 3*p+3]
			zi[0] += d[0]
			zi[1] += d[1]
			zi[2] += d[2]
			if gs != nil {
				copy(sb.dz[3*(int(lo)+p):], d)
			}
		}
	}
	if gs != nil {
		pc.subStack(gs, sb.dz)
	}
}

// stackResidual sets x to r − Ã·z on the rows of nodes.
func (pc *preconditioner) stackResidual(x, z, r []float64, nodes []int32) {
	a := pc.op.a
	row, _, col, val := pc.smoother()
	for p, i := range nodes {
		lo, d, hi := a.rowPtr[i], a.diag[i], a.rowPtr[i+1]
		a0, a1, a2 := rowSum(z, a.col[lo:d], a.val[lo:d])
		b0, b1, b2 := rowSum(z, a.col[d+1:hi], a.val[d+1:hi])
		e0, e1, e2 := couplingSum(z, col[row[i]:row[i+1]], val[row[i]:row[i+1]])
		m := &pc.dsm[i]
		zi := z[3*i : 3*i+3 : 3*i+3]
		ri := r[3*i : 3*i+3 : 3*i+3]
		xp := x[3*p : 3*p+3 : 3*p+3]
		xp[0] = ri[0] - (m[0][0]*zi[0] + m[0][1]*zi[1] + m[0][2]*zi[2]) - (a0 + b0 + e0)
		xp[1] = ri[1] - (m[1][0]*zi[0] + m[1][1]*zi[1] + m[1][2]*zi[2]) - (a1 + b1 + e1)
		xp[2] = ri[2] - (m[2][0]*zi[0] + m[2][1]*zi[1] + m[2][2]*zi[2]) - (a2 + b2 + e2)
	}
}

// subStack subtracts Ã·δ from gs, δ being dz on the stack's nodes and
// zero elsewhere: the columns of the stack's nodes, which are their rows
// (Ã is symmetric), transposed.
func (pc *preconditioner) subStack(gs, dz []float64) {
	sb := &pc.sb
	a := pc.op.a
	row, _, col, val := pc.smoother()
	for p, j := range sb.nodes {
		d := dz[3*p : 3*p+3 : 3*p+3]
		d0, d1, d2 := d[0], d[1], d[2]
		cols := a.col[a.rowPtr[j]:a.rowPtr[j+1]]
		blks := a.val[a.rowPtr[j]:a.rowPtr[j+1]]
		blks = blks[:len(cols)]
		for k, i := range cols {
			m := &blks[k]
			if i == j {
				m = &pc.dsm[j]
			}
			g := gs[3*i : 3*i+3 : 3*i+3]
			g[0] -= m[0][0]*d0 + m[1][0]*d1 + m[2][0]*d2
			g[1] -= m[0][1]*d0 + m[1][1]*d1 + m[2][1]*d2
			g[2] -= m[0][2]*d0 + m[1][2]*d1 + m[2][2]*d2
		}
		cs, ws := col[row[j]:row[j+1]], val[row[j]:row[j+1]]
		ws = ws[:len(cs)]
		for e, i := range cs {
			g := gs[3*i : 3*i+3 : 3*i+3]
			w := ws[e]
			g[0] -= w * d0
			g[1] -= w * d1
			g[2] -= w * d2
		}
	}
}

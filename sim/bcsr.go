package sim

import "sort"

// bcsr is the step's system matrix: 3×3 blocks in compressed-row form with
// the pattern of the mesh's triangle adjacency (a node couples with the
// nodes it shares a triangle with), plus the couplings only the bending
// stencils create (nodes two apart along the grid, the other diagonal of a
// square), which are multiples of the identity and kept as scalars.
// Elements scatter into it through precomputed indices, so assembly does no
// search.
type bcsr struct {
	rowPtr []int32
	col    []int32
	val    [][3][3]float64
	diag   []int32    // block index of (i, i)
	diag1  []int32    // diag + 1: the first block above the diagonal
	triBlk [][9]int32 // per triangle: block index of (vertex r, vertex c) at 3r+c
	// The entries of the bending operator inside the block pattern, in the
	// operator's order: entry src adds to the diagonal of block blk.
	bendIn []struct{ src, blk int32 }
	// bendAt is where each entry of the bending operator goes: its block
	// (≥ 0) or, as -1-k, scalar coupling k.
	bendAt []int32

	// Scalar couplings (bending only): row i has exRow[i]..exRow[i+1].
	exRow []int32
	exCol []int32
	exVal []float64 // cK × bending value, for exCK and exGen
	exSrc []int32   // the bending entry each comes from
	exCK  float64
	exGen uint64 // mesh.bendGen + 1 of exVal; 0: not set

	// With self-contact springs in the step (merge), the scalar couplings
	// the products use are the bending's followed, row by row, by the
	// contacts': mRow, mCol, mVal replace exRow, exCol, exVal.
	merged     bool
	mRow, mCol []int32
	mVal       []float64
}

func newBCSR(m *mesh) *bcsr {
	n := m.nodes()
	adj := make([]map[int32]bool, n)
	for i := range adj {
		adj[i] = map[int32]bool{int32(i): true}
	}
	for _, t := range m.tris {
		for _, a := range t.n {
			for _, b := range t.n {
				adj[a][b] = true
			}
		}
	}
	s := &bcsr{rowPtr: make([]int32, n+1), diag: make([]int32, n)}
	for i := range n {
		cols := make([]int32, 0, len(adj[i]))
		for j := range adj[i] {
			cols = append(cols, j)
		}
		sort.Slice(cols, func(a, b int) bool { return cols[a] < cols[b] })
		for _, j := range cols {
			if j == int32(i) {
				s.diag[i] = int32(len(s.col))
			}
			s.col = append(s.col, j)
		}
		s.rowPtr[i+1] = int32(len(s.col))
	}
	s.val = make([][3][3]float64, len(s.col))
	s.diag1 = make([]int32, n)
	for i, k := range s.diag {
		s.diag1[i] = k + 1
	}
	s.triBlk = make([][9]int32, len(m.tris))
	for t, tr := range m.tris {
		for r := range 3 {
			for c := range 3 {
				s.triBlk[t][3*r+c] = s.find(tr.n[r], tr.n[c])
			}
		}
	}
	s.exRow = make([]int32, n+1)
	s.bendAt = make([]int32, len(m.bend.col))
	for i := range n {
		for k := m.bend.rowPtr[i]; k < m.bend.rowPtr[i+1]; k++ {
			j := m.bend.col[k]
			if adj[i][j] {
				blk := s.find(int32(i), j)
				s.bendIn = append(s.bendIn, struct{ src, blk int32 }{k, blk})
				s.bendAt[k] = blk
				continue
			}
			s.bendAt[k] = -1 - int32(len(s.exCol))
			s.exCol = append(s.exCol, j)
			s.exSrc = append(s.exSrc, k)
		}
		s.exRow[i+1] = int32(len(s.exCol))
	}
	s.exVal = make([]float64, len(s.exCol))
	return s
}

// twin returns a matrix of the same pattern with values of its own: the
// step assembles a trial point's matrix into it while the step's own is
// still in use (see operator).
func (s *bcsr) twin() *bcsr {
	t := *s
	t.val = make([][3][3]float64, len(s.val))
	t.exVal = make([]float64, len(s.exVal))
	t.exGen = 0
	return &t
}

func (s *bcsr) find(i, j int32) int32 {
	lo, hi := s.rowPtr[i], s.rowPtr[i+1]
	k := lo + int32(sort.Search(int(hi-lo), func(k int) bool { return s.col[lo+int32(k)] >= j }))
	if k == hi || s.col[k] != j {
		panic("sim: bcsr pattern misses a block") // construction invariant
	}
	return k
}

func (s *bcsr) zero() { clear(s.val) }

// mul sets dst = A·x.
func (s *bcsr) mul(dst, x []float64) { s.mulRange(dst, x, 0, len(s.diag)) }

// mulRange sets rows i0..i1-1 of dst = A·x.
func (s *bcsr) mulRange(dst, x []float64, i0, i1 int) {
	exRow, exCol, exVal := s.couplings()
	mulRows(dst[3*i0:3*i1], x, s.rowPtr[i0:i1], s.rowPtr[i0+1:i1+1], s.col, s.val, exRow[i0:i1], exRow[i0+1:i1+1], exCol, exVal)
}

// mulRange3 is mulRange for three vectors at once (dst holding rows
// i0..i1-1 alone).
func (s *bcsr) mulRange3(dst, x *[3][]float64, i0, i1 int) {
	exRow, exCol, exVal := s.couplings()
	mulRows3(dst, x, s.rowPtr[i0:i1], s.rowPtr[i0+1:i1+1], s.col, s.val, exRow[i0:i1], exRow[i0+1:i1+1], exCol, exVal)
}

// couplings returns the scalar couplings the products use.
func (s *bcsr) couplings() (row, col []int32, val []float64) {
	if s.merged {
		return s.mRow, s.mCol, s.mVal
	}
	return s.exRow, s.exCol, s.exVal
}

// reserveMerge gives merge room for room couplings beside the bending's
// (the self-contact's list's capacity), so that a fold does not size or
// grow its lists in a step.
func (s *bcsr) reserveMerge(room int) {
	s.mRow = make([]int32, len(s.diag)+1)
	s.mCol = make([]int32, 0, len(s.exCol)+room)
	s.mVal = make([]float64, 0, len(s.exCol)+room)
}

// merge sets the products' couplings to the bending's plus cpl (sorted by
// row), or to the bending's alone when cpl is empty. reserveMerge comes
// first.
func (s *bcsr) merge(cpl []scalarCoupling) {
	s.merged = len(cpl) > 0
	if !s.merged {
		return
	}
	n := len(s.diag)
	// The rows between two with couplings are copied whole: a stack's
	// couplings fall on a few rows.
	s.mCol, s.mVal = s.mCol[:0], s.mVal[:0]
	var done, off int32 // rows [0, done) are in place; couplings inserted so far
	for q := 0; q <= len(cpl); {
		end := int32(n)
		if q < len(cpl) {
			end = cpl[q].i + 1
		}
		lo, hi := s.exRow[done], s.exRow[end]
		s.mCol = append(s.mCol, s.exCol[lo:hi]...)
		s.mVal = append(s.mVal, s.exVal[lo:hi]...)
		for r := done; r < end; r++ {
			s.mRow[r+1] = s.exRow[r+1] + off
		}
		if q == len(cpl) {
			break
		}
		for i := cpl[q].i; q < len(cpl) && cpl[q].i == i; q++ {
			s.mCol = append(s.mCol, cpl[q].j)
			s.mVal = append(s.mVal, cpl[q].v)
			off++
		}
		s.mRow[end] = int32(len(s.mCol))
		done = end
	}
}

// setBending adds cK times the bending values inside the block pattern to
// the diagonals of their blocks and fills the scalar couplings with cK
// times the others; gen is the mesh's bendGen. The scalar couplings are
// kept while cK and the bending operator are (every step at a fixed step
// and fabric). With extra (the bending friction's stiffness at each of the
// operator's entries, bendhyst.go) the values are cK·(bend + extra): one
// pass over the entries, whose couplings are then new at every call.
func (s *bcsr) setBending(bend *scalarCSR, extra []float64, cK float64, gen uint64) {
	val := bend.val
	if extra != nil {
		extra = extra[:len(val)]
		for k, at := range s.bendAt[:len(val)] {
			w := cK * (val[k] + extra[k])
			if at < 0 {
				s.exVal[-1-at] = w
				continue
			}
			b := &s.val[at]
			b[0][0] += w
			b[1][1] += w
			b[2][2] += w
		}
		s.exGen = 0
		return
	}
	for _, e := range s.bendIn {
		w := cK * val[e.src]
		b := &s.val[e.blk]
		b[0][0] += w
		b[1][1] += w
		b[2][2] += w
	}
	if s.exGen == gen+1 && s.exCK == cK {
		return
	}
	for k, src := range s.exSrc {
		s.exVal[k] = cK * val[src]
	}
	s.exCK, s.exGen = cK, gen+1
}

// addBlock adds c·b to block k.
func (s *bcsr) addBlock(k int32, c float64, b *[3][3]float64) {
	v := &s.val[k]
	for a := range 3 {
		for d := range 3 {
			v[a][d] += c * b[a][d]
		}
	}
}

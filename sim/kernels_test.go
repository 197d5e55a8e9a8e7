package sim

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// randRows is a random matrix in the kernels' layout: n rows of blocks
// (the diagonal one at mid[i]) and scalar couplings, with values that
// include signed zeros, huge and tiny numbers, and columns that reach the
// last node (where a load past the end of x would fault or read garbage).
type randRows struct {
	n                        int
	lo, mid, hi, col         []int32
	val                      [][3][3]float64
	exLo, exHi, exMid, exCol []int32
	exVal                    []float64
	dinv                     [][3][3]float64
}

// randNum is a random entry for the kernels' tests: normally distributed,
// or one time in ten a signed zero, a huge or tiny number, or one.
func randNum(rng *rand.Rand) float64 {
	special := [...]float64{0, math.Copysign(0, -1), 1e300, -1e-300, 1}
	if rng.IntN(10) == 0 {
		return special[rng.IntN(len(special))]
	}
	return rng.NormFloat64()
}

func newRandRows(rng *rand.Rand) *randRows {
	num := func() float64 { return randNum(rng) }
	m := &randRows{n: 1 + rng.IntN(30)}
	for i := range m.n {
		m.lo = append(m.lo, int32(len(m.col)))
		cols := []int32{int32(i)}
		for range rng.IntN(8) {
			cols = append(cols, int32(rng.IntN(m.n)))
		}
		if rng.IntN(3) == 0 {
			cols = append(cols, int32(m.n-1))
		}
		slices.Sort(cols)
		cols = slices.Compact(cols)
		for _, j := range cols {
			if j == int32(i) {
				m.mid = append(m.mid, int32(len(m.col)))
			}
			m.col = append(m.col, j)
			var b [3][3]float64
			for r := range 3 {
				for c := range 3 {
					b[r][c] = num()
				}
			}
			m.val = append(m.val, b)
		}
		m.hi = append(m.hi, int32(len(m.col)))
		m.exLo = append(m.exLo, int32(len(m.exCol)))
		ex := []int32{}
		for range rng.IntN(5) {
			if j := int32(rng.IntN(m.n)); j != int32(i) {
				ex = append(ex, j)
			}
		}
		slices.Sort(ex)
		ex = slices.Compact(ex)
		mid := int32(len(m.exCol))
		for _, j := range ex {
			if j < int32(i) {
				mid++
			}
			m.exCol = append(m.exCol, j)
			m.exVal = append(m.exVal, num())
		}
		m.exMid = append(m.exMid, mid)
		m.exHi = append(m.exHi, int32(len(m.exCol)))
		var d [3][3]float64
		for r := range 3 {
			for c := range 3 {
				d[r][c] = num()
			}
		}
		m.dinv = append(m.dinv, d)
	}
	return m
}

func (m *randRows) vec(rng *rand.Rand) []float64 {
	x := make([]float64, 3*m.n) // exactly 3n: the last triple ends the slice
	for i := range x {
		x[i] = rng.NormFloat64()
		if rng.IntN(20) == 0 {
			x[i] = math.Copysign(0, -1)
		}
	}
	return x
}

func sameBits(a, b []float64) bool {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return len(a) == len(b)
}

// panics reports whether f panics, with the assembly kernels (asm) or the
// Go code.
func panics(asm bool, f func()) (p bool) {
	defer func() { p = recover() != nil }()
	if asm {
		f()
	} else {
		withoutAsm(f)
	}
	return false
}

// withoutAsm runs f with the Go code in place of the assembly kernels.
func withoutAsm(f func()) {
	old := useKernelAsm
	useKernelAsm = false
	defer func() { useKernelAsm = old }()
	f()
}

// TestKernelsMatchReference checks that the assembly kernels follow the
// order of operations kernels.go sets out (kernels_ref_test.go) bit for
// bit, so that their results do not depend on the machine, on every shape
// of range mulRows and gsSweep are called with.
func TestKernelsMatchReference(t *testing.T) {
	if !useKernelAsm {
		t.Skip("no assembly kernels on this machine")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 3000 {
		m := newRandRows(rng)
		x := m.vec(rng)
		mid1 := make([]int32, m.n)
		for i := range mid1 {
			mid1[i] = m.mid[i] + 1
		}
		products := []struct {
			name             string
			lo, hi, elo, ehi []int32
		}{
			{"whole rows", m.lo, m.hi, m.exLo, m.exHi},
			{"upper parts", mid1, m.hi, m.exMid, m.exHi},
		}
		for _, p := range products {
			got, want := make([]float64, 3*m.n), make([]float64, 3*m.n)
			mulRows(got, x, p.lo, p.hi, m.col, m.val, p.elo, p.ehi, m.exCol, m.exVal)
			mulRowsRef(want, x, p.lo, p.hi, m.col, m.val, p.elo, p.ehi, m.exCol, m.exVal)
			if !sameBits(got, want) {
				t.Fatalf("trial %d, mulRows over %s:\nkernel    %v\nreference %v", trial, p.name, got, want)
			}
		}
		for _, back := range []bool{false, true} {
			hi, ehi := m.mid, m.exMid // forward from zero: the lower part
			if back {
				hi, ehi = m.hi, m.exHi
			}
			got := m.vec(rng)
			want := slices.Clone(got)
			gsSweep(got, x, m.lo, m.mid, hi, m.col, m.val, m.exLo, ehi, m.exCol, m.exVal, m.dinv, back)
			gsSweepRef(want, x, m.lo, m.mid, hi, m.col, m.val, m.exLo, ehi, m.exCol, m.exVal, m.dinv, back)
			if !sameBits(got, want) {
				t.Fatalf("trial %d, gsSweep backward=%v:\nkernel    %v\nreference %v", trial, back, got, want)
			}
		}
	}
}

// TestKernels3MatchOne checks that the three-vector kernels give, for
// each vector, bit for bit what the one-vector kernels give it alone, on
// every shape of range mulRows and gsSweep are called with.
func TestKernels3MatchOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 3000 {
		m := newRandRows(rng)
		var x [3][]float64
		for v := range x {
			x[v] = m.vec(rng)
		}
		mid1 := make([]int32, m.n)
		for i := range mid1 {
			mid1[i] = m.mid[i] + 1
		}
		for _, p := range []struct {
			name             string
			lo, hi, elo, ehi []int32
		}{
			{"whole rows", m.lo, m.hi, m.exLo, m.exHi},
			{"upper parts", mid1, m.hi, m.exMid, m.exHi},
		} {
			var got [3][]float64
			for v := range got {
				got[v] = make([]float64, 3*m.n)
			}
			mulRows3(&got, &x, p.lo, p.hi, m.col, m.val, p.elo, p.ehi, m.exCol, m.exVal)
			for v := range 3 {
				want := make([]float64, 3*m.n)
				mulRows(want, x[v], p.lo, p.hi, m.col, m.val, p.elo, p.ehi, m.exCol, m.exVal)
				if !sameBits(got[v], want) {
					t.Fatalf("trial %d, mulRows3 over %s, vector %d:\nthree %v\none   %v", trial, p.name, v, got[v], want)
				}
			}
		}
		for _, back := range []bool{false, true} {
			hi, ehi := m.mid, m.exMid
			if back {
				hi, ehi = m.hi, m.exHi
			}
			var got, want [3][]float64
			for v := range got {
				got[v] = m.vec(rng)
				want[v] = slices.Clone(got[v])
			}
			gsSweep3(&got, &x, m.lo, m.mid, hi, m.col, m.val, m.exLo, ehi, m.exCol, m.exVal, m.dinv, back)
			for v := range 3 {
				gsSweep(want[v], x[v], m.lo, m.mid, hi, m.col, m.val, m.exLo, ehi, m.exCol, m.exVal, m.dinv, back)
				if !sameBits(got[v], want[v]) {
					t.Fatalf("trial %d, gsSweep3 backward=%v, vector %d:\nthree %v\none   %v", trial, back, v, got[v], want[v])
				}
			}
		}
	}
}

// TestKernelsAgainstPlainSums checks the kernels (the one in use, the Go
// code and the reference) against plain loops, to round-off: a whole-row
// product, and a Gauss-Seidel sweep.
func TestKernelsAgainstPlainSums(t *testing.T) {
	t.Run("in use", func(t *testing.T) { testKernelsAgainstPlainSums(t, mulRows, gsSweep) })
	t.Run("go", func(t *testing.T) { withoutAsm(func() { testKernelsAgainstPlainSums(t, mulRows, gsSweep) }) })
	t.Run("reference", func(t *testing.T) { testKernelsAgainstPlainSums(t, mulRowsRef, gsSweepRef) })
}

func testKernelsAgainstPlainSums(t *testing.T,
	mulRows func(dst, x []float64, lo, hi, col []int32, val [][3][3]float64, exLo, exHi, exCol []int32, exVal []float64),
	gsSweep func(z, rhs []float64, lo, mid, hi, col []int32, val [][3][3]float64, exLo, exHi, exCol []int32, exVal []float64, dinv [][3][3]float64, backward bool)) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 500 {
		m := newRandRows(rng)
		for k := range m.val {
			for r := range 3 {
				for c := range 3 {
					m.val[k][r][c] = rng.NormFloat64()
				}
			}
		}
		for k := range m.exVal {
			m.exVal[k] = rng.NormFloat64()
		}
		x := m.vec(rng)
		got := make([]float64, 3*m.n)
		mulRows(got, x, m.lo, m.hi, m.col, m.val, m.exLo, m.exHi, m.exCol, m.exVal)
		want, mag := make([]float64, 3*m.n), make([]float64, 3*m.n)
		add := func(i, r int, v float64) { want[3*i+r] += v; mag[3*i+r] += math.Abs(v) }
		for i := range m.n {
			for k := m.lo[i]; k < m.hi[i]; k++ {
				for r := range 3 {
					for c := range 3 {
						add(i, r, m.val[k][r][c]*x[3*int(m.col[k])+c])
					}
				}
			}
			for e := m.exLo[i]; e < m.exHi[i]; e++ {
				for r := range 3 {
					add(i, r, m.exVal[e]*x[3*int(m.exCol[e])+r])
				}
			}
		}
		for q := range got {
			if math.Abs(got[q]-want[q]) > 1e-14*mag[q] {
				t.Fatalf("trial %d entry %d: %v, plain sum %v", trial, q, got[q], want[q])
			}
		}
		// A backward sweep: row i from the rows above it (already swept)
		// and below it (not yet).
		z := m.vec(rng)
		zs := slices.Clone(z)
		gsSweep(zs, x, m.lo, m.mid, m.hi, m.col, m.val, m.exLo, m.exHi, m.exCol, m.exVal, m.dinv, true)
		for i := m.n - 1; i >= 0; i-- {
			var s, sm [3]float64
			for r := range 3 {
				s[r] = x[3*i+r]
			}
			for k := m.lo[i]; k < m.hi[i]; k++ {
				if k == m.mid[i] {
					continue
				}
				for r := range 3 {
					for c := range 3 {
						v := m.val[k][r][c] * z[3*int(m.col[k])+c]
						s[r] -= v
						sm[r] += math.Abs(v)
					}
				}
			}
			for e := m.exLo[i]; e < m.exHi[i]; e++ {
				for r := range 3 {
					v := m.exVal[e] * z[3*int(m.exCol[e])+r]
					s[r] -= v
					sm[r] += math.Abs(v)
				}
			}
			for r := range 3 {
				var zr, zm float64
				for c := range 3 {
					zr += m.dinv[i][r][c] * s[c]
					zm += math.Abs(m.dinv[i][r][c]) * (math.Abs(s[c]) + sm[c] + math.Abs(x[3*i+c]))
				}
				z[3*i+r] = zr
				if math.Abs(zs[3*i+r]-zr) > 1e-13*zm {
					t.Fatalf("trial %d row %d: swept %v, plain %v", trial, i, zs[3*i+r], zr)
				}
			}
			for r := range 3 {
				z[3*i+r] = zs[3*i+r] // continue from the kernel's row
			}
		}
	}
}

// TestStepWithoutKernel steps a pinched cloth with the assembly kernels and
// with the Go code side by side: they differ only in round-off, so over
// 1.8 s of pinch and pull the two cloths stay within a nanometre and the
// pad forces within a micronewton (measured: 1e-14 m, 1e-13 N).
func TestStepWithoutKernel(t *testing.T) {
	if !useKernelAsm {
		t.Skip("no assembly kernels on this machine")
	}
	edit := func(cfg *Config) { cfg.NodesU, cfg.NodesV, cfg.MaxNewton = 12, 12, 1 }
	fast, plain := newTestCloth(t, edit), newTestCloth(t, edit)
	s := ShowcasePinch(fast.cfg.Material.Thickness)
	var in FingerState
	steps := int(1.8 / fast.cfg.Dt.Seconds())
	var pinch, dx, df float64
	for i := range steps {
		tm := time.Duration(i) * fast.cfg.Dt
		s.Sample(tm, &in)
		fast.Step(tm, &in)
		withoutAsm(func() { plain.Step(tm, &in) })
		for k := range fast.x {
			dx = max(dx, math.Abs(fast.x[k]-plain.x[k]))
		}
		for f := range fast.out.Local {
			a, b := fast.out.Local[f].F0, plain.out.Local[f].F0
			df = max(df, math.Hypot(a[0]-b[0], math.Hypot(a[1]-b[1], a[2]-b[2])))
		}
		pinch = max(pinch, min(fast.out.Contact[Thumb].NormalForce, fast.out.Contact[IndexFinger].NormalForce))
	}
	t.Logf("largest difference: %.3g m in position, %.3g N in pad force", dx, df)
	if !(dx < 1e-9) || !(df < 1e-6) {
		t.Errorf("the Go code's cloth drifted from the kernels': %.3g m, %.3g N", dx, df)
	}
	if !(pinch > 0.5) {
		t.Fatalf("the script did not pinch (largest normal force of the lighter pad %g N)", pinch)
	}
}

// TestKernelsOutOfRange: an index out of range panics as Go's would; the
// assembly kernel reads nothing out of range first.
func TestKernelsOutOfRange(t *testing.T) {
	x := make([]float64, 6)
	val := make([][3][3]float64, 2)
	dinv := make([][3][3]float64, 2)
	lo, hi := []int32{0, 1}, []int32{1, 2}
	none := []int32{0, 0}
	for _, bad := range []struct {
		name   string
		col    []int32
		lo, hi []int32
	}{
		{"column past the end", []int32{0, 2}, lo, hi},
		{"negative column", []int32{-1, 0}, lo, hi},
		{"huge column", []int32{math.MaxInt32, 0}, lo, hi},
		{"range past the blocks", []int32{0, 1}, lo, []int32{1, 3}},
		{"negative range start", []int32{0, 1}, []int32{-1, 1}, hi},
	} {
		for _, kernel := range []string{"mulRows", "gsSweep"} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s with a %s: no panic", kernel, bad.name)
					}
				}()
				if kernel == "mulRows" {
					mulRows(make([]float64, 6), x, bad.lo, bad.hi, bad.col, val, none, none, nil, nil)
				} else {
					gsSweep(make([]float64, 6), x, bad.lo, bad.hi, bad.hi, bad.col, val, none, none, nil, nil, dinv, false)
				}
			}()
		}
	}
}

func TestKernelsAllocs(t *testing.T) {
	m := newRandRows(rand.New(rand.NewPCG(7, 8)))
	x, z := make([]float64, 3*m.n), make([]float64, 3*m.n)
	m.val = append(m.val, make([][3][3]float64, 9)...)
	tb := [9]int32{0, 1, 2, 3, 4, 5, 6, 7, 8}
	var blk [4][3][3]float64
	var coef [10]float64
	var geo triGeom
	var k [9]float64
	n := testing.AllocsPerRun(100, func() {
		mulRows(z, x, m.lo, m.hi, m.col, m.val, m.exLo, m.exHi, m.exCol, m.exVal)
		gsSweep(z, x, m.lo, m.mid, m.hi, m.col, m.val, m.exLo, m.exHi, m.exCol, m.exVal, m.dinv, true)
		z[0] = dot8(x, z)
		addTriBlocks(m.val, &tb, &blk, &coef)
		triMats(&blk, &geo, &k)
	})
	if n != 0 {
		t.Errorf("%v allocations per call", n)
	}
}

// BenchmarkKernels times one product and one backward sweep of the
// pinched 32² cloth's matrix, with the kernel in use and with the Go code.
func BenchmarkKernels(b *testing.B) {
	c, _ := benchCloth(b, 32, 0.005, nil)
	d, a, n := &c.dyn, c.dyn.op.a, c.n
	p, q := make([]float64, 3*n), make([]float64, 3*n)
	for i := range p {
		p[i] = float64(i%7) - 3
	}
	for _, asm := range []bool{true, false} {
		name := "go"
		if asm {
			name = "kernel"
		}
		old := useKernelAsm
		useKernelAsm = asm && old
		b.Run("mul/"+name, func(b *testing.B) {
			for b.Loop() {
				a.mul(q, p)
			}
		})
		b.Run("sweepBack/"+name, func(b *testing.B) {
			for b.Loop() {
				d.pc.sweepBack(q, p)
			}
		})
		useKernelAsm = old
	}
}

// TestDot8 checks dot8 on every length up to 40 (every tail the
// assembly has), at every offset into a longer slice: bit for bit
// against the reference order where the assembly runs, and within
// round-off of an exact sum (math/big) with the Go code.
func TestDot8(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	buf := make([]float64, 64)
	other := make([]float64, 64)
	for i := range buf {
		buf[i] = rng.NormFloat64() * math.Exp(4*rng.NormFloat64())
		other[i] = rng.NormFloat64()
	}
	for n := range 41 {
		for off := range 8 {
			a, b := buf[off:off+n], other[off:off+n+off%2] // b may be longer
			exact, scale := new(big.Float).SetPrec(2000), 0.0
			for k := range a {
				p := new(big.Float).SetPrec(2000).SetFloat64(a[k])
				exact.Add(exact, p.Mul(p, new(big.Float).SetFloat64(b[k])))
				scale += math.Abs(a[k] * b[k])
			}
			want, _ := exact.Float64()
			if useKernelAsm {
				if got, ref := dot8(a, b), dot8Ref(a, b); !sameBits([]float64{got}, []float64{ref}) {
					t.Fatalf("n=%d off=%d: kernel %v, reference %v", n, off, got, ref)
				}
			}
			for _, asm := range []bool{true, false} {
				var got float64
				if asm {
					got = dot8(a, b)
				} else {
					withoutAsm(func() { got = dot8(a, b) })
				}
				if math.Abs(got-want) > 1e-14*scale {
					t.Fatalf("n=%d off=%d asm=%v: %v, exact %v", n, off, asm, got, want)
				}
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("dot8 with b shorter than a: no panic")
		}
	}()
	dot8(buf[:5], other[:4])
}

// TestAxpy checks axpy, the assembly against the Go code bit for bit, on
// every length up to 40 at every offset, with dst a vector of its own, y or
// x, and values that include signed zeros, huge and tiny numbers; that
// r -= a·q written as r + (-a)·q gives the same bits; and that short
// vectors panic.
func TestAxpy(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	val := func() float64 {
		switch rng.IntN(10) {
		case 0:
			return math.Copysign(0, rng.NormFloat64())
		case 1:
			return rng.NormFloat64() * 1e300
		case 2:
			return rng.NormFloat64() * 1e-300
		}
		return rng.NormFloat64()
	}
	for n := range 41 {
		for off := range 4 {
			for alias := range 3 {
				var in [3][]float64 // dst, y, x
				for k := range in {
					in[k] = make([]float64, n+off)
					for i := range in[k] {
						in[k][i] = val()
					}
				}
				s := val()
				run := func(v [3][]float64) []float64 {
					dst, y, x := v[0][off:], v[1][off:], v[2][off:]
					switch alias {
					case 1:
						dst = y
					case 2:
						dst = x
					}
					axpy(dst, y, x, s)
					return dst
				}
				clone := func() (c [3][]float64) {
					for k := range in {
						c[k] = slices.Clone(in[k])
					}
					return c
				}
				got := run(clone())
				var want []float64
				withoutAsm(func() { want = run(clone()) })
				if !sameBits(got, want) {
					t.Fatalf("n=%d off=%d alias=%d: kernel %v, Go code %v", n, off, alias, got, want)
				}
				if alias == 1 {
					r, q := slices.Clone(in[1][off:]), in[2][off:]
					for i := range r {
						r[i] -= s * q[i]
					}
					neg := slices.Clone(in[1][off:])
					axpy(neg, neg, q, -s)
					if !sameBits(r, neg) {
						t.Fatalf("n=%d off=%d: r -= s·q %v, r + (-s)·q %v", n, off, r, neg)
					}
				}
			}
		}
	}
	for _, f := range []func(){
		func() { axpy(make([]float64, 4), make([]float64, 3), make([]float64, 4), 1) },
		func() { axpy(make([]float64, 4), make([]float64, 4), make([]float64, 3), 1) },
	} {
		if !panics(true, f) {
			t.Error("vectors shorter than dst: no panic")
		}
	}
}

// TestAggAdd checks aggAdd both ways (restriction and prolongation), the
// assembly against the Go code bit for bit, on aggregates in any order
// with many nodes each (so that sums of several nodes meet), and that an
// aggregate out of range panics.
func TestAggAdd(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{1, 2, 7, 64, 577} {
		m := 1 + rng.IntN(n)
		sel := make([]int32, n)
		for i := range sel {
			sel[i] = int32(rng.IntN(m))
		}
		r, rc0 := make([]float64, 3*n), make([]float64, 3*m)
		for i := range r {
			r[i] = rng.NormFloat64() * math.Exp(10*rng.NormFloat64())
		}
		for i := range rc0 {
			rc0[i] = rng.NormFloat64()
		}
		rc, rcGo := slices.Clone(rc0), slices.Clone(rc0)
		aggAdd(rc, r, sel, true)
		withoutAsm(func() { aggAdd(rcGo, r, sel, true) })
		z, zGo := slices.Clone(r), slices.Clone(r)
		aggAdd(z, rc, sel, false)
		withoutAsm(func() { aggAdd(zGo, rcGo, sel, false) })
		if !sameBits(rc, rcGo) || !sameBits(z, zGo) {
			t.Fatalf("n=%d m=%d: kernels %v %v, Go code %v %v", n, m, rc, z, rcGo, zGo)
		}
		if n == 2 && !(rc[3*sel[0]] != rc0[3*sel[0]]) {
			t.Fatal("the restriction added nothing")
		}
	}
	for _, asm := range []bool{true, false} {
		for _, f := range []func(){
			func() { aggAdd(make([]float64, 6), make([]float64, 9), []int32{0, 2, 1}, true) },
			func() { aggAdd(make([]float64, 9), make([]float64, 6), []int32{0, -1, 1}, false) },
		} {
			if !panics(asm, f) {
				t.Errorf("asm=%v: an aggregate out of range: no panic", asm)
			}
		}
	}
}

// TestCoarseAdd checks coarseAdd, the assembly against the Go code bit for
// bit, on entries that overlap in the band (so that the order of the
// additions shows), and that an entry out of range panics.
func TestCoarseAdd(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, bw := range []int{1, 3, 8, 29} {
		nb := 20 * (bw + 1)
		val := make([][3][3]float64, 50)
		exVal := make([]float64, 30)
		for k := range val {
			for r := range 3 {
				for c := range 3 {
					val[k][r][c] = rng.NormFloat64() * math.Exp(10*rng.NormFloat64())
				}
			}
		}
		for k := range exVal {
			exVal[k] = rng.NormFloat64() * math.Exp(10*rng.NormFloat64())
		}
		list := func(n, nk int) []coarseEntry {
			l := make([]coarseEntry, n)
			for i := range l {
				l[i] = coarseEntry{int32(rng.IntN(nk)), int32(rng.IntN(nb - 2*bw - 2))}
			}
			return l
		}
		full, lower, cpl := list(40, len(val)), list(30, len(val)), list(25, len(exVal))
		band := make([]float64, nb)
		for i := range band {
			band[i] = rng.NormFloat64()
		}
		got, want := slices.Clone(band), slices.Clone(band)
		coarseAdd(got, val, exVal, full, lower, cpl, bw)
		withoutAsm(func() { coarseAdd(want, val, exVal, full, lower, cpl, bw) })
		if !sameBits(got, want) {
			t.Fatalf("bw=%d: kernel %v, Go code %v", bw, got, want)
		}
		if sameBits(got, band) {
			t.Fatalf("bw=%d: nothing added", bw)
		}
		for _, bad := range []coarseEntry{{int32(len(val)), 0}, {0, -1}, {0, int32(nb - 2*bw - 2)}} {
			for _, asm := range []bool{true, false} {
				if !panics(asm, func() { coarseAdd(slices.Clone(band), val, exVal, full, []coarseEntry{bad}, cpl, bw) }) {
					t.Errorf("bw=%d asm=%v: entry %v out of range: no panic", bw, asm, bad)
				}
			}
		}
	}
}

// bandFactor factorises the band matrix in band (n = len(dinv) rows of
// bw+1, as coarse.factor) with row computing each row's off-diagonal
// entries, and reports whether it was positive definite.
// TestBandKernels checks the coarse level's band kernels: the assembly
// against the Go code (with dot8's kernel) bit for bit, for every
// bandwidth from 1 to past the matrix size; and, with or without the
// assembly, that the solve solves the matrix it factorised (residual
// against the dense matrix, an independent product).
func TestBandKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 2, 3, 7, 16, 41, 96} {
		for _, bw := range []int{1, 2, 5, 8, 13, 29, 40, 100} {
			w := bw + 1
			// A random symmetric band matrix, diagonally dominant.
			a := make([]float64, n*n)
			for i := range n {
				for j := max(0, i-bw); j < i; j++ {
					v := rng.NormFloat64()
					a[i*n+j], a[j*n+i] = v, v
				}
			}
			for i := range n {
				s := 1 + rng.Float64()
				for j := range n {
					s += math.Abs(a[i*n+j])
				}
				a[i*n+i] = s
			}
			band := make([]float64, n*w)
			for i := range n {
				for j := max(0, i-bw); j <= i; j++ {
					band[i*w+bw-i+j] = a[i*n+j]
				}
			}
			rc := make([]float64, n+1)
			for i := range rc {
				rc[i] = rng.NormFloat64()
			}
			type result struct{ band, ut, dinv, y []float64 }
			// goKernels: the Go code of both kernels, with dot8's kernel
			// (the factor uses no inner product).
			run := func(goKernels bool) result {
				r := result{slices.Clone(band), make([]float64, n*w), make([]float64, n), make([]float64, n+1)}
				factor := func() {
					if !bandFactor(r.band, r.ut, r.dinv, bw) {
						t.Fatalf("n=%d bw=%d: not positive definite", n, bw)
					}
				}
				if goKernels {
					withoutAsm(factor)
					bandSolveGo(r.y, rc, r.band, r.ut, r.dinv, bw)
				} else {
					factor()
					bandSolve(r.y, rc, r.band, r.ut, r.dinv, bw)
				}
				return r
			}
			kern := run(false)
			var plain result
			withoutAsm(func() { plain = run(false) })
			if useKernelAsm {
				ref := run(true)
				for _, c := range [][2][]float64{{kern.band, ref.band}, {kern.ut, ref.ut}, {kern.dinv, ref.dinv}, {kern.y, ref.y}} {
					if !sameBits(c[0], c[1]) {
						t.Fatalf("n=%d bw=%d: kernel %v, Go code %v", n, bw, c[0], c[1])
					}
				}
			}
			for _, r := range []result{kern, plain} {
				if r.y[n] != 0 {
					t.Fatalf("n=%d bw=%d: wrote y[n]", n, bw)
				}
				for i := range n {
					res := rc[i]
					for j := range n {
						res -= a[i*n+j] * r.y[j]
					}
					if math.Abs(res) > 1e-12*a[i*n+i] {
						t.Fatalf("n=%d bw=%d: residual %g in row %d", n, bw, res, i)
					}
				}
			}
		}
	}
	for _, f := range []func(){
		func() {
			bandSolve(make([]float64, 3), make([]float64, 4), make([]float64, 16), make([]float64, 15), make([]float64, 4), 3)
		},
		func() { bandFactorCol(make([]float64, 16), make([]float64, 16), 4, 4, 3, 1) },
	} {
		if !panics(true, f) {
			t.Error("a slice too short or a row out of range: no panic")
		}
	}
}

// TestAddTriBlocks checks the assembly of addTriBlocks against its Go code
// bit for bit, on blocks scattered in any order through val and on values
// that include signed zeros, huge and tiny numbers; and that an index out
// of range panics before anything is written. (TestElementOperatorForms
// checks the blocks themselves against the exact Hessian.)
func TestAddTriBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	num := func() float64 { return randNum(rng) }
	for trial := range 200 {
		n := 9 + rng.IntN(20)
		val := make([][3][3]float64, n)
		for k := range val {
			for i := range 3 {
				for j := range 3 {
					val[k][i][j] = num()
				}
			}
		}
		var tb [9]int32
		for i, k := range rng.Perm(n)[:9] {
			tb[i] = int32(k)
		}
		var m [4][3][3]float64
		var c [10]float64
		for q := range m {
			for i := range 3 {
				for j := range 3 {
					m[q][i][j] = num()
				}
			}
		}
		for i := range c {
			c[i] = num()
		}
		got := slices.Clone(val)
		addTriBlocks(got, &tb, &m, &c)
		want := slices.Clone(val)
		withoutAsm(func() { addTriBlocks(want, &tb, &m, &c) })
		for k := range val {
			if !sameBits(got[k][0][:], want[k][0][:]) || !sameBits(got[k][1][:], want[k][1][:]) || !sameBits(got[k][2][:], want[k][2][:]) {
				t.Fatalf("trial %d, block %d: kernel %v, Go %v", trial, k, got[k], want[k])
			}
		}
	}
	val := make([][3][3]float64, 9)
	tb := [9]int32{0, 1, 2, 3, 4, 5, 6, 7, 9}
	var m [4][3][3]float64
	c := [10]float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	m[0][0][0] = 1
	defer func() {
		if recover() == nil {
			t.Error("index out of range: no panic")
		}
		if val[0][0][0] != 0 {
			t.Error("index out of range: blocks written before the panic")
		}
	}()
	addTriBlocks(val, &tb, &m, &c)
}

// TestTriMats checks the assembly of triMats against its Go code bit for
// bit, and that uu and vv come out exactly symmetric and m[3] exactly
// uv's transpose. (TestElementOperatorForms checks the matrices
// themselves against the exact Hessian.)
func TestTriMats(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	num := func() float64 { return randNum(rng) }
	rv := func() vec { return vec{num(), num(), num()} }
	for trial := range 500 {
		g := triGeom{uh: rv(), vh: rv(), wh: rv(), zh: rv(), lu: num(), lv: num(), lw: num(), lz: num()}
		var k [9]float64
		for i := range k {
			k[i] = num()
		}
		var got, want [4][3][3]float64
		triMats(&got, &g, &k)
		withoutAsm(func() { triMats(&want, &g, &k) })
		for q := range got {
			for a := range 3 {
				if !sameBits(got[q][a][:], want[q][a][:]) {
					t.Fatalf("trial %d, matrix %d row %d: kernel %v, Go %v", trial, q, a, got[q][a], want[q][a])
				}
				for d := range 3 {
					if !sameBits([]float64{got[0][a][d], got[2][a][d], got[3][a][d]}, []float64{got[0][d][a], got[2][d][a], got[1][d][a]}) {
						t.Fatalf("trial %d, entry (%d, %d): uu or vv not symmetric, or m[3] not uvᵀ", trial, a, d)
					}
				}
			}
		}
	}
}

// TestNeg: the kernel flips the sign of every entry as Go's negation does
// (zeros, infinities and NaNs too), for every length of tail.
func TestNeg(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for n := range 12 {
		p := make([]float64, n)
		for i := range p {
			p[i] = randNum(rng)
			switch rng.IntN(8) {
			case 0:
				p[i] = math.Inf(1 - 2*rng.IntN(2))
			case 1:
				p[i] = math.NaN()
			}
		}
		want := make([]float64, n)
		for i := range p {
			want[i] = -p[i]
		}
		neg(p)
		for i := range p {
			if math.Float64bits(p[i]) != math.Float64bits(want[i]) {
				t.Fatalf("n %d, entry %d: %v, want %v", n, i, p[i], want[i])
			}
		}
	}
}

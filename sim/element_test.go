package sim

import (
	"math"
	"math/rand/v2"
	"testing"
)

// testLaw is a nonlinear, Poisson-coupled material so that every term of
// the element is exercised.
func testLaw() *law {
	m := DefaultMaterial()
	m.Poisson = 0.3
	m.Weft.Strain = append([]float64{-0.05}, m.Weft.Strain...)
	m.Weft.Stress = append([]float64{-20}, m.Weft.Stress...)
	var l law
	l.set(m)
	return &l
}

// randomTriangle returns a triangle with rest coordinates of a few
// centimetres and positions deformed by up to ±frac of its size, with a
// random rotation.
func randomTriangle(rng *rand.Rand, frac float64) (tri, []float64) {
	m := &mesh{uv: []float64{0, 0, 0.011, 0.002, 0.003, 0.009}}
	m.addTri(0, 1, 2)
	t := m.tris[0]
	x := make([]float64, 9)
	rot := randomRotation(rng)
	for k := range 3 {
		p := [3]float64{m.uv[2*k], m.uv[2*k+1], 0}
		for c := range 3 {
			p[c] += frac * 0.01 * (2*rng.Float64() - 1)
		}
		q := mulVec33(&rot, p)
		copy(x[3*k:], q[:])
	}
	return t, x
}

func randomRotation(rng *rand.Rand) [3][3]float64 {
	a, _ := unit([3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()})
	th := 2 * math.Pi * rng.Float64()
	c, s := math.Cos(th), math.Sin(th)
	var r [3][3]float64
	for i := range 3 {
		for j := range 3 {
			r[i][j] = (1-c)*a[i]*a[j] + c*identity(i, j)
		}
	}
	r[0][1] -= s * a[2]
	r[0][2] += s * a[1]
	r[1][0] += s * a[2]
	r[1][2] -= s * a[0]
	r[2][0] -= s * a[1]
	r[2][1] += s * a[0]
	return r
}

func elemEnergy(t *tri, l *law, x []float64) float64 {
	_, eu, ev, es := t.geom(x)
	var st stress
	l.eval(eu, ev, es, &st)
	return t.area * st.psi
}

// elemForce returns the elastic force of the forces pass (tri.pass) on an
// element at rest velocities.
func elemForce(t *tri, l *law, x []float64) []float64 {
	fab := fabric{cur: *l}
	f, fv := make([]float64, 9), make([]float64, 9)
	var lin triLin
	t.pass(x, make([]float64, 9), f, fv, &fab, nil, nil, nil, &lin, 0)
	return f
}

func relErr(a, b []float64) float64 {
	var d, n float64
	for i := range a {
		d += (a[i] - b[i]) * (a[i] - b[i])
		n += b[i] * b[i]
	}
	return math.Sqrt(d / n)
}

// TestElementForceIsGradient checks F = -∂W/∂P against central
// differences of the element energy (relative error <= 1e-6).
func TestElementForceIsGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	l := testLaw()
	for trial := range 50 {
		tr, x := randomTriangle(rng, 0.15)
		f := elemForce(&tr, l, x)
		fd := make([]float64, 9)
		const h = 1e-7
		for i := range x {
			xp := append([]float64(nil), x...)
			xm := append([]float64(nil), x...)
			xp[i] += h
			xm[i] -= h
			fd[i] = -(elemEnergy(&tr, l, xp) - elemEnergy(&tr, l, xm)) / (2 * h)
		}
		if e := relErr(f, fd); e > 1e-6 {
			t.Errorf("trial %d: force vs -grad energy: relative error %.2e", trial, e)
		}
	}
}

// TestElementHessian checks the exact element Hessian against central
// differences of the force (relative error <= 1e-6).
func TestElementHessian(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	l := testLaw()
	for trial := range 50 {
		tr, x := randomTriangle(rng, 0.15)
		h := tr.hessian(l, x)
		var got, fd []float64
		const step = 1e-8
		for c := range 9 {
			xp := append([]float64(nil), x...)
			xm := append([]float64(nil), x...)
			xp[c] += step
			xm[c] -= step
			fp, fm := elemForce(&tr, l, xp), elemForce(&tr, l, xm)
			for r := range 9 {
				fd = append(fd, -(fp[r]-fm[r])/(2*step)) // ∂²W = -∂F
				got = append(got, h[3*(r/3)+c/3][r%3][c%3])
			}
		}
		if e := relErr(got, fd); e > 1e-6 {
			t.Errorf("trial %d: Hessian vs finite differences: relative error %.2e", trial, e)
		}
	}
}

// TestElementViscousJacobian checks ∂F/∂V of the Kelvin-Voigt stresses
// against central differences in the velocities (the viscous force is
// linear in them, so this is exact up to round-off).
func TestElementViscousJacobian(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	eta := Viscosity{Weft: 0.7, Warp: 0.4, Shear: 0.1}
	for trial := range 20 {
		tr, x := randomTriangle(rng, 0.1)
		g, _, _, _ := tr.geom(x)
		var lin triLin
		lin.set(&g, &stress{}, 0)
		blk := fullBlocks(&lin, &tr, 0, 1, &eta) // D only (cK = 0, cD = 1) = -∂F/∂V
		fab := fabric{cur: *testLaw(), eta: eta}
		force := func(v []float64) []float64 { // the viscous part of tri.pass
			f, fv := make([]float64, 9), make([]float64, 9)
			var l triLin
			tr.pass(x, v, f, fv, &fab, nil, nil, nil, &l, 0)
			return fv
		}
		var got, fd []float64
		for c := range 9 {
			vp, vm := make([]float64, 9), make([]float64, 9)
			vp[c], vm[c] = 1e-3, -1e-3
			fp, fm := force(vp), force(vm)
			for r := range 9 {
				fd = append(fd, -(fp[r]-fm[r])/2e-3)
				got = append(got, blk[3*(r/3)+c/3][r%3][c%3])
			}
		}
		if e := relErr(got, fd); e > 1e-9 {
			t.Errorf("trial %d: viscous Jacobian relative error %.2e", trial, e)
		}
	}
}

// TestElementOperatorForms checks that the solver's three forms of the
// element matrix agree: the factored product (mulAdd), the weft-warp
// matrices (mulMats) and the assembled blocks; and that without the
// clamping (pure tension, no shear) they equal the exact Hessian.
func TestElementOperatorForms(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	l := testLaw()
	eta := Viscosity{Weft: 0.3, Warp: 0.2, Shear: 0.05}
	for trial := range 30 {
		tr, x := randomTriangle(rng, 0.2)
		g, eu, ev, es := tr.geom(x)
		var st stress
		l.eval(eu, ev, es, &st)
		var lin triLin
		lin.set(&g, &st, 0) // no mass: the negative geometric terms are dropped
		const cK, cD = 2.5e-5, 5e-3
		p := make([]float64, 9)
		for i := range p {
			p[i] = rng.NormFloat64()
		}
		a, b, c := make([]float64, 9), make([]float64, 9), make([]float64, 9)
		lin.mulAdd(&tr, a, p, cK, cD, cK, &eta)
		var mm [4][3][3]float64
		lin.mats(&mm, &tr, cK, cD, cK, &eta)
		tr.mulMats(b, p, &mm)
		blk := fullBlocks(&lin, &tr, cK, cD, &eta)
		for r := range 3 {
			for q := range 3 {
				mul33add(c[3*r:3*r+3], &blk[3*r+q], p[3*q:3*q+3])
			}
		}
		if e := relErr(b, a); e > 1e-12 {
			t.Errorf("trial %d: mulMats vs mulAdd %.2e", trial, e)
		}
		if e := relErr(c, a); e > 1e-12 {
			t.Errorf("trial %d: blocks vs mulAdd %.2e", trial, e)
		}
		// Symmetric and positive semi-definite.
		var e0 float64
		for r := range 9 {
			for q := range 9 {
				v1 := blk[3*(r/3)+q/3][r%3][q%3]
				v2 := blk[3*(q/3)+r/3][q%3][r%3]
				e0 = math.Max(e0, math.Abs(v1-v2))
			}
		}
		if e0 > 1e-12*math.Abs(blk[0][0][0]) {
			t.Errorf("trial %d: blocks not symmetric (%.2e)", trial, e0)
		}
		if q := dot(p, a); q < -1e-12*dot(p, p) {
			t.Errorf("trial %d: pᵀAp = %g < 0", trial, q)
		}
	}
	// With the negative geometric terms kept (heavy nodes), cK = 1, cD = 0
	// is the exact Hessian, compressed directions included (without
	// Poisson coupling, whose strain-space clamp is separate).
	mat := DefaultMaterial()
	var l0 law
	l0.set(mat)
	for trial := range 30 {
		tr, x := randomTriangle(rng, 0.2)
		g, eu, ev, es := tr.geom(x)
		var st stress
		l0.eval(eu, ev, es, &st)
		var lin triLin
		lin.set(&g, &st, math.Inf(1))
		blk := fullBlocks(&lin, &tr, 1, 0, &Viscosity{})
		h := tr.hessian(&l0, x)
		var got, want []float64
		for i := range blk {
			for r := range 3 {
				got = append(got, blk[i][r][:]...)
				want = append(want, h[i][r][:]...)
			}
		}
		if e := relErr(got, want); e > 1e-12 {
			t.Errorf("trial %d: blocks vs exact Hessian: %.2e", trial, e)
		}
	}
}

// fullBlocks returns the nine blocks assemble adds, block (r, c) at 3r+c.
func fullBlocks(lin *triLin, t *tri, cK, cD float64, eta *Viscosity) (full [9][3][3]float64) {
	a := &bcsr{val: make([][3][3]float64, 9)}
	tb := [9]int32{0, 1, 2, 3, 4, 5, 6, 7, 8}
	lin.assemble(a, &tb, t, cK, cD, eta)
	copy(full[:], a.val)
	return full
}

func mul33add(dst []float64, a *[3][3]float64, x []float64) {
	var y [3]float64
	mul33(y[:], a, x)
	dst[0] += y[0]
	dst[1] += y[1]
	dst[2] += y[2]
}

// rigidMesh returns a mesh's rest positions moved by a random rotation and
// translation.
func rigidMesh(rng *rand.Rand, m *mesh) []float64 {
	rot := randomRotation(rng)
	tr := [3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	x := make([]float64, 3*m.nodes())
	for k := range m.nodes() {
		p := mulVec33(&rot, [3]float64{m.uv[2*k], m.uv[2*k+1], 0})
		for c := range 3 {
			x[3*k+c] = p[c] + tr[c]
		}
	}
	return x
}

// TestRigidMotionIsForceFree checks that a rigidly moved mesh feels no
// elastic or bending force.
func TestRigidMotionIsForceFree(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	mat := DefaultMaterial()
	var l law
	l.set(mat)
	m := newMesh(9, 7, 0.1, 0.08, 0)
	m.setBending(mat.BendWeft, mat.BendWarp, mat.twist())
	for trial := range 10 {
		x := rigidMesh(rng, m)
		f, fv, v := make([]float64, len(x)), make([]float64, len(x)), make([]float64, len(x))
		fab := fabric{cur: l}
		var lin triLin
		for i := range m.tris {
			m.tris[i].pass(x, v, f, fv, &fab, nil, nil, nil, &lin, 0)
		}
		// Scale: the force of a 1 % stretch of one element.
		s1, _ := mat.Weft.Eval(0.01)
		scale := s1 * (m.gu[1] - m.gu[0])
		if mx := maxAbs(f); mx > 1e-9*scale {
			t.Errorf("trial %d: tensile force %.3g N on a rigid motion (scale %.3g N)", trial, mx, scale)
		}
		clear(f)
		m.bend.mulAdd(f, x, -1)
		du := m.gu[1] - m.gu[0]
		bscale := mat.BendWeft / du / du // force of a unit-curvature bend
		if mx := maxAbs(f); mx > 1e-9*bscale {
			t.Errorf("trial %d: bending force %.3g N on a rigid motion (scale %.3g N)", trial, mx, bscale)
		}
	}
}

func maxAbs(x []float64) float64 {
	var m float64
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

// TestBendingConservesMomentum checks that the linear bending forces have
// zero resultant and zero moment for any shape (eq. 14, 17).
func TestBendingConservesMomentum(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	m := newMesh(8, 10, 0.07, 0.09, 0)
	m.setBending(1e-5, 2e-5, 1.4e-5)
	for trial := range 20 {
		x := make([]float64, 3*m.nodes())
		for i := range x {
			x[i] = 0.05 * rng.NormFloat64()
		}
		f := make([]float64, len(x))
		m.bend.mulAdd(f, x, -1)
		var sum, mom [3]float64
		var fs, ms float64
		for k := range m.nodes() {
			fk, xk := at3(f, int32(k)), at3(x, int32(k))
			sum = add3(sum, fk)
			mom = add3(mom, cross3(xk, fk))
			fs += norm3(fk)
			ms += norm3(xk) * norm3(fk)
		}
		if norm3(sum) > 1e-14*fs || norm3(mom) > 1e-14*ms {
			t.Errorf("trial %d: Σ F = %v (scale %g), Σ x×F = %v (scale %g)", trial, sum, fs, mom, ms)
		}
	}
}

// TestBendingEnergyMatchesPlate bends the flat mesh into quadratic
// surfaces z = ½(p·u² + 2q·uv + s·v²) and compares the discrete energy
// with the plate's ½(BendWeft·p² + BendWarp·s²) + BendTwist·q² per area
// over the area the interior edges cover.
func TestBendingEnergyMatchesPlate(t *testing.T) {
	const bu, bv, bt = 1.1e-5, 1.7e-5, 0.6e-5
	graded := Refinement{Centre: [2]float64{0.03, 0.08}, Radius: 0.02, Ratio: 4}
	for _, tc := range []struct {
		nu, nv int
		r      Refinement
	}{{6, 5, Refinement{}}, {16, 24, Refinement{}}, {16, 24, graded}} {
		m := newGridMesh(gridLines(tc.nu, 0.1, tc.r, 0), gridLines(tc.nv, 0.12, tc.r, 1), 0)
		m.setBending(bu, bv, bt)
		// The interior grid lines along u cover [h₀/2, W - h_last/2]; the
		// curvature along u is felt there, over the whole height.
		wu := m.gu[m.nu-1] - (m.gu[1]-m.gu[0])/2 - (m.gu[m.nu-1]-m.gu[m.nu-2])/2
		wv := m.gv[m.nv-1] - (m.gv[1]-m.gv[0])/2 - (m.gv[m.nv-1]-m.gv[m.nv-2])/2
		W, H := m.gu[m.nu-1], m.gv[m.nv-1]
		for _, c := range [][3]float64{{3, 0, 0}, {0, 2, 0}, {0, 0, 5}, {1.5, -0.7, 2.5}} {
			p, q, s := c[0], c[1], c[2]
			x := make([]float64, 3*m.nodes())
			for k := range m.nodes() {
				u, v := m.uv[2*k], m.uv[2*k+1]
				x[3*k], x[3*k+1], x[3*k+2] = u, v, 0.5*(p*u*u+2*q*u*v+s*v*v)
			}
			sx := make([]float64, len(x))
			m.bend.mulAdd(sx, x, 1)
			got := 0.5 * dot(x, sx)
			want := 0.5*bu*p*p*wu*H + 0.5*bv*s*s*W*wv + bt*q*q*W*H
			if math.Abs(got-want) > 1e-7*want { // ½xᵀSx cancels the in-plane terms: round-off ~1e-8
				t.Errorf("mesh %d × %d %+v, (p,q,s) = %v: energy %.12g, plate %.12g", tc.nu, tc.nv, tc.r, c, got, want)
			}
		}
	}
}

// hessian returns the exact second derivative of the element's elastic
// energy with respect to the vertex positions, ∂²W/∂P_r∂P_c, without the
// clamping the solver applies.
func (t *tri) hessian(l *law, x []float64) (h [9][3][3]float64) {
	g, eu, ev, es := t.geom(x)
	uh, vh, wh, zh := g.uh.arr(), g.vh.arr(), g.wh.arr(), g.zh.arr()
	var st stress
	l.eval(eu, ev, es, &st)
	var gs [3][3]float64
	for k := range 3 {
		for c := range 3 {
			gs[k][c] = ((t.ru[k]+t.rv[k])*wh[c] - (t.ru[k]-t.rv[k])*zh[c]) * sqrt1_2
		}
	}
	for r := range 3 {
		for c := range 3 {
			b := &h[3*r+c]
			for a := range 3 {
				for d := range 3 {
					id := 0.0
					if a == d {
						id = 1
					}
					gua, gud := t.ru[r]*uh[a], t.ru[c]*uh[d]
					gva, gvd := t.rv[r]*vh[a], t.rv[c]*vh[d]
					v := st.kuu*gua*gud + st.kvv*gva*gvd + st.kuv*(gua*gvd+gva*gud) + st.kss*gs[r][a]*gs[c][d]
					v += st.su * t.ru[r] * t.ru[c] * (id - uh[a]*uh[d]) / g.lu
					v += st.sv * t.rv[r] * t.rv[c] * (id - vh[a]*vh[d]) / g.lv
					v += st.ss * sqrt1_2 * ((t.ru[r]+t.rv[r])*(t.ru[c]+t.rv[c])*(id-wh[a]*wh[d])/g.lw -
						(t.ru[r]-t.rv[r])*(t.ru[c]-t.rv[c])*(id-zh[a]*zh[d])/g.lz)
					b[a][d] = t.area * v
				}
			}
		}
	}
	return h
}

// newMesh builds a uniform width × height fabric with nu × nv nodes (see
// newGridMesh).
func newMesh(nu, nv int, width, height, angle float64) *mesh {
	return newGridMesh(gridLines(nu, width, Refinement{}, 0), gridLines(nv, height, Refinement{}, 1), angle)
}

// quarticForce returns, for the nodes of m at least three grid lines from
// the boundary, the bending force on the quartic surface z = ((u-u₀)/L)⁴·L
// + ((v-v₀)/L)²((u-u₀)/L)²·L (per unit rigidities bu, bv, bt) over the
// plate's, -(bu·z_uuuu + bv·z_vvvv + 2·bt·z_uuvv) times the node's dual
// cell: the smallest and largest ratio.
func quarticForce(m *mesh, bu, bv, bt, u0, v0 float64) (lo, hi float64) {
	const L = 0.1
	m.setBending(bu, bv, bt)
	x := make([]float64, 3*m.nodes())
	for k := range m.nodes() {
		u, v := (m.uv[2*k]-u0)/L, (m.uv[2*k+1]-v0)/L
		x[3*k], x[3*k+1], x[3*k+2] = m.uv[2*k], m.uv[2*k+1], L*(u*u*u*u+u*u*v*v)
	}
	f := make([]float64, len(x))
	m.bend.mulAdd(f, x, -1)
	lo, hi = math.Inf(1), math.Inf(-1)
	for j := 3; j < m.nv-3; j++ {
		for i := 3; i < m.nu-3; i++ {
			k := j*m.nu + i
			// z_uuuu = 24/L³, z_vvvv = 0, z_uuvv = 4/L³.
			want := -(bu*24 + 2*bt*4) / (L * L * L) * m.area[k]
			r := f[3*k+2] / want
			lo, hi = math.Min(lo, r), math.Max(hi, r)
		}
	}
	return lo, hi
}

// TestBendingForceQuartic: on a uniform mesh the bending force on a
// quartic surface is the plate's to round-off (the stencils are the
// plate's difference operators). On a graded mesh the three-point second
// difference is off by (h₂-h₁)/3·z‴ and the force, a second difference
// of the curvatures, by that error's second difference. Refinement's
// lines make h₂-h₁ = β·(u-c), linear in u, with β = 2·cosh θ - 2, so the
// force is the plate's with its u⁴ part scaled by 1 + 5β/6 + β²/6 at every
// interior node (the second summation maps the error, quadratic in u, to
// a constant; the u²v² part is exact). The test checks that factor at the
// nodes three lines or more from the boundary, for the quartic centred at
// the grading's centre, off it and at the fabric's corner, and the goal:
// within 5 % of the plate's on the pinch grading at 24², 32² and 64².
func TestBendingForceQuartic(t *testing.T) {
	const bu, bv, bt = 1.1e-5, 1.7e-5, 0.6e-5
	graded := Refinement{Centre: pinchUV, Radius: RefineRadius, Ratio: RefineRatio}
	for _, tc := range []struct {
		n int
		r Refinement
	}{{24, Refinement{}}, {64, Refinement{}}, {24, graded}, {32, graded}, {64, graded}} {
		m := newGridMesh(gridLines(tc.n, 0.3, tc.r, 0), gridLines(tc.n, 0.3, tc.r, 1), 0)
		want := 1.0
		if tc.r.active() {
			a := tc.r.Radius / math.Sqrt(tc.r.Ratio*tc.r.Ratio-1)
			c := tc.r.Centre[0]
			beta := 2*math.Cosh((math.Asinh((0.3-c)/a)+math.Asinh(c/a))/float64(tc.n-1)) - 2
			want = (bu*24*(1+5*beta/6+beta*beta/6) + 8*bt) / (bu*24 + 8*bt)
		}
		for _, c := range [][2]float64{pinchUV, {0.15, 0.15}, {0, 0}} {
			lo, hi := quarticForce(m, bu, bv, bt, c[0], c[1])
			t.Logf("%d² ratio %.1f, quartic centred at (%.2f, %.2f) m: force %.4f to %.4f of the plate's (predicted %.4f)", tc.n, tc.r.Ratio, c[0], c[1], lo, hi, want)
			if math.Abs(lo-want) > 1e-6 || math.Abs(hi-want) > 1e-6 {
				t.Errorf("%d² %+v, centre %v: force ratio %.7f to %.7f, want %.7f", tc.n, tc.r, c, lo, hi, want)
			}
			if lo < 0.95 || hi > 1.05 {
				t.Errorf("%d² %+v, centre %v: force ratio %.4f to %.4f, not within 5 %% of the plate's", tc.n, tc.r, c, lo, hi)
			}
		}
	}
}

package sim

import "math"

// This file is Volino's accurate triangle element (eq. 6-11), with the
// forces and Jacobians derived from the element energy
//
//	W = A₀·ψ(εuu, εvv, εuv),  εuu = |U|-1,  εvv = |V|-1,  εuv = (|U+V|-|U-V|)/√2,
//
// where U = Σ ru[k]·P_k and V = Σ rv[k]·P_k are the deformed weft and warp
// vectors (eq. 7-8). Eq. 11 as printed pairs the stresses with the wrong
// unit vectors; the gradient of W gives, for vertex k,
//
//	F_k = -A₀·(ru[k]·gU + rv[k]·gV),
//	gU = σuu·Û + σuv/√2·(Ŵ - Ẑ),   gV = σvv·V̂ + σuv/√2·(Ŵ + Ẑ),
//
// with W = U+V, Z = U-V and σ = ∂ψ/∂ε plus the Kelvin-Voigt stresses
// η·dε/dt (eq. 9-10, which are exactly ∂ε/∂P·P'). TestElementForceIsGradient
// and TestElementHessian check both against central differences.

const sqrt1_2 = 1 / math.Sqrt2

// triGeom is the deformed state of one element.
type triGeom struct {
	uh, vh, wh, zh vec     // unit weft, warp and diagonal vectors
	lu, lv, lw, lz float64 // their lengths
}

// triLin is an element's linearisation, in the factored form the
// matrix-free product and the assembly share: the strain-space stiffness
// ∂²ψ/∂ε² times the strain gradients, plus the geometric terms of the unit
// vectors' rotation. Together with the viscosities it gives the element's
// part of A = M - cD·∂F/∂V - cK·∂F/∂P as cK·H + cD·Σ η·∇ε·∇εᵀ (∂F/∂P = -H).
//
// The geometric terms of compressed directions are negative. They are kept
// while the lightest node's mass outweighs them eight times over (a node
// has at most eight triangles), which keeps A positive definite; beyond
// that, at long steps, they are dropped (Baraff & Witkin's remedy), which
// costs BDF-2 its second order but not its stability. The viscous stresses'
// dependence on positions is left out (it is not symmetric).
type triLin struct {
	g                  triGeom
	kuu, kvv, kuv, kss float64
	gu, gv, gw, gz     float64 // signed geometric coefficients
	mMin               float64 // lightest vertex mass [kg]
}

// weftWarp returns U and V of t for the node vectors x (positions or
// velocities).
func (t *tri) weftWarp(x []float64) (u, v vec) {
	p0, p1, p2 := vecAt(x, t.n[0]), vecAt(x, t.n[1]), vecAt(x, t.n[2])
	u = p0.scale(t.ru[0]).add(p1.scale(t.ru[1])).add(p2.scale(t.ru[2]))
	v = p0.scale(t.rv[0]).add(p1.scale(t.rv[1])).add(p2.scale(t.rv[2]))
	return u, v
}

// principalStrain is the largest singular value of [U V], minus one.
func (g *triGeom) principalStrain() float64 {
	a, d := g.lu*g.lu, g.lv*g.lv
	b := g.lu * g.lv * g.uh.dot(g.vh)
	tr, det := a+d, a*d-b*b
	return math.Sqrt(0.5*(tr+math.Sqrt(max(tr*tr-4*det, 0)))) - 1
}

func (t *tri) geom(x []float64) (g triGeom, eu, ev, es float64) {
	u, v := t.weftWarp(x)
	g.uh, g.lu = unitVec(u)
	g.vh, g.lv = unitVec(v)
	g.wh, g.lw = unitVec(u.add(v))
	g.zh, g.lz = unitVec(u.sub(v))
	return g, g.lu - 1, g.lv - 1, (g.lw - g.lz) * sqrt1_2
}

// pass is the element's part of the forces pass at positions x and
// velocities v: it adds its elastic and viscous forces to f and the
// viscous ones alone to fv, fills lin for the step's matrix (mMin is the
// lightest vertex mass), and returns its elastic energy A₀·ψ, its
// largest principal strain and its dissipation rate A₀·Σ η·(dε/dt)². The
// viscous stresses are η·dε/dt (eq. 9-10, exactly ∂ε/∂P·P'). With h, the
// element's friction state, its friction stresses join the elastic ones
// and fric is their work since the start of the step (triHyst.apply,
// which records in next and hw the state to commit at x).
func (t *tri) pass(x, v, f, fv []float64, fab *fabric, h, next *triHyst, hw *[3]float64, lin *triLin, mMin float64) (w, strain, diss, fric float64) {
	g, eu, ev, es := t.geom(x)
	var st stress
	fab.eval(eu, ev, es, &st)
	if h != nil {
		fric = t.area * h.apply(fab, eu, ev, es, &st, next, hw)
	}
	du, dv := t.weftWarp(v)
	eta := &fab.eta
	ru, rv := g.uh.dot(du), g.vh.dot(dv)
	rs := (g.wh.dot(du.add(dv)) - g.zh.dot(du.sub(dv))) * sqrt1_2
	vu, vv, vs := eta.Weft*ru, eta.Warp*rv, eta.Shear*rs
	wz1, wz2 := g.wh.sub(g.zh), g.wh.add(g.zh)
	hu := g.uh.scale(vu).add(wz1.scale(vs * sqrt1_2))
	hv := g.vh.scale(vv).add(wz2.scale(vs * sqrt1_2))
	gu := g.uh.scale(st.su).add(wz1.scale(st.ss * sqrt1_2)).add(hu)
	gv := g.vh.scale(st.sv).add(wz2.scale(st.ss * sqrt1_2)).add(hv)
	for k, n := range t.n {
		a, b := -t.area*t.ru[k], -t.area*t.rv[k]
		addVecAt(f, n, gu.scale(a).add(gv.scale(b)))
		addVecAt(fv, n, hu.scale(a).add(hv.scale(b)))
	}
	lin.set(&g, &st, mMin)
	return t.area * st.psi, g.principalStrain(), t.area * (vu*ru + vv*rv + vs*rs), fric
}

// dissipation returns Σ η·(dε/dt)² of the element in the state g for the
// node velocities v: the rate per rest area at which its viscous stresses
// do work.
func (g *triGeom) dissipation(t *tri, v []float64, eta *Viscosity) float64 {
	du, dv := t.weftWarp(v)
	ru, rv := g.uh.dot(du), g.vh.dot(dv)
	rs := (g.wh.dot(du.add(dv)) - g.zh.dot(du.sub(dv))) * sqrt1_2
	return eta.Weft*ru*ru + eta.Warp*rv*rv + eta.Shear*rs*rs
}

// set fills lin from the element's geometry, elastic state and lightest
// vertex mass.
func (lin *triLin) set(g *triGeom, st *stress, mMin float64) {
	lin.g = *g
	kuu, kvv, kuv := st.kuu, st.kvv, st.kuv
	// Keep the strain-space stiffness positive semi-definite (a strongly
	// nonlinear Poisson coupling could break it).
	if lim := math.Sqrt(max(kuu, 0) * max(kvv, 0)); math.Abs(kuv) > lim {
		kuv = math.Copysign(lim, kuv)
	}
	lin.kuu, lin.kvv, lin.kuv, lin.kss = kuu, kvv, kuv, st.kss
	lin.gu = st.su / max(g.lu, 1e-12)
	lin.gv = st.sv / max(g.lv, 1e-12)
	lin.gw = st.ss * sqrt1_2 / max(g.lw, 1e-12)
	lin.gz = -st.ss * sqrt1_2 / max(g.lz, 1e-12)
	lin.mMin = mMin
}

// geo returns the geometric coefficients in use for a step with
// coefficient cK (see triLin).
func (lin *triLin) geo(t *tri, cK float64) (gu, gv, gw, gz float64) {
	gu, gv, gw, gz = lin.gu, lin.gv, lin.gw, lin.gz
	neg := max(-gu, 0)*t.su2 + max(-gv, 0)*t.sv2 + max(-gw, 0)*t.sw2 + max(-gz, 0)*t.sz2
	if cK*neg > lin.mMin/8 {
		gu, gv, gw, gz = max(gu, 0), max(gv, 0), max(gw, 0), max(gz, 0)
	}
	return gu, gv, gw, gz
}

// coef returns the combined strain-space coefficients of cK·H + cD·D,
// with the geometric terms chosen for the step's coefficient cStep.
func (lin *triLin) coef(t *tri, cK, cD, cStep float64, eta *Viscosity) (cuu, cvv, cuv, css, gu, gv, gw, gz float64) {
	gu, gv, gw, gz = lin.geo(t, cStep)
	return cK*lin.kuu + cD*eta.Weft, cK*lin.kvv + cD*eta.Warp, cK * lin.kuv, cK*lin.kss + cD*eta.Shear,
		cK * gu, cK * gv, cK * gw, cK * gz
}

// mulAdd adds the element's part of (cK·H + cD·D)·p to dst, with the
// geometric terms of a step with coefficient cStep.
func (lin *triLin) mulAdd(t *tri, dst, p []float64, cK, cD, cStep float64, eta *Viscosity) {
	cuu, cvv, cuv, css, cgu, cgv, cgw, cgz := lin.coef(t, cK, cD, cStep, eta)
	du, dv := t.weftWarp(p)
	g := &lin.g
	dwu, dzu := du.add(dv), du.sub(dv)
	deu, dev := g.uh.dot(du), g.vh.dot(dv)
	pw := g.wh.dot(dwu)
	pz := g.zh.dot(dzu)
	des := (pw - pz) * sqrt1_2
	su := cuu*deu + cuv*dev
	sv := cvv*dev + cuv*deu
	ss := css * des * sqrt1_2
	w := dwu.sub(g.wh.scale(pw)).scale(cgw)
	z := dzu.sub(g.zh.scale(pz)).scale(cgz)
	gu := g.uh.scale(su).add(g.wh.sub(g.zh).scale(ss)).add(du.sub(g.uh.scale(deu)).scale(cgu)).add(w).add(z)
	gv := g.vh.scale(sv).add(g.wh.add(g.zh).scale(ss)).add(dv.sub(g.vh.scale(dev)).scale(cgv)).add(w).sub(z)
	for k, n := range t.n {
		a, b := t.area*t.ru[k], t.area*t.rv[k]
		addVecAt(dst, n, gu.scale(a).add(gv.scale(b)))
	}
}

// mats sets m to the element's part of cK·H + cD·D in weft-warp space,
// uu, uv, vv and uvᵀ: for perturbations dU, dV of U and V the generalised
// force vectors are gU = uu·dU + uv·dV and gV = uvᵀ·dU + vv·dV, and vertex
// r gets A₀·(ru[r]·gU + rv[r]·gV). Every term of the Hessian is bilinear
// in the R coefficients of the two vertices, which is why three 3×3
// matrices hold it all. With W = cgw·ŴŴᵀ, Z = cgz·ẐẐᵀ and Eu, Ev the
// shear strain gradients per unit ru and rv,
//
//	uu = (cuu-cgu)·ÛÛᵀ + css·EuEuᵀ - W - Z + (cgu+cgw+cgz)·I,
//	vv = (cvv-cgv)·V̂V̂ᵀ + css·EvEvᵀ - W - Z + (cgv+cgw+cgz)·I,
//	uv = cuv·ÛV̂ᵀ + css·EuEvᵀ - W + Z + (cgw-cgz)·I
//
// (triMats, one of the kernels).
func (lin *triLin) mats(m *[4][3][3]float64, t *tri, cK, cD, cStep float64, eta *Viscosity) {
	cuu, cvv, cuv, css, cgu, cgv, cgw, cgz := lin.coef(t, cK, cD, cStep, eta)
	k := [9]float64{cuu - cgu, cvv - cgv, css, cgw, cgz, cuv, cgu + cgw + cgz, cgv + cgw + cgz, cgw - cgz}
	triMats(m, &lin.g, &k)
}

// assemble adds the element's nine 3×3 blocks of cK·H + cD·D to a; tb
// holds the block indices of its vertex pairs (bcsr.triBlk).
//
// Block (r, c) is A₀·(ru[r]·ru[c]·uu + ru[r]·rv[c]·uv + rv[r]·ru[c]·uvᵀ +
// rv[r]·rv[c]·vv) (see mats). Only the blocks of vertices 1 and 2 are
// computed so: the R coefficients sum to zero (a translation stores no
// energy), so the blocks of each column sum to zero, which gives vertex
// 0's. The blocks below the diagonal are the exact transposes of those
// above and the diagonal blocks are exactly symmetric, so A stays exactly
// symmetric.
func (lin *triLin) assemble(a *bcsr, tb *[9]int32, t *tri, cK, cD float64, eta *Viscosity) {
	var m [4][3][3]float64
	lin.mats(&m, t, cK, cD, cK, eta)
	ar, au1, av1, au2, av2 := t.area, t.ru[1], t.rv[1], t.ru[2], t.rv[2]
	c := [10]float64{
		ar * au1 * au1, ar * au1 * av1, ar * av1 * av1, // p1, q1, s1
		ar * au2 * au2, ar * au2 * av2, ar * av2 * av2, // p2, q2, s2
		ar * au1 * au2, ar * au1 * av2, ar * av1 * au2, ar * av1 * av2, // e, f, h, k
	}
	addTriBlocks(a.val, tb, &m, &c)
}

// mulMats adds A₀·(ru·gU + rv·gV) for the matrices m of mats to dst.
func (t *tri) mulMats(dst, p []float64, m *[4][3][3]float64) {
	du, dv := t.weftWarp(p)
	uu, uv, vv := &m[0], &m[1], &m[2]
	var gu, gv [3]float64
	for i := range 3 {
		gu[i] = uu[i][0]*du.x + uu[i][1]*du.y + uu[i][2]*du.z + uv[i][0]*dv.x + uv[i][1]*dv.y + uv[i][2]*dv.z
		gv[i] = uv[0][i]*du.x + uv[1][i]*du.y + uv[2][i]*du.z + vv[i][0]*dv.x + vv[i][1]*dv.y + vv[i][2]*dv.z
	}
	for k, n := range t.n {
		i := 3 * int(n)
		a, b := t.area*t.ru[k], t.area*t.rv[k]
		dst[i] += a*gu[0] + b*gv[0]
		dst[i+1] += a*gu[1] + b*gv[1]
		dst[i+2] += a*gu[2] + b*gv[2]
	}
}

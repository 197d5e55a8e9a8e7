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
	uh, vh, wh, zh [3]float64 // unit weft, warp and diagonal vectors
	lu, lv, lw, lz float64    // their lengths
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

func sub3(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func add3(a, b [3]float64) [3]float64 { return [3]float64{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func scale3(s float64, a [3]float64) [3]float64 {
	return [3]float64{s * a[0], s * a[1], s * a[2]}
}
func dot3(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func norm3(a [3]float64) float64   { return math.Sqrt(dot3(a, a)) }
func cross3(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// unit returns a/|a| and |a|; a vector too short to have a direction gets
// the zero direction, so it contributes no force.
func unit(a [3]float64) ([3]float64, float64) {
	l := norm3(a)
	if l < 1e-12 {
		return [3]float64{}, l
	}
	return scale3(1/l, a), l
}

func at3(x []float64, k int32) [3]float64 {
	i := 3 * int(k)
	return [3]float64{x[i], x[i+1], x[i+2]}
}

func addAt3(x []float64, k int32, s float64, a [3]float64) {
	i := 3 * int(k)
	x[i] += s * a[0]
	x[i+1] += s * a[1]
	x[i+2] += s * a[2]
}

// weftWarp returns U and V of t for the node vectors x (positions or
// velocities).
func (t *tri) weftWarp(x []float64) (u, v [3]float64) {
	for k, n := range t.n {
		p := at3(x, n)
		for c := range 3 {
			u[c] += t.ru[k] * p[c]
			v[c] += t.rv[k] * p[c]
		}
	}
	return u, v
}

// principalStrain is the largest singular value of [U V], minus one.
func (g *triGeom) principalStrain() float64 {
	a, d := g.lu*g.lu, g.lv*g.lv
	b := g.lu * g.lv * dot3(g.uh, g.vh)
	tr, det := a+d, a*d-b*b
	return math.Sqrt(0.5*(tr+math.Sqrt(max(tr*tr-4*det, 0)))) - 1
}

func (t *tri) geom(x []float64) (g triGeom, eu, ev, es float64) {
	u, v := t.weftWarp(x)
	g.uh, g.lu = unit(u)
	g.vh, g.lv = unit(v)
	g.wh, g.lw = unit(add3(u, v))
	g.zh, g.lz = unit(sub3(u, v))
	return g, g.lu - 1, g.lv - 1, (g.lw - g.lz) * sqrt1_2
}

// strainRates returns dε/dt for the velocities vel (eq. 10).
func (t *tri) strainRates(g *triGeom, vel []float64) (ru, rv, rs float64) {
	du, dv := t.weftWarp(vel)
	return dot3(g.uh, du), dot3(g.vh, dv), (dot3(g.wh, add3(du, dv)) - dot3(g.zh, sub3(du, dv))) * sqrt1_2
}

// force adds the element's force for generalised stresses (su, sv, ss) to f.
func (t *tri) force(g *triGeom, su, sv, ss float64, f []float64) {
	wz1, wz2 := sub3(g.wh, g.zh), add3(g.wh, g.zh)
	var gu, gv [3]float64
	for c := range 3 {
		gu[c] = su*g.uh[c] + ss*sqrt1_2*wz1[c]
		gv[c] = sv*g.vh[c] + ss*sqrt1_2*wz2[c]
	}
	for k, n := range t.n {
		i := 3 * int(n)
		a, b := -t.area*t.ru[k], -t.area*t.rv[k]
		f[i] += a*gu[0] + b*gv[0]
		f[i+1] += a*gu[1] + b*gv[1]
		f[i+2] += a*gu[2] + b*gv[2]
	}
}

// forceVisc adds the element's force for the elastic stresses (su, sv, ss)
// and the viscous ones (vu, vv, vs) to f, and the viscous part alone to fv.
func (t *tri) forceVisc(g *triGeom, su, sv, ss, vu, vv, vs float64, f, fv []float64) {
	wz1, wz2 := sub3(g.wh, g.zh), add3(g.wh, g.zh)
	var gu, gv, hu, hv [3]float64
	for c := range 3 {
		hu[c] = vu*g.uh[c] + vs*sqrt1_2*wz1[c]
		hv[c] = vv*g.vh[c] + vs*sqrt1_2*wz2[c]
		gu[c] = su*g.uh[c] + ss*sqrt1_2*wz1[c] + hu[c]
		gv[c] = sv*g.vh[c] + ss*sqrt1_2*wz2[c] + hv[c]
	}
	for k, n := range t.n {
		i := 3 * int(n)
		a, b := -t.area*t.ru[k], -t.area*t.rv[k]
		f[i] += a*gu[0] + b*gv[0]
		f[i+1] += a*gu[1] + b*gv[1]
		f[i+2] += a*gu[2] + b*gv[2]
		fv[i] += a*hu[0] + b*hv[0]
		fv[i+1] += a*hu[1] + b*hv[1]
		fv[i+2] += a*hu[2] + b*hv[2]
	}
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
	dwu, dzu := add3(du, dv), sub3(du, dv)
	deu, dev := dot3(g.uh, du), dot3(g.vh, dv)
	pw := dot3(g.wh, dwu)
	pz := dot3(g.zh, dzu)
	des := (pw - pz) * sqrt1_2
	su := cuu*deu + cuv*dev
	sv := cvv*dev + cuv*deu
	ss := css * des * sqrt1_2
	var gu, gv [3]float64
	for c := range 3 {
		w := cgw * (dwu[c] - pw*g.wh[c])
		z := cgz * (dzu[c] - pz*g.zh[c])
		gu[c] = su*g.uh[c] + ss*(g.wh[c]-g.zh[c]) + cgu*(du[c]-deu*g.uh[c]) + w + z
		gv[c] = sv*g.vh[c] + ss*(g.wh[c]+g.zh[c]) + cgv*(dv[c]-dev*g.vh[c]) + w - z
	}
	for k, n := range t.n {
		i := 3 * int(n)
		a, b := t.area*t.ru[k], t.area*t.rv[k]
		dst[i] += a*gu[0] + b*gv[0]
		dst[i+1] += a*gu[1] + b*gv[1]
		dst[i+2] += a*gu[2] + b*gv[2]
	}
}

// mats returns the element's part of cK·H + cD·D in weft-warp space: for
// perturbations dU, dV of U and V the generalised force vectors are
// gU = uu·dU + uv·dV and gV = uvᵀ·dU + vv·dV, and vertex r gets
// A₀·(ru[r]·gU + rv[r]·gV). Every term of the Hessian is bilinear in the R
// coefficients of the two vertices, which is why three 3×3 matrices hold
// it all.
func (lin *triLin) mats(t *tri, cK, cD, cStep float64, eta *Viscosity) (uu, uv, vv [3][3]float64) {
	cuu, cvv, cuv, css, cgu, cgv, cgw, cgz := lin.coef(t, cK, cD, cStep, eta)
	g := &lin.g
	// uu = (cuu-cgu)·ÛÛᵀ + css·EuEuᵀ - W - Z + (cgu+cgw+cgz)·I,
	// vv = (cvv-cgv)·V̂V̂ᵀ + css·EvEvᵀ - W - Z + (cgv+cgw+cgz)·I,
	// uv = cuv·ÛV̂ᵀ + css·EuEvᵀ - W + Z + (cgw-cgz)·I,
	// with W = cgw·ŴŴᵀ, Z = cgz·ẐẐᵀ and Eu, Ev the shear strain
	// gradients per unit ru and rv.
	var eu, ev [3]float64
	for c := range 3 {
		eu[c] = (g.wh[c] - g.zh[c]) * sqrt1_2
		ev[c] = (g.wh[c] + g.zh[c]) * sqrt1_2
	}
	ku, kv := cuu-cgu, cvv-cgv
	du, dv, duv := cgu+cgw+cgz, cgv+cgw+cgz, cgw-cgz
	for a := range 3 {
		su, sv := ku*g.uh[a], kv*g.vh[a]
		se, sf := css*eu[a], css*ev[a]
		sw, sz := cgw*g.wh[a], cgz*g.zh[a]
		cu := cuv * g.uh[a]
		for d := a; d < 3; d++ {
			wz := sw*g.wh[d] + sz*g.zh[d]
			x := su*g.uh[d] + se*eu[d] - wz
			y := sv*g.vh[d] + sf*ev[d] - wz
			uu[a][d], uu[d][a] = x, x
			vv[a][d], vv[d][a] = y, y
		}
		for d := range 3 {
			uv[a][d] = cu*g.vh[d] + se*ev[d] - sw*g.wh[d] + sz*g.zh[d]
		}
		uu[a][a] += du
		vv[a][a] += dv
		uv[a][a] += duv
	}
	return uu, uv, vv
}

// blocks returns the element's 3×3 blocks of cK·H + cD·D for r <= c:
// blk[k] couples vertex upper[k][0] (row) with upper[k][1] (column); the
// blocks below the diagonal are their transposes. On the grid every vertex
// has a zero weft or warp coefficient, so terms with a zero weight are
// skipped.
func (lin *triLin) blocks(t *tri, blk *[6][3][3]float64, cK, cD float64, eta *Viscosity) {
	uu, uv, vv := lin.mats(t, cK, cD, cK, eta)
	for k, rc := range upper {
		r, c := rc[0], rc[1]
		a, b, e, f := t.area*t.ru[r]*t.ru[c], t.area*t.ru[r]*t.rv[c], t.area*t.rv[r]*t.ru[c], t.area*t.rv[r]*t.rv[c]
		x := &blk[k]
		*x = [3][3]float64{}
		if a != 0 {
			addScaled33(x, a, &uu)
		}
		if f != 0 {
			addScaled33(x, f, &vv)
		}
		if b != 0 {
			addScaled33(x, b, &uv)
		}
		if e != 0 {
			for i := range 3 {
				x[i][0] += e * uv[0][i]
				x[i][1] += e * uv[1][i]
				x[i][2] += e * uv[2][i]
			}
		}
	}
}

// addScaled33 adds s·m to x.
func addScaled33(x *[3][3]float64, s float64, m *[3][3]float64) {
	for i := range 3 {
		x[i][0] += s * m[i][0]
		x[i][1] += s * m[i][1]
		x[i][2] += s * m[i][2]
	}
}

// upper lists the vertex pairs (r, c), r <= c, of a triangle's blocks.
var upper = [6][2]int{{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}}

// mulMats adds A₀·(ru·gU + rv·gV) for the matrices of mats to dst.
func (t *tri) mulMats(dst, p []float64, uu, uv, vv *[3][3]float64) {
	du, dv := t.weftWarp(p)
	var gu, gv [3]float64
	for i := range 3 {
		gu[i] = uu[i][0]*du[0] + uu[i][1]*du[1] + uu[i][2]*du[2] + uv[i][0]*dv[0] + uv[i][1]*dv[1] + uv[i][2]*dv[2]
		gv[i] = uv[0][i]*du[0] + uv[1][i]*du[1] + uv[2][i]*du[2] + vv[i][0]*dv[0] + vv[i][1]*dv[1] + vv[i][2]*dv[2]
	}
	for k, n := range t.n {
		i := 3 * int(n)
		a, b := t.area*t.ru[k], t.area*t.rv[k]
		dst[i] += a*gu[0] + b*gv[0]
		dst[i+1] += a*gu[1] + b*gv[1]
		dst[i+2] += a*gu[2] + b*gv[2]
	}
}

// hessian returns the exact second derivative of the element's elastic
// energy with respect to the vertex positions, ∂²W/∂P_r∂P_c, without the
// clamping the solver applies. Used by the tests.
func (t *tri) hessian(l *law, x []float64) (h [9][3][3]float64) {
	g, eu, ev, es := t.geom(x)
	var st stress
	l.eval(eu, ev, es, &st)
	var gs [3][3]float64
	for k := range 3 {
		for c := range 3 {
			gs[k][c] = ((t.ru[k]+t.rv[k])*g.wh[c] - (t.ru[k]-t.rv[k])*g.zh[c]) * sqrt1_2
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
					gua, gud := t.ru[r]*g.uh[a], t.ru[c]*g.uh[d]
					gva, gvd := t.rv[r]*g.vh[a], t.rv[c]*g.vh[d]
					v := st.kuu*gua*gud + st.kvv*gva*gvd + st.kuv*(gua*gvd+gva*gud) + st.kss*gs[r][a]*gs[c][d]
					v += st.su * t.ru[r] * t.ru[c] * (id - g.uh[a]*g.uh[d]) / g.lu
					v += st.sv * t.rv[r] * t.rv[c] * (id - g.vh[a]*g.vh[d]) / g.lv
					v += st.ss * sqrt1_2 * ((t.ru[r]+t.rv[r])*(t.ru[c]+t.rv[c])*(id-g.wh[a]*g.wh[d])/g.lw -
						(t.ru[r]-t.rv[r])*(t.ru[c]-t.rv[c])*(id-g.zh[a]*g.zh[d])/g.lz)
					b[a][d] = t.area * v
				}
			}
		}
	}
	return h
}

package sim

import "math"

// Continuous collision detection for the self-collision's fail-safe
// (Bridson, Fedkiw and Anderson, "Robust treatment of collisions, contact
// and friction for cloth animation", SIGGRAPH 2002, §6; after Provot,
// "Collision and self-collision handling in cloth model dedicated to
// design garments", 1997): with every node moving on a straight line over
// the step, a vertex can cross a triangle, or an edge another edge, only
// at an instant the four nodes are coplanar, a root of a cubic in time.
// At each root, in order, and at the end of the step, the features'
// distance decides: closer than a tolerance is a collision at that time.
//
// The cubic's roots are found in floating point, each in an interval
// where the cubic is monotone, and values within a bound on the
// rounding of the cubic's coefficients count as zero, so a motion that
// grazes coplanarity is examined rather than missed.

// coplanarCubic returns the coefficients c[i] of t^i of the volume
// ((x1-x0)×(x2-x0))·(x3-x0) for nodes moving from a[k] to b[k], and a
// bound on the size of its terms.
func coplanarCubic(a, b *[4]vec) (c [4]float64, scale float64) {
	B0, C0, P0 := a[1].sub(a[0]), a[2].sub(a[0]), a[3].sub(a[0])
	dB, dC, dP := b[1].sub(b[0]).sub(B0), b[2].sub(b[0]).sub(C0), b[3].sub(b[0]).sub(P0)
	bc := B0.cross(C0)
	mid := B0.cross(dC).add(dB.cross(C0))
	dd := dB.cross(dC)
	c[0] = bc.dot(P0)
	c[1] = bc.dot(dP) + mid.dot(P0)
	c[2] = mid.dot(dP) + dd.dot(P0)
	c[3] = dd.dot(dP)
	n := func(v vec) float64 { return math.Sqrt(v.dot(v)) }
	lb, lc, lp := n(B0)+n(dB), n(C0)+n(dC), n(P0)+n(dP)
	return c, lb * lc * lp
}

func cubicAt(c *[4]float64, t float64) float64 { return ((c[3]*t+c[2])*t+c[1])*t + c[0] }

// cubicRoots writes into dst, in increasing order, the times in [0, 1]
// where the cubic c may vanish: its roots, and interval ends where its
// value is within eps of zero. It returns how many it wrote.
func cubicRoots(c *[4]float64, eps float64, dst *[6]float64) int {
	// Split [0, 1] where the derivative vanishes: the cubic is monotone
	// between.
	var cut [4]float64
	nc := 0
	cut[nc] = 0
	nc++
	a, b, d := 3*c[3], 2*c[2], c[1]
	switch {
	case a != 0:
		if disc := b*b - 4*a*d; disc >= 0 {
			s := math.Sqrt(disc)
			q := -0.5 * (b + math.Copysign(s, b))
			r1, r2 := q/a, 0.0
			if q != 0 {
				r2 = d / q
			}
			r1, r2 = min(r1, r2), max(r1, r2)
			for _, r := range [2]float64{r1, r2} {
				if r > cut[nc-1] && r < 1 {
					cut[nc] = r
					nc++
				}
			}
		}
	case b != 0:
		if r := -d / b; r > 0 && r < 1 {
			cut[nc] = r
			nc++
		}
	}
	n := 0
	add := func(t float64) {
		if n == 0 || t > dst[n-1] {
			dst[n] = t
			n++
		}
	}
	for i := range nc {
		lo, hi := cut[i], 1.0
		if i+1 < nc {
			hi = cut[i+1]
		}
		flo, fhi := cubicAt(c, lo), cubicAt(c, hi)
		switch {
		case math.Abs(flo) <= eps:
			add(lo)
		case math.Abs(fhi) <= eps:
			// the next interval, or the end, reports it
		case (flo < 0) != (fhi < 0):
			for range 60 {
				m := 0.5 * (lo + hi)
				fm := cubicAt(c, m)
				if (fm < 0) == (flo < 0) {
					lo, flo = m, fm
				} else {
					hi = m
				}
				if hi-lo < 1e-12 {
					break
				}
			}
			add(lo)
		}
	}
	if f1 := cubicAt(c, 1); math.Abs(f1) <= eps {
		add(1)
	}
	return n
}

// lerpVec returns a + t·(b - a).
func lerpVec(a, b vec, t float64) vec { return a.add(b.sub(a).scale(t)) }

// ccdVT returns the first time in [0, 1] at which the vertex moving from
// p0 to p1 comes within tol of the triangle moving from t0 to t1 at an
// instant the four are coplanar, or at the end of the step; ok is false
// when there is none.
func ccdVT(p0, p1 vec, t0, t1 *[3]vec, tol float64) (at float64, ok bool) {
	a := [4]vec{t0[0], t0[1], t0[2], p0}
	b := [4]vec{t1[0], t1[1], t1[2], p1}
	return ccd(&a, &b, tol, false)
}

// ccdEE is ccdVT for the edge e0 (its ends moving from e0 to e1) and the
// edge f0 (from f0 to f1).
func ccdEE(e0, e1, f0, f1 *[2]vec, tol float64) (at float64, ok bool) {
	a := [4]vec{e0[0], e0[1], f0[0], f0[1]}
	b := [4]vec{e1[0], e1[1], f1[0], f1[1]}
	return ccd(&a, &b, tol, true)
}

// ccd examines the coplanar instants of the nodes moving from a to b
// (a triangle and a vertex, or two edges with edge) and the end.
func ccd(a, b *[4]vec, tol float64, edge bool) (float64, bool) {
	c, scale := coplanarCubic(a, b)
	var ts [6]float64
	n := cubicRoots(&c, 1e-12*scale+1e-300, &ts)
	if n == 0 || ts[n-1] < 1 {
		ts[n] = 1
		n++
	}
	tol2 := tol * tol
	for _, t := range ts[:n] {
		var q [4]vec
		for k := range q {
			q[k] = lerpVec(a[k], b[k], t)
		}
		var d2 float64
		if edge {
			_, _, d2 = closestOnEdgePair(q[0], q[1], q[2], q[3])
		} else {
			_, d2 = closestOnTri(q[3], q[0], q[1], q[2])
		}
		if d2 <= tol2 {
			return t, true
		}
	}
	return 0, false
}

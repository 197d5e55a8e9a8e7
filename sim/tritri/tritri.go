// Package tritri decides exactly whether two triangles in space share a
// point, and counts the pairs of a triangle mesh that do: the oracle the
// cloth's self-collision tests and `haptex bench sim` check the simulation
// against. Checker.Pairs lists a mesh's nearby pairs for other measures
// (sim/tritri/tritritest measures how close the layers come with it).
//
// The test is the classic one for closed triangles: two triangles that are
// not coplanar meet exactly when an edge of one meets the other, and an
// edge meets a triangle when its ends are not strictly on one side of the
// triangle's plane and its line passes through the triangle (three signed
// volumes of one sign); coplanar triangles are compared in a projection
// that keeps their plane's geometry. Every decision is the sign of an
// orientation determinant computed exactly (predicates.go), so the answer
// is exact for the given coordinates, touching included: a triangle that
// touches another at one point intersects it.
//
// The package knows nothing of the cloth: it takes positions and vertex
// indices. It imports only the standard library.
package tritri

// Intersect reports whether the closed triangles p and q share a point. A
// triangle with a coordinate that is not finite intersects everything: a
// broken state is never reported as a clean one.
func Intersect(p, q *[3][3]float64) bool {
	if !finiteTri(p) || !finiteTri(q) {
		return true
	}
	var sq, sp [3]int // sides of q's vertices against p's plane, and of p's against q's
	for i := range 3 {
		sq[i] = Orient3D(p[0], p[1], p[2], q[i])
	}
	if strictlyOneSide(sq) {
		return false
	}
	for i := range 3 {
		sp[i] = Orient3D(q[0], q[1], q[2], p[i])
	}
	if strictlyOneSide(sp) {
		return false
	}
	dp, dq := degenerate(p), degenerate(q)
	switch {
	case dp && dq:
		for i := range 3 {
			for j := range 3 {
				if segSeg3(p[i], p[(i+1)%3], q[j], q[(j+1)%3]) {
					return true
				}
			}
		}
		return false
	case dp:
		return edgesMeet(p, q, &sp)
	case dq:
		return edgesMeet(q, p, &sq)
	case sq == [3]int{}:
		return coplanar(p, q)
	}
	return edgesMeet(p, q, &sp) || edgesMeet(q, p, &sq)
}

// edgesMeet reports whether an edge of a meets the non-degenerate triangle
// b; side holds the sides of a's vertices against b's plane.
func edgesMeet(a, b *[3][3]float64, side *[3]int) bool {
	for i := range 3 {
		j := (i + 1) % 3
		if segTri(a[i], a[j], side[i], side[j], b) {
			return true
		}
	}
	return false
}

func strictlyOneSide(s [3]int) bool {
	return s[0] == s[1] && s[1] == s[2] && s[0] != 0
}

func finiteTri(t *[3][3]float64) bool {
	for _, p := range t {
		for _, x := range p {
			if x-x != 0 {
				return false
			}
		}
	}
	return true
}

// degenerate reports whether t's vertices are collinear (or coincide):
// every axis projection of it has zero area.
func degenerate(t *[3][3]float64) bool {
	for k := range 3 {
		if Orient2D(drop(t[0], k), drop(t[1], k), drop(t[2], k)) != 0 {
			return false
		}
	}
	return true
}

// drop projects p along axis k.
func drop(p [3]float64, k int) [2]float64 {
	switch k {
	case 0:
		return [2]float64{p[1], p[2]}
	case 1:
		return [2]float64{p[2], p[0]}
	}
	return [2]float64{p[0], p[1]}
}

// faithful returns an axis along which the non-degenerate triangle t
// projects to a triangle of non-zero area: the projection maps t's plane
// one to one onto the coordinate plane.
func faithful(t *[3][3]float64) int {
	for k := range 3 {
		if Orient2D(drop(t[0], k), drop(t[1], k), drop(t[2], k)) != 0 {
			return k
		}
	}
	return 2 // degenerate: no caller passes one
}

// segTri reports whether the closed segment ab meets the closed,
// non-degenerate triangle t; sa and sb are the sides of a and b against
// t's plane.
func segTri(a, b [3]float64, sa, sb int, t *[3][3]float64) bool {
	switch {
	case sa*sb > 0:
		return false
	case sa == 0 && sb == 0:
		k := faithful(t)
		return segTri2(drop(a, k), drop(b, k), drop(t[0], k), drop(t[1], k), drop(t[2], k))
	}
	// The segment reaches the plane; its line passes through the closed
	// triangle when the three signed volumes it spans with the edges do
	// not take both signs.
	o0 := Orient3D(a, b, t[0], t[1])
	o1 := Orient3D(a, b, t[1], t[2])
	o2 := Orient3D(a, b, t[2], t[0])
	return (o0 >= 0 && o1 >= 0 && o2 >= 0) || (o0 <= 0 && o1 <= 0 && o2 <= 0)
}

// coplanar reports whether two non-degenerate triangles in one plane
// overlap.
func coplanar(p, q *[3][3]float64) bool {
	k := faithful(p)
	var a, b [3][2]float64
	for i := range 3 {
		a[i], b[i] = drop(p[i], k), drop(q[i], k)
	}
	for i := range 3 {
		if segTri2(a[i], a[(i+1)%3], b[0], b[1], b[2]) {
			return true
		}
	}
	return inTri2(b[0], a[0], a[1], a[2])
}

// segTri2 reports whether the closed segment ab meets the closed,
// non-degenerate plane triangle (t0, t1, t2).
func segTri2(a, b, t0, t1, t2 [2]float64) bool {
	if inTri2(a, t0, t1, t2) || inTri2(b, t0, t1, t2) {
		return true
	}
	return segSeg2(a, b, t0, t1) || segSeg2(a, b, t1, t2) || segSeg2(a, b, t2, t0)
}

// inTri2 reports whether p lies in the closed, non-degenerate triangle
// (t0, t1, t2).
func inTri2(p, t0, t1, t2 [2]float64) bool {
	o0, o1, o2 := Orient2D(t0, t1, p), Orient2D(t1, t2, p), Orient2D(t2, t0, p)
	return (o0 >= 0 && o1 >= 0 && o2 >= 0) || (o0 <= 0 && o1 <= 0 && o2 <= 0)
}

// segSeg2 reports whether the closed plane segments ab and cd meet.
func segSeg2(a, b, c, d [2]float64) bool {
	o1, o2 := Orient2D(a, b, c), Orient2D(a, b, d)
	o3, o4 := Orient2D(c, d, a), Orient2D(c, d, b)
	if o1*o2 < 0 && o3*o4 < 0 {
		return true
	}
	return (o1 == 0 && onSeg2(c, a, b)) || (o2 == 0 && onSeg2(d, a, b)) ||
		(o3 == 0 && onSeg2(a, c, d)) || (o4 == 0 && onSeg2(b, c, d))
}

// onSeg2 reports whether p, known to be collinear with a and b, lies
// between them: within their bounding box, exact for collinear points.
func onSeg2(p, a, b [2]float64) bool {
	return min(a[0], b[0]) <= p[0] && p[0] <= max(a[0], b[0]) &&
		min(a[1], b[1]) <= p[1] && p[1] <= max(a[1], b[1])
}

// segSeg3 reports whether the closed segments ab and cd in space meet
// (the edges of two degenerate triangles).
func segSeg3(a, b, c, d [3]float64) bool {
	if Orient3D(a, b, c, d) != 0 {
		return false // not in one plane
	}
	pts := [4][3]float64{a, b, c, d}
	// A projection that keeps the common plane's geometry: one in which
	// some three of the points do not fall on a line.
	for k := range 3 {
		for _, tr := range [4][3]int{{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}} {
			if Orient2D(drop(pts[tr[0]], k), drop(pts[tr[1]], k), drop(pts[tr[2]], k)) != 0 {
				return segSeg2(drop(a, k), drop(b, k), drop(c, k), drop(d, k))
			}
		}
	}
	// All four on one line: a projection in which the line does not
	// collapse to a point keeps their order along it.
	for k := range 3 {
		pa, pb, pc, pd := drop(a, k), drop(b, k), drop(c, k), drop(d, k)
		if pa != pb || pc != pd || pa != pc {
			return segSeg2(pa, pb, pc, pd)
		}
	}
	return a == c // four copies of one point
}

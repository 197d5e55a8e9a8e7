package sim

import "math"

// Closest points between the cloth's features, the narrow phase of the
// self-collision: a vertex and a triangle, two edges. Both follow Ericson,
// "Real-Time Collision Detection" (2005), §5.1.2 and §5.1.9, and return
// where on each feature the closest points lie, so that a contact's
// force and its Jacobian can be spread over the feature's nodes.

// closestOnTri returns the barycentric weights of the point of the
// triangle (a, b, c) closest to p, and the squared distance. A degenerate
// triangle is handled through its edges.
func closestOnTri(p, a, b, c vec) (w [3]float64, d2 float64) {
	ab, ac, ap := b.sub(a), c.sub(a), p.sub(a)
	d1, d2a := ab.dot(ap), ac.dot(ap)
	if d1 <= 0 && d2a <= 0 {
		return [3]float64{1, 0, 0}, ap.dot(ap)
	}
	bp := p.sub(b)
	d3, d4 := ab.dot(bp), ac.dot(bp)
	if d3 >= 0 && d4 <= d3 {
		return [3]float64{0, 1, 0}, bp.dot(bp)
	}
	vc := d1*d4 - d3*d2a
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		v := d1 / (d1 - d3)
		return bary(p, a, b, c, [3]float64{1 - v, v, 0})
	}
	cp := p.sub(c)
	d5, d6 := ab.dot(cp), ac.dot(cp)
	if d6 >= 0 && d5 <= d6 {
		return [3]float64{0, 0, 1}, cp.dot(cp)
	}
	vb := d5*d2a - d1*d6
	if vb <= 0 && d2a >= 0 && d6 <= 0 {
		u := d2a / (d2a - d6)
		return bary(p, a, b, c, [3]float64{1 - u, 0, u})
	}
	va := d3*d6 - d5*d4
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		u := (d4 - d3) / ((d4 - d3) + (d5 - d6))
		return bary(p, a, b, c, [3]float64{0, 1 - u, u})
	}
	den := va + vb + vc
	if !(den > 0) {
		// Degenerate: the regions above fail to claim p only for a
		// triangle without area; its edges decide.
		return closestOnEdges(p, a, b, c)
	}
	v, u := vb/den, vc/den
	return bary(p, a, b, c, [3]float64{1 - v - u, v, u})
}

// bary returns w and the squared distance from p to the point with
// weights w.
func bary(p, a, b, c vec, w [3]float64) ([3]float64, float64) {
	d := p.sub(a.scale(w[0]).add(b.scale(w[1])).add(c.scale(w[2])))
	return w, d.dot(d)
}

// closestOnEdges is closestOnTri for a triangle with no area: the nearest
// of its three edges.
func closestOnEdges(p, a, b, c vec) ([3]float64, float64) {
	best, bw := math.Inf(1), [3]float64{1, 0, 0}
	for k, e := range [3][2]vec{{a, b}, {b, c}, {c, a}} {
		d := e[1].sub(e[0])
		t := 0.0
		if l := d.dot(d); l > 0 {
			t = min(max(p.sub(e[0]).dot(d)/l, 0), 1)
		}
		q := p.sub(e[0].add(d.scale(t)))
		if d2 := q.dot(q); d2 < best {
			best = d2
			bw = [3]float64{}
			bw[k], bw[(k+1)%3] = 1-t, t
		}
	}
	return bw, best
}

// closestOnEdgePair returns the parameters s, t in [0, 1] of the closest
// points p1 + s·(q1-p1) and p2 + t·(q2-p2) of two segments, and their
// squared distance.
func closestOnEdgePair(p1, q1, p2, q2 vec) (s, t, d2 float64) {
	d1, d2v, r := q1.sub(p1), q2.sub(p2), p1.sub(p2)
	a, e, f := d1.dot(d1), d2v.dot(d2v), d2v.dot(r)
	switch {
	case a <= 0 && e <= 0:
	case a <= 0:
		t = min(max(f/e, 0), 1)
	default:
		c := d1.dot(r)
		if e <= 0 {
			s = min(max(-c/a, 0), 1)
			break
		}
		b := d1.dot(d2v)
		if den := a*e - b*b; den > 0 {
			s = min(max((b*f-c*e)/den, 0), 1)
		}
		t = (b*s + f) / e
		if t < 0 {
			t, s = 0, min(max(-c/a, 0), 1)
		} else if t > 1 {
			t, s = 1, min(max((b-c)/a, 0), 1)
		}
	}
	g := p1.add(d1.scale(s)).sub(p2.add(d2v.scale(t)))
	return s, t, g.dot(g)
}

func (a vec) cross(b vec) vec {
	return vec{a.y*b.z - a.z*b.y, a.z*b.x - a.x*b.z, a.x*b.y - a.y*b.x}
}

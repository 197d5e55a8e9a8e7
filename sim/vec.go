package sim

import "math"

// The package's 3-vector helpers, its one set: sim imports no module
// package, and the hot paths need them inlined. The element and contact
// passes compute in vec values; the rest, and the public types, in
// [3]float64.

// vec is a 3-vector. The element code computes in vecs rather than
// [3]float64: the compiler keeps a struct of three floats in registers but
// an array in memory, and copying arrays cost the forces pass more
// instructions than its arithmetic.
type vec struct{ x, y, z float64 }

func (a vec) add(b vec) vec       { return vec{a.x + b.x, a.y + b.y, a.z + b.z} }
func (a vec) sub(b vec) vec       { return vec{a.x - b.x, a.y - b.y, a.z - b.z} }
func (a vec) scale(s float64) vec { return vec{s * a.x, s * a.y, s * a.z} }
func (a vec) dot(b vec) float64   { return a.x*b.x + a.y*b.y + a.z*b.z }
func (a vec) arr() [3]float64     { return [3]float64{a.x, a.y, a.z} }

// vecAt returns node k's vector in x.
func vecAt(x []float64, k int32) vec {
	i := 3 * int(k)
	p := x[i : i+3 : i+3]
	return vec{p[0], p[1], p[2]}
}

// addVecAt adds a to node k's vector in x.
func addVecAt(x []float64, k int32, a vec) {
	i := 3 * int(k)
	p := x[i : i+3 : i+3]
	p[0] += a.x
	p[1] += a.y
	p[2] += a.z
}

// unitVec returns a/|a| and |a|; a vector too short to have a direction
// gets the zero direction, so it contributes no force.
func unitVec(a vec) (vec, float64) {
	l := math.Sqrt(a.dot(a))
	if l < 1e-12 {
		return vec{}, l
	}
	return a.scale(1 / l), l
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

// unit returns a/|a| and |a| (see unitVec).
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

// tangent removes the n component of a.
func tangent(a, n [3]float64) [3]float64 { return sub3(a, scale3(dot3(a, n), n)) }

func dist2(a, b [3]float64) float64 {
	d0, d1, d2 := a[0]-b[0], a[1]-b[1], a[2]-b[2]
	return d0*d0 + d1*d1 + d2*d2
}

package render

import "math"

// vec3 and mat4 are the small amount of linear algebra the view needs.
// Matrices are column-major, as GL takes them.
type vec3 = [3]float64

type mat4 [16]float64

func add(a, b vec3) vec3           { return vec3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func sub(a, b vec3) vec3           { return vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func scale(a vec3, s float64) vec3 { return vec3{a[0] * s, a[1] * s, a[2] * s} }
func dot(a, b vec3) float64        { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func norm(a vec3) float64          { return math.Sqrt(dot(a, a)) }

func cross(a, b vec3) vec3 {
	return vec3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// normalize returns a/|a|, or the zero vector when |a| is zero or not finite.
func normalize(a vec3) vec3 {
	n := norm(a)
	if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return vec3{}
	}
	return scale(a, 1/n)
}

func finite3(a vec3) bool {
	for _, x := range a {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// mul returns a·b.
func (a *mat4) mul(b *mat4) mat4 {
	var r mat4
	for c := 0; c < 4; c++ {
		for row := 0; row < 4; row++ {
			var s float64
			for k := 0; k < 4; k++ {
				s += a[k*4+row] * b[c*4+k]
			}
			r[c*4+row] = s
		}
	}
	return r
}

// apply returns m·(p, 1).
func (m *mat4) apply(p vec3) [4]float64 {
	var r [4]float64
	for row := 0; row < 4; row++ {
		r[row] = m[row]*p[0] + m[4+row]*p[1] + m[8+row]*p[2] + m[12+row]
	}
	return r
}

// to32 writes m into dst[:16].
func (m *mat4) to32(dst []float32) {
	for i, v := range m {
		dst[i] = float32(v)
	}
}

// normal3 writes the upper-left 3x3 of m's inverse transpose into dst[:9]:
// the matrix that carries normals through m. m's linear part must be
// invertible; a singular one writes zeros.
func (m *mat4) normal3(dst []float32) {
	a, b, c := m[0], m[4], m[8]
	d, e, f := m[1], m[5], m[9]
	g, h, i := m[2], m[6], m[10]
	det := a*(e*i-f*h) - b*(d*i-f*g) + c*(d*h-e*g)
	if det == 0 {
		clear(dst[:9])
		return
	}
	s := 1 / det
	// inverse transpose = cofactor matrix / det, stored column-major.
	cof := [9]float64{
		(e*i - f*h), -(d*i - f*g), (d*h - e*g),
		-(b*i - c*h), (a*i - c*g), -(a*h - b*g),
		(b*f - c*e), -(a*f - c*d), (a*e - b*d),
	}
	// cof is row-major cofactors C[r][c]; the inverse transpose's entry
	// (r, c) is C[r][c]/det, so column c holds C[0][c], C[1][c], C[2][c].
	for col := 0; col < 3; col++ {
		for row := 0; row < 3; row++ {
			dst[col*3+row] = float32(cof[row*3+col] * s)
		}
	}
}

func perspective(fovY, aspect, near, far float64) mat4 {
	f := 1 / math.Tan(fovY/2)
	return mat4{
		0:  f / aspect,
		5:  f,
		10: (far + near) / (near - far),
		11: -1,
		14: 2 * far * near / (near - far),
	}
}

func lookAt(eye, target, up vec3) mat4 {
	f := normalize(sub(target, eye))
	s := normalize(cross(f, up))
	u := cross(s, f)
	return mat4{
		0: s[0], 4: s[1], 8: s[2],
		1: u[0], 5: u[1], 9: u[2],
		2: -f[0], 6: -f[1], 10: -f[2],
		12: -dot(s, eye), 13: -dot(u, eye), 14: dot(f, eye),
		15: 1,
	}
}

// frameTo returns the model matrix that maps the unit +y axis segment
// [0, 1] onto from→to, scaling x and z by radius: the placement of the
// unit cylinder and cone meshes.
func frameTo(from, to vec3, radius float64) (mat4, bool) {
	axis := sub(to, from)
	l := norm(axis)
	if l == 0 || !finite3(axis) || !finite3(from) {
		return mat4{}, false
	}
	y := scale(axis, 1/l)
	ref := vec3{1, 0, 0}
	if math.Abs(y[0]) > 0.9 {
		ref = vec3{0, 0, 1}
	}
	x := normalize(cross(y, ref))
	z := cross(x, y)
	return mat4{
		0: x[0] * radius, 1: x[1] * radius, 2: x[2] * radius,
		4: axis[0], 5: axis[1], 6: axis[2],
		8: z[0] * radius, 9: z[1] * radius, 10: z[2] * radius,
		12: from[0], 13: from[1], 14: from[2], 15: 1,
	}, true
}

// sphereAt returns the model matrix of the unit sphere moved to c and
// scaled to radius r.
func sphereAt(c vec3, r float64) mat4 {
	return mat4{0: r, 5: r, 10: r, 12: c[0], 13: c[1], 14: c[2], 15: 1}
}

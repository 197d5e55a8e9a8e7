package render

import (
	"math"
	"math/rand/v2"
	"testing"
)

// inverse3 inverts a 3x3 row-major matrix by Gauss-Jordan elimination: an
// independent check of mat4.normal3's cofactor formula.
func inverse3(a [3][3]float64) [3][3]float64 {
	var m [3][6]float64
	for i := 0; i < 3; i++ {
		copy(m[i][:3], a[i][:])
		m[i][3+i] = 1
	}
	for c := 0; c < 3; c++ {
		p := c
		for r := c + 1; r < 3; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		m[c], m[p] = m[p], m[c]
		for r := 0; r < 3; r++ {
			if r == c {
				continue
			}
			f := m[r][c] / m[c][c]
			for k := 0; k < 6; k++ {
				m[r][k] -= f * m[c][k]
			}
		}
	}
	var inv [3][3]float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			inv[i][j] = m[i][3+j] / m[i][i]
		}
	}
	return inv
}

func TestNormal3IsInverseTranspose(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 50; trial++ {
		var m mat4
		var a [3][3]float64
		for r := 0; r < 3; r++ {
			for c := 0; c < 3; c++ {
				a[r][c] = rng.Float64()*2 - 1
				m[c*4+r] = a[r][c]
			}
		}
		m[15] = 1
		got := make([]float32, 9)
		m.normal3(got)
		inv := inverse3(a)
		for r := 0; r < 3; r++ {
			for c := 0; c < 3; c++ {
				want := inv[c][r] // transpose
				if g := float64(got[c*3+r]); math.Abs(g-want) > 1e-4*math.Max(1, math.Abs(want)) {
					t.Fatalf("trial %d: (%d,%d) = %g, want %g", trial, r, c, g, want)
				}
			}
		}
	}
}

func TestFrameTo(t *testing.T) {
	from, to := vec3{0.1, 0.2, 0.3}, vec3{-0.2, 0.5, 0.1}
	m, ok := frameTo(from, to, 0.01)
	if !ok {
		t.Fatal("frameTo failed")
	}
	for _, c := range []struct {
		in, want vec3
	}{{vec3{0, 0, 0}, from}, {vec3{0, 1, 0}, to}} {
		p := m.apply(c.in)
		if d := norm(sub(vec3{p[0], p[1], p[2]}, c.want)); d > 1e-12 {
			t.Errorf("%v maps %.3g m from %v", c.in, d, c.want)
		}
	}
	// A unit radial vector becomes a radius-long one perpendicular to the axis.
	p0, p1 := m.apply(vec3{}), m.apply(vec3{1, 0, 0})
	r := vec3{p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]}
	if math.Abs(norm(r)-0.01) > 1e-12 || math.Abs(dot(r, sub(to, from))) > 1e-12 {
		t.Errorf("radial vector %v: length %g, axis component %g", r, norm(r), dot(r, sub(to, from)))
	}
	// Handedness is kept, so counter-clockwise faces stay outward.
	det := m[0]*(m[5]*m[10]-m[9]*m[6]) - m[4]*(m[1]*m[10]-m[9]*m[2]) + m[8]*(m[1]*m[6]-m[5]*m[2])
	if det <= 0 {
		t.Errorf("determinant %g, want > 0", det)
	}
	for _, bad := range [][2]vec3{{from, from}, {vec3{math.NaN(), 0, 0}, to}} {
		if _, ok := frameTo(bad[0], bad[1], 1); ok {
			t.Errorf("frameTo(%v, %v) succeeded", bad[0], bad[1])
		}
	}
}

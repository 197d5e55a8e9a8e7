package render

import (
	"math"
	"testing"
)

// Each mesh is closed (every edge shared by exactly two triangles, in
// opposite directions) and wound counter-clockwise from outside: its signed
// volume is positive and close to the solid's.
func TestMeshesClosedAndOutward(t *testing.T) {
	for _, c := range []struct {
		name   string
		m      mesh
		volume float64
		tol    float64
	}{
		{"sphere", unitSphere(24, 16), 4 * math.Pi / 3, 0.04},
		{"cylinder", unitCylinder(24), math.Pi, 0.02},
		{"cone", unitCone(24), math.Pi / 3, 0.02},
	} {
		pos := func(i uint32) vec3 {
			v := c.m.vertices[6*i:]
			return vec3{float64(v[0]), float64(v[1]), float64(v[2])}
		}
		// Vertices are duplicated along seams and caps, so edges are keyed
		// by position, rounded (sin 2π is not quite 0).
		type key [6]float32
		round := func(x float64) float32 { return float32(math.Round(x*1e5) / 1e5) }
		edges := map[key]int{}
		var vol float64
		for i := 0; i < len(c.m.indices); i += 3 {
			tri := c.m.indices[i : i+3]
			a, b, d := pos(tri[0]), pos(tri[1]), pos(tri[2])
			vol += dot(a, cross(b, d)) / 6
			for k := 0; k < 3; k++ {
				p, q := pos(tri[k]), pos(tri[(k+1)%3])
				kp := [3]float32{round(p[0]), round(p[1]), round(p[2])}
				kq := [3]float32{round(q[0]), round(q[1]), round(q[2])}
				if kp == kq {
					continue // a degenerate edge at a pole
				}
				edges[key{kp[0], kp[1], kp[2], kq[0], kq[1], kq[2]}]++
			}
		}
		for e, n := range edges {
			rev := key{e[3], e[4], e[5], e[0], e[1], e[2]}
			if n != 1 || edges[rev] != 1 {
				t.Errorf("%s: edge %v used %d times, reversed %d times", c.name, e, n, edges[rev])
				break
			}
		}
		if math.Abs(vol-c.volume)/c.volume > c.tol {
			t.Errorf("%s: signed volume %g, want %g", c.name, vol, c.volume)
		}
		// Normals point away from the axis/centre.
		for i := 0; i < len(c.m.vertices)/6; i++ {
			v := c.m.vertices[6*i:]
			p, n := vec3{float64(v[0]), float64(v[1]), float64(v[2])}, vec3{float64(v[3]), float64(v[4]), float64(v[5])}
			if math.Abs(norm(n)-1) > 1e-6 {
				t.Fatalf("%s: normal %v not unit", c.name, n)
			}
			out := p
			if c.name != "sphere" {
				out = sub(p, vec3{0, 0.5, 0})
			}
			if dot(out, n) < -1e-9 {
				t.Fatalf("%s: normal %v at %v points inwards", c.name, n, p)
			}
		}
	}
}

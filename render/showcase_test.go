package render

import (
	"math"

	"github.com/haptex/haptex/sim"
)

// The showcase scene built for the tests (sim.DefaultConfig): a 0.30 m
// square of cloth hanging from the rod at y = 0.30 with a gentle sag, the
// sim's solver standing in for nothing here; both fingers pinching it at
// about (0.05, 0.10).

const (
	clothW = 0.30
	clothH = 0.30
)

// hangingCloth returns an n x n node mesh: node (i, j) has rest
// coordinates u = i/(n-1)·W along +x, v = j/(n-1)·H upwards (row n-1 is
// clamped to the rod), triangles counter-clockwise from +z, and
// area-weighted vertex normals.
func hangingCloth(n int) (*sim.Topology, *sim.Snapshot) {
	t := &sim.Topology{Nodes: n * n, WidthU: clothW, HeightV: clothH, UV: make([]float32, 2*n*n)}
	s := sim.NewSnapshot(n * n)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			k := j*n + i
			u := clothW * float64(i) / float64(n-1)
			v := clothH * float64(j) / float64(n-1)
			t.UV[2*k], t.UV[2*k+1] = float32(u), float32(v)
			p := clothPoint(u, v)
			s.Pos[3*k], s.Pos[3*k+1], s.Pos[3*k+2] = float32(p[0]), float32(p[1]), float32(p[2])
		}
	}
	for j := 0; j < n-1; j++ {
		for i := 0; i < n-1; i++ {
			a := uint32(j*n + i)
			b, c, d := a+1, a+uint32(n)+1, a+uint32(n)
			t.Triangles = append(t.Triangles, a, b, c, a, c, d)
		}
	}
	smoothNormals(t, &s)
	return t, &s
}

// clothPoint is the sagging shape: the rod holds the top edge straight;
// lower down the cloth narrows a little and billows towards +z.
func clothPoint(u, v float64) vec3 {
	s := 1 - v/clothH // 0 at the rod, 1 at the bottom edge
	x := (u - clothW/2) * (1 - 0.03*s*s)
	y := v - 0.002*s
	z := 0.015*s*s*math.Sin(math.Pi*u/clothW) + 0.004*s*math.Sin(3*math.Pi*u/clothW)
	return vec3{x, y, z}
}

func smoothNormals(t *sim.Topology, s *sim.Snapshot) {
	acc := make([]vec3, t.Nodes)
	p := func(k uint32) vec3 {
		return vec3{float64(s.Pos[3*k]), float64(s.Pos[3*k+1]), float64(s.Pos[3*k+2])}
	}
	for i := 0; i < len(t.Triangles); i += 3 {
		a, b, c := t.Triangles[i], t.Triangles[i+1], t.Triangles[i+2]
		n := cross(sub(p(b), p(a)), sub(p(c), p(a))) // length = 2 x area
		for _, k := range []uint32{a, b, c} {
			acc[k] = add(acc[k], n)
		}
	}
	for k, n := range acc {
		n = normalize(n)
		s.Normal[3*k], s.Normal[3*k+1], s.Normal[3*k+2] = float32(n[0]), float32(n[1]), float32(n[2])
	}
}

// pinchU, pinchV: where the scene's pinch happens, in fabric coordinates
// (x = 0.05, y = 0.10 in the world).
const (
	pinchU = 0.05 + clothW/2
	pinchV = 0.10
)

// showcaseFrame is the pinch moment of the handling script: both pads
// squeezing the cloth at (pinchU, pinchV), pulling a little, both in
// contact, and some pins active.
func showcaseFrame(n int) *Frame {
	t, s := hangingCloth(n)
	f := &Frame{Topology: t, Snapshot: s}
	c := clothPoint(pinchU, pinchV)
	r := 0.008
	f.Fingers.Fingers[sim.Thumb] = sim.Finger{
		Pos: vec3{c[0], c[1], c[2] - r - 0.0005}, Normal: vec3{0, 0, 1},
		Force: vec3{0.05, 0.15, -0.8}, Valid: true,
	}
	f.Fingers.Fingers[sim.IndexFinger] = sim.Finger{
		Pos: vec3{c[0], c[1], c[2] + r + 0.0005}, Normal: vec3{0, 0, -1},
		Force: vec3{0.05, 0.15, 0.8}, Valid: true,
	}
	for i := 0; i < sim.NumFingers; i++ {
		f.Sim.Contact[i] = sim.ContactPatch{
			InContact: true, U: pinchU, V: pinchV, Orientation: math.Pi / 2,
			NormalForce: 0.8, Area: math.Pi * 0.005 * 0.005,
		}
	}
	for pin := 0; pin < PinsPerArray; pin++ {
		f.A40[sim.IndexFinger][pin] = 20 + 5*float64(pin)
		f.A320[sim.IndexFinger][pin] = 2 + float64(pin)
	}
	f.Overlay.Fabric = "test linen"
	f.Overlay.Loops[0] = LoopStats{Name: "haptics", RateHz: 1000, LatenessP99: 45000}
	f.Overlay.Loops[1] = LoopStats{Name: "sim", RateHz: 200, LatenessP99: 1200000}
	f.Overlay.Loops[2] = LoopStats{Name: "tactile", RateHz: 40, LatenessP99: 300000}
	return f
}

package render

import "math"

// mesh is an indexed triangle list with interleaved position and normal
// (6 floats per vertex), counter-clockwise seen from outside.
type mesh struct {
	vertices []float32
	indices  []uint32
}

func (m *mesh) vertex(p, n vec3) uint32 {
	i := uint32(len(m.vertices) / 6)
	m.vertices = append(m.vertices, float32(p[0]), float32(p[1]), float32(p[2]), float32(n[0]), float32(n[1]), float32(n[2]))
	return i
}

func (m *mesh) tri(a, b, c uint32) { m.indices = append(m.indices, a, b, c) }

// unitSphere is the sphere of radius 1 about the origin, slices around y,
// stacks from pole to pole.
func unitSphere(slices, stacks int) mesh {
	var m mesh
	for j := 0; j <= stacks; j++ {
		th := math.Pi * float64(j) / float64(stacks)
		for i := 0; i <= slices; i++ {
			ph := 2 * math.Pi * float64(i) / float64(slices)
			p := vec3{math.Sin(th) * math.Sin(ph), math.Cos(th), math.Sin(th) * math.Cos(ph)}
			m.vertex(p, p)
		}
	}
	row := uint32(slices + 1)
	for j := 0; j < stacks; j++ {
		for i := 0; i < slices; i++ {
			a := uint32(j)*row + uint32(i)
			b, c, d := a+row, a+row+1, a+1
			if j > 0 {
				m.tri(a, b, d)
			}
			if j < stacks-1 {
				m.tri(d, b, c)
			}
		}
	}
	return m
}

// unitCylinder is the closed cylinder of radius 1 along +y from y = 0 to 1.
func unitCylinder(slices int) mesh {
	var m mesh
	ring := func(i int) (x, z float64) {
		a := 2 * math.Pi * float64(i) / float64(slices)
		return math.Sin(a), math.Cos(a)
	}
	for i := 0; i < slices; i++ {
		x0, z0 := ring(i)
		x1, z1 := ring(i + 1)
		a := m.vertex(vec3{x0, 0, z0}, vec3{x0, 0, z0})
		b := m.vertex(vec3{x1, 0, z1}, vec3{x1, 0, z1})
		c := m.vertex(vec3{x1, 1, z1}, vec3{x1, 0, z1})
		d := m.vertex(vec3{x0, 1, z0}, vec3{x0, 0, z0})
		m.tri(a, b, c)
		m.tri(a, c, d)
	}
	m.cap(slices, 0, vec3{0, -1, 0})
	m.cap(slices, 1, vec3{0, 1, 0})
	return m
}

// unitCone is the closed cone of base radius 1 at y = 0 and apex (0, 1, 0).
func unitCone(slices int) mesh {
	var m mesh
	// The side normal of a cone of height 1 and radius 1 leans 45° up.
	k := 1 / math.Sqrt2
	for i := 0; i < slices; i++ {
		a0 := 2 * math.Pi * float64(i) / float64(slices)
		a1 := 2 * math.Pi * float64(i+1) / float64(slices)
		am := (a0 + a1) / 2
		b0 := m.vertex(vec3{math.Sin(a0), 0, math.Cos(a0)}, vec3{k * math.Sin(a0), k, k * math.Cos(a0)})
		b1 := m.vertex(vec3{math.Sin(a1), 0, math.Cos(a1)}, vec3{k * math.Sin(a1), k, k * math.Cos(a1)})
		tip := m.vertex(vec3{0, 1, 0}, vec3{k * math.Sin(am), k, k * math.Cos(am)})
		m.tri(b0, b1, tip)
	}
	m.cap(slices, 0, vec3{0, -1, 0})
	return m
}

// cap closes the unit circle at height y with a fan facing n (±y).
func (m *mesh) cap(slices int, y float64, n vec3) {
	c := m.vertex(vec3{0, y, 0}, n)
	first := uint32(len(m.vertices) / 6)
	for i := 0; i <= slices; i++ {
		a := 2 * math.Pi * float64(i) / float64(slices)
		m.vertex(vec3{math.Sin(a), y, math.Cos(a)}, n)
	}
	for i := 0; i < slices; i++ {
		a, b := first+uint32(i), first+uint32(i+1)
		if n[1] > 0 {
			m.tri(c, a, b)
		} else {
			m.tri(c, b, a)
		}
	}
}

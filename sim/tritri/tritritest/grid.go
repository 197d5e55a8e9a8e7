package tritritest

// FoldedGrid is a mesh of two layers for tests: an n × n grid of spacing
// h folded along its middle row, the upper half lying gap above the lower
// one; the fold's crease is the middle row, bent through 180° in one
// element row. It returns the positions (3 per node), the rest
// coordinates (2 per node) and the triangles (3 node indices each).
func FoldedGrid(n int, h, gap float64) (pos, uv []float64, tris []uint32) {
	mid := n / 2
	for j := range n {
		for i := range n {
			x, y, z := float64(i)*h, float64(j)*h, 0.0
			if j > mid {
				y, z = float64(2*mid-j)*h, gap
			}
			pos = append(pos, x, y, z)
			uv = append(uv, float64(i)*h, float64(j)*h)
		}
	}
	id := func(i, j int) uint32 { return uint32(j*n + i) }
	for j := range n - 1 {
		for i := range n - 1 {
			tris = append(tris, id(i, j), id(i+1, j), id(i+1, j+1), id(i, j), id(i+1, j+1), id(i, j+1))
		}
	}
	return pos, uv, tris
}

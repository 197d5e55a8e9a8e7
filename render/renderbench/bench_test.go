package renderbench

import (
	"testing"

	"github.com/haptex/haptex/render"
	"github.com/haptex/haptex/sim"
)

// clothFrame is an n x n square of cloth, 0.30 m a side, hanging flat in
// z = 0 from the rod at y = 0.30, with both pads pinching it.
func clothFrame(n int) *render.Frame {
	const size = 0.30
	t := &sim.Topology{Nodes: n * n, WidthU: size, HeightV: size, UV: make([]float32, 2*n*n)}
	s := sim.NewSnapshot(n * n)
	for j := range n {
		for i := range n {
			k := j*n + i
			u, v := size*float64(i)/float64(n-1), size*float64(j)/float64(n-1)
			t.UV[2*k], t.UV[2*k+1] = float32(u), float32(v)
			s.Pos[3*k], s.Pos[3*k+1] = float32(u-size/2), float32(v)
			s.Normal[3*k+2] = 1
		}
	}
	for j := range n - 1 {
		for i := range n - 1 {
			a := uint32(j*n + i)
			t.Triangles = append(t.Triangles, a, a+1, a+uint32(n)+1, a, a+uint32(n)+1, a+uint32(n))
		}
	}
	f := &render.Frame{Topology: t, Snapshot: &s}
	for i, side := range [sim.NumFingers]float64{-1, 1} {
		f.Fingers.Fingers[i] = sim.Finger{
			Pos: [3]float64{0.05, 0.10, side * 0.0085}, Normal: [3]float64{0, 0, -side},
			Force: [3]float64{0.05, 0.15, side * 0.8}, Valid: true,
		}
	}
	return f
}

func TestBench(t *testing.T) {
	if err := render.Probe(); err != nil {
		t.Skipf("no display, GL test skipped (run under scripts/with-display): %v", err)
	}
	r, err := Bench(render.Config{Width: 320, Height: 180, NormalPriority: true}, clothFrame(16), 20)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", r)
	p := r.FrameMs
	if r.Bench != "render" || r.Frames != 20 || r.Nodes != 256 || r.Renderer == "" || r.FPS <= 0 ||
		!(0 < p.P50 && p.P50 <= p.P99 && p.P99 <= p.P999 && p.P999 <= p.Max) || r.Width != 320 || r.Samples < 1 {
		t.Errorf("implausible result %+v", r)
	}
	// Frames are timed back to back, so the rate and the mean frame time agree.
	if mean := 1000 / r.FPS; mean < 0.5*p.P50 {
		t.Errorf("%.1f fps, but the median frame takes %.2f ms", r.FPS, p.P50)
	}
	if _, err := Bench(render.Config{}, clothFrame(8), 0); err == nil {
		t.Error("Bench of 0 frames succeeded")
	}
}

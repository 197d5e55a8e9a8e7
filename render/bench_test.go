package render

import (
	"fmt"
	"testing"
	"time"
)

// cpuTime is the CPU time of the whole process, llvmpipe's rasteriser
// threads included: on a shared machine it tracks the work per frame
// better than the wall clock does.
func cpuTime() time.Duration {
	d, _ := processCPU()
	return d
}

// BenchmarkShowcase measures frames/s of the showcase scene (the pinch
// moment, both fingers in contact) at 1280x720 under whatever GL the
// display offers (llvmpipe under Xvfb), for a ladder of cloth sizes, with
// and without multisampling. Every frame uploads the cloth's shape, as the
// window does. cpu-ms/frame is the process CPU time per frame.
func BenchmarkShowcase(b *testing.B) {
	for _, n := range []int{16, 32, 64} {
		for _, samples := range []int{1, 4} {
			b.Run(fmt.Sprintf("n=%d/samples=%d", n, samples), func(b *testing.B) {
				o := newTestOffscreen(b, Config{Width: 1280, Height: 720, Samples: samples, NormalPriority: true})
				f := showcaseFrame(n)
				cam := DefaultCamera()
				req := newRequest(func() { o.drawOnly(f, cam) })
				o.th.call(req) // the first frame uploads the topology
				b.ReportAllocs()
				b.ResetTimer()
				start, cpu := time.Now(), cpuTime()
				for i := 0; i < b.N; i++ {
					o.th.call(req)
				}
				wall := time.Since(start)
				b.ReportMetric(float64(b.N)/wall.Seconds(), "frames/s")
				b.ReportMetric((cpuTime()-cpu).Seconds()*1000/float64(b.N), "cpu-ms/frame")
			})
		}
	}
}

func TestBench(t *testing.T) {
	needDisplay(t)
	r, err := Bench(Config{Width: 320, Height: 180, NormalPriority: true}, showcaseFrame(16), 20)
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
	if _, err := Bench(Config{}, showcaseFrame(8), 0); err == nil {
		t.Error("Bench of 0 frames succeeded")
	}
}

func TestPercentiles(t *testing.T) {
	x := make([]float64, 1000)
	for i := range x {
		x[i] = float64(1000 - i) // 1..1000, reversed
	}
	if p := percentiles(x); p != (Percentiles{P50: 500, P99: 990, P999: 999, Max: 1000}) {
		t.Errorf("percentiles %+v", p)
	}
}

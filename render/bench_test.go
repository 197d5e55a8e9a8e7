package render

import (
	"fmt"
	"testing"
	"time"

	"github.com/haptex/haptex/internal/latency"
)

// cpuTime is the CPU time of the whole process, llvmpipe's rasteriser
// threads included: on a shared machine it tracks the work per frame
// better than the wall clock does.
func cpuTime() time.Duration {
	d, _ := latency.ProcessCPU()
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
				cam := StandCamera()
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

package tactilebench

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/haptex/haptex/tactile"
)

func TestBench(t *testing.T) {
	// Bench builds its twill at 512²; the test takes the same fabric on a
	// 256² grid, which builds four times faster.
	p := Twill()
	p.GridN = 256
	s, err := tactile.NewSurface(p, 7)
	if err != nil {
		t.Fatal(err)
	}
	r, err := bench(s, 100)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"frame_us":{"p50":`, `"p99":`, `"p999":`, `"max":`, `"allocs_per_frame":`, `"bench":"tactile"`, `"pins":48`, `"grid_n":256`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("bench JSON lacks %s: %s", key, b)
		}
	}
	f := r.FrameUs
	if !(f.P50 > 0 && f.P50 <= f.P99 && f.P99 <= f.P999 && f.P999 <= f.Max) {
		t.Errorf("frame percentiles out of order: %+v", f)
	}
	if c := r.FrameCPUUs; c != nil && !(c.P50 > 0 && c.P50 <= c.P99 && c.P99 <= c.Max) {
		t.Errorf("frame CPU percentiles out of order: %+v", c)
	}
	if r.AllocsPerFrame != 0 || r.SynthAllocs != 0 {
		t.Errorf("allocations per frame: step %v, synth %v; want 0", r.AllocsPerFrame, r.SynthAllocs)
	}
	t.Logf("%s", b)
	if _, err := Bench(10); err == nil {
		t.Error("Bench(10) accepted")
	}
}

func BenchmarkStep(b *testing.B) {
	for _, n := range []int{256, 512} {
		b.Run("grid="+strconv.Itoa(n), func(b *testing.B) {
			p := Twill()
			p.GridN = n
			s, err := tactile.NewSurface(p, 1)
			if err != nil {
				b.Fatal(err)
			}
			r, _ := tactile.NewRenderer(s, tactile.Config{})
			var in [tactile.NumFingers]tactile.Contact
			var out tactile.Frame
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				t := float64(i) * 0.025
				stroke(&in, t)
				r.Step(time.Duration(i)*25*time.Millisecond, &in, &out)
				i++
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/frame")
		})
	}
}

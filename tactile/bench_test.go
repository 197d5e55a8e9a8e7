package tactile

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestBench(t *testing.T) {
	// Bench builds the 512² bench surface; the test uses the cached
	// twill, the same fabric on a 256² grid.
	r, err := bench(surface(t, "twill"), 100)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"frame_us":{"p50":`, `"p99":`, `"p999":`, `"max":`, `"allocs_per_frame":`, `"bench":"tactile"`, `"pins":48`} {
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

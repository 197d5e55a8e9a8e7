package link

import (
	"testing"
	"time"

	"github.com/haptex/haptex/internal/rt"
)

// PercentilesOf reports microseconds, each percentile within one log
// bucket (3.1 %) above the true value and the maximum exactly.
func TestPercentilesOf(t *testing.T) {
	var h rt.Histogram
	for i := 1; i <= 1000; i++ {
		h.Record(time.Duration(i) * time.Microsecond)
	}
	p := PercentilesOf(&h)
	within := func(got, want float64) bool { return got >= want && got <= want*1.032 }
	if p.Count != 1000 || !within(p.P50, 500) || !within(p.P99, 990) || !within(p.P999, 999) || p.Max != 1000 {
		t.Errorf("%+v", p)
	}
	h.Record(time.Second)
	if p := PercentilesOf(&h); p.Max != 1e6 || !within(p.P50, 501) {
		t.Errorf("with an outlier: %+v", p)
	}
}

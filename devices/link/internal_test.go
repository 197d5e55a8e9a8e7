package link

import (
	"sync"
	"testing"
	"time"
)

// TestTripleNoTornValues publishes a million values from one goroutine and
// reads them from another: the reader never sees a torn value nor goes
// backwards.
func TestTripleNoTornValues(t *testing.T) {
	type v struct{ a, b, c uint64 }
	var tb triple[v]
	tb.init()
	const n = 1_000_000
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := uint64(1); i <= n; i++ {
			s := tb.slot()
			s.a, s.b, s.c = i, i*3, i^0x5555
			tb.publish()
		}
	}()
	var last uint64
	for last < n {
		s, fresh := tb.load()
		if s.a != 0 && (s.b != s.a*3 || s.c != s.a^0x5555) {
			t.Fatalf("torn value %+v", *s)
		}
		if s.a < last || fresh && s.a == last && last != 0 {
			t.Fatalf("went from %d to %d (fresh %v)", last, s.a, fresh)
		}
		last = s.a
	}
	wg.Wait()
}

func TestHistogramPercentiles(t *testing.T) {
	var h latencyHist
	for i := 1; i <= 1000; i++ {
		h.add(time.Duration(i) * time.Microsecond)
	}
	p := h.percentiles()
	// Percentiles are upper edges of 5 µs buckets: 500 µs lies in [500, 505).
	if p.Count != 1000 || p.P50 != 505 || p.P99 != 995 || p.P999 != 1000 || p.Max != 1000 {
		t.Errorf("%+v", p)
	}
	h.add(time.Second)
	if p := h.percentiles(); p.Max != 1e6 || p.P50 != 505 {
		t.Errorf("with an outlier: %+v", p)
	}
}

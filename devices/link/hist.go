package link

import (
	"sync/atomic"
	"time"
)

// latencyHist is a fixed-bucket histogram of durations: 5 µs buckets up to
// 20 ms and one overflow bucket. One goroutine adds, any goroutine reads.
type latencyHist struct {
	buckets [histBuckets + 1]atomic.Uint64
	count   atomic.Uint64
	max     atomic.Int64
}

const (
	histStep    = 5 * time.Microsecond
	histBuckets = int(20 * time.Millisecond / histStep)
)

func (h *latencyHist) add(d time.Duration) {
	i := int(d / histStep)
	if i < 0 {
		i = 0
	}
	if i > histBuckets {
		i = histBuckets
	}
	h.buckets[i].Add(1)
	h.count.Add(1)
	if int64(d) > h.max.Load() {
		h.max.Store(int64(d))
	}
}

// Percentiles summarises a latency distribution in microseconds. Each
// percentile is the upper edge of its 5 µs bucket.
type Percentiles struct {
	Count uint64  `json:"count"`
	P50   float64 `json:"p50"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p999"`
	Max   float64 `json:"max"`
}

func (h *latencyHist) percentiles() Percentiles {
	var counts [histBuckets + 1]uint64
	var n uint64
	for i := range counts {
		counts[i] = h.buckets[i].Load()
		n += counts[i]
	}
	p := Percentiles{Count: n, Max: float64(h.max.Load()) / 1e3}
	if n == 0 {
		return p
	}
	at := func(q float64) float64 {
		target := uint64(q*float64(n) + 0.5)
		if target < 1 {
			target = 1
		}
		var cum uint64
		for i, c := range counts {
			cum += c
			if cum >= target {
				if i == histBuckets {
					return p.Max
				}
				return float64(time.Duration(i+1)*histStep) / 1e3
			}
		}
		return p.Max
	}
	p.P50, p.P99, p.P999 = at(0.50), at(0.99), at(0.999)
	return p
}

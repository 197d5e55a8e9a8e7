package link

import (
	"time"

	"github.com/haptex/haptex/internal/rt"
)

// Percentiles summarises a latency distribution in microseconds.
type Percentiles struct {
	Count uint64  `json:"count"`
	P50   float64 `json:"p50"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p999"`
	Max   float64 `json:"max"`
}

// PercentilesOf summarises h in microseconds. Each percentile is the upper
// edge of its histogram bucket (at most 3.1 % above the true value).
func PercentilesOf(h *rt.Histogram) Percentiles {
	s := h.Summary()
	us := func(d time.Duration) float64 { return float64(d) / 1e3 }
	return Percentiles{Count: s.N, P50: us(s.P50), P99: us(s.P99), P999: us(s.P999), Max: us(s.Max)}
}

package link

import (
	"time"

	"github.com/haptex/haptex/internal/latency"
	"github.com/haptex/haptex/internal/rt"
)

// Latency summarises a latency histogram: how many samples it holds and
// their percentiles in microseconds.
type Latency struct {
	Count uint64 `json:"count"`
	latency.Percentiles
}

// LatencyOf summarises h in microseconds. Each percentile is the upper
// edge of its histogram bucket (at most 3.1 % above the true value).
func LatencyOf(h *rt.Histogram) Latency {
	s := h.Summary()
	return Latency{Count: s.N, Percentiles: latency.Durations(time.Microsecond, s.P50, s.P99, s.P999, s.Max)}
}

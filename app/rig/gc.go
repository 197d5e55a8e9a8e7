package rig

import (
	"runtime/metrics"
	"time"
)

// GCStats is what the garbage collector did during a run. The loops
// allocate nothing, so cycles come only from setup and cold paths; each
// stop-the-world pause can delay a loop's wake-up.
type GCStats struct {
	Cycles     uint64  `json:"cycles"`
	PauseMaxUs float64 `json:"pause_max_us"` // upper bound of the longest stop-the-world pause [µs]
}

type gcSample struct {
	cycles uint64
	pauses []uint64 // bucket counts of /sched/pauses/total/gc:seconds
	bounds []float64
}

var gcMetrics = []string{"/gc/cycles/total:gc-cycles", "/sched/pauses/total/gc:seconds"}

func readGC() gcSample {
	s := make([]metrics.Sample, len(gcMetrics))
	for i, n := range gcMetrics {
		s[i].Name = n
	}
	metrics.Read(s)
	var g gcSample
	if s[0].Value.Kind() == metrics.KindUint64 {
		g.cycles = s[0].Value.Uint64()
	}
	if s[1].Value.Kind() == metrics.KindFloat64Histogram {
		h := s[1].Value.Float64Histogram()
		g.pauses = append([]uint64(nil), h.Counts...)
		g.bounds = h.Buckets
	}
	return g
}

// since returns the GC activity between an earlier sample and this one.
func (g gcSample) since(prev gcSample) *GCStats {
	st := &GCStats{Cycles: g.cycles - prev.cycles}
	for i := len(g.pauses) - 1; i >= 0; i-- {
		before := uint64(0)
		if i < len(prev.pauses) {
			before = prev.pauses[i]
		}
		if g.pauses[i] > before {
			st.PauseMaxUs = float64(time.Duration(g.bounds[i+1]*1e9)) / 1e3
			break
		}
	}
	return st
}

// Package latency is the timing summary every haptex bench reports, and the
// CPU clocks the benches read beside the wall clock.
//
// A Percentiles value carries no unit: the JSON key that holds it names one
// (tick_us, step_ms, lateness_us), and the caller converts its samples to
// that unit before summarising them. Of summarises a sample; Durations
// converts percentiles already taken, such as a histogram's.
package latency

import (
	"math"
	"slices"
	"time"
)

// Percentiles summarises a timing distribution in the unit its JSON key
// names: the median, the 99th and 99.9th percentiles and the maximum.
type Percentiles struct {
	P50  float64 `json:"p50"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
}

// Of returns the nearest-rank percentiles of xs: for each q, the smallest
// sample that at least the share q of the samples do not exceed. It sorts
// xs in place and allocates nothing. An empty sample gives the zero value.
func Of(xs []float64) Percentiles {
	if len(xs) == 0 {
		return Percentiles{}
	}
	slices.Sort(xs)
	return Percentiles{P50: rank(xs, 0.50), P99: rank(xs, 0.99), P999: rank(xs, 0.999), Max: xs[len(xs)-1]}
}

// rank returns the q-quantile of sorted, non-empty xs by nearest rank.
func rank(sorted []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// Durations expresses percentiles measured as durations in unit
// (time.Microsecond for a JSON key ending in _us).
func Durations(unit, p50, p99, p999, max time.Duration) Percentiles {
	f := func(d time.Duration) float64 { return float64(d) / float64(unit) }
	return Percentiles{P50: f(p50), P99: f(p99), P999: f(p999), Max: f(max)}
}

package rt

import (
	"math/bits"
	"sync/atomic"
	"time"
)

// Histogram is a fixed-size log-bucket histogram of durations: 32 buckets
// per power of two from 1 ns to about 18 minutes, so a reported percentile
// is within 1/32 (3.1 %) above the true value. Recording is one atomic add
// and allocates nothing; any goroutine may read while one records.
//
// The zero value is ready to use.
type Histogram struct {
	counts [numBuckets]atomic.Uint64
	n      atomic.Uint64
	max    atomic.Int64
}

const (
	subBits    = 5 // 32 sub-buckets per octave
	sub        = 1 << subBits
	octaves    = 40 // 2^40 ns ≈ 18 min
	numBuckets = (octaves + 1) * sub
)

// bucket maps a duration in ns to its bucket. Values below 32 ns get one
// bucket each; above, each octave [2^k, 2^(k+1)) is cut in 32 equal parts.
func bucket(v uint64) int {
	if v < sub {
		return int(v)
	}
	k := bits.Len64(v) - 1 // 2^k <= v
	if k >= octaves+subBits {
		return numBuckets - 1
	}
	shift := k - subBits
	return (shift+1)*sub + int(v>>uint(shift)) - sub
}

// upper returns the largest value that falls in bucket i.
func upper(i int) uint64 {
	if i < sub {
		return uint64(i)
	}
	shift := i/sub - 1
	m := uint64(i%sub + sub)
	return (m+1)<<uint(shift) - 1
}

// Record adds one duration. Negative durations count as zero.
func (h *Histogram) Record(d time.Duration) {
	v := uint64(0)
	if d > 0 {
		v = uint64(d)
	}
	h.counts[bucket(v)].Add(1)
	h.n.Add(1)
	for {
		m := h.max.Load()
		if int64(v) <= m || h.max.CompareAndSwap(m, int64(v)) {
			break
		}
	}
}

// Count returns the number of recorded durations.
func (h *Histogram) Count() uint64 { return h.n.Load() }

// Max returns the largest recorded duration, exactly.
func (h *Histogram) Max() time.Duration { return time.Duration(h.max.Load()) }

// Quantile returns the q-quantile (0 <= q <= 1): the upper edge of the
// bucket holding it, never more than the exact maximum. It is 0 for an empty
// histogram.
func (h *Histogram) Quantile(q float64) time.Duration {
	n := h.n.Load()
	if n == 0 {
		return 0
	}
	rank := uint64(q*float64(n) + 0.5)
	if rank < 1 {
		rank = 1
	}
	if rank > n {
		rank = n
	}
	var c uint64
	for i := range h.counts {
		c += h.counts[i].Load()
		if c >= rank {
			v := time.Duration(upper(i))
			if m := h.Max(); v > m {
				v = m
			}
			return v
		}
	}
	return h.Max()
}

// Summary is a histogram's percentiles.
type Summary struct {
	N    uint64
	P50  time.Duration
	P99  time.Duration
	P999 time.Duration
	Max  time.Duration
}

// Summary returns the p50, p99, p99.9 and maximum.
func (h *Histogram) Summary() Summary {
	return Summary{N: h.Count(), P50: h.Quantile(0.50), P99: h.Quantile(0.99), P999: h.Quantile(0.999), Max: h.Max()}
}

// Reset clears the histogram. It must not race with Record.
func (h *Histogram) Reset() {
	for i := range h.counts {
		h.counts[i].Store(0)
	}
	h.n.Store(0)
	h.max.Store(0)
}

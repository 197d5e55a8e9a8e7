package rt

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestBucketEdges(t *testing.T) {
	// Every value lies in its bucket: upper(bucket(v)-1) < v <= upper(bucket(v)),
	// and buckets are monotone in v.
	prev := 0
	for _, v := range []uint64{0, 1, 31, 32, 33, 63, 64, 65, 100, 1000, 999_999, 1_000_000, 1 << 39, 1<<40 - 1} {
		b := bucket(v)
		if b < prev {
			t.Fatalf("bucket(%d) = %d < previous %d", v, b, prev)
		}
		prev = b
		if v > upper(b) || (b > 0 && v <= upper(b-1)) {
			t.Fatalf("v=%d in bucket %d with range (%d, %d]", v, b, upper(b-1), upper(b))
		}
	}
}

// Quantiles from the histogram match exact order statistics within the
// bucket resolution (1/32 relative, upward).
func TestQuantileAgainstSorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var h Histogram
	vals := make([]time.Duration, 100_000)
	for i := range vals {
		// log-normal-ish lateness: 20 µs median with a long tail
		v := time.Duration(20_000 * (1 + rng.ExpFloat64()*rng.ExpFloat64()*3))
		vals[i] = v
		h.Record(v)
	}
	slices.Sort(vals)
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999} {
		exact := vals[int(q*float64(len(vals))+0.5)-1]
		got := h.Quantile(q)
		if got < exact || float64(got) > float64(exact)*(1+1.0/32)+1 {
			t.Errorf("q=%v: got %v, exact %v", q, got, exact)
		}
	}
	if h.Max() != vals[len(vals)-1] {
		t.Errorf("max %v, want %v", h.Max(), vals[len(vals)-1])
	}
}

func TestRecordAllocs(t *testing.T) {
	var h Histogram
	if a := testing.AllocsPerRun(1000, func() { h.Record(12345) }); a != 0 {
		t.Fatalf("Record allocates %v", a)
	}
}

//go:build linux

package rt

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The clock's origin is a CLOCK_MONOTONIC reading, as clock_gettime gives
// it to any process, and its wall time the time of day at that reading.
func TestClockOriginIsClockMonotonic(t *testing.T) {
	read := func() int64 {
		var ts unix.Timespec
		if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
			t.Fatal(err)
		}
		return ts.Nano()
	}
	for range 100 {
		m0, w0 := read(), time.Now()
		c := NewClock()
		m1, w1 := read(), time.Now()
		// The pairing of the runtime's clock with CLOCK_MONOTONIC is good
		// to a microsecond; allow for a preemption between the readings.
		const slack = int64(time.Millisecond)
		if o := c.Origin(); o < m0-slack || o > m1+slack {
			t.Fatalf("origin %d outside the CLOCK_MONOTONIC readings around it [%d, %d]", o, m0, m1)
		}
		if w := c.Wall(); w.Before(w0) || w.After(w1) {
			t.Fatalf("wall time at the origin %v outside [%v, %v]", w, w0, w1)
		}
	}
}

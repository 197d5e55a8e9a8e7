package rt

import "time"

// Clock is the monotonic time of one run: every loop of the run measures
// time from the same origin, so a FingerState stamped by the haptics loop
// and a step of the simulation loop share a time axis.
type Clock struct {
	origin int64 // monotonic ns at the start of the run
}

// NewClock returns a clock whose zero is now.
func NewClock() *Clock { return &Clock{origin: monoNow()} }

// Now returns the time since the clock's origin.
func (c *Clock) Now() time.Duration { return time.Duration(monoNow() - c.origin) }

// sleepUntil sleeps until the clock reads t (or returns at once if it has
// passed).
func (c *Clock) sleepUntil(t time.Duration) error { return sleepUntilMono(c.origin + int64(t)) }

package rt

import "time"

// Clock is the monotonic time of one run: every loop of the run measures
// time from the same origin, so a FingerState stamped by the haptics loop
// and a step of the simulation loop share a time axis.
type Clock struct {
	origin int64     // monotonic ns at the start of the run
	wall   time.Time // wall-clock time read with origin
}

// NewClock returns a clock whose zero is now.
func NewClock() *Clock {
	o := monoNow()
	return &Clock{origin: o, wall: time.Now()}
}

// Now returns the time since the clock's origin.
func (c *Clock) Now() time.Duration { return time.Duration(monoNow() - c.origin) }

// Origin returns the clock's zero as a reading of the machine's monotonic
// clock [ns]. On Linux that is CLOCK_MONOTONIC, the clock every process of
// the machine reads with clock_gettime, so a run's times can be matched
// with another program's record; elsewhere it counts from the process's
// start.
func (c *Clock) Origin() int64 { return c.origin }

// Wall returns the wall-clock time at the clock's zero, to within the
// microsecond between the two readings. Unlike the monotonic clock it
// means the same on other machines, as far as their clocks agree.
func (c *Clock) Wall() time.Time { return c.wall }

// sleepUntil sleeps until the clock reads t (or returns at once if it has
// passed).
func (c *Clock) sleepUntil(t time.Duration) error { return sleepUntilMono(c.origin + int64(t)) }

package soak

import (
	"time"

	"golang.org/x/sys/unix"
)

// sleepUntil sleeps to an absolute deadline with clock_nanosleep
// (TIMER_ABSTIME), the wait DESIGN.md measured best on Linux.
func sleepUntil(t time.Time) {
	d := time.Until(t)
	if d <= 0 {
		return
	}
	var now unix.Timespec
	if unix.ClockGettime(unix.CLOCK_MONOTONIC, &now) != nil {
		time.Sleep(d)
		return
	}
	abs := unix.NsecToTimespec(unix.TimespecToNsec(now) + int64(d))
	for unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &abs, nil) == unix.EINTR {
	}
}

package simbench

import "golang.org/x/sys/unix"

// threadCPU returns the CPU time the calling OS thread has used [s], or
// false when the clock is unavailable.
func threadCPU() (float64, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return float64(ts.Sec) + 1e-9*float64(ts.Nsec), true
}

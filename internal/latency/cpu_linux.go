//go:build linux

package latency

import (
	"time"

	"golang.org/x/sys/unix"
)

// ThreadCPU returns the CPU time the calling OS thread has used. The
// caller locks its goroutine to the thread (runtime.LockOSThread) for two
// readings to measure the code between them. Unlike the wall clock it
// leaves out the time the thread waited for a core on a loaded machine;
// ok is false where the clock cannot be read.
func ThreadCPU() (d time.Duration, ok bool) {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}

// ProcessCPU returns the CPU time the whole process has used, user and
// system, every thread included (a software GL's rasteriser threads, for
// one); ok is false where it cannot be read.
func ProcessCPU() (d time.Duration, ok bool) {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

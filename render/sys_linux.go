//go:build linux

package render

import (
	"time"

	"golang.org/x/sys/unix"
)

// setNice gives the calling OS thread niceness n. Threads it creates
// afterwards, such as the rasteriser threads llvmpipe starts with each GL
// context, inherit it. Lowering niceness needs privilege; that failure is
// ignored (the thread stays as nice as it was).
func setNice(n int) {
	unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), n)
}

// processCPU is the CPU time the process has used, all threads (a
// software GL's included); ok is false where it cannot be read.
func processCPU() (d time.Duration, ok bool) {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

//go:build linux

package tactile

import (
	"syscall"
	"unsafe"
)

// clockThreadCPUTime is CLOCK_THREAD_CPUTIME_ID from <time.h>.
const clockThreadCPUTime = 3

// threadCPU returns the CPU time the calling OS thread has used [ns]; the
// caller locks its goroutine to the thread. Time the thread spends
// descheduled on a loaded machine does not count.
func threadCPU() (int64, bool) {
	var ts syscall.Timespec
	_, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0)
	if e != 0 {
		return 0, false
	}
	return ts.Nano(), true
}

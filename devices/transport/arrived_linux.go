//go:build linux

package transport

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// ReadArrived reads into b what has arrived on the non-blocking
// descriptor fd without ever making a read(2) that finds nothing: it asks
// the kernel first how many bytes wait (TIOCINQ, alias FIONREAD) and
// returns unix.EAGAIN when none do. Where that fails (a line hung up, a
// closed descriptor) it reads, so that read(2) reports the error.
//
// A read, or a poll, of a Linux terminal (a pseudo-terminal, a USB-serial
// port) that finds its buffer empty first waits for the kernel's worker
// to deliver the bytes in flight (n_tty_read and n_tty_poll call
// tty_buffer_flush_work). That worker is a kworker at normal priority, so
// a SCHED_FIFO loop waits as long as a loaded machine keeps the worker
// from a core: the priority inversion docs/safety.md ("Scheduling on a
// shared machine") measured. TIOCINQ only reads the count.
//
// Both calls are raw system calls, which the Go scheduler is not told of:
// they never wait, and a real-time thread leaving a call the scheduler saw
// can spin until the scheduler's monitor thread lets go of its goroutine
// (internal/rt, "The runtime's monitor" and "Sleeping without the
// scheduler").
func ReadArrived(fd int, b []byte) (int, error) {
	var n int32
	_, _, errno := unix.RawSyscall(unix.SYS_IOCTL, uintptr(fd), unix.TIOCINQ, uintptr(unsafe.Pointer(&n)))
	if errno == 0 && n == 0 {
		return 0, unix.EAGAIN
	}
	if len(b) == 0 {
		return 0, nil
	}
	r, _, errno := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if errno != 0 {
		return 0, errno
	}
	return int(r), nil
}

//go:build linux

package transport

import "golang.org/x/sys/unix"

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
func ReadArrived(fd int, b []byte) (int, error) {
	if n, err := unix.IoctlGetInt(fd, unix.TIOCINQ); err == nil && n == 0 {
		return 0, unix.EAGAIN
	}
	return unix.Read(fd, b)
}

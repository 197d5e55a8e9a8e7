//go:build unix

package transport

import (
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// TryWriter makes single write(2) calls on a non-blocking descriptor that
// is registered with the runtime's poller, without waiting for the poller:
// the caller decides whether, and how long, to wait when the line is full.
// The closure and its results live in the TryWriter, so a call allocates
// nothing. One goroutine at a time may call Try.
type TryWriter struct {
	raw syscall.RawConn
	buf []byte
	n   int
	err error
	fn  func(fd uintptr) bool
}

// NewTryWriter returns a TryWriter for raw (from os.File.SyscallConn).
func NewTryWriter(raw syscall.RawConn) *TryWriter {
	w := &TryWriter{raw: raw}
	w.fn = func(fd uintptr) bool {
		w.n, w.err = unix.Write(int(fd), w.buf)
		return true
	}
	return w
}

// Try makes one write(2) of b. It returns how many bytes went out (never
// negative) and the call's error: unix.EAGAIN when the line took nothing,
// nil with n < len(b) when it took part.
func (w *TryWriter) Try(b []byte) (int, error) {
	w.buf, w.n, w.err = b, 0, nil
	if err := w.raw.Write(w.fn); err != nil {
		w.err = err
	}
	w.buf = nil
	return max(w.n, 0), w.err
}

// TryReader makes single read(2) calls on a non-blocking descriptor that
// is registered with the runtime's poller, and waits for it to become
// readable without reading: what a Poller needs. Its closures live in the
// TryReader, so a call allocates nothing. One goroutine at a time may call
// Try, one at a time Wait.
type TryReader struct {
	raw   syscall.RawConn
	buf   []byte
	n     int
	err   error
	ctl   func(fd uintptr)
	calls int
	ready bool
	wait  func(fd uintptr) bool
	// hup: Wait saw the line hang up or fail, so the next Try reads even
	// though nothing has arrived, for read(2) to report it.
	hup atomic.Bool
}

// NewTryReader returns a TryReader for raw (from os.File.SyscallConn).
func NewTryReader(raw syscall.RawConn) *TryReader {
	r := &TryReader{raw: raw}
	r.ctl = func(fd uintptr) {
		if r.hup.Swap(false) {
			r.n, r.err = unix.Read(int(fd), r.buf)
			return
		}
		r.n, r.err = ReadArrived(int(fd), r.buf)
	}
	// The first call looks (a zero-timeout poll): the runtime's poller
	// forgets a readiness it saw before the wait began. The second call
	// comes after the poller saw the descriptor readable.
	r.wait = func(fd uintptr) bool {
		r.calls++
		if r.calls > 1 {
			return true
		}
		p := [1]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, _ := unix.Poll(p[:], 0)
		if p[0].Revents&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0 {
			r.hup.Store(true)
		}
		return n > 0
	}
	return r
}

// Try reads into b what has arrived (ReadArrived: no read(2) that finds
// nothing, which on a terminal waits for a kernel worker). It returns
// what it read (never negative) and the call's error: unix.EAGAIN when
// nothing had arrived, nil with n == 0 at end of file. It goes through Control, not Read: the runtime
// lets one Read at a time hold a descriptor, and Wait holds it while it
// waits.
func (r *TryReader) Try(b []byte) (int, error) {
	r.buf, r.n, r.err = b, 0, nil
	if err := r.raw.Control(r.ctl); err != nil {
		r.err = err
	}
	r.buf = nil
	return max(r.n, 0), r.err
}

// Wait blocks until the descriptor is readable or closed.
func (r *TryReader) Wait() error {
	r.calls = 0
	return r.raw.Read(r.wait)
}

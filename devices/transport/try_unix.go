//go:build unix

package transport

import (
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

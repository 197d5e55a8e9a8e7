// Package transport defines the byte-stream connection every device link
// runs over (serial port, USB HID, pseudo-terminal) and the typed errors
// transports return; transporttest has an in-memory pipe for tests.
//
// It never frames or interprets bytes: that is package wire's job.
package transport

import (
	"fmt"
	"time"

	"github.com/haptex/haptex/devices"
)

// Conn is a full-duplex byte stream to one device.
//
// Read blocks until at least one byte arrived and returns n > 0, or returns
// an error: a *Error of kind Gone when the device went away, of kind Closed
// after Close. Write writes all of p or returns an error; one reader
// goroutine and one writer goroutine may use a Conn at the same time. Close
// may be called from any goroutine, more than once, and unblocks Read.
type Conn interface {
	Read(p []byte) (int, error)
	Write(p []byte) (int, error)
	Close() error
	// Name names the port for messages, e.g. "/dev/ttyUSB0".
	Name() string
}

// WriteLimiter is implemented by a Conn whose Write can wait for the
// device to take bytes (a serial line whose output buffer is full).
// SetWriteLimit bounds that wait: a Write that cannot finish within d
// fails with an *Error of kind Stalled, so that a device that stops
// reading cannot hold the writer's loop. d <= 0 restores the
// transport's default.
type WriteLimiter interface {
	SetWriteLimit(d time.Duration)
}

// Poller is implemented by a Conn that can be read without waiting and
// waited on without reading, so that a real-time loop can take the bytes
// that arrived itself instead of waiting for a reader goroutine to be
// scheduled. TryRead returns at once: n > 0, or 0 and nil when nothing has
// arrived, or Read's errors. WaitReadable blocks until bytes may have
// arrived (it may return early; it never consumes them) or the Conn is
// closed. Reads must not overlap: the caller serialises TryRead and Read.
type Poller interface {
	TryRead(p []byte) (int, error)
	WaitReadable() error
}

// Kind classifies a transport error.
type Kind int

// Error kinds.
const (
	Other       Kind = iota
	NotFound         // no such port or device
	Busy             // another process holds the port
	Permission       // the user may not open the port
	Config           // the port refused the settings
	Closed           // used after Close
	Gone             // the device went away (unplugged, hung up, I/O error)
	Unsupported      // the platform or build lacks the transport
	Stalled          // the device took no bytes within the write limit
)

var kindNames = [...]string{"error", "not found", "busy", "permission denied", "configuration refused", "closed", "device gone", "unsupported", "stalled"}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Error is a transport failure. errors.Is(err, devices.ErrDisconnected) is
// true for kinds Gone and Closed.
type Error struct {
	Transport devices.Transport // "serial", "hid", ...
	Op        string            // "open", "read", "write", "configure", "enumerate"
	Port      string
	Kind      Kind
	Err       error // cause, may be nil
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%s: %s %s: %v", e.Transport, e.Op, e.Port, e.Kind)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, devices.ErrDisconnected) true for a vanished or
// closed device.
func (e *Error) Is(target error) bool {
	return target == devices.ErrDisconnected && (e.Kind == Gone || e.Kind == Closed)
}

// KindOf returns the Kind of the first *Error in err's chain, or Other.
// It does not allocate (errors.As would), so device loops may call it on
// every failed write.
func KindOf(err error) Kind {
	for err != nil {
		if te, ok := err.(*Error); ok {
			return te.Kind
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return Other
		}
		err = u.Unwrap()
	}
	return Other
}

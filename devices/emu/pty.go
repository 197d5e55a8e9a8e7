package emu

import (
	"errors"
	"os"
	"sync/atomic"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/haptex/haptex/devices/transport"
)

// ptyConn is the device end (the master) of a pseudo-terminal. The slave
// end is the serial port haptex opens. The emulator keeps its own slave
// descriptor open so that the host can close and reopen the port without
// hanging the line up, as with a real USB-serial device.
type ptyConn struct {
	name   string
	fd     int // master's descriptor, read by the devices' loop
	master *os.File
	slave  *os.File
	closed atomic.Bool

	try *transport.TryWriter // one write at a time (the device's lock)
}

var _ transport.Conn = (*ptyConn)(nil)

// OpenLine opens a pseudo-terminal in raw mode and returns its device
// end: the line of each emulated device, and of equipment that stands
// where a device would (the proxy of devices/faulttest).
func OpenLine(name string) (Line, error) {
	m, s, err := pty.Open()
	if err != nil {
		return nil, err
	}
	if err := makeRaw(s); err != nil {
		m.Close()
		s.Close()
		return nil, err
	}
	nb, fd, err := nonBlocking(m)
	m.Close()
	if err != nil {
		s.Close()
		return nil, err
	}
	raw, err := nb.SyscallConn()
	if err != nil {
		nb.Close()
		s.Close()
		return nil, err
	}
	return &ptyConn{name: name, fd: fd, master: nb, slave: s, try: transport.NewTryWriter(raw)}, nil
}

// nonBlocking returns a non-blocking duplicate of f registered with the
// runtime's poller, and its descriptor (f.Fd would make it blocking
// again). pty.Open hands the master back in blocking mode (it calls Fd),
// and a blocking master would stall the device on a full line when no
// host reads.
func nonBlocking(f *os.File) (*os.File, int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, 0, err
	}
	fd := -1
	var derr error
	if err := rc.Control(func(u uintptr) {
		// Close-on-exec, as every descriptor Go opens: a child process
		// that kept a copy would keep the line up after the device
		// unplugs (the host then sees no hang-up).
		fd, derr = unix.FcntlInt(u, unix.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		return nil, 0, err
	}
	if derr != nil {
		return nil, 0, derr
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, 0, err
	}
	return os.NewFile(uintptr(fd), f.Name()), fd, nil
}

// makeRaw puts the line into raw mode (cfmakeraw) before any host opens
// it, so that no byte is echoed or translated in the meantime.
func makeRaw(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	err = rc.Control(func(fd uintptr) {
		t, err := unix.IoctlGetTermios(int(fd), unix.TCGETS)
		if err != nil {
			serr = err
			return
		}
		t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON | unix.IXOFF
		t.Oflag &^= unix.OPOST
		t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
		t.Cflag &^= unix.CSIZE | unix.PARENB
		t.Cflag |= unix.CS8
		t.Cc[unix.VMIN], t.Cc[unix.VTIME] = 1, 0
		serr = unix.IoctlSetTermios(int(fd), unix.TCSETS, t)
	})
	if err != nil {
		return err
	}
	return serr
}

// errLineFull is returned when the line cannot take a frame now.
var errLineFull = &transport.Error{Transport: "pty", Op: "write", Kind: transport.Other, Err: errors.New("line full: the host is not reading")}

// Fd returns the master's non-blocking descriptor.
func (c *ptyConn) Fd() int { return c.fd }

// TTY returns the path of the slave, the port the host opens.
func (c *ptyConn) TTY() string { return c.slave.Name() }

func (c *ptyConn) Name() string { return c.name }

func (c *ptyConn) kindOf(err error) transport.Kind {
	if c.closed.Load() {
		return transport.Closed
	}
	if errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, unix.EAGAIN) {
		return transport.Other
	}
	return transport.Gone
}

func (c *ptyConn) Read(p []byte) (int, error) {
	for {
		n, err := c.master.Read(p)
		if n > 0 {
			return n, nil
		}
		if err != nil {
			return 0, &transport.Error{Transport: "pty", Op: "read", Port: c.name, Kind: c.kindOf(err), Err: err}
		}
	}
}

// Write never waits for a host that does not read: a frame the line cannot
// take at once is dropped whole, as a USB device drops what its host does
// not poll. A frame the line took in part is completed (it must not be
// left truncated), waiting at most 5 ms.
func (c *ptyConn) Write(p []byte) (int, error) {
	n, werr := c.try.Try(p)
	if n == 0 && werr != nil {
		if errors.Is(werr, unix.EAGAIN) {
			return 0, errLineFull // the common case while no host reads: no allocation
		}
		return 0, &transport.Error{Transport: "pty", Op: "write", Port: c.name, Kind: c.kindOf(werr), Err: werr}
	}
	if n < len(p) {
		c.master.SetWriteDeadline(time.Now().Add(5 * time.Millisecond))
		k, err := c.master.Write(p[n:])
		c.master.SetWriteDeadline(time.Time{})
		n += k
		if err != nil {
			return n, &transport.Error{Transport: "pty", Op: "write", Port: c.name, Kind: c.kindOf(err), Err: err}
		}
	}
	return n, nil
}

// Close hangs the line up: the host's reads fail with EIO.
func (c *ptyConn) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	c.slave.Close()
	return c.master.Close()
}

// Line is the device end of a pseudo-terminal, as an emulated device
// holds it: Read waits for the host's bytes, Write never waits for a host
// that does not read (a frame the line cannot take is dropped whole), and
// TTY is the port the host opens.
type Line interface {
	transport.Conn
	TTY() string
	// Fd is the non-blocking descriptor of the device end, for a caller
	// that waits on it and reads it itself (as the emulator's loop does)
	// instead of calling Read.
	Fd() int
}

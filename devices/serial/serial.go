// Package serial is the serial-port transport of the device protocol, over
// go.bug.st/serial: raw 8N1 at a high baud rate, no flow control, and the
// FTDI latency timer lowered to 1 ms where the kernel exposes it (the 16 ms
// default would delay every sample by up to 16 ms).
//
// go.bug.st/serial configures the line (raw mode, speed, no flow control,
// exclusive access); the bytes travel through a second, non-blocking
// descriptor on the Go runtime's poller, so that a reader waiting for the
// device holds no OS thread and no scheduler slot. Measured on the
// emulator (BenchmarkCommandToState, devices/soak, same run, shared
// machine): reading through go.bug.st/serial's blocking select took
// 457-1156 µs mean and 10-16 ms p99 per command round trip; through the
// poller 72-142 µs mean and 0.05-4 ms p99.
//
// It never frames or interprets bytes; it moves them and reports typed
// transport errors (*transport.Error).
package serial

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	bugst "go.bug.st/serial"
	"go.bug.st/serial/enumerator"
	"golang.org/x/sys/unix"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/transport"
)

// DefaultBaud is the baud rate Open uses unless told otherwise; USB CDC-ACM
// devices ignore it.
const DefaultBaud = 3_000_000

// DefaultWriteLimit is how long Write waits for a device that takes no
// bytes before it fails with kind Stalled. The line's output buffer holds
// tens of milliseconds of commands, so Write only waits once the device
// has stopped reading for that long; two ticks of the 1 kHz loop is then
// all the loop loses before it learns that the device is gone.
const DefaultWriteLimit = 2 * time.Millisecond

// Options configure Open. The zero value is the low-latency default.
type Options struct {
	Baud int // bits per second; 0 means DefaultBaud
	// WriteLimit bounds how long Write waits for the device to take bytes
	// (0 means DefaultWriteLimit); see Port.SetWriteLimit.
	WriteLimit time.Duration
	// SysfsRoot is where the kernel's sysfs is mounted ("/sys" when empty);
	// tests point it at a fake tree.
	SysfsRoot string
}

// LatencyTimer says what Open did about the USB-serial bridge's latency
// timer.
type LatencyTimer struct {
	Path   string `json:"path,omitempty"`  // sysfs file, empty when the driver exposes none
	Before int    `json:"before_ms"`       // value found [ms], -1 when unknown
	After  int    `json:"after_ms"`        // value now [ms], -1 when unknown
	Err    string `json:"error,omitempty"` // why it could not be lowered
}

// Port is an open serial port. It implements transport.Conn.
type Port struct {
	name    string
	port    bugst.Port
	io      *os.File // non-blocking descriptor on the runtime poller
	latency LatencyTimer
	closed  atomic.Bool

	// Writer side, under wmu.
	wmu   sync.Mutex
	limit atomic.Int64         // write limit [ns]
	try   *transport.TryWriter // writes without waiting
	tryR  *transport.TryReader // reads without waiting
}

var (
	_ transport.Conn         = (*Port)(nil)
	_ transport.WriteLimiter = (*Port)(nil)
	_ transport.Poller       = (*Port)(nil)
)

func portErr(op, name string, k transport.Kind, cause error) error {
	return &transport.Error{Transport: devices.TransportSerial, Op: op, Port: name, Kind: k, Err: cause}
}

// classify maps an error of go.bug.st/serial or of the OS to a kind.
func classify(err error) transport.Kind {
	var pe *bugst.PortError
	if errors.As(err, &pe) {
		switch pe.Code() {
		case bugst.PortBusy:
			return transport.Busy
		case bugst.PortNotFound:
			return transport.NotFound
		case bugst.PermissionDenied:
			return transport.Permission
		case bugst.InvalidSpeed, bugst.InvalidDataBits, bugst.InvalidParity, bugst.InvalidStopBits,
			bugst.InvalidTimeoutValue, bugst.InvalidSerialPort:
			return transport.Config
		case bugst.PortClosed:
			return transport.Gone
		case bugst.FunctionNotImplemented:
			return transport.Unsupported
		}
	}
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, unix.ENXIO), errors.Is(err, unix.ENODEV):
		return transport.NotFound
	case errors.Is(err, fs.ErrPermission):
		return transport.Permission
	case errors.Is(err, unix.EBUSY):
		return transport.Busy
	case errors.Is(err, unix.EIO), errors.Is(err, unix.EBADF):
		return transport.Gone
	}
	return transport.Other
}

// Open opens the serial port name (a device path such as /dev/ttyACM0, or
// a symlink to one such as /dev/serial/by-id/...) in raw 8N1 mode at
// opt.Baud, lowers the FTDI latency timer where possible and discards
// bytes received before the open.
func Open(name string, opt Options) (*Port, error) {
	baud := opt.Baud
	if baud == 0 {
		baud = DefaultBaud
	}
	if baud < 0 {
		return nil, portErr("open", name, transport.Config, fmt.Errorf("baud rate %d", baud))
	}
	if _, err := os.Stat(name); err != nil {
		return nil, portErr("open", name, classify(err), err)
	}
	// The data descriptor is opened first: go.bug.st/serial takes the
	// line for exclusive use when it opens it.
	data, err := os.OpenFile(name, os.O_RDWR|unix.O_NOCTTY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, portErr("open", name, classify(err), err)
	}
	p, err := bugst.Open(name, &bugst.Mode{BaudRate: baud, DataBits: 8, Parity: bugst.NoParity, StopBits: bugst.OneStopBit})
	if err != nil {
		data.Close()
		return nil, portErr("open", name, classify(err), err)
	}
	if err := p.SetReadTimeout(bugst.NoTimeout); err != nil {
		p.Close()
		data.Close()
		return nil, portErr("configure", name, transport.Config, err)
	}
	root := opt.SysfsRoot
	if root == "" {
		root = "/sys"
	}
	raw, err := data.SyscallConn()
	if err != nil {
		p.Close()
		data.Close()
		return nil, portErr("open", name, transport.Other, err)
	}
	// The exclusive mode go.bug.st/serial sets (TIOCEXCL) does not keep
	// root out, and haptex runs as root for its real-time threads: a
	// second session on the line would split the device's bytes with the
	// first. An advisory lock on the line keeps out every program that
	// takes it, haptex's own sessions, scans and soaks among them.
	var lockErr error
	if err := raw.Control(func(fd uintptr) { lockErr = unix.Flock(int(fd), unix.LOCK_EX|unix.LOCK_NB) }); err == nil && errors.Is(lockErr, unix.EWOULDBLOCK) {
		p.Close()
		data.Close()
		return nil, portErr("open", name, transport.Busy, errors.New("another program holds the line (advisory lock)"))
	}
	port := &Port{name: name, port: p, io: data, latency: lowerLatencyTimer(root, name), try: transport.NewTryWriter(raw), tryR: transport.NewTryReader(raw)}
	port.SetWriteLimit(opt.WriteLimit)
	_ = p.ResetInputBuffer() // stale bytes are resynchronised away anyway
	return port, nil
}

// SetWriteLimit bounds how long Write waits for the device to take bytes;
// d <= 0 restores DefaultWriteLimit. It may be called at any time.
func (p *Port) SetWriteLimit(d time.Duration) {
	if d <= 0 {
		d = DefaultWriteLimit
	}
	p.limit.Store(int64(d))
}

// Name returns the path the port was opened with.
func (p *Port) Name() string { return p.name }

// LatencyTimer reports what Open did about the latency timer.
func (p *Port) LatencyTimer() LatencyTimer { return p.latency }

// Read blocks until bytes arrive; it returns a *transport.Error of kind
// Gone when the device vanished and Closed after Close.
func (p *Port) Read(b []byte) (int, error) {
	for {
		n, err := p.io.Read(b)
		if p.closed.Load() {
			return 0, portErr("read", p.name, transport.Closed, nil)
		}
		if n > 0 {
			return n, nil
		}
		if err != nil {
			if errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN) {
				continue
			}
			k := classify(err)
			if k == transport.Other {
				k = transport.Gone // any other read failure leaves the link unusable
			}
			return 0, portErr("read", p.name, k, err)
		}
		// A zero-length read without error is a hang-up.
		return 0, portErr("read", p.name, transport.Gone, io.EOF)
	}
}

// TryRead reads what has arrived without waiting: n > 0, or 0 and nil
// when nothing has; the errors are Read's.
func (p *Port) TryRead(b []byte) (int, error) {
	n, err := p.tryR.Try(b)
	if p.closed.Load() {
		return 0, portErr("read", p.name, transport.Closed, nil)
	}
	switch {
	case n > 0:
		return n, nil
	case errors.Is(err, unix.EAGAIN), errors.Is(err, unix.EINTR):
		return 0, nil
	case err == nil: // a zero-length read without error is a hang-up
		return 0, portErr("read", p.name, transport.Gone, io.EOF)
	}
	k := classify(err)
	if k == transport.Other {
		k = transport.Gone
	}
	return 0, portErr("read", p.name, k, err)
}

// WaitReadable blocks until bytes may have arrived, or the port is closed.
func (p *Port) WaitReadable() error {
	err := p.tryR.Wait()
	if p.closed.Load() {
		return portErr("read", p.name, transport.Closed, nil)
	}
	if err != nil {
		return portErr("read", p.name, transport.Gone, err)
	}
	return nil
}

// Write writes all of b. It first writes without waiting, which is all
// it does while the device keeps reading: no clock read, no deadline.
// When the line's output buffer is full it waits for the rest, but no
// longer than the write limit; then it fails with kind Stalled, and b may
// have gone out in part (the link treats the device as lost, and a new
// link's HELLO ends any partial frame).
func (p *Port) Write(b []byte) (int, error) {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if p.closed.Load() {
		return 0, portErr("write", p.name, transport.Closed, nil)
	}
	done, werr := p.try.Try(b)
	if done == len(b) {
		return done, nil
	}
	if werr != nil && !errors.Is(werr, unix.EAGAIN) && !errors.Is(werr, unix.EINTR) {
		return done, p.writeErr(werr)
	}
	limit := time.Duration(p.limit.Load())
	_ = p.io.SetWriteDeadline(time.Now().Add(limit))
	n, err := p.io.Write(b[done:])
	_ = p.io.SetWriteDeadline(time.Time{})
	done += n
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return done, portErr("write", p.name, transport.Stalled,
				fmt.Errorf("the device took no bytes for %v (%d of %d written): it is not reading, or the line is slower than the data", limit, done, len(b)))
		}
		return done, p.writeErr(err)
	}
	return done, nil
}

func (p *Port) writeErr(err error) error {
	if p.closed.Load() {
		return portErr("write", p.name, transport.Closed, nil)
	}
	k := classify(err)
	if k == transport.Other {
		k = transport.Gone // any other write failure leaves the link unusable
	}
	return portErr("write", p.name, k, err)
}

// Close closes the port and unblocks a pending Read.
func (p *Port) Close() error {
	if p.closed.Swap(true) {
		return nil
	}
	err := errors.Join(p.io.Close(), p.port.Close())
	if err != nil {
		return portErr("close", p.name, transport.Other, err)
	}
	return nil
}

// lowerLatencyTimer sets the usb-serial latency_timer of the tty behind
// name to 1 ms when the driver exposes it (ftdi_sio does).
func lowerLatencyTimer(sysfs, name string) LatencyTimer {
	lt := LatencyTimer{Before: -1, After: -1}
	dev, err := filepath.EvalSymlinks(name)
	if err != nil {
		dev = name
	}
	path := filepath.Join(sysfs, "bus", "usb-serial", "devices", filepath.Base(dev), "latency_timer")
	cur, err := readInt(path)
	if err != nil {
		return lt // not a usb-serial tty: nothing to lower
	}
	lt.Path, lt.Before, lt.After = path, cur, cur
	if cur <= 1 {
		return lt
	}
	if err := os.WriteFile(path, []byte("1\n"), 0); err != nil {
		lt.Err = fmt.Sprintf("serial: cannot lower the latency timer from %d ms (write %s as root or add a udev rule): %v", cur, path, err)
		return lt
	}
	if v, err := readInt(path); err == nil {
		lt.After = v
	}
	return lt
}

func readInt(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// PortInfo describes one serial port found on the machine.
type PortInfo struct {
	Path         string `json:"path"`
	USB          bool   `json:"usb"`
	VID          string `json:"vid,omitempty"`
	PID          string `json:"pid,omitempty"`
	SerialNumber string `json:"serial_number,omitempty"`
	Product      string `json:"product,omitempty"`
}

// List returns the serial ports of the machine, USB details included where
// the platform provides them, sorted by path.
func List() ([]PortInfo, error) {
	names, err := bugst.GetPortsList()
	if err != nil {
		return nil, portErr("enumerate", "", transport.Other, err)
	}
	byName := map[string]PortInfo{}
	for _, n := range names {
		byName[n] = PortInfo{Path: n}
	}
	if details, err := enumerator.GetDetailedPortsList(); err == nil {
		for _, d := range details {
			if d == nil || d.Name == "" {
				continue
			}
			byName[d.Name] = PortInfo{Path: d.Name, USB: d.IsUSB, VID: d.VID, PID: d.PID, SerialNumber: d.SerialNumber, Product: d.Product}
		}
	}
	out := make([]PortInfo, 0, len(byName))
	for _, p := range byName {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

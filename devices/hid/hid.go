// Package hid is the USB HID transport of the device protocol, over
// github.com/karalabe/hid (hidapi with an embedded libusb): it finds
// devices by vendor and product id, opens them, and turns 64-byte reports
// into the protocol's byte stream and back (wire.PutReport, ReportData).
//
// Writes go through a queue of QueueReports reports to a writer goroutine,
// because hidapi's write waits for the USB transfer to complete: up to the
// endpoint's polling interval while the device reads, and 1 s (hidapi's
// timeout) when it takes nothing. Write returns once its reports are
// queued; it waits only when the queue is full, for at most the write
// limit, and then fails with kind Stalled.
//
// It never frames or interprets the stream, and it talks to the device
// only through the hid.Device interface, so tests substitute a fake that
// speaks the protocol.
package hid

import (
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	khid "github.com/karalabe/hid"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/transport"
	"github.com/haptex/haptex/devices/wire"
)

// Default ids: pid.codes' open-hardware vendor id and the product id the
// haptex reference firmware uses (see docs/protocol.md, section 3.2).
const (
	DefaultVID = 0x1209
	DefaultPID = 0x4858
)

// pollInterval bounds how long Close waits for a pending read.
const pollInterval = 20 * time.Millisecond

// DefaultWriteLimit is how long Write waits for room in a full report
// queue before it fails with kind Stalled: the queue is full only when the
// device has taken no report for QueueReports of them.
const DefaultWriteLimit = 2 * time.Millisecond

// QueueReports is how many OUT reports Write may have waiting for the
// writer goroutine: 16 ms of the 1 kHz command stream.
const QueueReports = 16

// flushLimit bounds how long Close spends sending the reports still queued.
const flushLimit = 100 * time.Millisecond

type report [wire.HIDReportSize + 1]byte

// Conn is an open HID device carrying the protocol stream. It implements
// transport.Conn and transport.WriteLimiter.
type Conn struct {
	dev     khid.Device
	name    string
	readMu  sync.Mutex
	in      [wire.HIDReportSize + 1]byte
	pending []byte
	closed  atomic.Bool
	badReps atomic.Uint64

	// Write side: Write (under wmu) queues reports; one writer goroutine
	// hands them to hidapi, whose write waits for the USB transfer.
	wmu   sync.Mutex
	limit atomic.Int64 // write limit [ns]
	timer *time.Timer  // Write's wait for room, reused
	queue chan report
	stop  chan struct{} // closed by Close
	idle  chan struct{} // closed by the writer goroutine when it ends
	werr  atomic.Pointer[transport.Error]
	out   report // the writer goroutine's report in flight
}

var (
	_ transport.Conn         = (*Conn)(nil)
	_ transport.WriteLimiter = (*Conn)(nil)
)

// New wraps an opened device; name identifies it in messages. It starts
// the writer goroutine, which Close ends.
func New(dev khid.Device, name string) *Conn {
	c := &Conn{dev: dev, name: name, timer: time.NewTimer(time.Hour), queue: make(chan report, QueueReports),
		stop: make(chan struct{}), idle: make(chan struct{})}
	c.timer.Stop()
	c.SetWriteLimit(0)
	go c.writeLoop()
	return c
}

// SetWriteLimit bounds how long Write waits for room in a full report
// queue; d <= 0 restores DefaultWriteLimit.
func (c *Conn) SetWriteLimit(d time.Duration) {
	if d <= 0 {
		d = DefaultWriteLimit
	}
	c.limit.Store(int64(d))
}

func (c *Conn) err(op string, k transport.Kind, cause error) error {
	return &transport.Error{Transport: devices.TransportHID, Op: op, Port: c.name, Kind: k, Err: cause}
}

// Name identifies the device ("hid 1209:4858 SERIAL").
func (c *Conn) Name() string { return c.name }

// BadReports counts reports discarded because their count byte did not fit.
func (c *Conn) BadReports() uint64 { return c.badReps.Load() }

// Read returns stream bytes from the next reports. It polls the device
// every 20 ms so that Close never waits longer than that.
func (c *Conn) Read(p []byte) (int, error) {
	for len(c.pending) == 0 {
		c.readMu.Lock()
		if c.closed.Load() {
			c.readMu.Unlock()
			return 0, c.err("read", transport.Closed, nil)
		}
		n, err := c.dev.ReadTimeout(c.in[:wire.HIDReportSize], int(pollInterval/time.Millisecond))
		c.readMu.Unlock()
		if err != nil {
			if c.closed.Load() {
				return 0, c.err("read", transport.Closed, err)
			}
			return 0, c.err("read", transport.Gone, err)
		}
		if n == 0 {
			continue
		}
		data, err := wire.ReportData(c.in[:n])
		if err != nil {
			c.badReps.Add(1)
			continue
		}
		c.pending = data
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

// Write queues p in as many reports as it needs and returns: hidapi's
// write waits for the USB transfer (up to the endpoint's polling interval
// while the device reads, 1 s when it takes nothing), which the 1 kHz loop
// must not. A report hidapi failed to send fails the next Write (kind
// Gone). When the queue stays full for the write limit, the device has
// stopped taking reports: Write fails with kind Stalled, and p may have
// been queued in part.
func (c *Conn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	done := 0
	var rep report
	for done < len(p) {
		if c.closed.Load() {
			return done, c.err("write", transport.Closed, nil)
		}
		if e := c.werr.Load(); e != nil {
			return done, e
		}
		rep = report{}
		n := wire.PutReport(rep[1:], p[done:])
		if err := c.enqueue(&rep); err != nil {
			return done, err
		}
		done += n
	}
	return done, nil
}

// enqueue queues one report, waiting up to the write limit for room.
func (c *Conn) enqueue(rep *report) error {
	select {
	case c.queue <- *rep:
		return nil
	default:
	}
	limit := time.Duration(c.limit.Load())
	c.timer.Reset(limit)
	defer c.timer.Stop()
	select {
	case c.queue <- *rep:
		return nil
	case <-c.timer.C:
		return c.err("write", transport.Stalled,
			fmt.Errorf("the device took no report for %v with %d queued: it is not reading", limit, QueueReports))
	case <-c.idle:
		if e := c.werr.Load(); e != nil {
			return e
		}
		return c.err("write", transport.Closed, nil)
	}
}

// writeLoop hands the queued reports to hidapi until Close, then sends
// what is still queued for up to flushLimit (a link's last frame switches
// the device's output off), or until a report fails.
func (c *Conn) writeLoop() {
	defer close(c.idle)
	for {
		select {
		case c.out = <-c.queue:
			if !c.send() {
				return
			}
		case <-c.stop:
			// Only this goroutine receives, so a queued report is there.
			for end := time.Now().Add(flushLimit); len(c.queue) > 0 && time.Now().Before(end); {
				c.out = <-c.queue
				if !c.send() {
					return
				}
			}
			return
		}
	}
}

// send writes c.out; on failure it records the error for Write.
func (c *Conn) send() bool {
	// hidapi takes the report id as the first byte; karalabe/hid adds it
	// itself on Windows only.
	rep := c.out[:]
	if runtime.GOOS == "windows" {
		rep = c.out[1:]
	}
	if _, err := c.dev.Write(rep); err != nil {
		c.werr.Store(&transport.Error{Transport: devices.TransportHID, Op: "write", Port: c.name, Kind: transport.Gone, Err: err})
		return false
	}
	return true
}

// Close sends the reports still queued (for up to 100 ms), then closes
// the device after any pending read and write returned.
func (c *Conn) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	close(c.stop)
	<-c.idle
	c.readMu.Lock()
	defer c.readMu.Unlock()
	if err := c.dev.Close(); err != nil {
		return c.err("close", transport.Other, err)
	}
	return nil
}

// Info describes one HID device found.
type Info struct {
	Path         string `json:"path"`
	VID          uint16 `json:"vid"`
	PID          uint16 `json:"pid"`
	Serial       string `json:"serial,omitempty"`
	Manufacturer string `json:"manufacturer,omitempty"`
	Product      string `json:"product,omitempty"`
	Interface    int    `json:"interface"`
}

// ID formats vid:pid.
func (i Info) ID() string { return fmt.Sprintf("%04x:%04x", i.VID, i.PID) }

func enumErr(k transport.Kind, port string, cause error) error {
	return &transport.Error{Transport: devices.TransportHID, Op: "enumerate", Port: port, Kind: k, Err: cause}
}

// List returns the HID devices with the given ids (0 matches any).
func List(vid, pid uint16) ([]Info, error) {
	if !khid.Supported() {
		return nil, enumErr(transport.Unsupported, "", errors.New("this build has no HID support (cgo disabled?)"))
	}
	found, err := khid.Enumerate(vid, pid)
	if err != nil {
		return nil, enumErr(transport.Other, "", err)
	}
	out := make([]Info, 0, len(found))
	for _, d := range found {
		out = append(out, Info{Path: d.Path, VID: d.VendorID, PID: d.ProductID, Serial: d.Serial,
			Manufacturer: d.Manufacturer, Product: d.Product, Interface: d.Interface})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// Open opens the device with the given ids and, when serial is not empty,
// that serial number. Several matches without a serial number are an
// error that lists them.
func Open(vid, pid uint16, serial string) (*Conn, error) {
	port := fmt.Sprintf("%04x:%04x", vid, pid)
	if serial != "" {
		port += " " + serial
	}
	if !khid.Supported() {
		return nil, enumErr(transport.Unsupported, port, errors.New("this build has no HID support (cgo disabled?)"))
	}
	found, err := khid.Enumerate(vid, pid)
	if err != nil {
		return nil, enumErr(transport.Other, port, err)
	}
	var match []khid.DeviceInfo
	var serials []string
	for _, d := range found {
		if serial == "" || d.Serial == serial {
			match = append(match, d)
			serials = append(serials, fmt.Sprintf("%q", d.Serial))
		}
	}
	switch {
	case len(match) == 0:
		return nil, &transport.Error{Transport: devices.TransportHID, Op: "open", Port: port, Kind: transport.NotFound,
			Err: fmt.Errorf("no such device among %d with these ids", len(found))}
	case len(match) > 1:
		return nil, &transport.Error{Transport: devices.TransportHID, Op: "open", Port: port, Kind: transport.Config,
			Err: fmt.Errorf("%d devices match (serials %s); name one in the devices file", len(match), strings.Join(serials, ", "))}
	}
	dev, err := match[0].Open()
	if err != nil {
		return nil, &transport.Error{Transport: devices.TransportHID, Op: "open", Port: port, Kind: transport.Permission,
			Err: fmt.Errorf("%w (on Linux, a udev rule must give this user access to the device)", err)}
	}
	name := fmt.Sprintf("hid %s %s", port, match[0].Path)
	return New(dev, name), nil
}

// OpenInfo opens the device List found as info.
func OpenInfo(info Info) (*Conn, error) {
	port := fmt.Sprintf("%s %s", info.ID(), info.Path)
	if !khid.Supported() {
		return nil, enumErr(transport.Unsupported, port, errors.New("this build has no HID support (cgo disabled?)"))
	}
	found, err := khid.Enumerate(info.VID, info.PID)
	if err != nil {
		return nil, enumErr(transport.Other, port, err)
	}
	for _, d := range found {
		if d.Path == info.Path {
			dev, err := d.Open()
			if err != nil {
				return nil, &transport.Error{Transport: devices.TransportHID, Op: "open", Port: port, Kind: transport.Permission, Err: err}
			}
			return New(dev, "hid "+port), nil
		}
	}
	return nil, &transport.Error{Transport: devices.TransportHID, Op: "open", Port: port, Kind: transport.NotFound, Err: errors.New("gone since it was listed")}
}

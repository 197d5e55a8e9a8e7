// Package hid is the USB HID transport of the device protocol, over
// github.com/karalabe/hid (hidapi with an embedded libusb): it finds
// devices by vendor and product id, opens them, and turns 64-byte reports
// into the protocol's byte stream and back (wire.PutReport, ReportData).
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

// Conn is an open HID device carrying the protocol stream. It implements
// transport.Conn.
type Conn struct {
	dev     khid.Device
	name    string
	readMu  sync.Mutex
	in      [wire.HIDReportSize + 1]byte
	pending []byte
	wmu     sync.Mutex
	out     [wire.HIDReportSize + 1]byte
	closed  atomic.Bool
	badReps atomic.Uint64
}

var _ transport.Conn = (*Conn)(nil)

// New wraps an opened device; name identifies it in messages.
func New(dev khid.Device, name string) *Conn { return &Conn{dev: dev, name: name} }

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

// Write sends p in as many reports as it needs.
func (c *Conn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	// hidapi takes the report id as the first byte; karalabe/hid adds it
	// itself on Windows only.
	rep := c.out[:]
	if runtime.GOOS == "windows" {
		rep = c.out[1:]
	} else {
		c.out[0] = 0
	}
	done := 0
	for done < len(p) {
		if c.closed.Load() {
			return done, c.err("write", transport.Closed, nil)
		}
		n := wire.PutReport(c.out[1:], p[done:])
		if _, err := c.dev.Write(rep); err != nil {
			return done, c.err("write", transport.Gone, err)
		}
		done += n
	}
	return done, nil
}

// Close closes the device after any pending read returned.
func (c *Conn) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
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

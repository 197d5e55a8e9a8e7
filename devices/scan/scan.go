// Package scan finds devices for `haptex devices list`: the HID devices and
// serial ports of the machine, which of them speak the haptex protocol (a
// HELLO is sent and the CAPS decoded), and what they announce.
//
// It only probes what it may safely open: HID devices with the ids it is
// given (opening any other HID device could take a keyboard away from the
// operating system), USB serial ports and the ports of the emulators that
// announce themselves (devices/emu.Announced), plus any port named
// explicitly. Everything else is listed, not touched.
package scan

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/emu"
	"github.com/haptex/haptex/devices/hid"
	"github.com/haptex/haptex/devices/link"
	"github.com/haptex/haptex/devices/serial"
	"github.com/haptex/haptex/devices/transport"
)

// ID is a USB vendor and product id.
type ID struct{ VID, PID uint16 }

// Options configure Scan. The zero value probes the default haptex HID ids
// and every USB serial port.
type Options struct {
	HIDIDs      []ID                       // HID devices to probe; default {hid.DefaultVID, hid.DefaultPID}
	ProbeSerial func(serial.PortInfo) bool // serial ports to probe; default: USB ports
	Ports       []string                   // further serial ports to probe
	Timeout     time.Duration              // per handshake; default 300 ms
	NoProbe     bool                       // list only
	// NoEmulators leaves out the ports of the running emulators that
	// announce themselves (haptex devices emulate).
	NoEmulators bool
}

// Probe is what probing one device found.
type Probe struct {
	Probed bool       `json:"probed"`
	Speaks bool       `json:"speaks_haptex"`
	Device *link.Info `json:"device,omitempty"`
	Error  string     `json:"error,omitempty"`
}

// HIDEntry is one HID device.
type HIDEntry struct {
	hid.Info
	Probe
}

// SerialEntry is one serial port.
type SerialEntry struct {
	serial.PortInfo
	// Emulator names the emulator that serves the port, when an announced
	// one does: "haptex devices emulate (pid 1234): thumb-exo".
	Emulator string `json:"emulator,omitempty"`
	Probe
}

// Report is the result of a scan.
type Report struct {
	HID         []HIDEntry    `json:"hid"`
	HIDError    string        `json:"hid_error,omitempty"`
	Serial      []SerialEntry `json:"serial"`
	SerialError string        `json:"serial_error,omitempty"`
}

func probe(conn transport.Conn, err error, tr devices.Transport, timeout time.Duration) Probe {
	p := Probe{Probed: true}
	if err != nil {
		p.Error = err.Error()
		return p
	}
	info, err := link.Probe(conn, link.Options{Transport: tr, HandshakeTimeout: timeout, HelloInterval: timeout / 4})
	if err != nil {
		p.Error = err.Error()
		return p
	}
	p.Speaks, p.Device = true, &info
	return p
}

// Scan lists and probes; probes run in parallel.
func Scan(opt Options) Report {
	if len(opt.HIDIDs) == 0 {
		opt.HIDIDs = []ID{{hid.DefaultVID, hid.DefaultPID}}
	}
	if opt.ProbeSerial == nil {
		opt.ProbeSerial = func(p serial.PortInfo) bool { return p.USB }
	}
	if opt.Timeout <= 0 {
		opt.Timeout = 300 * time.Millisecond
	}
	var r Report
	var wg sync.WaitGroup
	if infos, err := hid.List(0, 0); err != nil {
		r.HIDError = err.Error()
	} else {
		r.HID = make([]HIDEntry, len(infos))
		for i, info := range infos {
			r.HID[i].Info = info
			if opt.NoProbe || !wanted(opt.HIDIDs, info) {
				continue
			}
			wg.Add(1)
			go func(e *HIDEntry) {
				defer wg.Done()
				c, err := hid.OpenInfo(e.Info)
				e.Probe = probe(c, err, devices.TransportHID, opt.Timeout)
			}(&r.HID[i])
		}
	}
	ports, err := serial.List()
	if err != nil {
		r.SerialError = err.Error()
	}
	listed := map[string]bool{}
	for _, p := range ports {
		listed[p.Path] = true
	}
	for _, p := range opt.Ports {
		if !listed[p] {
			ports = append(ports, serial.PortInfo{Path: p})
			listed[p] = true
		}
	}
	explicit := map[string]bool{}
	for _, p := range opt.Ports {
		explicit[p] = true
	}
	emulated := map[string]string{}
	if !opt.NoEmulators {
		as, _ := emu.Announced()
		for _, a := range as {
			for _, p := range a.Ports {
				emulated[p.Path] = fmt.Sprintf("haptex devices emulate (pid %d): %s", a.PID, p.Name)
				explicit[p.Path] = true
				if !listed[p.Path] {
					ports = append(ports, serial.PortInfo{Path: p.Path})
					listed[p.Path] = true
				}
			}
		}
	}
	r.Serial = make([]SerialEntry, len(ports))
	for i, p := range ports {
		r.Serial[i].PortInfo = p
		r.Serial[i].Emulator = emulated[p.Path]
		if opt.NoProbe || !explicit[p.Path] && !opt.ProbeSerial(p) {
			continue
		}
		wg.Add(1)
		go func(e *SerialEntry) {
			defer wg.Done()
			c, err := serial.Open(e.Path, serial.Options{})
			var conn transport.Conn
			if err == nil {
				conn = c
			}
			e.Probe = probe(conn, err, devices.TransportSerial, opt.Timeout)
		}(&r.Serial[i])
	}
	wg.Wait()
	return r
}

func wanted(ids []ID, info hid.Info) bool {
	for _, id := range ids {
		if id.VID == info.VID && (id.PID == 0 || id.PID == info.PID) {
			return true
		}
	}
	return false
}

func describe(w io.Writer, p Probe) {
	switch {
	case p.Speaks && p.Device.Exo != nil:
		x := p.Device.Exo
		fmt.Fprintf(w, "    haptex %s exoskeleton %q serial %q firmware %s: %d DoF, peak force %.3g N (continuous %.3g N), stiffness <= %.0f N/m at 1 kHz, sample period %v\n",
			p.Device.Protocol, x.Model, x.Serial, x.Firmware, x.DoF, x.MaxForcePeak, x.MaxForceCont, x.MaxStiffness, x.SamplePeriod)
	case p.Speaks && p.Device.Tactile != nil:
		a := p.Device.Tactile
		measures := "does not measure its pins"
		if a.Measures {
			measures = "measures its pins"
		}
		fmt.Fprintf(w, "    haptex %s tactile array %q serial %q firmware %s: %dx%d pins at %.3g mm, A40 <= %.4g µm, A320 <= %.4g µm, frame %v, %s\n",
			p.Device.Protocol, a.Model, a.Serial, a.Firmware, a.Rows, a.Cols, a.PitchM*1e3, a.MaxA40Um, a.MaxA320Um, a.FramePeriod, measures)
	case p.Probed:
		fmt.Fprintf(w, "    does not speak haptex: %s\n", p.Error)
	default:
		fmt.Fprintf(w, "    not probed\n")
	}
	if p.Speaks && p.Device.Refused != "" {
		fmt.Fprintf(w, "    haptex would refuse it: %s\n", p.Device.Refused)
	}
}

// WriteText prints the report for people.
func (r *Report) WriteText(w io.Writer) {
	fmt.Fprintf(w, "HID devices (%d):\n", len(r.HID))
	if r.HIDError != "" {
		fmt.Fprintf(w, "  %s\n", r.HIDError)
	}
	for _, e := range r.HID {
		fmt.Fprintf(w, "  %s %s %q %q serial %q\n", e.ID(), e.Path, e.Manufacturer, e.Product, e.Serial)
		describe(w, e.Probe)
	}
	fmt.Fprintf(w, "Serial ports (%d):\n", len(r.Serial))
	if r.SerialError != "" {
		fmt.Fprintf(w, "  %s\n", r.SerialError)
	}
	for _, e := range r.Serial {
		var usb []string
		if e.USB {
			usb = append(usb, "usb "+e.VID+":"+e.PID)
		}
		if e.Product != "" {
			usb = append(usb, fmt.Sprintf("%q", e.Product))
		}
		if e.SerialNumber != "" {
			usb = append(usb, "serial "+e.SerialNumber)
		}
		if e.Emulator != "" {
			usb = append(usb, "("+e.Emulator+")")
		}
		fmt.Fprintf(w, "  %s %s\n", e.Path, strings.Join(usb, " "))
		describe(w, e.Probe)
	}
}

package record

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/haptex/haptex/devices"
)

// Kind is the kind of an event.
type Kind uint8

// Event kinds.
const (
	KindRX         Kind = 1  // bytes read from the transport
	KindTX         Kind = 2  // bytes written to the transport
	KindOpen       Kind = 3  // the transport was (re)opened; payload = port name
	KindClose      Kind = 4  // the transport was closed; payload = reason
	KindDropped    Kind = 5  // trailer: u64 events dropped because the writer fell behind
	KindSpec       Kind = 6  // the device's capabilities as JSON, once it is open
	KindKinematics Kind = 7  // an exoskeleton's kinematic model and base pose as JSON (Kinematics)
	KindRead       Kind = 16 // Exoskeleton.Read: ReadEvent
	KindWrite      Kind = 17 // Exoskeleton.Write: WriteEvent
	KindEnable     Kind = 18 // Exoskeleton.Enable: EnableEvent
	KindFrame      Kind = 19 // TactileArray.WriteFrame: FrameEvent
	KindStatus     Kind = 20 // StatusReader.Status: StatusEvent
	KindDelivered  Kind = 21 // DeliveryReader.Delivered: DeliveredEvent
)

var kindNames = map[Kind]string{KindRX: "RX", KindTX: "TX", KindOpen: "OPEN", KindClose: "CLOSE", KindDropped: "DROPPED", KindSpec: "SPEC", KindKinematics: "KINEMATICS",
	KindRead: "READ", KindWrite: "WRITE", KindEnable: "ENABLE", KindFrame: "FRAME", KindStatus: "STATUS", KindDelivered: "DELIVERED"}

func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Err is how a call's error is recorded.
type Err uint8

// Recorded errors.
const (
	ErrNone Err = iota
	ErrTimeout
	ErrDisconnected
	ErrDisabled
	ErrOther
)

// ErrOf classifies err.
func ErrOf(err error) Err {
	switch {
	case err == nil:
		return ErrNone
	case errors.Is(err, devices.ErrTimeout):
		return ErrTimeout
	case errors.Is(err, devices.ErrDisconnected):
		return ErrDisconnected
	case errors.Is(err, devices.ErrDisabled):
		return ErrDisabled
	}
	return ErrOther
}

// errOther is what a replayed call returns for a recorded ErrOther.
type errOther struct{ msg string }

func (e errOther) Error() string { return "recorded error: " + e.msg }

// Error returns the error a replay hands back for e; msg is the recorded
// text of an ErrOther.
func (e Err) Error(msg string) error {
	switch e {
	case ErrNone:
		return nil
	case ErrTimeout:
		return devices.ErrTimeout
	case ErrDisconnected:
		return devices.ErrDisconnected
	case ErrDisabled:
		return devices.ErrDisabled
	}
	return errOther{msg}
}

var le = binary.LittleEndian

func putF64s(b []byte, v []float64) {
	for i, x := range v {
		le.PutUint64(b[8*i:], math.Float64bits(x))
	}
}

func getF64s(v []float64, b []byte) {
	for i := range v {
		v[i] = math.Float64frombits(le.Uint64(b[8*i:]))
	}
}

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// ReadEvent is one Exoskeleton.Read: the run time it happened at, the
// state returned (every bit of it) and the error.
type ReadEvent struct {
	T     time.Duration // run time (the t of the last Advance)
	State devices.ExoState
	Err   Err
	Msg   string // text of an ErrOther
}

// readSize is the fixed part of a READ payload; the error text follows.
const readSize = 88

func (e *ReadEvent) put(b []byte) int {
	s := &e.State
	le.PutUint64(b[0:], uint64(e.T))
	le.PutUint64(b[8:], uint64(s.DeviceTime))
	le.PutUint32(b[16:], s.Seq)
	le.PutUint32(b[20:], s.AckSeq)
	putF64s(b[24:48], s.Joint[:])
	putF64s(b[48:72], s.Force[:])
	le.PutUint32(b[72:], s.Fault)
	b[76], b[77], b[78], b[79] = b2u(s.Enabled), b2u(s.Stale), byte(e.Err), byte(s.Confirm)
	le.PutUint64(b[80:], 0)
	return readSize + copy(b[readSize:], e.Msg)
}

// Parse decodes a READ payload.
func (e *ReadEvent) Parse(b []byte) error {
	if len(b) < readSize {
		return fmt.Errorf("record: READ payload of %d bytes, want >= %d", len(b), readSize)
	}
	s := &e.State
	e.T = time.Duration(le.Uint64(b[0:]))
	s.DeviceTime = time.Duration(le.Uint64(b[8:]))
	s.Seq = le.Uint32(b[16:])
	s.AckSeq = le.Uint32(b[20:])
	getF64s(s.Joint[:], b[24:48])
	getF64s(s.Force[:], b[48:72])
	s.Fault = le.Uint32(b[72:])
	s.Enabled, s.Stale, e.Err, s.Confirm = b[76] != 0, b[77] != 0, Err(b[78]), devices.Confirm(b[79])
	e.Msg = string(b[readSize:])
	return nil
}

// WriteEvent is one Exoskeleton.Write.
type WriteEvent struct {
	T   time.Duration
	Cmd devices.ExoCommand
	Err Err
	Msg string
}

const writeSize = 40

func (e *WriteEvent) put(b []byte) int {
	le.PutUint64(b[0:], uint64(e.T))
	le.PutUint32(b[8:], e.Cmd.Seq)
	b[12], b[13], b[14], b[15] = byte(e.Err), 0, 0, 0
	putF64s(b[16:40], e.Cmd.Torque[:])
	return writeSize + copy(b[writeSize:], e.Msg)
}

// Parse decodes a WRITE payload.
func (e *WriteEvent) Parse(b []byte) error {
	if len(b) < writeSize {
		return fmt.Errorf("record: WRITE payload of %d bytes, want >= %d", len(b), writeSize)
	}
	e.T = time.Duration(le.Uint64(b[0:]))
	e.Cmd.Seq = le.Uint32(b[8:])
	e.Err = Err(b[12])
	getF64s(e.Cmd.Torque[:], b[16:40])
	e.Msg = string(b[writeSize:])
	return nil
}

// EnableEvent is one Exoskeleton.Enable.
type EnableEvent struct {
	T   time.Duration
	On  bool
	Err Err
	Msg string
}

const enableSize = 16

func (e *EnableEvent) put(b []byte) int {
	le.PutUint64(b[0:], uint64(e.T))
	b[8], b[9] = b2u(e.On), byte(e.Err)
	clear(b[10:16])
	return enableSize + copy(b[enableSize:], e.Msg)
}

// Parse decodes an ENABLE payload.
func (e *EnableEvent) Parse(b []byte) error {
	if len(b) < enableSize {
		return fmt.Errorf("record: ENABLE payload of %d bytes, want >= %d", len(b), enableSize)
	}
	e.T = time.Duration(le.Uint64(b[0:]))
	e.On, e.Err = b[8] != 0, Err(b[9])
	e.Msg = string(b[enableSize:])
	return nil
}

// FrameEvent is one TactileArray.WriteFrame.
type FrameEvent struct {
	T     time.Duration
	Frame devices.TactileFrame
	Err   Err
	Msg   string
}

const frameSize = 16 + 16*devices.Pins

func (e *FrameEvent) put(b []byte) int {
	putFrame(b, e.T, &e.Frame, byte(e.Err))
	return frameSize + copy(b[frameSize:], e.Msg)
}

// putFrame and getFrame encode the layout FRAME and DELIVERED share: run
// time, seq, a flag byte, the amplitudes.
func putFrame(b []byte, t time.Duration, f *devices.TactileFrame, flag byte) {
	le.PutUint64(b[0:], uint64(t))
	le.PutUint32(b[8:], f.Seq)
	b[12], b[13], b[14], b[15] = flag, 0, 0, 0
	putF64s(b[16:16+8*devices.Pins], f.A40Um[:])
	putF64s(b[16+8*devices.Pins:frameSize], f.A320Um[:])
}

func getFrame(b []byte, f *devices.TactileFrame) (t time.Duration, flag byte) {
	f.Seq = le.Uint32(b[8:])
	getF64s(f.A40Um[:], b[16:16+8*devices.Pins])
	getF64s(f.A320Um[:], b[16+8*devices.Pins:frameSize])
	return time.Duration(le.Uint64(b[0:])), b[12]
}

// Parse decodes a FRAME payload.
func (e *FrameEvent) Parse(b []byte) error {
	if len(b) < frameSize {
		return fmt.Errorf("record: FRAME payload of %d bytes, want >= %d", len(b), frameSize)
	}
	var flag byte
	e.T, flag = getFrame(b, &e.Frame)
	e.Err = Err(flag)
	e.Msg = string(b[frameSize:])
	return nil
}

// StatusEvent is one StatusReader.Status.
type StatusEvent struct {
	T      time.Duration
	Status devices.TactileStatus
	Err    Err
	Msg    string
}

const statusSize = 32

func (e *StatusEvent) put(b []byte) int {
	s := &e.Status
	le.PutUint64(b[0:], uint64(e.T))
	le.PutUint64(b[8:], uint64(s.DeviceTime))
	le.PutUint32(b[16:], s.Seq)
	le.PutUint32(b[20:], s.AckSeq)
	le.PutUint32(b[24:], s.Fault)
	b[28], b[29], b[30], b[31] = b2u(s.Active), b2u(s.Clamped), b2u(s.Stale), byte(e.Err)
	return statusSize + copy(b[statusSize:], e.Msg)
}

// Parse decodes a STATUS payload.
func (e *StatusEvent) Parse(b []byte) error {
	if len(b) < statusSize {
		return fmt.Errorf("record: STATUS payload of %d bytes, want >= %d", len(b), statusSize)
	}
	s := &e.Status
	e.T = time.Duration(le.Uint64(b[0:]))
	s.DeviceTime = time.Duration(le.Uint64(b[8:]))
	s.Seq = le.Uint32(b[16:])
	s.AckSeq = le.Uint32(b[20:])
	s.Fault = le.Uint32(b[24:])
	s.Active, s.Clamped, s.Stale, e.Err = b[28] != 0, b[29] != 0, b[30] != 0, Err(b[31])
	e.Msg = string(b[statusSize:])
	return nil
}

// DeliveredEvent is one DeliveryReader.Delivered: the run time, whether
// the array had a measurement (OK) and, if so, the amplitudes.
type DeliveredEvent struct {
	T     time.Duration
	Frame devices.TactileFrame
	OK    bool
}

func (e *DeliveredEvent) put(b []byte) int {
	putFrame(b, e.T, &e.Frame, b2u(e.OK))
	return frameSize
}

// Parse decodes a DELIVERED payload.
func (e *DeliveredEvent) Parse(b []byte) error {
	if len(b) < frameSize {
		return fmt.Errorf("record: DELIVERED payload of %d bytes, want >= %d", len(b), frameSize)
	}
	var flag byte
	e.T, flag = getFrame(b, &e.Frame)
	e.OK = flag != 0
	return nil
}

package wire

import (
	"encoding/binary"
	"fmt"
	"math"
)

var le = binary.LittleEndian

// Kind is the kind of device behind a link.
type Kind uint8

// Device kinds, as CAPS_* carry them.
const (
	KindExo     Kind = 1
	KindTactile Kind = 2
)

func (k Kind) String() string {
	switch k {
	case KindExo:
		return "exoskeleton"
	case KindTactile:
		return "tactile"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Pins is the number of pins a TACTILE_FRAME carries.
const Pins = 24

// Nanometres converts an amplitude [µm] to the wire's nanometres, rounded
// and saturated at the u32 range (negative and NaN give 0).
func Nanometres(um float64) uint32 {
	if !(um > 0) {
		return 0
	}
	return uint32(min(math.MaxUint32, math.Round(um*1e3)))
}

// STATE status bits.
const (
	StateEnabled   uint16 = 1 << 0 // motor power stage on
	StateSaturated uint16 = 1 << 1 // the applied torque was clamped to the device maximum
	StateAtLimit   uint16 = 1 << 2 // a joint is at its mechanical limit
	StateWatchdog  uint16 = 1 << 3 // the device disabled itself because the host fell silent
)

// TACTILE_STATUS status bits.
const (
	TactileActive   uint16 = 1 << 0 // output stage driving the pins
	TactileClamped  uint16 = 1 << 1 // the newest frame exceeded the amplitude limits and was clamped
	TactileWatchdog uint16 = 1 << 2 // the array silenced itself because the host fell silent
)

// Fault bits common to every device; bits 16-31 are device specific.
const (
	FaultOverTemp    uint32 = 1 << 0
	FaultOverCurrent uint32 = 1 << 1
	FaultEncoder     uint32 = 1 << 2
	FaultForceSensor uint32 = 1 << 3
	FaultSupply      uint32 = 1 << 4
	FaultEStop       uint32 = 1 << 5
)

// ErrorCode is the code of an ERROR message.
type ErrorCode uint16

// Error codes a device reports.
const (
	CodeCRC           ErrorCode = 1  // a frame failed its CRC; Value = count since HELLO
	CodeFraming       ErrorCode = 2  // malformed COBS, oversize or short frame; Value = count since HELLO
	CodeLength        ErrorCode = 3  // body shorter than the layout; RefType, RefSeq name it
	CodeUnknownType   ErrorCode = 4  // RefType is not a message the device takes
	CodeVersion       ErrorCode = 5  // HELLO asked for another major; Value = the device's major
	CodeSequence      ErrorCode = 6  // duplicate or out-of-order frame dropped; Value = newest accepted seq
	CodeWatchdog      ErrorCode = 7  // host silent longer than watchdog_ms; output disabled
	CodeNotReady      ErrorCode = 8  // a frame other than HELLO before the handshake
	CodeEnableRefused ErrorCode = 9  // ENABLE refused; Value = fault bits
	CodeRange         ErrorCode = 10 // a field out of range; Value = the offending value
)

// ParseError reports a body that does not fit its layout.
type ParseError struct {
	Type  Type
	Field string
	Value int64
	Want  string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("wire: %v.%s = %d, want %s", e.Type, e.Field, e.Value, e.Want)
}

func needLen(t Type, b []byte, size int) error {
	if len(b) < size {
		return &ParseError{Type: t, Field: "body_len", Value: int64(len(b)), Want: fmt.Sprintf(">= %d", size)}
	}
	return nil
}

func putI32s(b []byte, v []int32) {
	for i, x := range v {
		le.PutUint32(b[4*i:], uint32(x))
	}
}

func getI32s(v []int32, b []byte) {
	for i := range v {
		v[i] = int32(le.Uint32(b[4*i:]))
	}
}

func putU32s(b []byte, v []uint32) {
	for i, x := range v {
		le.PutUint32(b[4*i:], x)
	}
}

func getU32s(v []uint32, b []byte) {
	for i := range v {
		v[i] = le.Uint32(b[4*i:])
	}
}

// SetText copies s into the fixed, NUL-padded text field b, truncating it
// and replacing bytes outside printable ASCII with '?'.
func SetText(b []byte, s string) {
	clear(b)
	for i := 0; i < len(b) && i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7E {
			c = '?'
		}
		b[i] = c
	}
}

// GetText returns the text of the field b up to its first NUL.
func GetText(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

func checkText(t Type, field string, b []byte) error {
	end := false
	for _, c := range b {
		switch {
		case c == 0:
			end = true
		case end || c < 0x20 || c > 0x7E:
			return &ParseError{Type: t, Field: field, Value: int64(c), Want: "printable ASCII, NUL-padded"}
		}
	}
	return nil
}

// Hello opens (or reopens) a session; host to device.
type Hello struct {
	Major uint8
	Minor uint8
	Nonce uint32 // echoed in CAPS, pairs a reply with its request
}

func (*Hello) MsgType() Type { return TypeHello }
func (*Hello) Size() int     { return 8 }
func (m *Hello) Put(b []byte) {
	_ = b[7]
	b[0], b[1], b[2], b[3] = m.Major, m.Minor, 0, 0
	le.PutUint32(b[4:], m.Nonce)
}

// Parse decodes b into m.
func (m *Hello) Parse(b []byte) error {
	if err := needLen(TypeHello, b, m.Size()); err != nil {
		return err
	}
	m.Major, m.Minor = b[0], b[1]
	m.Nonce = le.Uint32(b[4:])
	return nil
}

// Caps is the part of CAPS_EXO and CAPS_TACTILE common to every device.
type Caps struct {
	Major      uint8
	Minor      uint8
	Kind       Kind
	Nonce      uint32
	Model      [24]byte
	Serial     [16]byte
	Firmware   uint32 // major<<16 | minor<<8 | patch
	PeriodUs   uint32 // longest interval between two frames the device sends [µs]
	WatchdogMs uint32 // the device disables its output when the host is silent this long [ms]
}

const capsSize = 64

func (m *Caps) put(b []byte) {
	_ = b[capsSize-1]
	b[0], b[1], b[2], b[3] = m.Major, m.Minor, byte(m.Kind), 0
	le.PutUint32(b[4:], m.Nonce)
	copy(b[8:32], m.Model[:])
	copy(b[32:48], m.Serial[:])
	le.PutUint32(b[48:], m.Firmware)
	le.PutUint32(b[52:], m.PeriodUs)
	le.PutUint32(b[56:], m.WatchdogMs)
	le.PutUint32(b[60:], 0)
}

func (m *Caps) parse(t Type, want Kind, b []byte) error {
	m.Major, m.Minor, m.Kind = b[0], b[1], Kind(b[2])
	m.Nonce = le.Uint32(b[4:])
	copy(m.Model[:], b[8:32])
	copy(m.Serial[:], b[32:48])
	m.Firmware = le.Uint32(b[48:])
	m.PeriodUs = le.Uint32(b[52:])
	m.WatchdogMs = le.Uint32(b[56:])
	switch {
	case m.Kind != want:
		return &ParseError{Type: t, Field: "kind", Value: int64(m.Kind), Want: fmt.Sprintf("%d", want)}
	case m.PeriodUs == 0 || m.PeriodUs > 1_000_000:
		return &ParseError{Type: t, Field: "period_us", Value: int64(m.PeriodUs), Want: "1..1000000"}
	case m.WatchdogMs == 0 || m.WatchdogMs > 60_000:
		return &ParseError{Type: t, Field: "watchdog_ms", Value: int64(m.WatchdogMs), Want: "1..60000"}
	}
	if err := checkText(t, "model", m.Model[:]); err != nil {
		return err
	}
	return checkText(t, "serial", m.Serial[:])
}

// FirmwareString formats Firmware as "major.minor.patch".
func (m *Caps) FirmwareString() string {
	return fmt.Sprintf("%d.%d.%d", m.Firmware>>16, (m.Firmware>>8)&0xFF, m.Firmware&0xFF)
}

// CapsExo is a fingertip exoskeleton's answer to HELLO.
type CapsExo struct {
	Caps
	DoF               uint8
	JointMinURad      [3]int32
	JointMaxURad      [3]int32
	MaxTorqueUNm      [3]uint32
	MaxForceContMN    uint32
	MaxForcePeakMN    uint32
	ForceResUN        uint32
	EncoderResNRad    uint32
	MaxStiffnessNPerM uint32
}

func (*CapsExo) MsgType() Type { return TypeCapsExo }
func (*CapsExo) Size() int     { return 124 }
func (m *CapsExo) Put(b []byte) {
	_ = b[123]
	m.Caps.put(b)
	b[64], b[65], b[66], b[67] = m.DoF, 0, 0, 0
	putI32s(b[68:80], m.JointMinURad[:])
	putI32s(b[80:92], m.JointMaxURad[:])
	putU32s(b[92:104], m.MaxTorqueUNm[:])
	le.PutUint32(b[104:], m.MaxForceContMN)
	le.PutUint32(b[108:], m.MaxForcePeakMN)
	le.PutUint32(b[112:], m.ForceResUN)
	le.PutUint32(b[116:], m.EncoderResNRad)
	le.PutUint32(b[120:], m.MaxStiffnessNPerM)
}

// Parse decodes b into m and checks the values.
func (m *CapsExo) Parse(b []byte) error {
	if err := needLen(TypeCapsExo, b, m.Size()); err != nil {
		return err
	}
	if err := m.Caps.parse(TypeCapsExo, KindExo, b); err != nil {
		return err
	}
	m.DoF = b[64]
	getI32s(m.JointMinURad[:], b[68:80])
	getI32s(m.JointMaxURad[:], b[80:92])
	getU32s(m.MaxTorqueUNm[:], b[92:104])
	m.MaxForceContMN = le.Uint32(b[104:])
	m.MaxForcePeakMN = le.Uint32(b[108:])
	m.ForceResUN = le.Uint32(b[112:])
	m.EncoderResNRad = le.Uint32(b[116:])
	m.MaxStiffnessNPerM = le.Uint32(b[120:])
	if m.DoF < 1 || m.DoF > 3 {
		return &ParseError{Type: TypeCapsExo, Field: "dof", Value: int64(m.DoF), Want: "1..3"}
	}
	for i := range m.JointMinURad {
		if m.JointMinURad[i] > m.JointMaxURad[i] {
			return &ParseError{Type: TypeCapsExo, Field: fmt.Sprintf("joint_min_urad[%d]", i), Value: int64(m.JointMinURad[i]),
				Want: fmt.Sprintf("<= joint_max_urad[%d] = %d", i, m.JointMaxURad[i])}
		}
	}
	if m.MaxForceContMN > m.MaxForcePeakMN {
		return &ParseError{Type: TypeCapsExo, Field: "max_force_cont_mn", Value: int64(m.MaxForceContMN),
			Want: fmt.Sprintf("<= max_force_peak_mn = %d", m.MaxForcePeakMN)}
	}
	return nil
}

// CapsTactile is a tactile array's answer to HELLO.
type CapsTactile struct {
	Caps
	Rows          uint8
	Cols          uint8
	Waveform      uint8
	Measures      uint8 // since 1.1: the array sends TACTILE_MEASURED
	PitchUm       uint32
	MaxA40Nm      uint32
	MaxA320Nm     uint32
	FramePeriodUs uint32
}

func (*CapsTactile) MsgType() Type { return TypeCapsTactile }
func (*CapsTactile) Size() int     { return 84 }
func (m *CapsTactile) Put(b []byte) {
	_ = b[83]
	m.Caps.put(b)
	b[64], b[65], b[66], b[67] = m.Rows, m.Cols, m.Waveform, m.Measures
	le.PutUint32(b[68:], m.PitchUm)
	le.PutUint32(b[72:], m.MaxA40Nm)
	le.PutUint32(b[76:], m.MaxA320Nm)
	le.PutUint32(b[80:], m.FramePeriodUs)
}

// Parse decodes b into m and checks the values.
func (m *CapsTactile) Parse(b []byte) error {
	if err := needLen(TypeCapsTactile, b, m.Size()); err != nil {
		return err
	}
	if err := m.Caps.parse(TypeCapsTactile, KindTactile, b); err != nil {
		return err
	}
	m.Rows, m.Cols, m.Waveform, m.Measures = b[64], b[65], b[66], b[67]
	m.PitchUm = le.Uint32(b[68:])
	m.MaxA40Nm = le.Uint32(b[72:])
	m.MaxA320Nm = le.Uint32(b[76:])
	m.FramePeriodUs = le.Uint32(b[80:])
	switch {
	case int(m.Rows)*int(m.Cols) != Pins:
		return &ParseError{Type: TypeCapsTactile, Field: "rows*cols", Value: int64(m.Rows) * int64(m.Cols), Want: "24"}
	case m.Waveform > 1:
		return &ParseError{Type: TypeCapsTactile, Field: "waveform", Value: int64(m.Waveform), Want: "0 or 1"}
	case m.Measures > 1:
		return &ParseError{Type: TypeCapsTactile, Field: "measures", Value: int64(m.Measures), Want: "0 or 1"}
	case m.FramePeriodUs == 0 || m.FramePeriodUs > 1_000_000:
		return &ParseError{Type: TypeCapsTactile, Field: "frame_period_us", Value: int64(m.FramePeriodUs), Want: "1..1000000"}
	}
	return nil
}

// State is one exoskeleton sample; device to host.
type State struct {
	JointURad [3]int32
	ForceUN   [3]int32
	TorqueUNm [3]int32 // torque applied after saturation
	Status    uint16
	Fault     uint32
	AckSeq    uint32 // header seq of the newest COMMAND applied
	AckTag    uint32 // tag of that COMMAND
}

func (*State) MsgType() Type { return TypeState }
func (*State) Size() int     { return 52 }
func (m *State) Put(b []byte) {
	_ = b[51]
	putI32s(b[0:12], m.JointURad[:])
	putI32s(b[12:24], m.ForceUN[:])
	putI32s(b[24:36], m.TorqueUNm[:])
	le.PutUint16(b[36:], m.Status)
	le.PutUint16(b[38:], 0)
	le.PutUint32(b[40:], m.Fault)
	le.PutUint32(b[44:], m.AckSeq)
	le.PutUint32(b[48:], m.AckTag)
}

// Parse decodes b into m.
func (m *State) Parse(b []byte) error {
	if err := needLen(TypeState, b, m.Size()); err != nil {
		return err
	}
	getI32s(m.JointURad[:], b[0:12])
	getI32s(m.ForceUN[:], b[12:24])
	getI32s(m.TorqueUNm[:], b[24:36])
	m.Status = le.Uint16(b[36:])
	m.Fault = le.Uint32(b[40:])
	m.AckSeq = le.Uint32(b[44:])
	m.AckTag = le.Uint32(b[48:])
	return nil
}

// Command is one torque command; host to device.
type Command struct {
	TorqueUNm [3]int32
	Tag       uint32 // opaque to the device, echoed in STATE.ack_tag
}

func (*Command) MsgType() Type { return TypeCommand }
func (*Command) Size() int     { return 16 }
func (m *Command) Put(b []byte) {
	_ = b[15]
	putI32s(b[0:12], m.TorqueUNm[:])
	le.PutUint32(b[12:], m.Tag)
}

// Parse decodes b into m.
func (m *Command) Parse(b []byte) error {
	if err := needLen(TypeCommand, b, m.Size()); err != nil {
		return err
	}
	getI32s(m.TorqueUNm[:], b[0:12])
	m.Tag = le.Uint32(b[12:])
	return nil
}

// Enable switches an exoskeleton's power stage; host to device.
type Enable struct {
	On uint8
}

func (*Enable) MsgType() Type { return TypeEnable }
func (*Enable) Size() int     { return 4 }
func (m *Enable) Put(b []byte) {
	_ = b[3]
	b[0], b[1], b[2], b[3] = m.On, 0, 0, 0
}

// Parse decodes b into m.
func (m *Enable) Parse(b []byte) error {
	if err := needLen(TypeEnable, b, m.Size()); err != nil {
		return err
	}
	m.On = b[0]
	if m.On > 1 {
		return &ParseError{Type: TypeEnable, Field: "on", Value: int64(m.On), Want: "0 or 1"}
	}
	return nil
}

// TactileFrame is one frame of pin amplitudes; host to device.
type TactileFrame struct {
	A40Nm  [Pins]uint32
	A320Nm [Pins]uint32
	Tag    uint32 // opaque to the device, echoed in TACTILE_STATUS.ack_tag
}

func (*TactileFrame) MsgType() Type { return TypeTactileFrame }
func (*TactileFrame) Size() int     { return 196 }
func (m *TactileFrame) Put(b []byte) {
	_ = b[195]
	putU32s(b[0:96], m.A40Nm[:])
	putU32s(b[96:192], m.A320Nm[:])
	le.PutUint32(b[192:], m.Tag)
}

// Parse decodes b into m.
func (m *TactileFrame) Parse(b []byte) error {
	if err := needLen(TypeTactileFrame, b, m.Size()); err != nil {
		return err
	}
	getU32s(m.A40Nm[:], b[0:96])
	getU32s(m.A320Nm[:], b[96:192])
	m.Tag = le.Uint32(b[192:])
	return nil
}

// TactileStatus is a tactile array's status; device to host.
type TactileStatus struct {
	Status uint16
	Fault  uint32
	AckSeq uint32 // header seq of the newest TACTILE_FRAME applied
	AckTag uint32 // tag of that frame
}

func (*TactileStatus) MsgType() Type { return TypeTactileStatus }
func (*TactileStatus) Size() int     { return 16 }
func (m *TactileStatus) Put(b []byte) {
	_ = b[15]
	le.PutUint16(b[0:], m.Status)
	le.PutUint16(b[2:], 0)
	le.PutUint32(b[4:], m.Fault)
	le.PutUint32(b[8:], m.AckSeq)
	le.PutUint32(b[12:], m.AckTag)
}

// Parse decodes b into m.
func (m *TactileStatus) Parse(b []byte) error {
	if err := needLen(TypeTactileStatus, b, m.Size()); err != nil {
		return err
	}
	m.Status = le.Uint16(b[0:])
	m.Fault = le.Uint32(b[4:])
	m.AckSeq = le.Uint32(b[8:])
	m.AckTag = le.Uint32(b[12:])
	return nil
}

// TactileMeasured is what a tactile array measured its pins delivering
// over its newest frame period; device to host, since 1.1.
type TactileMeasured struct {
	A40Nm  [Pins]uint32
	A320Nm [Pins]uint32
	AckSeq uint32 // header seq of the newest TACTILE_FRAME applied when the window ended
	AckTag uint32 // tag of that frame
}

func (*TactileMeasured) MsgType() Type { return TypeTactileMeasured }
func (*TactileMeasured) Size() int     { return 200 }
func (m *TactileMeasured) Put(b []byte) {
	_ = b[199]
	putU32s(b[0:96], m.A40Nm[:])
	putU32s(b[96:192], m.A320Nm[:])
	le.PutUint32(b[192:], m.AckSeq)
	le.PutUint32(b[196:], m.AckTag)
}

// Parse decodes b into m.
func (m *TactileMeasured) Parse(b []byte) error {
	if err := needLen(TypeTactileMeasured, b, m.Size()); err != nil {
		return err
	}
	getU32s(m.A40Nm[:], b[0:96])
	getU32s(m.A320Nm[:], b[96:192])
	m.AckSeq = le.Uint32(b[192:])
	m.AckTag = le.Uint32(b[196:])
	return nil
}

// Heartbeat says "still here"; either direction. Its body is empty.
type Heartbeat struct{}

func (*Heartbeat) MsgType() Type { return TypeHeartbeat }
func (*Heartbeat) Size() int     { return 0 }
func (*Heartbeat) Put([]byte)    {}

// Parse accepts any body (later minor versions may add fields).
func (*Heartbeat) Parse([]byte) error { return nil }

// ErrorReport is an ERROR message; device to host.
type ErrorReport struct {
	Code    ErrorCode
	RefType Type   // type of the frame that caused it, 0 if none
	RefSeq  uint32 // seq of that frame, 0 if none
	Value   int32  // code-specific, see the error table
}

func (*ErrorReport) MsgType() Type { return TypeError }
func (*ErrorReport) Size() int     { return 12 }
func (m *ErrorReport) Put(b []byte) {
	_ = b[11]
	le.PutUint16(b[0:], uint16(m.Code))
	b[2], b[3] = byte(m.RefType), 0
	le.PutUint32(b[4:], m.RefSeq)
	le.PutUint32(b[8:], uint32(m.Value))
}

// Parse decodes b into m.
func (m *ErrorReport) Parse(b []byte) error {
	if err := needLen(TypeError, b, m.Size()); err != nil {
		return err
	}
	m.Code = ErrorCode(le.Uint16(b[0:]))
	m.RefType = Type(b[2])
	m.RefSeq = le.Uint32(b[4:])
	m.Value = int32(le.Uint32(b[8:]))
	return nil
}

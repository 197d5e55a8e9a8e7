package wire

// This file holds the layout tables: the single description of every
// frame's bytes. docs/protocol.md's tables are rendered from them
// (Markdown), and layout_test.go checks every encoder and parser against
// them field by field.

// Field is one field of a fixed layout.
type Field struct {
	Off   int    // byte offset from the start of the body (or header)
	Name  string // wire name, as docs/protocol.md spells it
	Type  string // u8, u16, u32, u64, i32 or char (ASCII, NUL-padded)
	Count int    // array length; 1 for a scalar
	Unit  string // physical unit, "" when none
	Doc   string
	Go    string // Go struct field holding it; "" for a reserved field, which senders set to zero
}

// Layout is the fixed layout of a header or a message body.
type Layout struct {
	Type   Type   // 0 for the header
	Name   string // e.g. "STATE"
	From   string // "host", "device" or "both"
	Doc    string
	Fields []Field
}

// HeaderLayout is the 16-byte header of every frame.
var HeaderLayout = Layout{Name: "header", From: "both", Doc: "Starts every frame.", Fields: []Field{
	{0, "type", "u8", 1, "", "message type", "Type"},
	{1, "version", "u8", 1, "", "protocol major version of the sender (1)", "Version"},
	{2, "body_len", "u16", 1, "byte", "length of the body that follows the header", "BodyLen"},
	{4, "seq", "u32", 1, "", "sender's frame counter, +1 per frame of any type, 0 skipped on wrap; CAPS is the device's 1, 0 marks a device frame sent outside a session (section 4.2)", "Seq"},
	{8, "time_us", "u64", 1, "µs", "sender's monotonic clock when the frame was built; on STATE the sample time", "TimeUs"},
}}

var capsCommon = []Field{
	{0, "major", "u8", 1, "", "protocol major version the device speaks", "Major"},
	{1, "minor", "u8", 1, "", "protocol minor version the device speaks", "Minor"},
	{2, "kind", "u8", 1, "", "1 exoskeleton, 2 tactile array", "Kind"},
	{3, "reserved", "u8", 1, "", "0", ""},
	{4, "nonce", "u32", 1, "", "the HELLO's nonce, echoed", "Nonce"},
	{8, "model", "char", 24, "", "model name, printable ASCII, NUL-padded", "Model"},
	{32, "serial", "char", 16, "", "serial number, printable ASCII, NUL-padded", "Serial"},
	{48, "firmware", "u32", 1, "", "firmware version major<<16 | minor<<8 | patch", "Firmware"},
	{52, "period_us", "u32", 1, "µs", "longest interval between two frames the device sends (1..1000000)", "PeriodUs"},
	{56, "watchdog_ms", "u32", 1, "ms", "the device disables its output when no frame came from the host for this long (1..60000)", "WatchdogMs"},
	{60, "reserved", "u32", 1, "", "0", ""},
}

func withCommon(fs ...Field) []Field {
	return append(append([]Field(nil), capsCommon...), fs...)
}

// Layouts are the message bodies, in type order.
var Layouts = []Layout{
	{Type: TypeHello, Name: "HELLO", From: "host", Doc: "Opens or reopens a session. The device answers with CAPS_EXO or CAPS_TACTILE (or ERROR code 5 when it does not speak the major version).", Fields: []Field{
		{0, "major", "u8", 1, "", "protocol major version the host speaks (1)", "Major"},
		{1, "minor", "u8", 1, "", "protocol minor version the host speaks", "Minor"},
		{2, "reserved", "u16", 1, "", "0", ""},
		{4, "nonce", "u32", 1, "", "any value; echoed in CAPS", "Nonce"},
	}},
	{Type: TypeCapsExo, Name: "CAPS_EXO", From: "device", Doc: "A fingertip exoskeleton's answer to HELLO: who it is and what it can do.", Fields: withCommon(
		Field{64, "dof", "u8", 1, "", "actuated joints (1..3)", "DoF"},
		Field{65, "reserved", "u8", 3, "", "0", ""},
		Field{68, "joint_min_urad", "i32", 3, "µrad", "lower joint limits", "JointMinURad"},
		Field{80, "joint_max_urad", "i32", 3, "µrad", "upper joint limits", "JointMaxURad"},
		Field{92, "max_torque_unm", "u32", 3, "µN·m", "peak joint torque", "MaxTorqueUNm"},
		Field{104, "max_force_cont_mn", "u32", 1, "mN", "maximum continuous fingertip force", "MaxForceContMN"},
		Field{108, "max_force_peak_mn", "u32", 1, "mN", "maximum peak fingertip force", "MaxForcePeakMN"},
		Field{112, "force_res_un", "u32", 1, "µN", "force sensor resolution", "ForceResUN"},
		Field{116, "encoder_res_nrad", "u32", 1, "nrad", "encoder resolution at the joint", "EncoderResNRad"},
		Field{120, "max_stiffness_npm", "u32", 1, "N/m", "maximum renderable stiffness at 1 kHz", "MaxStiffnessNPerM"},
	)},
	{Type: TypeCapsTactile, Name: "CAPS_TACTILE", From: "device", Doc: "A tactile array's answer to HELLO.", Fields: withCommon(
		Field{64, "rows", "u8", 1, "", "pins along the finger's distal axis; rows*cols = 24", "Rows"},
		Field{65, "cols", "u8", 1, "", "pins across the finger", "Cols"},
		Field{66, "waveform", "u8", 1, "", "1 if the array takes sampled waveforms, else 0", "Waveform"},
		Field{67, "measures", "u8", 1, "", "1 if the array measures its pins' vibration and sends TACTILE_MEASURED, else 0 (since 1.1; reserved, 0, before)", "Measures"},
		Field{68, "pitch_um", "u32", 1, "µm", "pin spacing", "PitchUm"},
		Field{72, "max_a40_nm", "u32", 1, "nm", "maximum amplitude at 40 Hz (peak)", "MaxA40Nm"},
		Field{76, "max_a320_nm", "u32", 1, "nm", "maximum amplitude at 320 Hz (peak)", "MaxA320Nm"},
		Field{80, "frame_period_us", "u32", 1, "µs", "frame period the array is built for (1..1000000)", "FramePeriodUs"},
	)},
	{Type: TypeState, Name: "STATE", From: "device", Doc: "One exoskeleton sample. Sent in answer to every COMMAND and ENABLE, and on its own at least every period_us.", Fields: []Field{
		{0, "joint_urad", "i32", 3, "µrad", "joint positions", "JointURad"},
		{12, "force_un", "i32", 3, "µN", "fingertip force, sensor frame", "ForceUN"},
		{24, "torque_unm", "i32", 3, "µN·m", "joint torque applied after saturation (0 while disabled)", "TorqueUNm"},
		{36, "status", "u16", 1, "", "status bits (table below)", "Status"},
		{38, "reserved", "u16", 1, "", "0", ""},
		{40, "fault", "u32", 1, "", "fault bits, 0 when healthy (table below)", "Fault"},
		{44, "ack_seq", "u32", 1, "", "header seq of the newest COMMAND applied, 0 before the first", "AckSeq"},
		{48, "ack_tag", "u32", 1, "", "tag of that COMMAND", "AckTag"},
	}},
	{Type: TypeCommand, Name: "COMMAND", From: "host", Doc: "Joint torques to apply now. The device clamps them to max_torque_unm, applies them if enabled, and answers with STATE.", Fields: []Field{
		{0, "torque_unm", "i32", 3, "µN·m", "joint torque commands at the joint output", "TorqueUNm"},
		{12, "tag", "u32", 1, "", "opaque to the device; echoed in STATE.ack_tag", "Tag"},
	}},
	{Type: TypeEnable, Name: "ENABLE", From: "host", Doc: "Turns the motor power stage on (1) or off (0). The device answers with STATE whose status shows the result.", Fields: []Field{
		{0, "on", "u8", 1, "", "1 on, 0 off; other values are refused with ERROR code 10", "On"},
		{1, "reserved", "u8", 3, "", "0", ""},
	}},
	{Type: TypeTactileFrame, Name: "TACTILE_FRAME", From: "host", Doc: "One frame of pin amplitudes, pin index = row*cols + col, row 0 at the distal end. The array clamps to its limits, starts the frame at its next 40 Hz period boundary and answers with TACTILE_STATUS.", Fields: []Field{
		{0, "a40_nm", "u32", Pins, "nm", "amplitude at 40 Hz (peak) per pin", "A40Nm"},
		{96, "a320_nm", "u32", Pins, "nm", "amplitude at 320 Hz (peak) per pin", "A320Nm"},
		{192, "tag", "u32", 1, "", "opaque to the device; echoed in TACTILE_STATUS.ack_tag", "Tag"},
	}},
	{Type: TypeTactileStatus, Name: "TACTILE_STATUS", From: "device", Doc: "A tactile array's status. Sent in answer to every TACTILE_FRAME and on its own at least every period_us.", Fields: []Field{
		{0, "status", "u16", 1, "", "status bits (table below)", "Status"},
		{2, "reserved", "u16", 1, "", "0", ""},
		{4, "fault", "u32", 1, "", "fault bits, 0 when healthy", "Fault"},
		{8, "ack_seq", "u32", 1, "", "header seq of the newest TACTILE_FRAME applied, 0 before the first", "AckSeq"},
		{12, "ack_tag", "u32", 1, "", "tag of that frame", "AckTag"},
	}},
	{Type: TypeTactileMeasured, Name: "TACTILE_MEASURED", From: "device", Doc: "What the pins vibrated with over the array's newest frame period, as the array measured it. Sent by an array whose CAPS_TACTILE says measures = 1, right after the TACTILE_STATUS that answers a TACTILE_FRAME (since 1.1).", Fields: []Field{
		{0, "a40_nm", "u32", Pins, "nm", "measured amplitude at 40 Hz (peak) per pin, over the frame_period_us before the header's time_us", "A40Nm"},
		{96, "a320_nm", "u32", Pins, "nm", "measured amplitude at 320 Hz (peak) per pin, over the same window", "A320Nm"},
		{192, "ack_seq", "u32", 1, "", "header seq of the newest TACTILE_FRAME applied when the window ended, 0 before the first", "AckSeq"},
		{196, "ack_tag", "u32", 1, "", "tag of that frame", "AckTag"},
	}},
	{Type: TypeHeartbeat, Name: "HEARTBEAT", From: "both", Doc: "Says \"still here\" when the sender has nothing else to send. Empty body."},
	{Type: TypeError, Name: "ERROR", From: "device", Doc: "Reports a problem the device saw (codes below). Rate-limited by the device to one per code per 10 ms.", Fields: []Field{
		{0, "code", "u16", 1, "", "error code (table below)", "Code"},
		{2, "ref_type", "u8", 1, "", "type of the frame that caused it, 0 if none", "RefType"},
		{3, "reserved", "u8", 1, "", "0", ""},
		{4, "ref_seq", "u32", 1, "", "seq of that frame, 0 if none", "RefSeq"},
		{8, "value", "i32", 1, "", "code-specific (table below)", "Value"},
	}},
}

// LayoutOf returns the layout of message type t, or nil.
func LayoutOf(t Type) *Layout {
	for i := range Layouts {
		if Layouts[i].Type == t {
			return &Layouts[i]
		}
	}
	return nil
}

// Bit is one named bit of a bit field.
type Bit struct {
	Mask uint32
	Name string
	Doc  string
}

// Bit tables, rendered into docs/protocol.md.
var (
	StateBits = []Bit{
		{uint32(StateEnabled), "enabled", "motor power stage on"},
		{uint32(StateSaturated), "saturated", "the applied torque was clamped to max_torque_unm"},
		{uint32(StateAtLimit), "at_limit", "a joint is at its mechanical limit"},
		{uint32(StateWatchdog), "watchdog", "the device disabled itself because the host fell silent; cleared by ENABLE 1"},
	}
	TactileBits = []Bit{
		{uint32(TactileActive), "active", "output stage driving the pins"},
		{uint32(TactileClamped), "clamped", "the newest frame exceeded max_a40_nm or max_a320_nm and was clamped"},
		{uint32(TactileWatchdog), "watchdog", "the array silenced itself because the host fell silent; cleared by the next TACTILE_FRAME"},
	}
	FaultBits = []Bit{
		{FaultOverTemp, "over_temp", "driver or motor over temperature"},
		{FaultOverCurrent, "over_current", "motor or pin driver over current"},
		{FaultEncoder, "encoder", "encoder signal lost or implausible"},
		{FaultForceSensor, "force_sensor", "force sensor saturated or absent"},
		{FaultSupply, "supply", "supply voltage out of range"},
		{FaultEStop, "estop", "emergency stop pressed"},
	}
)

// Code is one row of the error code table.
type Code struct {
	Code  ErrorCode
	Name  string
	Value string // meaning of the value field
	Doc   string
}

// Codes is the error code table.
var Codes = []Code{
	{CodeCRC, "CRC", "corrupt frames since HELLO", "a frame failed its CRC and was dropped"},
	{CodeFraming, "FRAMING", "framing errors since HELLO", "malformed COBS, oversize or short frame, dropped"},
	{CodeLength, "LENGTH", "body_len received", "body shorter than the layout of ref_type; dropped"},
	{CodeUnknownType, "UNKNOWN_TYPE", "0", "ref_type is not a message this device takes; dropped"},
	{CodeVersion, "VERSION", "the device's major version", "HELLO asked for a major version the device does not speak; sent outside a session (seq 0)"},
	{CodeSequence, "SEQUENCE", "newest accepted seq", "a duplicate or out-of-order frame was dropped"},
	{CodeWatchdog, "WATCHDOG", "ms since the last host frame", "the host was silent longer than watchdog_ms; output disabled"},
	{CodeNotReady, "NOT_READY", "0", "a frame other than HELLO before the handshake; dropped; sent outside a session (seq 0)"},
	{CodeEnableRefused, "ENABLE_REFUSED", "fault bits", "ENABLE 1 refused because of a fault"},
	{CodeRange, "RANGE", "the offending value", "a field out of range; frame dropped"},
}

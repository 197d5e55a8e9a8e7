package devices

import (
	"errors"
	"strconv"
	"time"

	"github.com/haptex/haptex/devices/exo"
)

// Errors a device returns. Callers branch on them with errors.Is.
var (
	// ErrDisconnected is returned by Read or Write when the device has gone
	// away (cable pulled, port closed, emulator stopped). The caller puts
	// the finger in its safe state and may reopen the device later.
	ErrDisconnected = errors.New("devices: device disconnected")
	// ErrTimeout is returned when no fresh data arrived within the read
	// budget. The previous state is still in dst, marked stale.
	ErrTimeout = errors.New("devices: timeout")
	// ErrDisabled is returned by Write while the device is disabled.
	ErrDisabled = errors.New("devices: device disabled")
)

// Transport names how a device is reached.
type Transport string

const (
	TransportSim    Transport = "sim"
	TransportSerial Transport = "serial"
	TransportHID    Transport = "hid"
	TransportReplay Transport = "replay"
)

// ExoSpec is the capability record of a fingertip exoskeleton. Every field
// carries its unit; limits that depend on the loop rate assume 1 kHz.
type ExoSpec struct {
	Model        string
	Serial       string
	Transport    Transport
	DoF          int           // actuated joints (3 for the fingertip exoskeleton)
	JointMin     [3]float64    // joint limits [rad]
	JointMax     [3]float64    // [rad]
	MaxTorque    [3]float64    // peak joint torque [N·m]
	MaxForceCont float64       // maximum continuous fingertip force [N]
	MaxForcePeak float64       // maximum peak fingertip force [N]
	ForceRes     float64       // force sensor resolution [N]
	EncoderRes   float64       // encoder resolution at the joint [rad]
	MaxStiffness float64       // maximum renderable stiffness at 1 kHz [N/m]
	SamplePeriod time.Duration // the device's own update period
	Firmware     string        // firmware version, "major.minor.patch"; empty for simulated devices
}

// ExoState is one sample of a fingertip exoskeleton.
type ExoState struct {
	DeviceTime time.Duration // the device's own timestamp
	Seq        uint32        // device sequence number; wraps
	Joint      [3]float64    // joint positions [rad]
	Force      [3]float64    // fingertip force sensor, sensor frame [N]
	Enabled    bool          // the device's motor power stage is on
	Fault      uint32        // device fault bits, 0 when healthy
	Stale      bool          // no new sample since the previous Read
	AckSeq     uint32        // Seq of the newest ExoCommand the device has applied (0: none yet)
	// Confirm says who, if anyone, has confirmed the safe state the host
	// asked for: ConfirmNone while the host wants the power stage on.
	Confirm Confirm
}

// Confirm is how far the safe state the host asked for (the power stage
// off: Enable(false), or a new session, which starts off) has been
// confirmed. The host's recorded state "safe, commanded" is
// ConfirmPending or ConfirmSilenced; "safe, confirmed by the device" is
// ConfirmDevice or ConfirmWatchdog.
//
// A protocol link (devices/link) repeats ENABLE 0 until a STATE reports
// the stage off; if none does within its confirmation bound (at most
// 10 ms) it stops sending anything, so that the device's own watchdog
// cuts the motors within the device's watchdog_ms. A simulated device
// confirms at once. A STATE that reports the stage on while the host
// wants it off takes a confirmed state back to ConfirmPending.
type Confirm uint8

const (
	// ConfirmNone: the host wants the power stage on; nothing to confirm.
	ConfirmNone Confirm = iota
	// ConfirmPending: asked off, not yet confirmed, within the bound; the
	// host is repeating the request.
	ConfirmPending
	// ConfirmDevice: a sample taken after the request reports the stage
	// off.
	ConfirmDevice
	// ConfirmSilenced: the device did not confirm within the bound; the
	// host has fallen silent so that the device's watchdog cuts the
	// motors. The device is not trusted again in this session.
	ConfirmSilenced
	// ConfirmWatchdog: after ConfirmSilenced the device reported the stage
	// off (its watchdog tripped): confirmed by the watchdog.
	ConfirmWatchdog
)

// Confirmed reports whether the device (or its watchdog) has confirmed
// the stage off.
func (c Confirm) Confirmed() bool { return c == ConfirmDevice || c == ConfirmWatchdog }

func (c Confirm) String() string {
	switch c {
	case ConfirmNone:
		return "none"
	case ConfirmPending:
		return "pending"
	case ConfirmDevice:
		return "device"
	case ConfirmSilenced:
		return "silenced"
	case ConfirmWatchdog:
		return "watchdog"
	}
	return "confirm(" + strconv.Itoa(int(c)) + ")"
}

// ExoCommand is one command to a fingertip exoskeleton.
type ExoCommand struct {
	Seq    uint32
	Torque [3]float64 // joint torque commands at the joint output [N·m]
}

// Exoskeleton is one fingertip exoskeleton.
//
// Read fills dst with the newest sample and never retains dst. Write sends
// one command and never retains cmd. Read and Write are called from the
// haptics loop only, never concurrently with each other; Close may be called
// from any goroutine. After ErrDisconnected every call returns
// ErrDisconnected until the device is reopened.
type Exoskeleton interface {
	Spec() ExoSpec
	Read(dst *ExoState) error
	Write(cmd *ExoCommand) error
	// Enable turns the motor power stage on or off. A disabled device
	// produces no torque whatever it is commanded. Enable is called from
	// the haptics loop and must not wait for the device: samples already
	// on their way may still report the stage as it was (the servo allows
	// for that).
	Enable(on bool) error
	Close() error
}

// Pins is the number of pins of a tactile array (6 x 4).
const (
	PinRows = 6
	PinCols = 4
	Pins    = PinRows * PinCols
)

// TactileSpec is the capability record of a vibrotactile pin array.
type TactileSpec struct {
	Model     string
	Serial    string
	Transport Transport
	Rows      int     // pins along the finger's distal axis
	Cols      int     // pins across the finger
	PitchM    float64 // pin spacing [m]
	MaxA40Um  float64 // maximum amplitude at 40 Hz [µm peak]
	MaxA320Um float64 // maximum amplitude at 320 Hz [µm peak]
	Waveform  bool    // takes sampled waveforms rather than amplitude frames
	Measures  bool    // measures what its pins deliver and says so (DeliveryReader)

	FramePeriod time.Duration // the frame period the array is built for (25 ms for HAPTEX arrays)
	Firmware    string        // firmware version, "major.minor.patch"; empty for simulated devices
}

// TactileFrame is one frame of per-pin amplitudes, pin index = row*Cols+col,
// row 0 at the fingertip's distal end.
type TactileFrame struct {
	Seq    uint32
	A40Um  [Pins]float64 // amplitude at 40 Hz [µm peak]
	A320Um [Pins]float64 // amplitude at 320 Hz [µm peak]
}

// TactileArray is one 24-pin vibrotactile array. WriteFrame never retains f.
type TactileArray interface {
	Spec() TactileSpec
	WriteFrame(f *TactileFrame) error
	Close() error
}

// TactileStatus is the newest status report of a tactile array.
type TactileStatus struct {
	DeviceTime time.Duration // the device's own timestamp of the report
	Seq        uint32        // device sequence number; wraps
	AckSeq     uint32        // Seq of the newest TactileFrame the array has applied (0: none yet)
	Active     bool          // the output stage is driving the pins
	Clamped    bool          // the newest frame exceeded the amplitude limits and was clamped
	Fault      uint32        // device fault bits, 0 when healthy
	Stale      bool          // no new report since the previous Status
}

// StatusReader is implemented by tactile arrays that report their status.
// The rig finds it by type assertion once at setup. Status never blocks and
// never retains dst; it returns ErrDisconnected like Exoskeleton.Read.
type StatusReader interface {
	Status(dst *TactileStatus) error
}

// DeliveryReader is implemented by tactile arrays that can tell what their
// pins delivered: the simulated array (its vibrometer view) and an array
// that measures its pins and reports it over the device protocol. The rig
// finds it by type assertion once at setup. Delivered writes into dst
// each pin's amplitudes at 40 and 320 Hz [µm peak] over the newest frame
// period, dst.Seq the frame (its TactileFrame.Seq) applied when that
// period ended; it reports false, leaving dst alone, when it has no
// measurement to give (the array does not measure its pins, or its
// measurements stopped coming). It never blocks and never retains dst.
type DeliveryReader interface {
	Delivered(dst *TactileFrame) bool
}

// Clocked is implemented by simulated devices whose physics advances on the
// run's clock (real or virtual). The rig finds it by type assertion once at
// setup and calls Advance from the haptics loop before Read, with the same
// explicit time the loop's Step received.
type Clocked interface {
	Advance(t time.Duration)
}

// Kinematic is implemented by exoskeletons that carry their kinematic
// model: the simulated twin, a device opened from a devices file (whose
// entry names its model and base), a recorded device played back. The rig
// finds it by type assertion once at setup and gives both to the servo,
// which turns every sample's joint angles into the fingertip's position and
// the sensor's force into the world frame with them.
//
// Kinematics returns the model from the joint angles [rad] to the pad
// (devices/exo; lengths [m]). The device owns it; it is immutable and safe
// for concurrent use, so the caller may keep it while it uses the device.
// It is nil when the device does not know its model after all (a
// recording made without one): the caller then has none. Base returns the
// pose of the device's base in the world frame [m]. Both are fixed once the
// device is open, and may be called from any goroutine.
type Kinematic interface {
	Kinematics() *exo.Model
	Base() exo.Pose
}

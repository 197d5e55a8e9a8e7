package emu

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/transport"
	"github.com/haptex/haptex/devices/wire"
)

// DeviceConfig describes one emulated device as it announces itself.
type DeviceConfig struct {
	Name       string    // port name, e.g. "thumb-exo"
	Kind       wire.Kind // wire.KindExo or wire.KindTactile
	Model      string    // CAPS model; defaults to the backend's Spec().Model
	Serial     string    // CAPS serial; defaults to the backend's Spec().Serial
	Firmware   uint32    // major<<16 | minor<<8 | patch
	PeriodUs   uint32    // longest gap between device frames; default 1000 (exo), 2000 (tactile)
	WatchdogMs uint32    // default 50 (exo), 100 (tactile)
	// Unmeasured makes a tactile array announce measures = 0 and send no
	// TACTILE_MEASURED, as an array without pickups on its pins (or one
	// of protocol 1.0) does. Otherwise an array whose backend can tell
	// what its pins deliver (devices.DeliveryReader) reports it.
	Unmeasured bool
}

// DeviceStats counts what an emulated device saw and did.
type DeviceStats struct {
	Decode      wire.DecodeStats  `json:"decode"`
	Accepted    uint64            `json:"accepted"`     // host frames acted on
	SeqDropped  uint64            `json:"seq_dropped"`  // duplicate or out-of-order host frames dropped
	SeqLost     uint64            `json:"seq_lost"`     // gaps in the host's sequence
	Sent        uint64            `json:"sent"`         // frames written
	SendDropped uint64            `json:"send_dropped"` // frames the link could not take (host not reading)
	Errors      map[string]uint64 `json:"errors,omitempty"`
}

// Device is the device side of the protocol around a backend: an
// emulated exoskeleton or tactile array. Its methods are safe for
// concurrent use.
type Device struct {
	cfg   DeviceConfig
	clock func() time.Duration

	exo      devices.Exoskeleton
	tac      devices.TactileArray
	meas     devices.DeliveryReader // nil: the array does not measure its pins
	backendC devices.Clocked        // nil when the backend keeps its own time
	skipper  skipper                // nil when the backend cannot skip (then it bounds its own catch-up)
	exoSpec  devices.ExoSpec
	tacSpec  devices.TactileSpec

	mu        sync.Mutex
	conn      transport.Conn
	dec       wire.Decoder
	enc       wire.Encoder
	ready     bool
	seq       uint32
	hostSeq   uint32
	lastHost  time.Duration
	lastSent  time.Duration
	enabled   bool
	watchdog  bool
	hosted    bool   // a host opened a session since the device started (the watchdog runs from then on, link or not)
	fault     uint32 // latched fault bits
	condition uint32 // fault conditions present now (SetCondition)
	ackSeq    uint32
	ackTag    uint32
	applied   [3]float64
	saturated bool
	wear      float64            // the fraction of its limits a tactile array's drive reaches (0: all)
	dead      [devices.Pins]bool // a tactile array's pins that do not move (SetDeadPins)
	errAt     [16]time.Duration
	errCount  [16]uint64
	stats     DeviceStats
	advanced  time.Duration // the time the backend was last advanced to
	on        bool          // the backend has been advanced
	stalls    Stalls

	hello    wire.Hello
	cmd      wire.Command
	en       wire.Enable
	fr       wire.TactileFrame
	st       wire.State
	ts       wire.TactileStatus
	tm       wire.TactileMeasured
	measured devices.TactileFrame
	er       wire.ErrorReport
	exoState devices.ExoState
	exoCmd   devices.ExoCommand
	tacFrame devices.TactileFrame

	onCommand func(seq uint32, c *wire.Command)
	onFrame   func(seq uint32, f *wire.TactileFrame)
	onPower   func(on bool, cause string)
	onHost    func(now time.Duration, hello bool) // the emulator's: every host frame
}

// withBackend runs fn under the device's lock with the backend advanced to
// the device's clock, now: how the emulator's stands reach the device.
func (d *Device) withBackend(fn func(now time.Duration) error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.clock()
	d.advance(now)
	return fn(now)
}

// OnPower sets a function called, under the device's lock, whenever the
// exoskeleton's power stage switches, with what switched it ("enable",
// "disable", "hello", "watchdog", "fault"); tests time the safe state at
// the device with it.
func (d *Device) OnPower(fn func(on bool, cause string)) {
	d.mu.Lock()
	d.onPower = fn
	d.mu.Unlock()
}

// SetDeadPins makes a tactile array's pins in pins stand still whatever
// they are sent, as a broken contactor or a torn lead does: the array's
// status says nothing of it, its measurement shows it. An empty list
// revives them all.
func (d *Device) SetDeadPins(pins []int) error {
	if d.tac == nil {
		return errors.New("emu: dead pins are a tactile array's; this is an exoskeleton")
	}
	var dead [devices.Pins]bool
	for _, p := range pins {
		if p < 0 || p >= devices.Pins {
			return fmt.Errorf("emu: pin %d: the array's pins are 0..%d", p, devices.Pins-1)
		}
		dead[p] = true
	}
	d.mu.Lock()
	d.dead = dead
	d.mu.Unlock()
	return nil
}

// SetCondition sets the fault conditions present now (wire.Fault* bits,
// 0 when healthy), as a pressed emergency stop or a hot driver would. A
// condition latches its fault bit and cuts the power stage at once; the
// bit stays set until the next HELLO after the condition has gone.
func (d *Device) SetCondition(bits uint32) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.condition = bits
	d.latch()
}

// SetWear makes a tactile array's drive reach only fraction (0..1] of the
// amplitude limits its CAPS_TACTILE gives, as a worn actuator or a weak
// supply does: above it the array clips, and its TACTILE_STATUS says so
// (clamped). 1 is an array as new.
func (d *Device) SetWear(fraction float64) error {
	if !(fraction > 0 && fraction <= 1) {
		return fmt.Errorf("emu: wear %g: want a fraction of the limits in (0, 1]", fraction)
	}
	if d.exo != nil {
		return errors.New("emu: wear is a tactile array's; this is an exoskeleton")
	}
	d.mu.Lock()
	d.wear = fraction
	d.mu.Unlock()
	return nil
}

// latch adds the present conditions to the fault bits and cuts the stage
// on any fault.
func (d *Device) latch() {
	d.fault |= d.condition
	if d.fault != 0 && d.enabled && d.exo != nil {
		d.setEnabled(false, "fault")
	}
}

// OnCommand sets a function called, under the device's lock, with every
// COMMAND the device acts on; tests use it to check that nothing else is
// ever applied.
func (d *Device) OnCommand(fn func(seq uint32, c *wire.Command)) {
	d.mu.Lock()
	d.onCommand = fn
	d.mu.Unlock()
}

// OnFrame is OnCommand for TACTILE_FRAME.
func (d *Device) OnFrame(fn func(seq uint32, f *wire.TactileFrame)) {
	d.mu.Lock()
	d.onFrame = fn
	d.mu.Unlock()
}

// MaxCatchUp is the most device time one call integrates: firmware
// computes each control period within it, and an emulator that was held
// longer (a stopped or overloaded machine) would otherwise compute all it
// owes at once, holding its lines the while and falling further behind
// each time. A backend that can skip (twin.Exo.Skip) stands still for the
// rest, and the device counts the stall (Device.Stalls). It is the host's
// default silence limit (haptics safety.silent_ms): a device held longer
// has failed its host already, and catching up more would only hold its
// lines longer; a shorter hold is integrated as it happened.
const MaxCatchUp = 5 * time.Millisecond

// skipper is a clocked backend whose clock can jump without integrating.
type skipper interface {
	Skip(t time.Duration)
}

// Stalls counts the times an emulated device's physics skipped time it
// was owed beyond MaxCatchUp.
type Stalls struct {
	Count   uint64
	Longest time.Duration // the longest span skipped
}

// Stalls returns the device's physics stalls so far.
func (d *Device) Stalls() Stalls {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.stalls
}

// NewExoDevice wraps an exoskeleton backend. clock is the device's
// monotonic clock (the emulator's); if backend implements devices.Clocked
// it is advanced to clock() before every sample.
func NewExoDevice(cfg DeviceConfig, backend devices.Exoskeleton, clock func() time.Duration) *Device {
	cfg.Kind = wire.KindExo
	d := &Device{cfg: cfg, clock: clock, exo: backend, exoSpec: backend.Spec()}
	d.backendC, _ = backend.(devices.Clocked)
	d.skipper, _ = backend.(skipper)
	d.defaults(1000, 50, d.exoSpec.Model, d.exoSpec.Serial)
	return d
}

// NewTactileDevice wraps a tactile array backend.
func NewTactileDevice(cfg DeviceConfig, backend devices.TactileArray, clock func() time.Duration) *Device {
	cfg.Kind = wire.KindTactile
	d := &Device{cfg: cfg, clock: clock, tac: backend, tacSpec: backend.Spec()}
	d.backendC, _ = backend.(devices.Clocked)
	if !cfg.Unmeasured {
		d.meas, _ = backend.(devices.DeliveryReader)
	}
	d.defaults(2000, 100, d.tacSpec.Model, d.tacSpec.Serial)
	return d
}

func (d *Device) defaults(period, watchdog uint32, model, serial string) {
	if d.cfg.PeriodUs == 0 {
		d.cfg.PeriodUs = period
	}
	if d.cfg.WatchdogMs == 0 {
		d.cfg.WatchdogMs = watchdog
	}
	if d.cfg.Model == "" {
		d.cfg.Model = model
	}
	if d.cfg.Serial == "" {
		d.cfg.Serial = serial
	}
	if d.cfg.Firmware == 0 {
		d.cfg.Firmware = 1 << 16
	}
}

// Connect makes conn the device's line, in place of any other; the caller
// reads conn and feeds the device what arrives (Receive), as the
// emulator's loop does (devices/emu/emutest.Serve reads a line in a
// goroutine of its own).
func (d *Device) Connect(conn transport.Conn) {
	d.mu.Lock()
	d.conn = conn
	d.ready = false
	d.dec.Reset()
	d.mu.Unlock()
}

// attachedTo reports whether conn is the device's line.
func (d *Device) attachedTo(conn transport.Conn) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.conn == conn
}

// Detach stops serving the current connection (it does not close it).
func (d *Device) Detach() {
	d.mu.Lock()
	d.conn = nil
	d.ready = false
	d.mu.Unlock()
}

// Stats returns the device's counters.
func (d *Device) Stats() DeviceStats {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.stats
	s.Decode = d.dec.Stats
	for _, c := range wire.Codes {
		if n := d.errCount[int(c.Code)%16]; n > 0 {
			if s.Errors == nil {
				s.Errors = map[string]uint64{}
			}
			s.Errors[c.Name] = n
		}
	}
	return s
}

// Receive acts on bytes read from conn (or on the read's error) and
// reports whether conn is still the device's line: a read error detaches
// it.
func (d *Device) Receive(conn transport.Conn, p []byte, err error) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.conn != conn {
		return false
	}
	if err != nil {
		d.conn, d.ready = nil, false
		return false
	}
	now := d.clock()
	for len(p) > 0 {
		k, f, ferr := d.dec.Decode(p)
		p = p[k:]
		switch {
		case f != nil:
			d.handle(f, now)
		case ferr == wire.ErrCRC:
			d.sendError(wire.CodeCRC, 0, 0, int32(d.dec.Stats.CRC), now)
		case ferr != nil:
			d.sendError(wire.CodeFraming, 0, 0, int32(d.dec.Stats.Corrupt()-d.dec.Stats.CRC), now)
		}
	}
	return true
}

// Tick runs the device's periodic duties at time now: the watchdog and
// the frames it owes the host when nothing else was sent for a period.
// An exoskeleton's physics runs on with or without a host: a backend
// left idle integrated all the time it missed at the next HELLO (16-63 ms
// of computing for each second on this machine), and the devices' loop
// fell silent that long. The watchdog runs whether the link is up or not
// (an unplugged device's stage went on with its last torque until the
// next HELLO, a second later): watchdog_ms is the device's promise that
// it is never powered longer than that after the host fell silent
// (docs/protocol.md §6.2); only the report needs the link.
func (d *Device) Tick(now time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.exo != nil {
		d.advance(now)
	}
	if !d.hosted {
		return
	}
	silent := now - d.lastHost
	if silent > time.Duration(d.cfg.WatchdogMs)*time.Millisecond {
		if d.exo != nil && d.enabled {
			d.setEnabled(false, "watchdog")
			d.watchdog = true
			d.sendError(wire.CodeWatchdog, 0, 0, int32(silent/time.Millisecond), now)
		}
		if d.tac != nil && !d.watchdog {
			d.silence()
			d.watchdog = true
			d.sendError(wire.CodeWatchdog, 0, 0, int32(silent/time.Millisecond), now)
		}
	}
	if d.conn == nil || !d.ready {
		return
	}
	if now-d.lastSent >= time.Duration(d.cfg.PeriodUs)*time.Microsecond {
		d.sendSample(now)
	}
}

func (d *Device) handle(f *wire.Frame, now time.Duration) {
	if d.onHost != nil {
		d.onHost(now, f.Type == wire.TypeHello)
	}
	if f.Type == wire.TypeHello {
		if d.hello.Parse(f.Body) != nil {
			return
		}
		if d.hello.Major != wire.Major {
			// Outside a session: the error goes out with seq 0, and the
			// device stays out of session (the host hangs up).
			d.ready = false
			if d.exo != nil && d.enabled {
				d.setEnabled(false, "hello")
			}
			d.sendSessionless(wire.CodeVersion, f.Type, f.Seq, wire.Major, now)
			return
		}
		d.startSession(f.Seq, now)
		return
	}
	if !d.ready {
		d.sendSessionless(wire.CodeNotReady, f.Type, f.Seq, 0, now)
		return
	}
	if !wire.SeqAfter(f.Seq, d.hostSeq) {
		d.stats.SeqDropped++
		d.sendError(wire.CodeSequence, f.Type, f.Seq, int32(d.hostSeq), now)
		return
	}
	d.stats.SeqLost += uint64(f.Seq - d.hostSeq - 1)
	if f.Seq < d.hostSeq {
		d.stats.SeqLost--
	}
	d.hostSeq = f.Seq
	d.lastHost = now
	switch {
	case f.Type == wire.TypeHeartbeat:
		d.stats.Accepted++
	case f.Type == wire.TypeCommand && d.exo != nil:
		if d.parse(&d.cmd, f, now) {
			d.command(f.Seq, now)
		}
	case f.Type == wire.TypeEnable && d.exo != nil:
		if d.parse(&d.en, f, now) {
			d.enable(f, now)
		}
	case f.Type == wire.TypeTactileFrame && d.tac != nil:
		if d.parse(&d.fr, f, now) {
			d.frame(f.Seq, now)
		}
	default:
		d.sendError(wire.CodeUnknownType, f.Type, f.Seq, 0, now)
	}
}

func (d *Device) parse(m interface{ Parse([]byte) error }, f *wire.Frame, now time.Duration) bool {
	if err := m.Parse(f.Body); err != nil {
		code, v := wire.CodeRange, int32(0)
		if pe, ok := err.(*wire.ParseError); ok {
			v = int32(pe.Value)
			if pe.Field == "body_len" {
				code = wire.CodeLength
			}
		}
		d.sendError(code, f.Type, f.Seq, v, now)
		return false
	}
	d.stats.Accepted++
	return true
}

func (d *Device) startSession(seq uint32, now time.Duration) {
	d.ready, d.hosted = true, true
	d.hostSeq = seq
	d.lastHost = now
	d.seq = 0
	d.ackSeq, d.ackTag = 0, 0
	d.errAt = [16]time.Duration{}
	d.watchdog = false
	d.fault = d.condition // a HELLO clears the latched bits whose condition has gone
	if d.exo != nil {
		d.setEnabled(false, "hello")
		c := wire.CapsExo{Caps: d.caps(wire.KindExo), DoF: uint8(d.exoSpec.DoF)}
		sp := &d.exoSpec
		for i := range 3 {
			c.JointMinURad[i] = int32(math.Round(sp.JointMin[i] * 1e6))
			c.JointMaxURad[i] = int32(math.Round(sp.JointMax[i] * 1e6))
			c.MaxTorqueUNm[i] = uint32(math.Round(sp.MaxTorque[i] * 1e6))
		}
		c.MaxForceContMN = uint32(math.Round(sp.MaxForceCont * 1e3))
		c.MaxForcePeakMN = uint32(math.Round(sp.MaxForcePeak * 1e3))
		c.ForceResUN = uint32(math.Round(sp.ForceRes * 1e6))
		c.EncoderResNRad = uint32(math.Round(sp.EncoderRes * 1e9))
		c.MaxStiffnessNPerM = uint32(math.Round(sp.MaxStiffness))
		d.send(&c, now)
		return
	}
	d.silence()
	c := wire.CapsTactile{Caps: d.caps(wire.KindTactile), Rows: uint8(d.tacSpec.Rows), Cols: uint8(d.tacSpec.Cols)}
	sp := &d.tacSpec
	c.PitchUm = uint32(math.Round(sp.PitchM * 1e6))
	c.MaxA40Nm = uint32(math.Round(sp.MaxA40Um * 1e3))
	c.MaxA320Nm = uint32(math.Round(sp.MaxA320Um * 1e3))
	c.FramePeriodUs = uint32(sp.FramePeriod / time.Microsecond)
	if c.FramePeriodUs == 0 {
		c.FramePeriodUs = 25000 // a backend that does not say: the HAPTEX frame
	}
	if sp.Waveform {
		c.Waveform = 1
	}
	if d.meas != nil {
		c.Measures = 1
	}
	d.send(&c, now)
}

func (d *Device) caps(k wire.Kind) wire.Caps {
	c := wire.Caps{Major: wire.Major, Minor: wire.Minor, Kind: k, Nonce: d.hello.Nonce,
		Firmware: d.cfg.Firmware, PeriodUs: d.cfg.PeriodUs, WatchdogMs: d.cfg.WatchdogMs}
	wire.SetText(c.Model[:], d.cfg.Model)
	wire.SetText(c.Serial[:], d.cfg.Serial)
	return c
}

func (d *Device) advance(now time.Duration) {
	if d.backendC == nil {
		return
	}
	if owed := now - d.advanced; owed > MaxCatchUp && d.skipper != nil {
		d.skipper.Skip(now - MaxCatchUp)
		// The first call only starts the device's clock where its own
		// clock is: it is switched on then.
		if d.on {
			d.stalls.Count++
			d.stalls.Longest = max(d.stalls.Longest, owed-MaxCatchUp)
		}
	}
	d.backendC.Advance(now)
	d.advanced, d.on = max(d.advanced, now), true
}

// setEnabled switches the power stage. Off means no motor current at
// all: the joints free-wheel against the drive's friction, and the held
// command is forgotten, so that ENABLE 1 starts from zero torque until
// the next COMMAND.
func (d *Device) setEnabled(on bool, cause string) {
	changed := d.enabled != on
	d.enabled = on
	_ = d.exo.Enable(on)
	if !on {
		d.applied = [3]float64{}
	}
	if changed && d.onPower != nil {
		d.onPower(on, cause)
	}
}

func (d *Device) command(seq uint32, now time.Duration) {
	d.advance(now)
	d.saturated = false
	for i := range 3 {
		t := float64(d.cmd.TorqueUNm[i]) / 1e6
		if lim := d.exoSpec.MaxTorque[i]; math.Abs(t) > lim {
			t = math.Copysign(lim, t)
			d.saturated = true
		}
		d.exoCmd.Torque[i] = t
	}
	d.exoCmd.Seq = d.cmd.Tag
	d.ackSeq, d.ackTag = seq, d.cmd.Tag
	if d.enabled && d.exo.Write(&d.exoCmd) == nil {
		d.applied = d.exoCmd.Torque
	} else {
		d.applied = [3]float64{}
	}
	if d.onCommand != nil {
		d.onCommand(seq, &d.cmd)
	}
	d.sendSample(now)
}

func (d *Device) enable(f *wire.Frame, now time.Duration) {
	d.advance(now)
	if d.en.On == 1 {
		if d.fault != 0 {
			d.sendError(wire.CodeEnableRefused, f.Type, f.Seq, int32(d.fault), now)
		} else {
			d.setEnabled(true, "enable")
			d.watchdog = false
		}
	} else {
		d.setEnabled(false, "disable")
	}
	d.sendSample(now)
}

func (d *Device) frame(seq uint32, now time.Duration) {
	d.advance(now)
	// What the pins did over the frame period before this frame: the
	// previous frame's play, sent once the frame is answered. A host of
	// protocol 1.0 does not know the message, and is not sent it.
	measure := d.meas != nil && d.hello.Minor >= 1 && d.meas.Delivered(&d.measured)
	if measure {
		for i := range devices.Pins {
			d.tm.A40Nm[i] = wire.Nanometres(d.measured.A40Um[i])
			d.tm.A320Nm[i] = wire.Nanometres(d.measured.A320Um[i])
		}
		d.tm.AckSeq, d.tm.AckTag = d.ackSeq, d.ackTag
	}
	for i := range devices.Pins {
		d.tacFrame.A40Um[i] = float64(d.fr.A40Nm[i]) / 1e3
		d.tacFrame.A320Um[i] = float64(d.fr.A320Nm[i]) / 1e3
	}
	d.tacFrame.Seq = d.fr.Tag
	d.saturated = false
	max40, max320 := d.tacSpec.MaxA40Um, d.tacSpec.MaxA320Um
	if d.wear > 0 {
		max40, max320 = d.wear*max40, d.wear*max320
	}
	for i := range devices.Pins {
		a40, a320 := &d.tacFrame.A40Um[i], &d.tacFrame.A320Um[i]
		if *a40 > max40 || *a320 > max320 {
			d.saturated = true
			*a40, *a320 = min(*a40, max40), min(*a320, max320)
		}
	}
	for i, dead := range d.dead {
		if dead {
			d.tacFrame.A40Um[i], d.tacFrame.A320Um[i] = 0, 0
		}
	}
	_ = d.tac.WriteFrame(&d.tacFrame)
	d.watchdog = false
	d.ackSeq, d.ackTag = seq, d.fr.Tag
	if d.onFrame != nil {
		d.onFrame(seq, &d.fr)
	}
	d.sendSample(now)
	if measure {
		d.send(&d.tm, now)
	}
}

func (d *Device) silence() {
	d.tacFrame = devices.TactileFrame{}
	_ = d.tac.WriteFrame(&d.tacFrame)
}

// sendSample sends STATE (exoskeleton) or TACTILE_STATUS (array).
func (d *Device) sendSample(now time.Duration) {
	d.advance(now)
	if d.exo != nil {
		if err := d.exo.Read(&d.exoState); err != nil {
			d.fault |= wire.FaultEncoder
			d.latch()
		}
		s := &d.st
		for i := range 3 {
			s.JointURad[i] = int32(math.Round(d.exoState.Joint[i] * 1e6))
			s.ForceUN[i] = int32(math.Round(d.exoState.Force[i] * 1e6))
			s.TorqueUNm[i] = int32(math.Round(d.applied[i] * 1e6))
		}
		s.Status = 0
		if d.enabled {
			s.Status |= wire.StateEnabled
		}
		if d.saturated {
			s.Status |= wire.StateSaturated
		}
		if d.watchdog {
			s.Status |= wire.StateWatchdog
		}
		for i := range 3 {
			if d.exoState.Joint[i] <= d.exoSpec.JointMin[i] || d.exoState.Joint[i] >= d.exoSpec.JointMax[i] {
				s.Status |= wire.StateAtLimit
			}
		}
		s.Fault, s.AckSeq, s.AckTag = d.fault, d.ackSeq, d.ackTag
		d.send(s, now)
		return
	}
	s := &d.ts
	s.Status = 0
	if !d.watchdog {
		s.Status |= wire.TactileActive
	}
	if d.saturated {
		s.Status |= wire.TactileClamped
	}
	if d.watchdog {
		s.Status |= wire.TactileWatchdog
	}
	s.Fault, s.AckSeq, s.AckTag = d.fault, d.ackSeq, d.ackTag
	d.send(s, now)
}

// sendSessionless sends ERROR 5 or 8 outside a session: with seq 0 (no
// session numbers it), rate-limited like every ERROR.
func (d *Device) sendSessionless(code wire.ErrorCode, ref wire.Type, refSeq uint32, value int32, now time.Duration) {
	d.errCount[int(code)%16]++
	if d.conn == nil {
		return
	}
	if at := d.errAt[int(code)%16]; at != 0 && now-at < 10*time.Millisecond {
		return
	}
	d.errAt[int(code)%16] = now
	d.er = wire.ErrorReport{Code: code, RefType: ref, RefSeq: refSeq, Value: value}
	if _, err := d.conn.Write(d.enc.Encode(&d.er, 0, uint64(now/time.Microsecond))); err != nil {
		d.stats.SendDropped++
		return
	}
	d.stats.Sent++
}

// sendError sends ERROR, at most once per code per 10 ms.
func (d *Device) sendError(code wire.ErrorCode, ref wire.Type, refSeq uint32, value int32, now time.Duration) {
	d.errCount[int(code)%16]++
	if !d.ready || d.conn == nil {
		return
	}
	if at := d.errAt[int(code)%16]; at != 0 && now-at < 10*time.Millisecond {
		return
	}
	d.errAt[int(code)%16] = now
	d.er = wire.ErrorReport{Code: code, RefType: ref, RefSeq: refSeq, Value: value}
	d.send(&d.er, now)
}

func (d *Device) send(b wire.Body, now time.Duration) {
	if d.conn == nil {
		return
	}
	d.seq = wire.NextSeq(d.seq)
	frame := d.enc.Encode(b, d.seq, uint64(now/time.Microsecond))
	d.lastSent = now
	if _, err := d.conn.Write(frame); err != nil {
		d.stats.SendDropped++
		if k := transport.KindOf(err); k == transport.Gone || k == transport.Closed {
			d.conn, d.ready = nil, false
		}
		return
	}
	d.stats.Sent++
}

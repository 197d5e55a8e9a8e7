package link

import (
	"fmt"
	"math"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/transport"
	"github.com/haptex/haptex/devices/wire"
)

// Exo is a fingertip exoskeleton reached over the protocol. It implements
// devices.Exoskeleton.
type Exo struct {
	s       *session
	spec    devices.ExoSpec
	cmd     wire.Command
	en      wire.Enable
	enabled bool // requested by the host
}

var _ devices.Exoskeleton = (*Exo)(nil)

// KindError reports a device of another kind than the one asked for.
type KindError struct {
	Port      string
	Want, Got wire.Kind
	Model     string
}

func (e *KindError) Error() string {
	return fmt.Sprintf("link: %s is %s (%q), not %s", e.Port, article(e.Got), e.Model, article(e.Want))
}

func article(k wire.Kind) string {
	switch k {
	case wire.KindExo:
		return "an exoskeleton"
	case wire.KindTactile:
		return "a tactile array"
	}
	return "a device of " + k.String()
}

// DialExo runs the handshake over conn and returns the exoskeleton behind
// it. The device starts disabled. On error conn is closed.
func DialExo(conn transport.Conn, opt Options) (*Exo, error) {
	s, err := dial(conn, opt, wire.KindExo)
	if err != nil {
		return nil, err
	}
	if s.kind != wire.KindExo {
		s.close()
		return nil, &KindError{Port: conn.Name(), Want: wire.KindExo, Got: s.kind, Model: wire.GetText(s.capsTactile.Model[:])}
	}
	return &Exo{s: s, spec: ExoSpec(&s.capsExo, opt.Transport)}, nil
}

// ExoSpec converts a CAPS_EXO into the capability record.
func ExoSpec(c *wire.CapsExo, tr devices.Transport) devices.ExoSpec {
	sp := devices.ExoSpec{
		Model:        wire.GetText(c.Model[:]),
		Serial:       wire.GetText(c.Serial[:]),
		Transport:    tr,
		DoF:          int(c.DoF),
		MaxForceCont: float64(c.MaxForceContMN) / 1e3,
		MaxForcePeak: float64(c.MaxForcePeakMN) / 1e3,
		ForceRes:     float64(c.ForceResUN) / 1e6,
		EncoderRes:   float64(c.EncoderResNRad) / 1e9,
		MaxStiffness: float64(c.MaxStiffnessNPerM),
		SamplePeriod: time.Duration(c.PeriodUs) * time.Microsecond,
		Firmware:     c.FirmwareString(),
	}
	for i := range 3 {
		sp.JointMin[i] = float64(c.JointMinURad[i]) / 1e6
		sp.JointMax[i] = float64(c.JointMaxURad[i]) / 1e6
		sp.MaxTorque[i] = float64(c.MaxTorqueUNm[i]) / 1e6
	}
	return sp
}

// Spec returns the capabilities the device announced.
func (x *Exo) Spec() devices.ExoSpec { return x.spec }

// Read copies the newest sample into dst without waiting for the port.
// Stale is set when no sample arrived since the previous Read; the error is
// devices.ErrTimeout when the newest sample is older than the stale limit,
// and a *LostError (devices.ErrDisconnected) once the device is lost.
func (x *Exo) Read(dst *devices.ExoState) error {
	s := x.s
	now := s.now()
	s.loopAt.Store(now)
	s.poll()
	if err := s.check(now); err != nil {
		return err
	}
	s.tendOff(now)
	smp, seq := s.stateRead.Read()
	fresh := seq != s.lastState
	s.lastState = seq
	*dst = smp.st
	dst.Stale = !fresh
	dst.Confirm = sampleConfirm(dst.Enabled, s.confirmState())
	if !s.silent() {
		s.keepAlive(now)
	}
	if !fresh && time.Duration(now-smp.arrival) > s.stale {
		return devices.ErrTimeout
	}
	return nil
}

// TorqueError reports a command that was not finite; the link sent zero
// torque instead.
type TorqueError struct {
	Joint int
	Value float64
}

func (e *TorqueError) Error() string {
	return fmt.Sprintf("link: torque[%d] = %v is not finite; sent zero torque", e.Joint, e.Value)
}

// microUnits converts an SI value to the wire's micro-units, rounding to
// nearest and saturating.
func microUnits(v float64) int32 {
	return int32(max(math.MinInt32, min(math.MaxInt32, math.Round(v*1e6))))
}

// Write sends cmd. It returns devices.ErrDisabled (sending nothing) before
// Enable(true), and a *TorqueError after sending zero torque when a torque
// is NaN or infinite. cmd.Seq travels as the COMMAND's tag and comes back
// in ExoState.AckSeq.
func (x *Exo) Write(cmd *devices.ExoCommand) error {
	if le := x.s.lost.Load(); le != nil {
		return le
	}
	x.s.loopAt.Store(x.s.now())
	if !x.enabled {
		return devices.ErrDisabled
	}
	var bad error
	for i, t := range cmd.Torque {
		if math.IsNaN(t) || math.IsInf(t, 0) {
			if bad == nil {
				bad = &TorqueError{Joint: i, Value: t}
			}
			continue
		}
		x.cmd.TorqueUNm[i] = microUnits(t)
	}
	if bad != nil {
		x.cmd.TorqueUNm = [3]int32{}
	}
	x.cmd.Tag = cmd.Seq
	if err := x.s.send(&x.cmd); err != nil {
		return err
	}
	return bad
}

// NotConfirmedError is Enable(true) refused: the device did not confirm
// the stage off the host asked for.
type NotConfirmedError struct {
	Port    string
	Confirm devices.Confirm // ConfirmSilenced or ConfirmWatchdog
}

func (e *NotConfirmedError) Error() string {
	if e.Confirm == devices.ConfirmWatchdog {
		return fmt.Sprintf("link: %s: not enabling a device whose watchdog had to cut its motors after an ENABLE 0 it did not confirm (until it is opened again)", e.Port)
	}
	return fmt.Sprintf("link: %s: not enabling a device that has not confirmed its power stage off", e.Port)
}

// Enable sends ENABLE and returns without waiting for the device: it is
// called from the 1 kHz loop. The device switches the stage within one
// period, but STATEs already on their way still report it off; the servo
// waits for one that reports it on (safety.enable_wait_ms).
//
// Enable(false) is a request the link sees through: it repeats ENABLE 0
// until a STATE reports the stage off, and falls silent if none does
// within Options.ConfirmBound (ExoState.Confirm says how far it got).
// Enable(true) is refused with a *NotConfirmedError while the host is
// silent on purpose, and for the rest of the session once the device's
// watchdog had to cut the motors.
func (x *Exo) Enable(on bool) error {
	s := x.s
	if le := s.lost.Load(); le != nil {
		return le
	}
	s.loopAt.Store(s.now())
	if !on {
		x.enabled = false
		s.requestOff(s.now())
		x.en.On = 0
		if err := s.send(&x.en); err != nil && err != errSilent {
			return err
		}
		return nil
	}
	for {
		c := s.confirmState()
		if c == devices.ConfirmSilenced || c == devices.ConfirmWatchdog {
			return &NotConfirmedError{Port: s.conn.Name(), Confirm: c}
		}
		if s.cas(c, devices.ConfirmNone) {
			break
		}
	}
	x.en.On = 1
	if err := s.send(&x.en); err != nil {
		return err
	}
	x.enabled = true
	return nil
}

// Close disables the device (best effort) and closes the port.
func (x *Exo) Close() error {
	if x.s.lost.Load() == nil {
		x.en.On = 0
		_ = x.s.send(&x.en)
	}
	return x.s.close()
}

// Stats returns the link's counters and latency figures.
func (x *Exo) Stats() Stats { return x.s.stats() }

// Caps returns the CAPS_EXO the device sent.
func (x *Exo) Caps() wire.CapsExo { return x.s.capsExo }

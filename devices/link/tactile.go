package link

import (
	"fmt"
	"math"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/transport"
	"github.com/haptex/haptex/devices/wire"
)

// Tactile is a vibrotactile array reached over the protocol. It implements
// devices.TactileArray, devices.StatusReader and devices.DeliveryReader
// (which has measurements only from an array that announces it measures its
// pins).
type Tactile struct {
	s    *session
	spec devices.TactileSpec
	fr   wire.TactileFrame
}

var (
	_ devices.TactileArray   = (*Tactile)(nil)
	_ devices.StatusReader   = (*Tactile)(nil)
	_ devices.DeliveryReader = (*Tactile)(nil)
)

// DialTactile runs the handshake over conn and returns the tactile array
// behind it. On error conn is closed.
func DialTactile(conn transport.Conn, opt Options) (*Tactile, error) {
	s, err := dial(conn, opt, wire.KindTactile)
	if err != nil {
		return nil, err
	}
	if s.kind != wire.KindTactile {
		s.close()
		return nil, &KindError{Port: conn.Name(), Want: wire.KindTactile, Got: s.kind, Model: wire.GetText(s.capsExo.Model[:])}
	}
	return &Tactile{s: s, spec: TactileSpec(&s.capsTactile, opt.Transport)}, nil
}

// TactileSpec converts a CAPS_TACTILE into the capability record.
func TactileSpec(c *wire.CapsTactile, tr devices.Transport) devices.TactileSpec {
	return devices.TactileSpec{
		Model:       wire.GetText(c.Model[:]),
		Serial:      wire.GetText(c.Serial[:]),
		Transport:   tr,
		Rows:        int(c.Rows),
		Cols:        int(c.Cols),
		PitchM:      float64(c.PitchUm) / 1e6,
		MaxA40Um:    float64(c.MaxA40Nm) / 1e3,
		MaxA320Um:   float64(c.MaxA320Nm) / 1e3,
		Waveform:    c.Waveform != 0,
		Measures:    c.Measures != 0,
		FramePeriod: time.Duration(c.FramePeriodUs) * time.Microsecond,
		Firmware:    c.FirmwareString(),
	}
}

// Spec returns the capabilities the device announced.
func (t *Tactile) Spec() devices.TactileSpec { return t.spec }

// AmplitudeError reports an amplitude that is negative or not finite; the
// link sent an all-zero frame instead.
type AmplitudeError struct {
	Band  int // 40 or 320
	Pin   int
	Value float64
}

func (e *AmplitudeError) Error() string {
	return fmt.Sprintf("link: A%d[%d] = %v µm is negative or not finite; sent a silent frame", e.Band, e.Pin, e.Value)
}

func amplitudeOK(a float64) bool { return a >= 0 && !math.IsInf(a, 1) }

// WriteFrame sends f; f.Seq travels as the frame's tag and comes back in
// TactileStatus.AckSeq. The array clamps amplitudes to its limits.
func (t *Tactile) WriteFrame(f *devices.TactileFrame) error {
	s := t.s
	now := s.now()
	s.loopAt.Store(now)
	if err := s.check(now); err != nil {
		return err
	}
	var bad error
	for i := range devices.Pins {
		a40, a320 := f.A40Um[i], f.A320Um[i]
		if !amplitudeOK(a40) && bad == nil {
			bad = &AmplitudeError{Band: 40, Pin: i, Value: a40}
		}
		if !amplitudeOK(a320) && bad == nil {
			bad = &AmplitudeError{Band: 320, Pin: i, Value: a320}
		}
		t.fr.A40Nm[i] = wire.Nanometres(a40)
		t.fr.A320Nm[i] = wire.Nanometres(a320)
	}
	if bad != nil {
		t.fr.A40Nm, t.fr.A320Nm = [wire.Pins]uint32{}, [wire.Pins]uint32{}
	}
	t.fr.Tag = f.Seq
	if err := s.send(&t.fr); err != nil {
		return err
	}
	return bad
}

// Status copies the newest status report into dst without waiting.
func (t *Tactile) Status(dst *devices.TactileStatus) error {
	s := t.s
	now := s.now()
	s.poll()
	if err := s.check(now); err != nil {
		return err
	}
	smp, seq := s.statusRead.Read()
	fresh := seq != s.lastStatus
	s.lastStatus = seq
	*dst = smp.st
	dst.Stale = !fresh
	s.keepAlive(now)
	if !fresh && time.Duration(now-smp.arrival) > s.stale {
		return devices.ErrTimeout
	}
	return nil
}

// Delivered copies the newest amplitudes the array measured its pins
// delivering (TACTILE_MEASURED) into dst, dst.Seq the tag of the frame
// that played over them. It reports false when the array does not
// measure its pins (CAPS_TACTILE measures = 0), has sent no measurement
// yet, is lost, or went on reporting its status for three frame periods
// after its newest measurement: its pickup has stopped, and a stale
// measurement is none. A host whose reader was held meanwhile holds the
// status as late as the measurement, so that alone does not stale it.
// Call it from the goroutine that calls Status.
func (t *Tactile) Delivered(dst *devices.TactileFrame) bool {
	s := t.s
	if s.capsTactile.Measures == 0 {
		return false
	}
	s.poll()
	if s.check(s.now()) != nil {
		return false
	}
	smp, seq := s.measuredRead.Read()
	if seq == 0 || time.Duration(s.statusAt.Load()-smp.arrival) > 3*t.spec.FramePeriod {
		return false
	}
	*dst = smp.m
	return true
}

// plausible reports whether every amplitude of m is at most twice the
// array's limit in its band: the array clamps its drive at the limit, and
// a pin's resonance and sensitivity spread do not double it.
func plausible(m *wire.TactileMeasured, c *wire.CapsTactile) bool {
	for i := range wire.Pins {
		if uint64(m.A40Nm[i]) > 2*uint64(c.MaxA40Nm) || uint64(m.A320Nm[i]) > 2*uint64(c.MaxA320Nm) {
			return false
		}
	}
	return true
}

// Close silences the array (best effort) and closes the port.
func (t *Tactile) Close() error {
	if t.s.lost.Load() == nil {
		t.fr = wire.TactileFrame{}
		_ = t.s.send(&t.fr)
	}
	return t.s.close()
}

// Stats returns the link's counters and latency figures.
func (t *Tactile) Stats() Stats { return t.s.stats() }

// Caps returns the CAPS_TACTILE the device sent.
func (t *Tactile) Caps() wire.CapsTactile { return t.s.capsTactile }

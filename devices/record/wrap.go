package record

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/transport"
	"github.com/haptex/haptex/internal/safefile"
)

// Conn records every byte read from and written to a transport.Conn.
type Conn struct {
	transport.Conn
	rec *Recorder
}

var _ transport.Conn = (*Conn)(nil)

// WrapConn logs an OPEN event and returns inner with its traffic
// recorded (a *Conn, or a *PollConn when inner is a transport.Poller).
func WrapConn(inner transport.Conn, rec *Recorder) transport.Conn {
	rec.Text(KindOpen, inner.Name())
	c := &Conn{Conn: inner, rec: rec}
	if p, ok := inner.(transport.Poller); ok {
		return &PollConn{Conn: c, poller: p}
	}
	return c
}

// PollConn is a Conn over a transport.Poller, which it remains.
type PollConn struct {
	*Conn
	poller transport.Poller
}

var _ transport.Poller = (*PollConn)(nil)

// TryRead reads without waiting and records what arrived.
func (c *PollConn) TryRead(p []byte) (int, error) {
	n, err := c.poller.TryRead(p)
	if n > 0 {
		c.rec.Bytes(KindRX, p[:n])
	}
	return n, err
}

// WaitReadable waits for bytes (it reads none).
func (c *PollConn) WaitReadable() error { return c.poller.WaitReadable() }

// Read reads and records what arrived.
func (c *Conn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.rec.Bytes(KindRX, p[:n])
	}
	return n, err
}

// Write records and writes p.
func (c *Conn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if n > 0 {
		c.rec.Bytes(KindTX, p[:n])
	}
	return n, err
}

// Close records the close and closes the Conn.
func (c *Conn) Close() error {
	c.rec.Text(KindClose, "closed by the host")
	return c.Conn.Close()
}

// runClock is the time device events are stamped with: the t of the last
// Advance when the rig drives the device, the recorder's clock otherwise.
type runClock struct {
	t       time.Duration
	clocked bool
}

func (c *runClock) now(r *Recorder) time.Duration {
	if c.clocked {
		return c.t
	}
	return r.Since()
}

func errText(err error) string {
	if ErrOf(err) == ErrOther {
		return err.Error()
	}
	return ""
}

// Exo records every call the control loop makes on an exoskeleton. It
// implements devices.Exoskeleton and devices.Clocked (Advance is passed on
// to the device when it is Clocked itself), so the rig drives it with the
// run's explicit time and the events carry that time.
type Exo struct {
	inner devices.Exoskeleton
	rec   *Recorder
	clock runClock
	ev    ReadEvent
	wev   WriteEvent
	eev   EnableEvent
}

var (
	_ devices.Exoskeleton = (*Exo)(nil)
	_ devices.Clocked     = (*Exo)(nil)
)

// WrapExo returns inner with its calls recorded into rec.
func WrapExo(inner devices.Exoskeleton, rec *Recorder) *Exo { return &Exo{inner: inner, rec: rec} }

// Advance sets the run time and advances the device if it is Clocked.
func (x *Exo) Advance(t time.Duration) {
	x.clock.t, x.clock.clocked = t, true
	if c, ok := x.inner.(devices.Clocked); ok {
		c.Advance(t)
	}
}

// Spec is the device's.
func (x *Exo) Spec() devices.ExoSpec { return x.inner.Spec() }

// Read reads the device and records the result.
func (x *Exo) Read(dst *devices.ExoState) error {
	err := x.inner.Read(dst)
	x.ev = ReadEvent{T: x.clock.now(x.rec), State: *dst, Err: ErrOf(err), Msg: errText(err)}
	x.rec.event(KindRead, &x.ev)
	return err
}

// Write records the command and the result of writing it.
func (x *Exo) Write(cmd *devices.ExoCommand) error {
	err := x.inner.Write(cmd)
	x.wev = WriteEvent{T: x.clock.now(x.rec), Cmd: *cmd, Err: ErrOf(err), Msg: errText(err)}
	x.rec.event(KindWrite, &x.wev)
	return err
}

// Enable records the call.
func (x *Exo) Enable(on bool) error {
	err := x.inner.Enable(on)
	x.eev = EnableEvent{T: x.clock.now(x.rec), On: on, Err: ErrOf(err), Msg: errText(err)}
	x.rec.event(KindEnable, &x.eev)
	return err
}

// Close closes the device (not the recorder: the session owns it).
func (x *Exo) Close() error { return x.inner.Close() }

// Tactile records every call made on a tactile array; it implements
// devices.TactileArray, devices.StatusReader, devices.DeliveryReader and
// devices.Clocked.
type Tactile struct {
	inner devices.TactileArray
	rec   *Recorder
	clock runClock
	fev   FrameEvent
	sev   StatusEvent
	dev   DeliveredEvent
}

var (
	_ devices.TactileArray   = (*Tactile)(nil)
	_ devices.StatusReader   = (*Tactile)(nil)
	_ devices.DeliveryReader = (*Tactile)(nil)
	_ devices.Clocked        = (*Tactile)(nil)
)

// WrapTactile returns inner with its calls recorded into rec.
func WrapTactile(inner devices.TactileArray, rec *Recorder) *Tactile {
	return &Tactile{inner: inner, rec: rec}
}

// Advance sets the run time and advances the device if it is Clocked.
func (t *Tactile) Advance(now time.Duration) {
	t.clock.t, t.clock.clocked = now, true
	if c, ok := t.inner.(devices.Clocked); ok {
		c.Advance(now)
	}
}

// Spec is the device's.
func (t *Tactile) Spec() devices.TactileSpec { return t.inner.Spec() }

// WriteFrame records the frame and the result of writing it.
func (t *Tactile) WriteFrame(f *devices.TactileFrame) error {
	err := t.inner.WriteFrame(f)
	t.fev = FrameEvent{T: t.clock.now(t.rec), Frame: *f, Err: ErrOf(err), Msg: errText(err)}
	t.rec.event(KindFrame, &t.fev)
	return err
}

// Status reads the device's status (when it reports one) and records it.
func (t *Tactile) Status(dst *devices.TactileStatus) error {
	var err error
	if sr, ok := t.inner.(devices.StatusReader); ok {
		err = sr.Status(dst)
	} else {
		*dst = devices.TactileStatus{Active: true}
	}
	t.sev = StatusEvent{T: t.clock.now(t.rec), Status: *dst, Err: ErrOf(err), Msg: errText(err)}
	t.rec.event(KindStatus, &t.sev)
	return err
}

// Delivered reads what the device's pins delivered, when it can tell, and
// records it; a device that cannot has nothing to record.
func (t *Tactile) Delivered(dst *devices.TactileFrame) bool {
	d, ok := t.inner.(devices.DeliveryReader)
	if !ok {
		return false
	}
	ok = d.Delivered(dst)
	t.dev = DeliveredEvent{T: t.clock.now(t.rec), OK: ok}
	if ok {
		t.dev.Frame = *dst
	}
	t.rec.event(KindDelivered, &t.dev)
	return ok
}

// Close closes the device (not the recorder).
func (t *Tactile) Close() error { return t.inner.Close() }

// Session is the devices part of a session folder: DIR/devices/NAME.hxr,
// one recording per device.
type Session struct {
	dir  *safefile.Dir // DIR/devices
	opt  Options
	mu   sync.Mutex
	recs []*Recorder
}

// Dir returns the folder that holds the recordings of the session folder
// dir.
func Dir(dir string) string { return filepath.Join(dir, "devices") }

// NewSession prepares dir/devices for recordings made with opt. The
// session folder dir (its last element) and devices/ are opened without
// following a symbolic link, and each recording is a new file: nothing
// planted there is written through.
func NewSession(dir string, opt Options) (*Session, error) {
	parent, name, err := safefile.OpenParent(dir)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	defer parent.Close()
	sess, err := parent.Sub(name, false)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	defer sess.Close()
	devs, err := sess.Sub("devices", true)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	return &Session{dir: devs, opt: opt}, nil
}

// Recorder creates the recording of one device; kind is "exoskeleton" or
// "tactile", spec its ExoSpec or TactileSpec, or nil when it is not known
// yet (then call Recorder.Spec once the device is open).
func (s *Session) Recorder(name, kind string, spec any) (*Recorder, error) {
	var js json.RawMessage
	if spec != nil {
		var err error
		if js, err = json.Marshal(spec); err != nil {
			return nil, fmt.Errorf("record: %w", err)
		}
	}
	s.mu.Lock()
	opt := s.opt
	s.mu.Unlock()
	r, err := create(s.dir, name+".hxr", Meta{Name: name, Kind: kind, Spec: js}, opt)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.recs = append(s.recs, r)
	s.mu.Unlock()
	return r, nil
}

// SetLossless sets every recording of the session, present and future,
// lossless or not (see Options.Lossless).
func (s *Session) SetLossless(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opt.Lossless = on
	for _, r := range s.recs {
		r.SetLossless(on)
	}
}

// Close closes every recording; the error joins theirs (a *DroppedError
// for any that lost events).
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, r := range s.recs {
		errs = append(errs, r.Close())
	}
	errs = append(errs, s.dir.Close())
	return errors.Join(errs...)
}

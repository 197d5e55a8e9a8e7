package link

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/devices/transport"
	"github.com/haptex/haptex/devices/wire"
	"github.com/haptex/haptex/internal/rt"
	"github.com/haptex/haptex/internal/statebuf"
)

// Options configure a link. The zero value is the default.
type Options struct {
	// Transport is reported in the device's Spec ("serial", "hid").
	Transport devices.Transport
	// HandshakeTimeout bounds the HELLO/CAPS exchange (default 1 s);
	// HelloInterval is the time between HELLO retries (default 50 ms).
	HandshakeTimeout time.Duration
	HelloInterval    time.Duration
	// StaleTimeout: Read returns devices.ErrTimeout when its newest sample
	// is older than this (default max(3 ms, 3 × the device's period)), so
	// the control loop can go to its safe state quickly.
	StaleTimeout time.Duration
	// SilenceTimeout: with no valid frame for this long a device that is
	// still attached but mute (hung firmware) is declared lost (default
	// max(250 ms, 10 × the device's period)). An unplugged device is lost at
	// once: its transport reports the error.
	SilenceTimeout time.Duration
	// WriteLimit bounds how long a frame's write may wait for a device that
	// takes no bytes, on transports that can wait (transport.WriteLimiter:
	// serial, HID); then the device is lost and Write returns at once from
	// then on. A device that stops reading thus costs the control loop at
	// most this once, never a blocked loop. 0 keeps the transport's
	// setting (serial and HID: 2 ms).
	WriteLimit time.Duration
	// ConfirmBound is how long an exoskeleton has to report its power
	// stage off after the host asked (Exo.Enable(false), or a new
	// session) before the host falls silent so that the device's watchdog
	// cuts the motors (default 5 ms, at most 10 ms). OffRepeat is the
	// interval between ENABLE 0 frames until then (default 1 ms).
	ConfirmBound time.Duration
	OffRepeat    time.Duration
	// Limits are the host's bounds on a device's CAPS; a CAPS outside
	// them is refused at the handshake (HandshakeError.Refused).
	Limits Limits
	// Kinematics is the model the host will drive an exoskeleton with;
	// when set, its CAPS joint limits and torques are checked against it
	// too (Limits.CheckExo).
	Kinematics *exo.Model
	// Logf, if set, receives one line for each event a lab engineer
	// should hear of: a device that did not confirm its safe state, a
	// device watchdog trip the host did not cause on purpose.
	Logf func(format string, args ...any)

	// probe: report a refused CAPS (session.refusal) instead of ending
	// the handshake with it.
	probe bool
}

// MaxConfirmBound is the longest Options.ConfirmBound.
const MaxConfirmBound = 10 * time.Millisecond

func (o *Options) defaults() error {
	if o.HandshakeTimeout <= 0 {
		o.HandshakeTimeout = time.Second
	}
	if o.HelloInterval <= 0 {
		o.HelloInterval = 50 * time.Millisecond
	}
	if o.ConfirmBound <= 0 {
		o.ConfirmBound = 5 * time.Millisecond
	}
	if o.ConfirmBound > MaxConfirmBound {
		return fmt.Errorf("link: confirmation bound %v above %v", o.ConfirmBound, MaxConfirmBound)
	}
	if o.OffRepeat <= 0 {
		o.OffRepeat = time.Millisecond
	}
	return nil
}

func (o *Options) logf(format string, args ...any) {
	if o.Logf != nil {
		o.Logf(format, args...)
	}
}

// LostError says why a link lost its device. errors.Is(err,
// devices.ErrDisconnected) is true.
type LostError struct {
	Port  string
	Cause error
}

func (e *LostError) Error() string { return fmt.Sprintf("link: %s: device lost: %v", e.Port, e.Cause) }
func (e *LostError) Unwrap() error { return e.Cause }

// Is reports true for devices.ErrDisconnected.
func (e *LostError) Is(target error) bool { return target == devices.ErrDisconnected }

// SilenceError is the cause of a loss detected by silence.
type SilenceError struct {
	Silent, Limit time.Duration
}

func (e *SilenceError) Error() string {
	return fmt.Sprintf("no valid frame for %v (limit %v)", e.Silent.Round(time.Microsecond), e.Limit)
}

// HandshakeError reports a device that did not complete HELLO/CAPS.
type HandshakeError struct {
	Port      string
	Waited    time.Duration
	BytesIn   uint64
	Decode    wire.DecodeStats
	PeerMajor int   // major version the peer speaks, 0 if unknown
	BadCaps   error // why the newest CAPS was rejected, if one was
	// Refused is the *CapsError of a well-formed CAPS outside the host's
	// limits or the kinematics it will drive.
	Refused error
	Cause   error
}

func (e *HandshakeError) Error() string {
	switch {
	case e.Refused != nil:
		return fmt.Sprintf("link: %s refused: %v", e.Port, e.Refused)
	case e.PeerMajor != 0:
		return fmt.Sprintf("link: %s speaks protocol %d.x, haptex speaks %d.%d", e.Port, e.PeerMajor, wire.Major, wire.Minor)
	case e.Cause != nil:
		return fmt.Sprintf("link: %s: handshake: %v", e.Port, e.Cause)
	case e.BadCaps != nil:
		return fmt.Sprintf("link: %s answered HELLO with an invalid CAPS: %v", e.Port, e.BadCaps)
	case e.BytesIn == 0:
		return fmt.Sprintf("link: %s: no answer to HELLO within %v (nothing received: no device, or not a haptex device)", e.Port, e.Waited)
	}
	return fmt.Sprintf("link: %s: no CAPS within %v (received %d bytes: %d valid frames, %d corrupt; wrong baud rate or not a haptex device?)",
		e.Port, e.Waited, e.BytesIn, e.Decode.Frames, e.Decode.Corrupt())
}

func (e *HandshakeError) Unwrap() error { return e.Cause }

const ring = 1024 // send-time ring for latency, indexed by seq

type exoSample struct {
	st      devices.ExoState
	arrival int64 // session clock [ns]
}

type tactileSample struct {
	st      devices.TactileStatus
	arrival int64
}

type measuredSample struct {
	m       devices.TactileFrame
	arrival int64
}

// session is one handshaken link: the state shared by Exo and Tactile.
type session struct {
	conn  transport.Conn
	opt   Options
	want  wire.Kind
	base  time.Time
	nonce uint32

	kind        wire.Kind
	capsExo     wire.CapsExo
	capsTactile wire.CapsTactile
	silence     time.Duration
	stale       time.Duration
	period      time.Duration // the device's period_us: how often it sends a sample
	heartbeat   time.Duration // send a HEARTBEAT when nothing was sent for this long
	watchdog    time.Duration // the device's watchdog_ms

	// The safe state (exoskeletons): confirm holds a devices.Confirm,
	// offReq the session time of the request it confirms, offSent that of
	// the newest ENABLE 0. Only the control loop (Enable) moves confirm
	// out of or into ConfirmNone; the reader and the keeper move it
	// between the other states, with compare-and-swap.
	confirm   atomic.Uint32
	offReq    atomic.Int64
	offSent   atomic.Int64
	enOff     wire.Enable  // never changes: ENABLE 0
	loopAt    atomic.Int64 // session time of the control loop's newest call
	lastOn    atomic.Bool  // the newest STATE reported the stage on
	lastAt    atomic.Int64 // when it arrived
	safe      safeCounters
	tacResend atomic.Bool // resend the newest TACTILE_FRAME (the array's watchdog tripped)
	tacLast   wire.TactileFrame

	// Writer side, serialised by wmu (one writer in steady state, so the
	// mutex is never contended there; Close may write too).
	wmu       sync.Mutex
	enc       wire.Encoder
	seq       uint32
	lastSent  atomic.Int64
	lastWrite int64        // session time of the newest frame written (under wmu)
	gapOut    atomic.Int64 // the longest time between two frames written [ns]
	writeWait atomic.Int64 // the longest write [ns]
	sentAt    [ring]atomic.Int64
	sentSeq   [ring]atomic.Uint32
	framesOut atomic.Uint64
	hb        wire.Heartbeat

	// Reader side: only the reader goroutine touches these, under rmu so
	// that Stats can copy them.
	rmu         sync.Mutex
	poller      transport.Poller // nil: the reader goroutine alone reads
	buf         [4096]byte
	dec         wire.Decoder
	bytesIn     uint64
	ready       bool
	devSeq      uint32
	seqLost     uint64
	seqDropped  uint64
	badBody     uint64
	unexpected  uint64
	errCodes    [16]uint64
	lastErr     wire.ErrorReport
	lastAck     uint32
	stMsg       wire.State
	tsMsg       wire.TactileStatus
	tmMsg       wire.TactileMeasured
	measures    uint64 // TACTILE_MEASURED taken
	implausible uint64 // TACTILE_MEASURED dropped for amplitudes no pin can deliver
	erMsg       wire.ErrorReport
	gaps        gapCounter

	lastFrame atomic.Int64
	// The newest sample, handed from the reader goroutine to the control
	// loop (the one reader of each buffer).
	state        *statebuf.Buffer[exoSample]
	stateRead    *statebuf.Reader[exoSample]
	status       *statebuf.Buffer[tactileSample]
	statusRead   *statebuf.Reader[tactileSample]
	statusAt     atomic.Int64 // arrival of the newest TACTILE_STATUS (session clock)
	measured     *statebuf.Buffer[measuredSample]
	measuredRead *statebuf.Reader[measuredSample]
	lastState    uint64 // sequence of the newest sample Read returned
	lastStatus   uint64
	lat          rt.Histogram

	handshake chan struct{}
	versionCh chan int
	refusedCh chan error
	refusal   error // a probe's refused CAPS; set before the handshake completes
	badCaps   error // under rmu
	lost      atomic.Pointer[LostError]
	done      chan struct{}
	closeOnce sync.Once
}

var nonceCounter atomic.Uint32

// dial runs the handshake over conn and starts the reader goroutine. On
// error conn is closed.
// want is the kind the caller expects (0: either); a CAPS of another kind
// is not checked against the limits, so that the caller can say it is the
// wrong kind of device.
func dial(conn transport.Conn, opt Options, want wire.Kind) (*session, error) {
	if err := opt.defaults(); err != nil {
		conn.Close()
		return nil, err
	}
	s := &session{
		conn:      conn,
		opt:       opt,
		want:      want,
		base:      time.Now(),
		nonce:     uint32(time.Now().UnixNano()) ^ nonceCounter.Add(0x9E3779B9),
		handshake: make(chan struct{}),
		versionCh: make(chan int, 1),
		refusedCh: make(chan error, 1),
		done:      make(chan struct{}),
	}
	s.state = statebuf.New[exoSample](1, nil)
	s.stateRead = s.state.NewReader()
	s.status = statebuf.New[tactileSample](1, nil)
	s.statusRead = s.status.NewReader()
	s.measured = statebuf.New[measuredSample](1, nil)
	s.measuredRead = s.measured.NewReader()
	if wl, ok := conn.(transport.WriteLimiter); ok && opt.WriteLimit > 0 {
		wl.SetWriteLimit(opt.WriteLimit)
	}
	s.poller, _ = conn.(transport.Poller)
	go s.readLoop()
	hello := wire.Hello{Major: wire.Major, Minor: wire.Minor, Nonce: s.nonce}
	deadline := time.Now().Add(opt.HandshakeTimeout)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		if err := s.sendHello(&hello); err != nil {
			s.closeConn()
			return nil, &HandshakeError{Port: conn.Name(), Cause: err}
		}
		wait := min(opt.HelloInterval, time.Until(deadline))
		timer.Reset(max(wait, 0))
		select {
		case <-s.handshake:
			go s.keep()
			return s, nil
		case major := <-s.versionCh:
			s.closeConn()
			return nil, &HandshakeError{Port: conn.Name(), PeerMajor: major}
		case err := <-s.refusedCh:
			s.closeConn()
			<-s.done
			return nil, &HandshakeError{Port: conn.Name(), Refused: err}
		case <-s.done:
			return nil, &HandshakeError{Port: conn.Name(), Cause: s.lost.Load()}
		case <-timer.C:
		}
		if !time.Now().Before(deadline) {
			s.closeConn()
			<-s.done
			e := &HandshakeError{Port: conn.Name(), Waited: opt.HandshakeTimeout, BytesIn: s.bytesIn, Decode: s.dec.Stats, BadCaps: s.badCaps}
			if s.dec.Stats.Version > 0 {
				e.PeerMajor = int(s.dec.PeerVersion)
			}
			return nil, e
		}
	}
}

func (s *session) now() int64 { return int64(time.Since(s.base)) }

// sendHello writes a lone delimiter (to end any partial frame the device
// holds) and a HELLO.
func (s *session) sendHello(h *wire.Hello) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if _, err := s.conn.Write([]byte{0}); err != nil {
		return err
	}
	s.seq = wire.NextSeq(s.seq)
	now := s.now()
	if _, err := s.conn.Write(s.enc.Encode(h, s.seq, uint64(now/1000))); err != nil {
		return err
	}
	s.lastSent.Store(now)
	s.framesOut.Add(1)
	return nil
}

// errSilent is returned by send while the host keeps silent on purpose
// (the device did not confirm its safe state).
var errSilent = errors.New("link: silent until the device confirms its safe state")

// send writes one frame; it records the send time under the frame's seq
// before writing, so that the reader can time the acknowledgement. It
// sends nothing while the host keeps silent on purpose (checked under the
// writer's lock, which the change to silence takes too).
func (s *session) send(b wire.Body) error {
	_, err := s.sendIf(b, false)
	return err
}

// sendIf is send; with offOnly it sends only while a request for the
// stage off is pending, so that a repeated ENABLE 0 never follows an
// ENABLE 1 the control loop sent meanwhile.
func (s *session) sendIf(b wire.Body, offOnly bool) (sent bool, err error) {
	if le := s.lost.Load(); le != nil {
		return false, le
	}
	s.wmu.Lock()
	if s.silent() {
		s.wmu.Unlock()
		return false, errSilent
	}
	if offOnly && s.confirmState() != devices.ConfirmPending {
		s.wmu.Unlock()
		return false, nil
	}
	if tf, ok := b.(*wire.TactileFrame); ok {
		s.tacLast = *tf
	}
	s.seq = wire.NextSeq(s.seq)
	now := s.now()
	s.sentAt[s.seq%ring].Store(now)
	s.sentSeq[s.seq%ring].Store(s.seq)
	_, err = s.conn.Write(s.enc.Encode(b, s.seq, uint64(now/1000)))
	if gap := now - s.lastWrite; s.lastWrite != 0 && gap > s.gapOut.Load() {
		s.gapOut.Store(gap)
	}
	if w := s.now() - now; w > s.writeWait.Load() {
		s.writeWait.Store(w)
	}
	s.lastWrite = now
	s.lastSent.Store(now)
	s.wmu.Unlock()
	if err != nil {
		s.markLost(err)
		return false, s.lost.Load()
	}
	s.framesOut.Add(1)
	return true, nil
}

// check returns the loss error, detecting silence first.
func (s *session) check(now int64) error {
	if le := s.lost.Load(); le != nil {
		return le
	}
	if silent := time.Duration(now - s.lastFrame.Load()); silent > s.silence {
		s.markLost(&SilenceError{Silent: silent, Limit: s.silence})
		return s.lost.Load()
	}
	return nil
}

// keepAlive sends a HEARTBEAT when the host has been quiet long enough for
// the device watchdog to start worrying. The reader sets lastFrame only
// after the handshake, and the keeper runs from then on, so the host
// keeps its promise from CAPS on, whether the control loop runs or not.
func (s *session) keepAlive(now int64) {
	if last := s.lastSent.Load(); time.Duration(now-last) > s.heartbeat && s.lastSent.CompareAndSwap(last, now) {
		if s.send(&s.hb) == nil {
			s.safe.heartbeats.Add(1)
		}
	}
}

// markLost records the first cause of loss and closes the port in the
// background (closing a tty with unsent output can block).
func (s *session) markLost(cause error) {
	if s.lost.CompareAndSwap(nil, &LostError{Port: s.conn.Name(), Cause: cause}) {
		go s.closeConn()
	}
}

func (s *session) closeConn() {
	s.closeOnce.Do(func() { _ = s.conn.Close() })
}

// readLoop reads the port for the session's lifetime. On a port that can
// be polled (transport.Poller: serial) it only waits for bytes and takes
// them under rmu, so that the control loop can take them first (poll):
// the reader runs at normal priority, and on a loaded machine it waited
// tens of milliseconds for a core while the samples sat in the port.
func (s *session) readLoop() {
	defer close(s.done)
	// A P of its own while it waits in the kernel, as the keeper has
	// (rt.AddProcs): with none idle, the runtime's monitor takes the P of
	// every wait and passes every 20 µs.
	defer rt.AddProcs(1)()
	var yielded int64
	if s.poller != nil {
		for {
			s.rmu.Lock()
			err := s.drain()
			s.rmu.Unlock()
			yielded = s.yield(yielded)
			if err == nil {
				err = s.poller.WaitReadable()
			}
			if err != nil {
				s.markLost(err)
				return
			}
		}
	}
	for {
		n, err := s.conn.Read(s.buf[:])
		if err != nil {
			s.markLost(err)
			return
		}
		s.rmu.Lock()
		s.consume(s.buf[:n])
		s.rmu.Unlock()
		yielded = s.yield(yielded)
	}
}

// yield passes the calling goroutine (the reader or the keeper) through the
// scheduler when it last did so rt.YieldPeriod or more before: a goroutine
// that only waits in system calls never does, and the runtime's monitor
// then takes its P at each wait, passing every 20 µs for the session's life
// (internal/rt's package doc, "The runtime's monitor"). It returns when
// the caller last yielded.
func (s *session) yield(yielded int64) int64 {
	if now := s.now(); time.Duration(now-yielded) >= rt.YieldPeriod {
		runtime.Gosched()
		return now
	}
	return yielded
}

// drain takes every byte that has arrived, without waiting (rmu held).
func (s *session) drain() error {
	for {
		n, err := s.poller.TryRead(s.buf[:])
		if n > 0 {
			s.consume(s.buf[:n])
		}
		if err != nil || n == 0 {
			return err
		}
	}
}

// poll lets the control loop take what has arrived itself, unless the
// reader is at it (it never waits for the reader).
func (s *session) poll() {
	if s.poller == nil || !s.rmu.TryLock() {
		return
	}
	err := s.drain()
	s.rmu.Unlock()
	if err != nil {
		s.markLost(err)
	}
}

// consume decodes bytes and acts on their frames (rmu held).
func (s *session) consume(p []byte) {
	s.bytesIn += uint64(len(p))
	for len(p) > 0 {
		k, f, _ := s.dec.Decode(p)
		p = p[k:]
		if f != nil {
			s.dispatch(f)
		}
	}
}

var (
	errRestarted = errors.New("device restarted (it answers NOT_READY)")
	errClosed    = errors.New("closed by the host")
)

// dispatch acts on one valid frame; runs on the reader goroutine.
func (s *session) dispatch(f *wire.Frame) {
	now := s.now()
	if !s.ready {
		s.handshakeFrame(f, now)
		return
	}
	if f.Type == wire.TypeError && s.erMsg.Parse(f.Body) == nil && s.erMsg.Code == wire.CodeNotReady {
		s.markLost(errRestarted)
		return
	}
	if (f.Type == wire.TypeCapsExo || f.Type == wire.TypeCapsTactile) && len(f.Body) >= 8 && binary.LittleEndian.Uint32(f.Body[4:]) == s.nonce {
		// The answer to a HELLO repeated before the first CAPS arrived:
		// the device began its numbering again with it (its seq 1).
		s.devSeq = f.Seq
		s.lastFrame.Store(now)
		return
	}
	if !wire.SeqAfter(f.Seq, s.devSeq) {
		s.seqDropped++
		return
	}
	s.seqLost += uint64(f.Seq - s.devSeq - 1)
	if f.Seq < s.devSeq { // wrapped past 0, which is never sent
		s.seqLost--
	}
	s.devSeq = f.Seq
	s.lastFrame.Store(now)
	switch f.Type {
	case wire.TypeState:
		if s.kind != wire.KindExo || s.stMsg.Parse(f.Body) != nil {
			s.badFrame(f)
			return
		}
		m := &s.stMsg
		smp := s.state.Slot()
		st := &smp.st
		st.DeviceTime = time.Duration(f.TimeUs) * time.Microsecond
		st.Seq = f.Seq
		for i := range 3 {
			st.Joint[i] = float64(m.JointURad[i]) / 1e6
			st.Force[i] = float64(m.ForceUN[i]) / 1e6
		}
		st.Enabled = m.Status&wire.StateEnabled != 0
		st.Fault = m.Fault
		st.AckSeq = m.AckTag
		st.Stale = false
		smp.arrival = now
		s.state.Publish()
		s.ack(m.AckSeq, now)
		s.observe(st.Enabled, m.Status&wire.StateWatchdog != 0, now)
		s.gap(f.Seq, f.TimeUs, now)
	case wire.TypeTactileStatus:
		if s.kind != wire.KindTactile || s.tsMsg.Parse(f.Body) != nil {
			s.badFrame(f)
			return
		}
		m := &s.tsMsg
		smp := s.status.Slot()
		smp.st = devices.TactileStatus{
			DeviceTime: time.Duration(f.TimeUs) * time.Microsecond,
			Seq:        f.Seq,
			AckSeq:     m.AckTag,
			Active:     m.Status&wire.TactileActive != 0,
			Clamped:    m.Status&wire.TactileClamped != 0,
			Fault:      m.Fault,
		}
		smp.arrival = now
		s.status.Publish()
		s.statusAt.Store(now)
		s.ack(m.AckSeq, now)
		s.gap(f.Seq, f.TimeUs, now)
	case wire.TypeTactileMeasured:
		if s.kind != wire.KindTactile || s.capsTactile.Measures == 0 {
			s.unexpected++ // not announced: nothing says what it measured
			return
		}
		if s.tmMsg.Parse(f.Body) != nil {
			s.badBody++
			return
		}
		if !plausible(&s.tmMsg, &s.capsTactile) {
			s.implausible++
			return
		}
		m := &s.tmMsg
		smp := s.measured.Slot()
		smp.m.Seq = m.AckTag
		for i := range wire.Pins {
			smp.m.A40Um[i] = float64(m.A40Nm[i]) / 1e3
			smp.m.A320Um[i] = float64(m.A320Nm[i]) / 1e3
		}
		smp.arrival = now
		s.measured.Publish()
		s.measures++
		s.gap(f.Seq, f.TimeUs, now)
	case wire.TypeError:
		if s.erMsg.Parse(f.Body) != nil {
			s.badBody++
			return
		}
		s.errCodes[int(s.erMsg.Code)%len(s.errCodes)]++
		s.lastErr = s.erMsg
		if s.erMsg.Code == wire.CodeWatchdog {
			s.watchdogTripped(now)
		}
	case wire.TypeHeartbeat:
		// a sign of life
	default:
		s.unexpected++
	}
}

func (s *session) badFrame(f *wire.Frame) {
	if (f.Type == wire.TypeState) != (s.kind == wire.KindExo) {
		s.unexpected++
	} else {
		s.badBody++
	}
}

func (s *session) ack(seq uint32, now int64) {
	if seq == 0 || !wire.SeqAfter(seq, s.lastAck) || s.sentSeq[seq%ring].Load() != seq {
		return // nothing new, or an acknowledgement of a frame this link did not send
	}
	s.lastAck = seq
	if t0 := s.sentAt[seq%ring].Load(); now >= t0 {
		s.lat.Record(time.Duration(now - t0))
	}
}

func (s *session) handshakeFrame(f *wire.Frame, now int64) {
	switch f.Type {
	case wire.TypeCapsExo:
		var c wire.CapsExo
		if err := c.Parse(f.Body); err != nil {
			s.badCaps = err
			return
		}
		if c.Nonce != s.nonce {
			return
		}
		if err := s.opt.Limits.CheckExo(&c, s.opt.Kinematics); err != nil && s.want != wire.KindTactile && s.refuse(err) {
			return
		}
		s.kind, s.capsExo = wire.KindExo, c
		s.start(&c.Caps, f.Seq, now)
	case wire.TypeCapsTactile:
		var c wire.CapsTactile
		if err := c.Parse(f.Body); err != nil {
			s.badCaps = err
			return
		}
		if c.Nonce != s.nonce {
			return
		}
		if err := s.opt.Limits.CheckTactile(&c); err != nil && s.want != wire.KindExo && s.refuse(err) {
			return
		}
		s.kind, s.capsTactile = wire.KindTactile, c
		s.start(&c.Caps, f.Seq, now)
	case wire.TypeError:
		var e wire.ErrorReport
		if e.Parse(f.Body) == nil && e.Code == wire.CodeVersion {
			select {
			case s.versionCh <- int(e.Value):
			default:
			}
		}
	}
}

// refuse ends a handshake whose CAPS the host will not drive; a probe
// notes why and goes on.
func (s *session) refuse(err error) bool {
	if s.opt.probe {
		s.refusal = err
		return false
	}
	select {
	case s.refusedCh <- err:
	default:
	}
	return true
}

func (s *session) start(c *wire.Caps, seq uint32, now int64) {
	period := time.Duration(c.PeriodUs) * time.Microsecond
	s.period = period
	s.silence = s.opt.SilenceTimeout
	if s.silence <= 0 {
		s.silence = max(250*time.Millisecond, 10*period)
	}
	s.stale = s.opt.StaleTimeout
	if s.stale <= 0 {
		s.stale = max(3*time.Millisecond, 3*period)
	}
	s.watchdog = time.Duration(c.WatchdogMs) * time.Millisecond
	s.heartbeat = s.watchdog / 4
	s.devSeq = seq
	s.lastFrame.Store(now)
	if s.kind == wire.KindExo {
		// A session starts with the stage off (HELLO switched it off): a
		// request the first STATE confirms. Nothing has been sent since
		// HELLO, so the first ENABLE 0 goes out after OffRepeat unless a
		// STATE has confirmed it by then.
		s.offReq.Store(now)
		s.offSent.Store(now)
		s.confirm.Store(uint32(devices.ConfirmPending))
		s.safe.requests.Add(1)
	}
	s.ready = true
	close(s.handshake)
}

// Stats is what a link counted; every field is cumulative since the
// handshake.
type Stats struct {
	Port       string           `json:"port"`
	Kind       string           `json:"kind"`
	BytesIn    uint64           `json:"bytes_in"`
	FramesOut  uint64           `json:"frames_out"`
	Decode     wire.DecodeStats `json:"decode"`
	SeqLost    uint64           `json:"seq_lost"`    // device frames missing from the sequence (lost or corrupted on the way)
	SeqDropped uint64           `json:"seq_dropped"` // duplicate or out-of-order frames dropped
	BadBody    uint64           `json:"bad_body"`    // valid frames whose body did not parse
	Unexpected uint64           `json:"unexpected"`  // valid frames of a type this link does not take
	// Measurements counts the TACTILE_MEASURED taken; Implausible those
	// dropped because a pin's amplitude was above twice the array's limit,
	// which no pin whose drive clamps at the limit delivers.
	Measurements    uint64            `json:"measurements,omitempty"`
	Implausible     uint64            `json:"implausible_measurements,omitempty"`
	DeviceErrors    map[string]uint64 `json:"device_errors,omitempty"`
	LastDeviceError string            `json:"last_device_error,omitempty"`
	// CommandLatency is the time from writing a COMMAND (or TACTILE_FRAME)
	// to decoding the STATE (or TACTILE_STATUS) that acknowledges it [µs].
	CommandLatency Latency `json:"command_to_state_us"`
	// Heartbeats counts the HEARTBEATs the host sent (nothing else had
	// gone out for watchdog_ms/4).
	Heartbeats uint64 `json:"heartbeats"`
	// LongestSilenceMs is the longest time between two frames the host
	// wrote, its deliberate silence included [ms].
	LongestSilenceMs float64 `json:"longest_silence_ms"`
	// LongestWriteMs is the longest a frame's write took [ms]: a device
	// that stops reading makes the host wait (at most the write limit).
	LongestWriteMs float64 `json:"longest_write_ms"`
	// WatchdogTrips counts the device's ERROR 7 reports the host did not
	// cause on purpose (its silence after an unconfirmed ENABLE 0 is on
	// purpose): each is a failure of the host's heartbeat promise.
	WatchdogTrips uint64 `json:"watchdog_trips"`
	// Gaps counts the samples that came more than GapNote after the one
	// before, by cause.
	Gaps GapStats `json:"gaps"`
	// Safe is the account of the safe-state requests (exoskeletons).
	Safe *SafeStats `json:"safe_state,omitempty"`
	Lost string     `json:"lost,omitempty"`
}

func (s *session) stats() Stats {
	s.rmu.Lock()
	st := Stats{
		Port: s.conn.Name(), Kind: s.kind.String(), BytesIn: s.bytesIn, Decode: s.dec.Stats,
		SeqLost: s.seqLost, SeqDropped: s.seqDropped, BadBody: s.badBody, Unexpected: s.unexpected,
		Measurements: s.measures, Implausible: s.implausible,
		Gaps: s.gaps.GapStats,
	}
	for _, c := range wire.Codes {
		if n := s.errCodes[int(c.Code)%len(s.errCodes)]; n > 0 {
			if st.DeviceErrors == nil {
				st.DeviceErrors = map[string]uint64{}
			}
			st.DeviceErrors[c.Name] = n
		}
	}
	if s.lastErr.Code != 0 {
		st.LastDeviceError = fmt.Sprintf("%v (value %d, ref %v seq %d)", codeName(s.lastErr.Code), s.lastErr.Value, s.lastErr.RefType, s.lastErr.RefSeq)
	}
	s.rmu.Unlock()
	st.FramesOut = s.framesOut.Load()
	st.CommandLatency = LatencyOf(&s.lat)
	st.Heartbeats = s.safe.heartbeats.Load()
	st.LongestSilenceMs = float64(s.gapOut.Load()) / 1e6
	st.LongestWriteMs = float64(s.writeWait.Load()) / 1e6
	st.WatchdogTrips = s.safe.watchdogTrips.Load()
	if s.kind == wire.KindExo {
		st.Safe = s.safe.stats()
	}
	if le := s.lost.Load(); le != nil {
		st.Lost = le.Error()
	}
	return st
}

func codeName(c wire.ErrorCode) string {
	for _, x := range wire.Codes {
		if x.Code == c {
			return x.Name
		}
	}
	return fmt.Sprintf("code %d", c)
}

// close disables nothing by itself; the drivers send their safe-state
// frame first. It waits for the reader goroutine.
func (s *session) close() error {
	s.markLost(errClosed)
	s.closeConn()
	<-s.done
	return nil
}

// Info is what a handshake learnt about a device.
type Info struct {
	Port     string               `json:"port"`
	Kind     string               `json:"kind"`
	Protocol string               `json:"protocol"`
	Exo      *devices.ExoSpec     `json:"exoskeleton,omitempty"`
	Tactile  *devices.TactileSpec `json:"tactile,omitempty"`
	// Refused says why the host would refuse this device's CAPS (opt's
	// limits and kinematics), one line; empty when it would drive it.
	Refused string `json:"refused,omitempty"`
}

// Probe runs the handshake over conn, returns what the device announced
// (also a CAPS the host would refuse: Info.Refused) and closes conn. The
// device's output is off afterwards (HELLO switches it off).
func Probe(conn transport.Conn, opt Options) (Info, error) {
	opt.probe = true
	s, err := dial(conn, opt, 0)
	if err != nil {
		return Info{Port: conn.Name()}, err
	}
	defer s.close()
	info := Info{Port: conn.Name(), Kind: s.kind.String()}
	if s.refusal != nil {
		info.Refused = s.refusal.Error()
	}
	switch s.kind {
	case wire.KindExo:
		sp := ExoSpec(&s.capsExo, opt.Transport)
		info.Exo = &sp
		info.Protocol = fmt.Sprintf("%d.%d", s.capsExo.Major, s.capsExo.Minor)
	case wire.KindTactile:
		sp := TactileSpec(&s.capsTactile, opt.Transport)
		info.Tactile = &sp
		info.Protocol = fmt.Sprintf("%d.%d", s.capsTactile.Major, s.capsTactile.Minor)
	}
	return info, nil
}

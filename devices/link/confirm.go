package link

import (
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/wire"
	"github.com/haptex/haptex/internal/rt"
)

// The safe state of an exoskeleton is a fact the device reports, not a
// command the host sent once (docs/protocol.md, "The safe state"):
//
//  1. The host asks for the power stage off (Exo.Enable(false), or a new
//     session): the request is pending, and ENABLE 0 goes out every
//     OffRepeat (the control loop's Read and the keeper both send it).
//  2. A STATE received after the request that reports the stage off
//     confirms it (devices.ConfirmDevice).
//  3. If none does within ConfirmBound, the host falls silent: no frame
//     of any kind, so that the device's own watchdog cuts the motors
//     within its watchdog_ms (devices.ConfirmSilenced).
//  4. After that, a STATE with the stage off confirms it: by the device
//     (it took the ENABLE 0 late: the host speaks again), or, with the
//     watchdog bit set or an ERROR 7, by its watchdog
//     (devices.ConfirmWatchdog). A device that had to be stopped by its
//     watchdog is not enabled again in this session.
//  5. A STATE that reports the stage on while the host wants it off takes
//     a confirmed request back to step 1 (the device switched itself on,
//     or a STATE sampled before the request overtook it).

func (s *session) confirmState() devices.Confirm { return devices.Confirm(s.confirm.Load()) }

// sampleConfirm is the confirmation a Read reports beside a sample whose
// stage is on (enabled) or off. The reader publishes each STATE before it
// confirms or revokes on it, so a Read between the two can pair the
// sample before with the state after: an older STATE that reported the
// stage on with the confirmation a newer one made. A sample that reports
// the stage on confirms nothing; the next Read has the newer sample.
func sampleConfirm(enabled bool, c devices.Confirm) devices.Confirm {
	switch {
	case enabled && c == devices.ConfirmDevice:
		return devices.ConfirmPending
	case enabled && c == devices.ConfirmWatchdog:
		return devices.ConfirmSilenced
	}
	return c
}

// silent reports whether the host keeps silent on purpose.
func (s *session) silent() bool {
	c := s.confirmState()
	return c == devices.ConfirmSilenced || c == devices.ConfirmWatchdog
}

func (s *session) cas(from, to devices.Confirm) bool {
	return s.confirm.CompareAndSwap(uint32(from), uint32(to))
}

// requestOff starts a request for the stage off at now, unless one is
// already in force. Called by the control loop only.
func (s *session) requestOff(now int64) {
	if s.confirmState() != devices.ConfirmNone {
		return
	}
	s.offReq.Store(now)
	s.offSent.Store(now)
	s.confirm.Store(uint32(devices.ConfirmPending))
	s.safe.requests.Add(1)
}

// observe runs the confirmation on a STATE the reader accepted at now.
func (s *session) observe(enabled, watchdog bool, now int64) {
	s.lastOn.Store(enabled)
	s.lastAt.Store(now)
	switch c := s.confirmState(); {
	case c == devices.ConfirmNone:
	case !enabled && c == devices.ConfirmPending:
		if now >= s.offReq.Load() && s.cas(c, devices.ConfirmDevice) {
			s.safe.byDevice.Add(1)
			s.safe.latency.Record(time.Duration(now - s.offReq.Load()))
		}
	case !enabled && c == devices.ConfirmSilenced:
		if watchdog {
			s.confirmedByWatchdog(now)
		} else if s.cas(c, devices.ConfirmDevice) {
			s.safe.byDevice.Add(1)
			s.safe.late.Add(1)
			s.safe.latency.Record(time.Duration(now - s.offReq.Load()))
			s.opt.logf("link: %s: the device confirmed its power stage off %v after the request (late); the host speaks again", s.conn.Name(), time.Duration(now-s.offReq.Load()).Round(time.Microsecond))
		}
	case enabled && c == devices.ConfirmDevice:
		s.offReq.Store(now)
		s.offSent.Store(0)
		if s.cas(c, devices.ConfirmPending) {
			s.safe.revoked.Add(1)
			s.safe.requests.Add(1)
		}
	case enabled && c == devices.ConfirmWatchdog:
		if s.cas(c, devices.ConfirmSilenced) {
			s.safe.revoked.Add(1)
		}
	}
}

// watchdogTripped handles an ERROR 7: the device's watchdog disabled its
// output. After the host fell silent on purpose it is the confirmation;
// otherwise the host failed its heartbeat promise, which it counts and
// says. A tactile array then gets its newest frame again at once (it
// stays silent until the next frame).
func (s *session) watchdogTripped(now int64) {
	if s.confirmState() == devices.ConfirmSilenced {
		s.confirmedByWatchdog(now)
		return
	}
	s.safe.watchdogTrips.Add(1)
	s.opt.logf("link: %s: the device's watchdog (%v) tripped: it heard nothing from the host for %d ms", s.conn.Name(), s.watchdog, s.erMsg.Value)
	if s.kind == wire.KindTactile {
		s.tacResend.Store(true)
	}
}

func (s *session) confirmedByWatchdog(now int64) {
	if s.cas(devices.ConfirmSilenced, devices.ConfirmWatchdog) {
		s.safe.byWatchdog.Add(1)
		s.safe.latency.Record(time.Duration(now - s.offReq.Load()))
		s.opt.logf("link: %s: the device's watchdog cut the motors %v after the request; not enabling this device again in this session",
			s.conn.Name(), time.Duration(now-s.offReq.Load()).Round(time.Microsecond))
	}
}

// tendOff repeats ENABLE 0 while a request is pending and falls silent
// when the bound has passed. Called from the control loop's Read and from
// the keeper; it allocates nothing in steady state.
func (s *session) tendOff(now int64) {
	if s.confirmState() != devices.ConfirmPending {
		return
	}
	req := s.offReq.Load()
	if time.Duration(now-req) > s.opt.ConfirmBound {
		s.wmu.Lock() // no frame goes out once the host is silent
		ok := s.cas(devices.ConfirmPending, devices.ConfirmSilenced)
		s.wmu.Unlock()
		if ok {
			s.safe.silenced.Add(1)
			on := s.lastAt.Load() >= req && s.lastOn.Load()
			s.safe.note(on, time.Duration(now-req), s.opt.ConfirmBound, s.watchdog)
			what := "no STATE reported it off"
			if on {
				what = "the device still reports it on"
			}
			s.opt.logf("link: %s: %s %v after the host asked for the power stage off; the host stops sending so that the device's watchdog (%v) cuts the motors",
				s.conn.Name(), what, time.Duration(now-req).Round(time.Microsecond), s.watchdog)
		}
		return
	}
	if last := s.offSent.Load(); time.Duration(now-last) >= s.opt.OffRepeat && s.offSent.CompareAndSwap(last, now) {
		if sent, _ := s.sendIf(&s.enOff, true); sent {
			s.safe.enableOff.Add(1)
		}
	}
}

// keeperDefer: the keeper leaves the sending to a control loop that
// called the link more recently than this: the 1 kHz loop sends what the
// keeper would (Read repeats ENABLE 0 and sends HEARTBEATs).
const keeperDefer = 2 * time.Millisecond

// KeeperPriority is the SCHED_FIFO priority of a link's keeper thread,
// just below haptex's 1 kHz loop (80). The keeper takes the writer's lock
// that the loop takes: at normal priority, a keeper holding it when a
// loaded machine gave its core away held the real-time loop for up to
// 760 ms (priority inversion). Without the permission it runs at normal
// priority, as the loop then does.
const KeeperPriority = 78

// keep is the session's keeper: from the handshake until the link closes
// it sends the HEARTBEATs the device's watchdog needs when the control
// loop sends nothing (before it starts, while it stalls), repeats ENABLE 0
// (exoskeleton) and resends the newest frame to an array whose watchdog
// tripped. It runs on a thread of its own, so that holding the writer's
// lock it never waits for a core, and sleeps in the kernel, so that its
// wake-up does not wait for the Go scheduler (on a Go timer it woke up to
// 150 ms late on a loaded machine); the P such a thread keeps while it
// sleeps is added to GOMAXPROCS for its life (rt.AddProcs). Every
// rt.YieldPeriod it passes through the scheduler (session.yield), but not
// while it repeats ENABLE 0.
func (s *session) keep() {
	release := rt.AddProcs(1)
	defer release()
	_ = rt.LockRealtime(KeeperPriority)
	idle := min(max(s.heartbeat/2, 100*time.Microsecond), 5*time.Millisecond)
	wait := idle
	var yielded int64
	for {
		ts := unix.NsecToTimespec(int64(wait))
		_ = unix.ClockNanosleep(unix.CLOCK_MONOTONIC, 0, &ts, nil)
		select {
		case <-s.done:
			return
		default:
		}
		s.tend()
		wait = idle
		if s.kind == wire.KindExo && s.confirmState() == devices.ConfirmPending {
			wait = min(wait, s.opt.OffRepeat)
		}
		// Not while ENABLE 0 is repeated: the keeper's yield waits for a
		// normal-priority thread to hand its goroutine back (under load,
		// milliseconds), which a heartbeat can afford, the device's
		// watchdog being four heartbeats.
		if s.kind != wire.KindExo || s.confirmState() != devices.ConfirmPending {
			yielded = s.yield(yielded)
		}
	}
}

// tend is one round of the keeper's duties.
func (s *session) tend() {
	if s.lost.Load() != nil {
		return
	}
	now := s.now()
	if time.Duration(now-s.loopAt.Load()) < keeperDefer {
		return
	}
	s.poll() // the STATEs that arrived, before it judges the request
	if s.kind == wire.KindExo {
		s.tendOff(now)
	}
	if s.tacResend.Swap(false) {
		s.resendFrame()
	}
	if !s.silent() {
		s.keepAlive(now)
	}
}

// resendFrame sends the newest TACTILE_FRAME again.
func (s *session) resendFrame() {
	s.wmu.Lock()
	fr := s.tacLast
	s.wmu.Unlock()
	_ = s.send(&fr)
}

// safeCounters count the safe-state requests of a session.
type safeCounters struct {
	requests, enableOff, byDevice, late, silenced, byWatchdog, revoked atomic.Uint64
	heartbeats, watchdogTrips                                          atomic.Uint64
	latency                                                            rt.Histogram
	mu                                                                 sync.Mutex
	last                                                               string
}

func (c *safeCounters) note(on bool, after, bound, watchdog time.Duration) {
	what := "no STATE reported the power stage off"
	if on {
		what = "the device still reported its power stage on"
	}
	c.mu.Lock()
	c.last = what + " " + after.Round(time.Microsecond).String() + " after the request (bound " + bound.String() + "); the host fell silent so that the device's watchdog (" + watchdog.String() + ") cuts the motors"
	c.mu.Unlock()
}

// SafeStats is the account of an exoskeleton's safe-state requests since
// the handshake (the session's start counts as one).
type SafeStats struct {
	Requests   uint64 `json:"requests"`    // requests for the stage off
	EnableOff  uint64 `json:"enable_off"`  // ENABLE 0 frames sent for them beyond Enable's own
	ByDevice   uint64 `json:"by_device"`   // confirmed by a STATE
	Late       uint64 `json:"late"`        // of those, after the host had fallen silent
	Silenced   uint64 `json:"silenced"`    // not confirmed within the bound: the host fell silent
	ByWatchdog uint64 `json:"by_watchdog"` // confirmed by the device's watchdog
	Revoked    uint64 `json:"revoked"`     // STATEs reporting the stage on after it was confirmed off
	// ConfirmUs is the time from a request to its confirmation [µs].
	ConfirmUs Latency `json:"confirm_us"`
	Last      string  `json:"last_silence,omitempty"` // the newest silence, in words
}

func (c *safeCounters) stats() *SafeStats {
	st := &SafeStats{
		Requests: c.requests.Load(), EnableOff: c.enableOff.Load(), ByDevice: c.byDevice.Load(), Late: c.late.Load(),
		Silenced: c.silenced.Load(), ByWatchdog: c.byWatchdog.Load(), Revoked: c.revoked.Load(),
		ConfirmUs: LatencyOf(&c.latency),
	}
	c.mu.Lock()
	st.Last = c.last
	c.mu.Unlock()
	return st
}

// GapNote is the longest wait between two samples that goes unremarked:
// the servo calls a device silent after 5 ms (safety.silent_ms).
const GapNote = 4 * time.Millisecond

// GapStats counts the samples that arrived more than GapNote after the
// previous one, by what the device's own clock says of the wait (see
// heldOnTheWay): the device sent nothing (its firmware, or a machine that
// stopped it), or its samples were held on the way (the line, or the
// host's reader, which runs at normal priority and can wait for a core).
type GapStats struct {
	Device    uint64  `json:"device"`     // the device sent nothing
	OnTheWay  uint64  `json:"on_the_way"` // sent in time, arrived late
	LongestMs float64 `json:"longest_ms"`
}

type gapCounter struct {
	GapStats
	prevSeq  uint32
	prevDev  uint64 // µs
	prevAt   int64
	loggedAt int64
}

// heldOnTheWay says which part of a wait between two consecutive samples
// is the larger: the time the second one spent on the way (the wait less
// what the device's clock advanced between them), or the device's own
// lateness (what its clock advanced beyond its period). A 2 ms array whose
// sample came 4.3 ms after the one before, 2.3 ms later by its own clock,
// sent on time and was held for 2 ms.
func heldOnTheWay(wait, dev, period time.Duration) bool {
	return wait-dev > dev-period
}

// gap runs on every sample the reader accepts (under rmu).
func (s *session) gap(seq uint32, devUs uint64, now int64) {
	g := &s.gaps
	prevSeq, prevDev, prevAt := g.prevSeq, g.prevDev, g.prevAt
	g.prevSeq, g.prevDev, g.prevAt = seq, devUs, now
	wait := time.Duration(now - prevAt)
	if prevAt == 0 || seq != prevSeq+1 && !(seq == 1 && prevSeq == 0xFFFFFFFF) || wait <= GapNote {
		return // the first sample, or frames between these two were lost
	}
	dev := time.Duration(devUs-prevDev) * time.Microsecond
	g.LongestMs = max(g.LongestMs, float64(wait)/1e6)
	what := "the device sent nothing"
	if heldOnTheWay(wait, dev, s.period) {
		g.OnTheWay++
		what = "the device sent its sample in time, it was held on the way (the line, or this host's reader)"
	} else {
		g.Device++
	}
	if now-g.loggedAt >= int64(time.Second) {
		g.loggedAt = now
		s.opt.logf("link: %s: no sample for %v (at %v into the session); the device's clock advanced %v: %s",
			s.conn.Name(), wait.Round(10*time.Microsecond), time.Duration(now).Round(time.Millisecond), dev.Round(10*time.Microsecond), what)
	}
}

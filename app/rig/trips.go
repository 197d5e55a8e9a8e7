package rig

import (
	"fmt"
	"time"

	"github.com/haptex/haptex/haptics"
	"github.com/haptex/haptex/sim"
)

// Trip is one stop of a rendering finger, as the run's summary names it.
type Trip struct {
	TS     float64 `json:"t_s"` // on the run's clock [s], as in haptics.csv
	Finger string  `json:"finger"`
	Reason string  `json:"reason"`
	Cause  string  `json:"cause"`
	// LateMs is the haptics loop's worst lateness over the 20 ticks up to
	// the trip [ms] (real-time runs): a stop of the machine shows here.
	LateMs float64 `json:"late_ms"`
}

// maxTrips is how many trips a run keeps (the first ones; the count goes
// on).
const maxTrips = 64

// tripLog finds, on the haptics goroutine, each tick at which a finger
// that was enabling or rendering stops. It allocates nothing there.
type tripLog struct {
	prev  [sim.NumFingers]haptics.State
	late  [20]time.Duration // the loop's lateness, a ring over the last ticks
	k     int
	n     int
	trips [maxTrips]struct {
		t      time.Duration
		finger int
		reason haptics.Reason
		late   time.Duration
	}
}

func (l *tripLog) add(t time.Duration, rec *haptics.TickRecord, late time.Duration) {
	l.late[l.k%len(l.late)] = late
	l.k++
	for f := range rec.Fingers {
		st := rec.Fingers[f].State
		was := l.prev[f]
		l.prev[f] = st
		if (was == haptics.StateActive || was == haptics.StateEnabling) && (st == haptics.StateStopping || st == haptics.StateSafe) {
			if l.n < maxTrips {
				e := &l.trips[l.n]
				e.t, e.finger, e.reason = t, f, rec.Fingers[f].Reason
				e.late = 0
				for _, d := range l.late {
					e.late = max(e.late, d)
				}
			}
			l.n++
		}
	}
}

// lateCause is the lateness past which a trip is laid at the machine's
// door: more than the servo's silence limit (5 ms) minus a tick.
const lateCause = 4 * time.Millisecond

func (l *tripLog) list() (trips []Trip, total int) {
	for i := range min(l.n, maxTrips) {
		e := &l.trips[i]
		tr := Trip{TS: e.t.Seconds(), Finger: sim.FingerName(e.finger), Reason: e.reason.String(), LateMs: float64(e.late) / 1e6}
		tr.Cause = cause(e.reason, e.late)
		trips = append(trips, tr)
	}
	return trips, l.n
}

// cause says, in words, what a trip's reason means and, where the run
// knows, what brought it about.
func cause(r haptics.Reason, late time.Duration) string {
	if late > lateCause {
		return fmt.Sprintf("the 1 kHz loop itself woke %.1f ms late just before: the machine stopped it (session.json lists the late ticks; scripts/hostpauses.py tells whether the whole machine stopped)", float64(late)/1e6)
	}
	switch r {
	case haptics.ReasonSilent:
		return "no new sample for safety.silent_ms while the loop ran on time: the device sent nothing, or its samples were held on the way; the device's link says which in its line on stderr (\"no sample for ...\")"
	case haptics.ReasonDisconnected:
		return "the device went away (its link's line on stderr says why)"
	case haptics.ReasonDeviceFault:
		return "the device reported fault bits"
	case haptics.ReasonDeviceDisabled:
		return "the device reported its power stage off while the finger rendered (its watchdog, or a fault)"
	case haptics.ReasonEnableTimeout:
		return "no sample reported the power stage on within safety.enable_wait_ms of ENABLE 1"
	}
	return "the servo's safety envelope (haptics package documentation)"
}

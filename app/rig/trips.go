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
	// SafeBy is how the safe state after the trip was known to hold
	// (haptics.csv's safe_by) when the finger was enabled again or the
	// run ended: "device" (its samples reported the power stage off),
	// "watchdog" (the device's watchdog cut it after the host fell
	// silent), "lost" (the device went away: nothing can confirm it),
	// "commanded" (the host switched it off and nothing confirmed it),
	// or "none" (the finger was not yet safe).
	SafeBy string `json:"safe_by"`
	// ConfirmedMs is the time from the trip to the first confirmation by
	// the device or its watchdog [ms]; absent without one.
	ConfirmedMs *float64 `json:"confirmed_ms,omitempty"`
	// Revoked says that after confirming, the device reported its power
	// stage on again while the finger was to be safe (the servo then
	// flags stays-enabled and tells it again).
	Revoked bool `json:"revoked,omitempty"`
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
		t                   time.Duration
		finger              int
		reason              haptics.Reason
		late                time.Duration
		confirm             haptics.Confirm // the newest while the finger was safe
		confirmed           time.Duration   // when the device or its watchdog first confirmed
		didConfirm, revoked bool            // it did; a sample later reported the stage on again
	}
	// open is, per finger, the stored trip whose safe state is still
	// watched for its confirmation, plus one (0: none).
	open [sim.NumFingers]int
}

func (l *tripLog) add(t time.Duration, rec *haptics.TickRecord, late time.Duration) {
	l.late[l.k%len(l.late)] = late
	l.k++
	for f := range rec.Fingers {
		st := rec.Fingers[f].State
		was := l.prev[f]
		l.prev[f] = st
		if (was == haptics.StateActive || was == haptics.StateEnabling) && (st == haptics.StateStopping || st == haptics.StateSafe) &&
			rec.Fingers[f].Reason != haptics.ReasonStopped { // the run's end, not a trip
			l.open[f] = 0
			if l.n < maxTrips {
				e := &l.trips[l.n]
				e.t, e.finger, e.reason = t, f, rec.Fingers[f].Reason
				e.late, e.confirm, e.didConfirm, e.revoked = 0, haptics.ConfirmNone, false, false
				for _, d := range l.late {
					e.late = max(e.late, d)
				}
				l.open[f] = l.n + 1
			}
			l.n++
		}
		if l.open[f] == 0 {
			continue
		}
		if st != haptics.StateSafe && st != haptics.StateStopping {
			l.open[f] = 0 // enabled again
			continue
		}
		e := &l.trips[l.open[f]-1]
		switch c := rec.Fingers[f].Confirm; c {
		case haptics.ConfirmDevice, haptics.ConfirmWatchdog:
			if !e.didConfirm {
				e.confirmed, e.didConfirm = t, true
			}
			e.confirm = c
		case haptics.ConfirmCommanded:
			e.revoked = e.revoked || e.confirm == haptics.ConfirmDevice || e.confirm == haptics.ConfirmWatchdog
			e.confirm = c
		case haptics.ConfirmLost:
			e.confirm = c
		}
	}
}

// lateCause is the lateness past which a trip is laid at the machine's
// door: more than the servo's silence limit (5 ms) minus a tick.
const lateCause = 4 * time.Millisecond

func (l *tripLog) list() (trips []Trip, total int) {
	for i := range min(l.n, maxTrips) {
		e := &l.trips[i]
		tr := Trip{TS: e.t.Seconds(), Finger: sim.FingerName(e.finger), Reason: e.reason.String(), LateMs: float64(e.late) / 1e6, SafeBy: safeBy(e.confirm)}
		if e.didConfirm {
			ms := float64(e.confirmed-e.t) / 1e6
			tr.ConfirmedMs = &ms
		}
		tr.Revoked = e.revoked
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

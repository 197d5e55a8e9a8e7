package rig

import (
	"strings"
	"testing"
	"time"

	"github.com/haptex/haptex/haptics"
)

// A finger that stops while rendering is a trip, named with its reason;
// one that was already safe is not; a late loop just before is the
// machine's doing. Recording allocates nothing.
func TestTripLog(t *testing.T) {
	var l tripLog
	var rec haptics.TickRecord
	tick := func(ms int, late time.Duration, thumb, index haptics.State, r haptics.Reason) {
		rec.Fingers[0].State, rec.Fingers[1].State = thumb, index
		rec.Fingers[0].Reason, rec.Fingers[1].Reason = r, r
		l.add(time.Duration(ms)*time.Millisecond, &rec, late)
	}
	tick(1, 0, haptics.StateActive, haptics.StateSafe, haptics.ReasonNone)
	tick(2, 0, haptics.StateStopping, haptics.StateSafe, haptics.ReasonSilent)
	tick(3, 0, haptics.StateSafe, haptics.StateSafe, haptics.ReasonSilent)
	tick(4, 9*time.Millisecond, haptics.StateEnabling, haptics.StateEnabling, haptics.ReasonNone)
	tick(5, 0, haptics.StateEnabling, haptics.StateStopping, haptics.ReasonSilent)
	trips, n := l.list()
	if n != 2 || len(trips) != 2 {
		t.Fatalf("%d trips: %+v", n, trips)
	}
	if tr := trips[0]; tr.TS != 0.002 || tr.Finger != "thumb" || tr.Reason != "device-silent" || !strings.Contains(tr.Cause, "while the loop ran on time") {
		t.Errorf("%+v", tr)
	}
	if tr := trips[1]; tr.Finger != "index" || tr.LateMs != 9 || !strings.Contains(tr.Cause, "the machine stopped it") {
		t.Errorf("%+v", tr)
	}
	if a := testing.AllocsPerRun(100, func() { tick(6, 0, haptics.StateActive, haptics.StateStopping, haptics.ReasonSilent) }); a != 0 {
		t.Errorf("add allocates %v times", a)
	}
}

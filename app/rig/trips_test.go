package rig

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/haptex/haptex/haptics"
)

// A finger that stops while rendering is a trip, named with its reason;
// one that was already safe is not; a late loop just before is the
// machine's doing. Each trip says how its safe state was known to hold
// (the device's confirmation and when, a lost device, the host's command
// alone, a confirmation the device took back). Recording allocates
// nothing.
func TestTripLog(t *testing.T) {
	var l tripLog
	var rec haptics.TickRecord
	tick := func(ms int, late time.Duration, thumb, index haptics.State, r haptics.Reason, confirm ...haptics.Confirm) {
		rec.Fingers[0].State, rec.Fingers[1].State = thumb, index
		rec.Fingers[0].Reason, rec.Fingers[1].Reason = r, r
		rec.Fingers[0].Confirm, rec.Fingers[1].Confirm = haptics.ConfirmNone, haptics.ConfirmNone
		for f, c := range confirm {
			rec.Fingers[f].Confirm = c
		}
		l.add(time.Duration(ms)*time.Millisecond, &rec, late)
	}
	const (
		none      = haptics.ConfirmNone
		commanded = haptics.ConfirmCommanded
	)
	tick(1, 0, haptics.StateActive, haptics.StateSafe, haptics.ReasonNone, none, commanded)
	tick(2, 0, haptics.StateStopping, haptics.StateSafe, haptics.ReasonSilent, none, commanded)
	tick(3, 0, haptics.StateSafe, haptics.StateSafe, haptics.ReasonSilent, commanded, commanded)
	tick(7, 0, haptics.StateSafe, haptics.StateSafe, haptics.ReasonSilent, haptics.ConfirmDevice, haptics.ConfirmDevice)
	tick(8, 9*time.Millisecond, haptics.StateEnabling, haptics.StateEnabling, haptics.ReasonNone)
	tick(9, 0, haptics.StateEnabling, haptics.StateStopping, haptics.ReasonSilent)
	tick(10, 0, haptics.StateActive, haptics.StateSafe, haptics.ReasonSilent, none, commanded)
	tick(11, 0, haptics.StateSafe, haptics.StateEnabling, haptics.ReasonDisconnected, haptics.ConfirmLost)
	tick(12, 0, haptics.StateSafe, haptics.StateActive, haptics.ReasonNone, haptics.ConfirmLost)
	tick(13, 0, haptics.StateSafe, haptics.StateSafe, haptics.ReasonSilent, haptics.ConfirmLost, commanded)
	tick(14, 0, haptics.StateActive, haptics.StateSafe, haptics.ReasonNone, none, haptics.ConfirmDevice)
	tick(15, 0, haptics.StateStopping, haptics.StateSafe, haptics.ReasonSilent, none, commanded)
	trips, n := l.list()
	if n != 5 || len(trips) != 5 {
		t.Fatalf("%d trips: %+v", n, trips)
	}
	if tr := trips[0]; tr.TS != 0.002 || tr.Finger != "thumb" || tr.Reason != "device-silent" || !strings.Contains(tr.Cause, "while the loop ran on time") ||
		tr.SafeBy != "device" || tr.ConfirmedMs == nil || *tr.ConfirmedMs != 5 || tr.Revoked {
		t.Errorf("%+v", tr)
	}
	// Safe by command, then enabled again before the device confirmed.
	if tr := trips[1]; tr.Finger != "index" || tr.LateMs != 9 || !strings.Contains(tr.Cause, "the machine stopped it") || tr.SafeBy != "commanded" || tr.ConfirmedMs != nil {
		t.Errorf("%+v", tr)
	}
	if tr := trips[2]; tr.Finger != "thumb" || tr.SafeBy != "lost" || tr.ConfirmedMs != nil {
		t.Errorf("%+v", tr)
	}
	// Confirmed, then the stage reported on again: safe by command alone
	// when the run ended.
	if tr := trips[3]; tr.Finger != "index" || tr.TS != 0.013 || tr.SafeBy != "commanded" || tr.ConfirmedMs == nil || *tr.ConfirmedMs != 1 || !tr.Revoked {
		t.Errorf("%+v", tr)
	}
	// Still stopping when the run ended.
	if tr := trips[4]; tr.Finger != "thumb" || tr.SafeBy != "none" || tr.ConfirmedMs != nil {
		t.Errorf("%+v", tr)
	}
	if a := testing.AllocsPerRun(100, func() { tick(16, 0, haptics.StateActive, haptics.StateStopping, haptics.ReasonSilent) }); a != 0 {
		t.Errorf("add allocates %v times", a)
	}
}

// A finger tripped in a run (here by a speed limit below the showcase's)
// is safe by the simulated device's own report: the summary says so for
// every trip, with the time it took, as haptics.csv's safe_by column
// shows it.
func TestTripConfirmedByTheDevice(t *testing.T) {
	cfg := coarse(Config{OutDir: t.TempDir(), Duration: 3 * time.Second})
	cfg.Servo = haptics.DefaultConfig()
	cfg.Servo.Safety.MaxSpeed = 0.02
	r, sum := lockstepSummary(t, cfg)
	if len(sum.Trips) < 2 {
		t.Fatalf("%d trips, want a few", len(sum.Trips))
	}
	rows := readCSV(t, filepath.Join(r.SessionDir(), "haptics.csv"))
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, tr := range sum.Trips {
		// From the trip's row, the first safe_by "device" and the value
		// when the finger leaves the safe state or the run ends.
		var first float64 = -1
		last := "none"
		for _, row := range rows[1:] {
			ts, err := strconv.ParseFloat(row[col["t_s"]], 64)
			if err != nil {
				t.Fatal(err)
			}
			if ts < tr.TS-1e-9 {
				continue
			}
			st, by := row[col[tr.Finger+"_state"]], row[col[tr.Finger+"_safe_by"]]
			if st != "safe" && st != "stopping" {
				break
			}
			if by != "" {
				last = by
			}
			if by == "device" && first < 0 {
				first = ts
			}
		}
		if tr.SafeBy != "device" || last != "device" || tr.ConfirmedMs == nil || math.Abs(*tr.ConfirmedMs-1e3*(first-tr.TS)) > 1e-6 || tr.Revoked {
			t.Errorf("trip %+v (confirmed %v ms): haptics.csv has safe_by %q last, \"device\" first %.1f ms after the trip", tr, tr.ConfirmedMs, last, 1e3*(first-tr.TS))
		}
		if tr.ConfirmedMs != nil {
			t.Logf("%.3f s %s %s: safe by %s %.0f ms after", tr.TS, tr.Finger, tr.Reason, tr.SafeBy, *tr.ConfirmedMs)
		}
	}
}

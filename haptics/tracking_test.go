package haptics

import (
	"math"
	"testing"
	"time"
)

// trackingRun feeds a contact episode of 1 s in which the desired force
// is a 2 Hz half-sine of 0.4 N along x and the measured force is meas(t,
// desired), then 0.1 s out of contact.
func trackingRun(t *testing.T, meas func(k int, des float64) float64) TrackingResult {
	t.Helper()
	ct, err := NewContactTracking(time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	var rec TickRecord
	for k := range 1100 {
		rec.T = float64(k) * 1e-3
		fr := &rec.Fingers[1]
		fr.State = StateActive
		fr.Contact = k < 1000
		d := 0.0
		if fr.Contact {
			d = 0.4 * math.Sin(math.Pi*float64(k)/1000)
		}
		fr.ForceDes = [3]float64{d, 0, 0}
		fr.ForceMeas = [3]float64{meas(k, d), 0, 0}
		ct.Add(&rec)
	}
	return ct.Result()
}

func TestContactTracking(t *testing.T) {
	t.Run("perfect", func(t *testing.T) {
		r := trackingRun(t, func(_ int, d float64) float64 { return d })
		if r.RMSRel[1] > 1e-12 || r.PeakShortfall[1] > 1e-12 || r.OnsetOvershoot[1] != 0 || r.Episodes[1] != 1 {
			t.Errorf("perfect tracking: %+v", r)
		}
	})
	t.Run("half", func(t *testing.T) {
		// Half the force: the error is half the desired force, RMS and
		// peak alike, whatever the filter does to both.
		r := trackingRun(t, func(_ int, d float64) float64 { return d / 2 })
		if math.Abs(r.RMSRel[1]-0.5) > 1e-9 || math.Abs(r.PeakShortfall[1]-0.5) > 1e-9 {
			t.Errorf("half the force: rms_rel %g, peak_shortfall %g, want 0.5", r.RMSRel[1], r.PeakShortfall[1])
		}
		if math.Abs(r.ContactS[1]-1) > 1e-9 {
			t.Errorf("contact %g s, want 1", r.ContactS[1])
		}
	})
	t.Run("onset", func(t *testing.T) {
		// 0.1 N too much in the first 50 ms only: overshoot 0.1/0.4.
		r := trackingRun(t, func(k int, d float64) float64 {
			if k < 50 {
				return d + 0.1
			}
			return d
		})
		if r.OnsetOvershoot[1] < 0.15 || r.OnsetOvershoot[1] > 0.27 {
			t.Errorf("onset overshoot %g, want about 0.25 (the 30 Hz Butterworth rounds the 50 ms pulse and overshoots a step by 4 %%)", r.OnsetOvershoot[1])
		}
	})
}

func TestContactTrackingAllocs(t *testing.T) {
	ct, err := NewContactTracking(time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	var rec TickRecord
	rec.Fingers[0].Contact, rec.Fingers[0].State = true, StateActive
	if a := testing.AllocsPerRun(100, func() { rec.T += 1e-3; ct.Add(&rec) }); a != 0 {
		t.Errorf("Add allocates %g times", a)
	}
}

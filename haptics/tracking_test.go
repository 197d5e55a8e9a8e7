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

// Light touches (desired peak under 0.05 N) are not judged for peaks,
// but counted, with the device's worst push beyond the cloth's in their
// first 100 ms in newtons; a judged episode does not count among them.
func TestContactTrackingLightTouches(t *testing.T) {
	ct, err := NewContactTracking(time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	var rec TickRecord
	// Three touches of 0.2 s, 0.1 s apart: desired 10 mN, measured 10 mN
	// plus 20, 30 and 0 mN; then one of 0.4 N, measured 0.1 N over.
	touch := []struct{ des, extra float64 }{{0.01, 0.02}, {0.01, 0.03}, {0.01, 0}, {0.4, 0.1}}
	k := 0
	for _, tc := range touch {
		for i := range 300 {
			rec.T = float64(k) * 1e-3
			k++
			fr := &rec.Fingers[0]
			fr.State, fr.Contact = StateActive, i < 200
			fr.ForceDes, fr.ForceMeas = [3]float64{}, [3]float64{}
			if fr.Contact {
				fr.ForceDes = [3]float64{0, 0, tc.des}
				fr.ForceMeas = [3]float64{0, 0, tc.des + tc.extra}
			}
			ct.Add(&rec)
		}
	}
	r := ct.Result()
	if r.Episodes[0] != 1 || r.LightEpisodes[0] != 3 {
		t.Errorf("%d judged and %d light episodes, want 1 and 3", r.Episodes[0], r.LightEpisodes[0])
	}
	// The 30 Hz filter has settled by 100 ms into a constant excess.
	if math.Abs(r.LightOnsetExcessN[0]-0.03) > 0.002 {
		t.Errorf("light touches' onset excess %.4f N, want 0.03", r.LightOnsetExcessN[0])
	}
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

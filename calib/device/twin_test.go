package device

import (
	"context"
	"math"
	"testing"
)

// The calibration twin's stands recover what the twin was built with: the
// sensor's gains and biases within 1 %, the pad within a few micrometres
// of the jig points with the calibrated kinematics (millimetres with the
// nominal ones), and every pin within 0.1 dB after correction. Each stand
// announces its steps; a finger other than thumb or index is refused.
func TestTwinStand(t *testing.T) {
	ctx := context.Background()
	steps := 0
	stand := TwinStand{Finger: "index", Announce: func(Step) { steps++ }}
	fc, err := stand.Force(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if steps != 20 {
		t.Errorf("force stand announced %d steps, want 20", steps)
	}
	gain, bias := TwinSensorError()
	for i := range 3 {
		if e := math.Abs(fc.Gain[i][i]/gain[i] - 1); e > 0.01 {
			t.Errorf("axis %d gain %.4f, true %.4f", i, fc.Gain[i][i], gain[i])
		}
		if e := math.Abs(fc.Bias[i]/bias[i] - 1); e > 0.01 {
			t.Errorf("axis %d bias %.4f N, true %.4f N", i, fc.Bias[i], bias[i])
		}
	}

	steps = 0
	kc, err := stand.Kinematics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r := kc.Report; steps != JigPoints || r.Poses != JigPoints || r.NominalRMSUm < 1000 || r.ResidualRMSUm > 5 {
		t.Errorf("kinematics: %d steps, %d poses, RMS %.0f µm nominal, %.2f µm calibrated", steps, r.Poses, r.NominalRMSUm, r.ResidualRMSUm)
	}

	tc, err := TwinStand{Finger: "thumb"}.Tactile(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if tc.Finger != "thumb" || tc.Report.VerifyMaxDB > 0.1 {
		t.Errorf("tactile: finger %q, largest error after correction %.3f dB", tc.Finger, tc.Report.VerifyMaxDB)
	}

	if _, err := (TwinStand{Finger: "ring"}).Force(ctx); err == nil {
		t.Error("a ring finger's twin was calibrated")
	}
}

package experiment

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/kes"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/haptics"
	"github.com/haptex/haptex/internal/vec3"
)

// flexRestError runs n flex intervals of fabric on a rig with servo and
// returns, per interval, the mean magnitude over the two rests the bending
// cue compares of the index sensor's force less the cloth's own at the pad
// (ForceDes) along the push [N]: what the device adds to the cue's forces.
func flexRestError(t *testing.T, fabric string, servo haptics.Config, n int) []float64 {
	t.Helper()
	f, err := kes.Library{}.Load(fabric)
	if err != nil {
		t.Fatal(err)
	}
	e := kesExperiment(t, Bending, fabric, 0)
	cfg, err := rigConfig(e, rig.Config{Servo: servo}, f)
	if err != nil {
		t.Fatal(err)
	}
	restError := &Cue{Name: "rest-error", Unit: "N", compute: func(tr *rig.IntervalTrace, script *twin.Script) (float64, error) {
		start, after, _ := phaseAndRest(script, bendPhase)
		p0, _ := script.At(start, 1)
		p1, _ := script.At(after, 1)
		u := vec3.Scale(1/vec3.Norm(vec3.Sub(p1, p0)), vec3.Sub(p1, p0))
		t0 := tr.Haptics[0].T
		var m float64
		for _, end := range []time.Duration{start, after} {
			var sum, k float64
			for _, h := range tr.Haptics {
				if dt := time.Duration(math.Round((h.T - t0) * 1e9)); dt >= end-bendWindow && dt < end {
					p := &h.Fingers[1]
					sum -= vec3.Dot(vec3.Sub(p.ForceMeas, p.ForceDes), u)
					k++
				}
			}
			m += math.Abs(sum/k) / 2
		}
		return m, nil
	}}
	errs, err := levelCues(context.Background(), e, cfg, restError, n, 0)
	if err != nil {
		t.Fatal(err)
	}
	return errs
}

// At the flex motion's rests the fingertip sensor reads the cloth's own
// force: the drive sticks there, and without force.contact_rest_mps the
// force integrator was held back below what breaks its stiction, so the
// finger's push stayed on the sensor beyond the swatch's bending force
// (3-16 mN, against 1.5-60 mN of bending at the finger; docs/evaluation.md).
// On silk habutae and cotton shirting, two intervals each, the error's
// mean magnitude over the rests is under 1.5 mN with the servo as
// configured, and over twice that without (under the race detector silk
// alone, one interval).
func TestFlexRestError(t *testing.T) {
	fabrics, n := []string{"silk-habutae", "cotton-shirting"}, 2
	if raceEnabled {
		fabrics, n = fabrics[:1], 1
	}
	for _, fabric := range fabrics {
		servo := haptics.DefaultConfig()
		with := flexRestError(t, fabric, servo, n)
		servo.Force.ContactRest = 0
		without := flexRestError(t, fabric, servo, n)
		mean := func(e []float64) float64 {
			var m float64
			for _, v := range e {
				m += v / float64(len(e))
			}
			return m
		}
		t.Logf("%s: force error at the rests %.2f mN (%.2g N), without force.contact_rest_mps %.2f mN (%.2g N)",
			fabric, 1e3*mean(with), with, 1e3*mean(without), without)
		if !(mean(with) < 1.5e-3) || !(mean(without) > 2*mean(with)) {
			t.Errorf("%s: force error at the rests %.2f mN, want under 1.5 mN; %.2f mN without force.contact_rest_mps, want over twice that",
				fabric, 1e3*mean(with), 1e3*mean(without))
		}
	}
}

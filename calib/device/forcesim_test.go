package device

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/internal/vec3"
)

// TestRunForceSimExo calibrates the force sensor of the simulated
// exoskeleton on its calibration stand (joints clamped, finger out): the
// automatic operator hangs each planned load on the pad. The sensor has a
// known per-axis gain error and bias, its default 6 mN noise and 3 mN
// quantisation; the calibration recovers gain and bias within 1 %.
func TestRunForceSimExo(t *testing.T) {
	p := twin.DefaultExoParams()
	p.Sensor.Gain = [3]float64{1.03, 0.96, 1.02}
	p.Sensor.Bias = [3]float64{0.05, -0.04, 0.03}
	base := twin.DefaultBase(1)
	kin, err := exo.New(p.Kinematics)
	if err != nil {
		t.Fatal(err)
	}
	q := p.Kinematics.Home
	dev, err := twin.NewExo(p, base, staticIntent(base.Point(kin.Forward(q))), 1)
	if err != nil {
		t.Fatal(err)
	}
	dev.Clamp(true)
	clock := NewVirtualClock(dev)
	plan, err := LoadPlan([]float64{0.05, 0.1, 0.2})
	if err != nil {
		t.Fatal(err)
	}
	var k exo.Kin
	kin.Eval(&k, q)
	s := Session{Finger: "index", Clock: clock, Now: created, Samples: 200,
		Prompt: func(st Step) error {
			// The load that makes the sensor's true force LoadN (sensor
			// frame): the plate holds the load with -load.
			w := base.Vec(k.R.MulVec(plan[st.Index].LoadN))
			dev.SetPadLoad(vec3.Scale(-1, w))
			return nil
		}}
	c, err := RunForce(context.Background(), dev, s, plan, PerAxis)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if e := math.Abs(c.Gain[i][i]/p.Sensor.Gain[i] - 1); e > 0.01 {
			t.Errorf("axis %d: gain %.4f, true %.4f (%.2f %%)", i, c.Gain[i][i], p.Sensor.Gain[i], 100*e)
		}
		if e := math.Abs(c.Bias[i]/p.Sensor.Bias[i] - 1); e > 0.01 {
			t.Errorf("axis %d: bias %.5f N, true %.5f N (%.2f %%)", i, c.Bias[i], p.Sensor.Bias[i], 100*e)
		}
	}
	t.Logf("gain %.4f %.4f %.4f, bias %.5f %.5f %.5f N, residual RMS %.4f %.4f %.4f N", c.Gain[0][0], c.Gain[1][1], c.Gain[2][2],
		c.Bias[0], c.Bias[1], c.Bias[2], c.Report.ResidualRMSN[0], c.Report.ResidualRMSN[1], c.Report.ResidualRMSN[2])
}

type staticIntent [3]float64

func (s staticIntent) At(time.Duration, int) (pos, vel [3]float64) { return s, [3]float64{} }

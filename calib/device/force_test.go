package device

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/haptex/haptex/calib"
)

// sensor is a simulated three-axis strain-gauge force sensor read through
// a bipolar 16-bit ADC: counts = clamp(round(G·f + b + n), −32768, 32767),
// with n Gaussian (bridge and amplifier noise), G the gain with cross-talk
// and b the bridge offset.
type sensor struct {
	gain  [3][3]float64 // counts/N
	bias  [3]float64    // counts
	noise float64       // counts, standard deviation per reading
	rng   *rand.Rand
}

func (s *sensor) read(f [3]float64) [3]float64 {
	var c [3]float64
	for i := range 3 {
		v := s.bias[i] + s.noise*s.rng.NormFloat64()
		for j := range 3 {
			v += s.gain[i][j] * f[j]
		}
		c[i] = math.Min(math.Max(math.Round(v), -32768), 32767)
	}
	return c
}

// average reads n samples at load f, as the calibration command does.
func (s *sensor) average(f [3]float64, n int) [3]float64 {
	var m [3]float64
	for range n {
		r := s.read(f)
		for k := range 3 {
			m[k] += r[k] / float64(n)
		}
	}
	return m
}

func crossTalkSensor(noise float64, seed uint64) *sensor {
	return &sensor{
		gain:  [3][3]float64{{1200, 18, -9}, {25, 950, 6}, {-14, 11, 1100}},
		bias:  [3]float64{1850, -1320, 960},
		noise: noise,
		rng:   rand.New(rand.NewPCG(seed, 1)),
	}
}

func calibrate(t *testing.T, s *sensor, model ForceModel, perPose int) *ForceCalibration {
	t.Helper()
	plan, err := LoadPlan([]float64{0.1, 0.2, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	var samples []ForceSample
	for _, p := range plan {
		samples = append(samples, ForceSample{LoadN: p.LoadN, Raw: s.average(p.LoadN, perPose)})
	}
	c, err := FitForce(samples, model)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestFitForceRecoversSensor calibrates simulated sensors with known bias
// and gain through the standard load plan and checks both within 1%.
func TestFitForceRecoversSensor(t *testing.T) {
	for _, tc := range []struct {
		name    string
		noise   float64
		perPose int
	}{
		{"quiet, one reading per pose", 2, 1},
		{"noisy, averaged", 40, 200},
		{"noisy, one reading", 12, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := crossTalkSensor(tc.noise, 3)
			c := calibrate(t, s, Matrix, tc.perPose)
			worstG, worstB := 0.0, 0.0
			for i := range 3 {
				// The reported standard errors must explain the errors.
				if e := math.Abs(c.Bias[i] - s.bias[i]); e > 4*c.Report.BiasSE[i] {
					t.Errorf("bias %d off by %.3g counts, standard error %.3g", i, e, c.Report.BiasSE[i])
				}
				for j := range 3 {
					if e := math.Abs(c.Gain[i][j] - s.gain[i][j]); e > 4*c.Report.GainSE[i][j] {
						t.Errorf("gain %d,%d off by %.3g, standard error %.3g", i, j, e, c.Report.GainSE[i][j])
					}
					// every gain entry relative to its row's sensitivity
					e := math.Abs(c.Gain[i][j]-s.gain[i][j]) / s.gain[i][i]
					worstG = math.Max(worstG, e)
				}
				worstB = math.Max(worstB, math.Abs(c.Bias[i]-s.bias[i])/math.Abs(s.bias[i]))
			}
			t.Logf("worst gain error %.3g%%, bias error %.3g%%, residual RMS %.4f N, cond %.2f",
				100*worstG, 100*worstB, c.Report.ResidualRMSN, c.Report.Cond)
			if worstG > 0.01 || worstB > 0.01 {
				t.Errorf("gain error %.3g, bias error %.3g: above 1%%\ngain %v\nbias %v", worstG, worstB, c.Gain, c.Bias)
			}
			// The residuals are the sensor noise seen through G⁻¹: about
			// noise/gain/√perPose newtons.
			want := tc.noise / 1000 / math.Sqrt(float64(tc.perPose))
			for k, r := range c.Report.ResidualRMSN {
				if r > 3*want+1e-3 {
					t.Errorf("axis %d residual RMS %.4f N, noise alone %.4f N", k, r, want)
				}
			}
			// The calibration inverts the sensor: a fresh reading gives the
			// applied force.
			f := [3]float64{0.3, -0.7, 1.2}
			got := c.Force(s.average(f, 400))
			for k := range 3 {
				if math.Abs(got[k]-f[k]) > 0.01+5*tc.noise/1000/20 {
					t.Errorf("force %v, applied %v", got, f)
					break
				}
			}
		})
	}
}

// TestPerAxisModel: the per-axis model recovers a sensor without
// cross-talk, and on one with cross-talk its residuals expose what the
// matrix model captures.
func TestPerAxisModel(t *testing.T) {
	s := crossTalkSensor(3, 5)
	s.gain = [3][3]float64{{1200, 0, 0}, {0, 950, 0}, {0, 0, 1100}}
	c := calibrate(t, s, PerAxis, 50)
	for i := range 3 {
		if math.Abs(c.Gain[i][i]-s.gain[i][i]) > 0.01*s.gain[i][i] || math.Abs(c.Bias[i]-s.bias[i]) > 0.01*math.Abs(s.bias[i]) {
			t.Errorf("axis %d: gain %g bias %g, true %g %g", i, c.Gain[i][i], c.Bias[i], s.gain[i][i], s.bias[i])
		}
	}
	x := crossTalkSensor(3, 5)
	pa := calibrate(t, x, PerAxis, 50)
	mx := calibrate(t, crossTalkSensor(3, 5), Matrix, 50)
	for k := range 3 {
		if pa.Report.ResidualRMSN[k] < 5*mx.Report.ResidualRMSN[k] {
			t.Errorf("axis %d: per-axis residual %.4f N does not reveal the cross-talk (matrix %.4f N)", k, pa.Report.ResidualRMSN[k], mx.Report.ResidualRMSN[k])
		}
	}
	t.Logf("cross-talk sensor: per-axis residual RMS %.4f N, matrix %.4f N", pa.Report.ResidualRMSN, mx.Report.ResidualRMSN)
}

func TestFitForceErrors(t *testing.T) {
	one := []ForceSample{{LoadN: [3]float64{1, 0, 0}, Raw: [3]float64{1, 2, 3}}}
	if _, err := FitForce(one, Matrix); err == nil {
		t.Error("one sample accepted")
	}
	// Loads only along x: y and z gains are undetermined.
	var xOnly []ForceSample
	for i := range 6 {
		xOnly = append(xOnly, ForceSample{LoadN: [3]float64{float64(i), 0, 0}, Raw: [3]float64{float64(1000 * i), 5, 5}})
	}
	if _, err := FitForce(xOnly, Matrix); !errors.Is(err, calib.ErrIllPosed) {
		t.Errorf("x-only loads: %v", err)
	}
	if _, err := FitForce(xOnly, PerAxis); !errors.Is(err, calib.ErrIllPosed) {
		t.Errorf("x-only loads, per axis: %v", err)
	}
	bad := append([]ForceSample(nil), xOnly...)
	bad[2].Raw[1] = math.NaN()
	if _, err := FitForce(bad, Matrix); err == nil {
		t.Error("NaN accepted")
	}
	if _, err := FitForce(xOnly, "quadratic"); err == nil {
		t.Error("unknown model accepted")
	}
	if _, err := LoadPlan(nil); err == nil {
		t.Error("empty plan accepted")
	}
	if _, err := LoadPlan([]float64{-1}); err == nil {
		t.Error("negative mass accepted")
	}
}

func TestForceAllocs(t *testing.T) {
	c := calibrate(t, crossTalkSensor(2, 1), Matrix, 1)
	raw := [3]float64{2100, 2000, 2200}
	var sink [3]float64
	if n := testing.AllocsPerRun(100, func() { sink = c.Force(raw) }); n != 0 {
		t.Errorf("Force allocates %g times per call", n)
	}
	_ = sink
}

func TestForceCalibrationFile(t *testing.T) {
	c := calibrate(t, crossTalkSensor(2, 1), Matrix, 10)
	c.Device, c.Finger, c.Created = "haptex-exo-sim 0001", "index", time.Date(2026, 5, 27, 9, 0, 0, 0, time.UTC)
	var buf bytes.Buffer
	if err := c.Write(&buf); err != nil {
		t.Fatal(err)
	}
	d, err := ReadForceCalibration(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	raw := [3]float64{2500, 1800, 2600}
	if a, b := c.Force(raw), d.Force(raw); a != b {
		t.Errorf("force after reload %v, before %v", b, a)
	}
	good := buf.String()
	for _, e := range []struct{ old, new string }{
		{`"version": 1`, `"version": 2`},
		{`"format": "haptex-force-calibration"`, `"format": "other"`},
		{`"finger": "index"`, `"finger": "toe"`},
		{`"model": "matrix"`, `"model": "per-axis"`},
		{`"device"`, `"extra": 1, "device"`},
	} {
		bad := strings.Replace(good, e.old, e.new, 1)
		if bad == good {
			t.Fatalf("%q not found", e.old)
		}
		if _, err := ReadForceCalibration(strings.NewReader(bad)); err == nil {
			t.Errorf("file with %s accepted", e.new)
		}
	}
	sing := *c
	sing.Gain = [3][3]float64{{1, 2, 3}, {2, 4, 6}, {0, 0, 1}}
	if err := sing.Validate(); err == nil {
		t.Error("singular gain validated")
	}
}

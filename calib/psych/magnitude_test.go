package psych

import (
	"math"
	"strings"
	"testing"
)

// TestPowerLawRecovers fits simulated subjects with a known exponent: a
// session of 7 stimuli over 1.5 decades, 5 estimates each, with the
// scatter of real magnitude estimates (SD 0.3 in ln, about 30 %). The
// regression on geometric means is then exactly the normal linear model,
// so the 95 % interval must hold the exponent in about 95 % of 200
// subjects.
func TestPowerLawRecovers(t *testing.T) {
	const subjects, exponent = 200, 0.6
	levels := []float64{1, 1.8, 3.2, 5.6, 10, 17.8, 31.6}
	in := 0
	var sum, sumSq float64
	for s := range uint64(subjects) {
		o, err := NewMagnitudeObserver(exponent, 2+float64(s%5), 0.3, s)
		if err != nil {
			t.Fatal(err)
		}
		var trials []Magnitude
		for range 5 {
			for _, x := range levels {
				trials = append(trials, Magnitude{X: x, M: o.Respond(x)})
			}
		}
		f, err := FitPowerLaw(trials, 0)
		if err != nil {
			t.Fatal(err)
		}
		if f.ExponentInterval.Contains(exponent) {
			in++
		}
		sum += f.Exponent
		sumSq += f.Exponent * f.Exponent
	}
	mean := sum / subjects
	sd := math.Sqrt(sumSq/subjects - mean*mean)
	t.Logf("exponent %.3f ± %.3f (SD across subjects), true %.1f; 95 %% interval held it for %d of %d subjects", mean, sd, exponent, in, subjects)
	if math.Abs(mean-exponent) > 3*sd/math.Sqrt(subjects) {
		t.Errorf("mean exponent %.4f, true %g: biased beyond 3 standard errors (%.4f)", mean, exponent, sd/math.Sqrt(subjects))
	}
	if in < 180 || in > 198 {
		t.Errorf("interval coverage %d of %d, want about 95 %% (180..198)", in, subjects)
	}
}

func TestPowerLawValues(t *testing.T) {
	// Noiseless answers m = 3 x^0.7: the line is exact.
	o, _ := NewMagnitudeObserver(0.7, 3, 0, 1)
	var trials []Magnitude
	for _, x := range []float64{2, 4, 8, 16} {
		trials = append(trials, Magnitude{X: x, M: o.Respond(x)}, Magnitude{X: x, M: 0})
	}
	f, err := FitPowerLaw(trials, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(f.Exponent-0.7) > 1e-12 || math.Abs(f.Scale-3) > 1e-12 || math.Abs(f.R2-1) > 1e-12 || f.Excluded != 4 || len(f.Points) != 4 {
		t.Errorf("exponent %g scale %g R² %g excluded %d points %d; want 0.7, 3, 1, 4, 4", f.Exponent, f.Scale, f.R2, f.Excluded, len(f.Points))
	}
	// Three levels: geometric means 2, 4 and 16 at x = 1, 2, 4, so
	// ln m on ln x has slope 1.5 and residuals ±(ln 2)/6·(1, −2, 1); the
	// interval is t(0.975, 1 df) = 12.706 standard errors wide each side.
	trials = []Magnitude{{1, 1}, {1, 4}, {2, 4}, {4, 16}}
	f, err = FitPowerLaw(trials, 0)
	if err != nil {
		t.Fatal(err)
	}
	ln2 := math.Ln2
	sxx := 2 * ln2 * ln2
	rss := (ln2 / 6) * (ln2 / 6) * 6
	se := math.Sqrt(rss / sxx)
	if math.Abs(f.Exponent-1.5) > 1e-12 || math.Abs(f.ExponentSE-se) > 1e-12 || math.Abs(f.ExponentInterval.Hi-1.5-12.7062047*se) > 1e-6 {
		t.Errorf("exponent %g ± %g, interval %+v; want 1.5 ± %g, half-width %g", f.Exponent, f.ExponentSE, f.ExponentInterval, se, 12.7062047*se)
	}
	if f.Points[0].GeoMean != 2 || f.Points[0].N != 2 {
		t.Errorf("first point %+v, want geometric mean 2 of 2", f.Points[0])
	}
}

func TestPowerLawErrors(t *testing.T) {
	for _, tc := range []struct {
		trials []Magnitude
		level  float64
		want   string
	}{
		{[]Magnitude{{1, 1}, {2, 2}}, 0, "need at least 3"},
		{[]Magnitude{{1, 1}, {2, 2}, {3, 0}}, 0, "need at least 3"},
		{[]Magnitude{{1, 1}, {2, 2}, {0, 3}}, 0, "not positive"},
		{[]Magnitude{{1, 1}, {2, 2}, {3, math.NaN()}}, 0, "not a number"},
		{[]Magnitude{{1, 1}, {2, 2}, {math.Inf(1), 3}}, 0, "not positive"},
		{[]Magnitude{{1, 1}, {2, 2}, {3, 3}}, 1, "level"},
	} {
		if _, err := FitPowerLaw(tc.trials, tc.level); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("FitPowerLaw(%v): error %v, want %q", tc.trials, err, tc.want)
		}
	}
	for _, p := range [][3]float64{{0, 1, 0.1}, {0.5, 0, 0.1}, {0.5, 1, -1}, {0.5, 1, math.NaN()}} {
		if _, err := NewMagnitudeObserver(p[0], p[1], p[2], 1); err == nil {
			t.Errorf("magnitude observer %v accepted", p)
		}
	}
	o, _ := NewMagnitudeObserver(0.5, 1, 0.2, 3)
	if m := o.Respond(math.NaN()); m != 0 {
		t.Errorf("nothing delivered answered %g, want 0", m)
	}
}

func TestSummarise(t *testing.T) {
	s, err := Summarise([]float64{1, 2, 3, 4}, 0)
	if err != nil {
		t.Fatal(err)
	}
	// SD √(5/3), SEM SD/2, t(0.975, 3 df) = 3.182446.
	sd := math.Sqrt(5.0 / 3)
	if s.N != 4 || s.Mean != 2.5 || math.Abs(s.SD-sd) > 1e-12 || math.Abs(s.SEM-sd/2) > 1e-12 ||
		math.Abs(s.Interval.Hi-2.5-3.182446*sd/2) > 1e-5 || math.Abs(s.Interval.Lo-2.5+3.182446*sd/2) > 1e-5 {
		t.Errorf("summary %+v", s)
	}
	for _, v := range [][]float64{{1}, {1, math.NaN()}, {1, math.Inf(-1)}} {
		if _, err := Summarise(v, 0); err == nil {
			t.Errorf("Summarise(%v) accepted", v)
		}
	}
	if _, err := Summarise([]float64{1, 2}, 2); err == nil {
		t.Error("level 2 accepted")
	}
}

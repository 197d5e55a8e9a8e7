package tactile

import (
	"fmt"
	"math"
	"testing"
)

// The tables reproduce the template formulas their doc comments give.
func TestReferenceCurvesMatchTemplate(t *testing.T) {
	p := PacinianReference()
	for i, f := range p.FreqHz {
		var want float64
		switch {
		case f <= 250:
			want = -20 + 12*math.Log2(250/f)
		case f <= 300:
			want = -20
		default:
			want = -20 + 10*math.Log2(f/300)
		}
		if math.Abs(p.DB[i]-want) > 0.01 {
			t.Errorf("P at %g Hz: table %g dB, template %.3f dB", f, p.DB[i], want)
		}
	}
	np := NonPacinianReference()
	for i, f := range np.FreqHz {
		var want float64
		switch {
		case f < 8:
			want = 12 + 6*math.Log2(8/f)
		case f <= 60:
			want = 12
		default:
			want = 12 + 10*math.Log2(f/60)
		}
		if math.Abs(np.DB[i]-want) > 0.01 {
			t.Errorf("NP I at %g Hz: table %g dB, template %.3f dB", f, np.DB[i], want)
		}
	}
	// The template in µm: P 3.9 at 40 Hz, 0.11 at 320; NP I 4.0 and 64.
	for _, tc := range []struct {
		c    ThresholdCurve
		f    float64
		want float64
	}{{p, 40, 3.9}, {p, 320, 0.11}, {np, 40, 4.0}, {np, 320, 64}, {p, 20, 15.4}, {np, 160, 20}} {
		if got := math.Pow(10, tc.c.At(tc.f)/20); math.Abs(got/tc.want-1) > 0.03 {
			t.Errorf("%s at %g Hz: %.3g µm, template %.3g µm", tc.c.Name, tc.f, got, tc.want)
		}
	}
}

func TestThresholdCurveAt(t *testing.T) {
	c := ThresholdCurve{Name: "test", FreqHz: []float64{10, 20, 80}, DB: []float64{0, 6, 0}}
	for _, tc := range []struct{ f, want float64 }{
		{10, 0}, {20, 6}, {40, 3}, {80, 0}, {5, -6}, {160, -3}, {14.142135623730951, 3},
	} {
		if got := c.At(tc.f); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("At(%g) = %g, want %g", tc.f, got, tc.want)
		}
	}
	for _, bad := range []ThresholdCurve{
		{Name: "short", FreqHz: []float64{10}, DB: []float64{0}},
		{Name: "ragged", FreqHz: []float64{10, 20}, DB: []float64{0}},
		{Name: "unsorted", FreqHz: []float64{20, 10}, DB: []float64{0, 0}},
		{Name: "zero", FreqHz: []float64{0, 10}, DB: []float64{0, 0}},
		{Name: "NaN", FreqHz: []float64{10, 20}, DB: []float64{0, math.NaN()}},
	} {
		if err := bad.Validate(); err == nil {
			t.Errorf("Validate accepted %s", bad.Name)
		}
	}
}

// w2At is the weight the frame uses for channel c at frequency f =
// 2^log2f, as Surface.excite interpolates it: filtered (f/f_c) or not.
func (w *weights) w2At(c int, log2f, f float64, filtered bool) float64 {
	tab := &w.w2[c]
	if filtered {
		tab = &w.w2f[c]
	}
	i, a, ok := w.at(log2f)
	if !ok {
		return tab[i] * w.outside(f)
	}
	return tab[i] + a*(tab[i+1]-tab[i])
}

// The dense tables the frame interpolates agree with the curves they were
// built from, the friction table with the curves through the pad's
// tangential compliance, and the weights fall to 0 continuously at 0 Hz.
func TestWeightTable(t *testing.T) {
	m := ReferenceChannels()
	const corner = 85.0
	w, err := compileWeights(m, corner)
	if err != nil {
		t.Fatal(err)
	}
	curves := [2]ThresholdCurve{m.NonPacinian, m.Pacinian}
	var worst float64
	for f := 0.02; f < 16000; f *= 1.0137 {
		for c := range 2 {
			want := math.Pow(10, -curves[c].At(f)/10)
			got := w.w2At(c, math.Log2(f), f, false)
			worst = math.Max(worst, math.Abs(got/want-1))
			got = w.w2At(c, math.Log2(f), f, true)
			worst = math.Max(worst, math.Abs(got*(1+f*f/(corner*corner))/want-1))
		}
	}
	if worst > 0.012 {
		t.Errorf("dense weights differ from the curves by up to %.2g, want <= 1.2 %% (0.05 dB)", worst)
	}
	if _, err := compileWeights(m, 0); err == nil {
		t.Error("compileWeights accepted a corner frequency of 0")
	}
	for c := range 2 {
		lo, hi := w.w2At(c, math.Log2(weightFreqMin*0.999999), weightFreqMin*0.999999, false), w.w2At(c, math.Log2(weightFreqMin), weightFreqMin, false)
		if math.Abs(lo/hi-1) > 1e-5 {
			t.Errorf("channel %d: weight jumps at the table's low end: %g vs %g", c, lo, hi)
		}
		if v := w.w2At(c, math.Log2(1e-9), 1e-9, false); v > 1e-20 {
			t.Errorf("channel %d: weight at 1 nHz is %g, want ~0", c, v)
		}
		top := w.w2At(c, math.Log2(weightFreqMax), weightFreqMax, true)
		above := w.w2At(c, math.Log2(weightFreqMax*1.000001), weightFreqMax*1.000001, true)
		if math.Abs(above/top-1) > 1e-4 {
			t.Errorf("channel %d: weight jumps at the table's top: %g vs %g", c, top, above)
		}
	}
}

func TestUserThresholds(t *testing.T) {
	ref := ReferenceChannels()
	u, err := ref.WithUserThresholds(15, -12)
	if err != nil {
		t.Fatal(err)
	}
	d := u.Drive
	if d.NP40 != 15 || d.P320 != -12 {
		t.Errorf("drive %+v: want NP40 = 15 and P320 = -12", d)
	}
	// Cross terms keep the reference curves' shape.
	if math.Abs((d.P40-d.P320)-(ref.Pacinian.At(40)-ref.Pacinian.At(320))) > 1e-12 ||
		math.Abs((d.NP320-d.NP40)-(ref.NonPacinian.At(320)-ref.NonPacinian.At(40))) > 1e-12 {
		t.Errorf("cross terms %+v do not keep the curves' shape", d)
	}
	for _, bad := range [][2]float64{{math.NaN(), 0}, {0, 200}} {
		if _, err := ref.WithUserThresholds(bad[0], bad[1]); err == nil {
			t.Errorf("WithUserThresholds%v accepted", bad)
		}
	}
	swapped := ref
	swapped.Drive = DriveThresholds{NP40: 40, NP320: 0, P40: 0, P320: 40}
	if err := swapped.Validate(); err == nil {
		t.Error("Validate accepted drive thresholds that favour P at 40 Hz and NP I at 320 Hz")
	}
}

func ExampleChannelModel_WithUserThresholds() {
	ref := tactileReference()
	// Thresholds measured on the array with a staircase: 14 dB re 1 µm
	// (5 µm) at 40 Hz, -14 dB (0.2 µm) at 320 Hz.
	user, err := ref.WithUserThresholds(14, -14)
	if err != nil {
		fmt.Println(err)
		return
	}
	d := user.Drive
	fmt.Printf("NP I: %.1f dB at 40 Hz, %.1f dB at 320 Hz\n", d.NP40, d.NP320)
	fmt.Printf("P:    %.1f dB at 40 Hz, %.1f dB at 320 Hz\n", d.P40, d.P320)
	// Output:
	// NP I: 14.0 dB at 40 Hz, 38.1 dB at 320 Hz
	// P:    16.8 dB at 40 Hz, -14.0 dB at 320 Hz
}

func tactileReference() ChannelModel { return ReferenceChannels() }

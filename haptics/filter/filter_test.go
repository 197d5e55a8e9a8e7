package filter

import (
	"fmt"
	"math"
	"math/cmplx"
	"testing"
)

// TestStepMatchesSciPy runs the committed filters from rest on a unit step
// and compares every sample with scipy.signal.sosfilt.
func TestStepMatchesSciPy(t *testing.T) {
	r := loadRef(t)
	var worst float64
	for _, d := range r.Responses {
		s, err := d.design()
		if err != nil {
			t.Fatalf("%s: %v", d.name(), err)
		}
		f := New(s)
		for n, want := range d.Step {
			got := f.Step(1)
			e := math.Abs(got - want)
			if !(e <= 1e-12) {
				t.Fatalf("%s: step sample %d = %.17g, sosfilt %.17g", d.name(), n, got, want)
			}
			worst = math.Max(worst, e)
		}
	}
	t.Logf("%d filters, %d samples each: max |step - sosfilt| %.3g", len(r.Responses), len(r.Responses[0].Step), worst)
}

// measure drives a fresh filter with cos(2π f n/fs), lets the transient die
// for settle samples, and returns the complex gain over the next n samples
// (a whole number of cycles): 2/n Σ y[k] e^{-jωk}.
func measure(s SOS, fHz, sampleHz float64, settle, n int) complex128 {
	f := New(s)
	w := 2 * math.Pi * fHz / sampleHz
	for k := 0; k < settle; k++ {
		f.Step(math.Cos(w * float64(k)))
	}
	var acc complex128
	for k := settle; k < settle+n; k++ {
		y := f.Step(math.Cos(w * float64(k)))
		acc += complex(y, 0) * cmplx.Exp(complex(0, -w*float64(k)))
	}
	return 2 * acc / complex(float64(n), 0)
}

// TestMeasuredFrequencyResponse checks that the runtime filter, driven by
// sinusoids, has the designed gain, phase and group delay. The group delay
// is measured from the phase of two tones 0.1 Hz either side of f.
func TestMeasuredFrequencyResponse(t *testing.T) {
	type probe struct {
		name   string
		design func() (SOS, error)
		fs     float64
		freqs  []float64
	}
	tests := []probe{
		{"butter 2 LP 30 Hz", func() (SOS, error) { return Butterworth(2, LowPass, 1000, 30) }, 1000, []float64{5, 10, 30, 100}},
		{"butter 2 LP 100 Hz", func() (SOS, error) { return Butterworth(2, LowPass, 1000, 100) }, 1000, []float64{10, 50, 100, 300}},
		{"cheby1 3 1dB LP 100 Hz", func() (SOS, error) { return ChebyshevI(3, 1, LowPass, 1000, 100) }, 1000, []float64{10, 50, 90, 200}},
		{"cheby1 8 0.1dB HP 1 kHz", func() (SOS, error) { return ChebyshevI(8, 0.1, HighPass, 10000, 1000) }, 10000, []float64{800, 1500, 3000}},
		{"butter 4 BP 20-60 Hz", func() (SOS, error) { return Butterworth(4, BandPass, 1000, 20, 60) }, 1000, []float64{15, 35, 60, 100}},
	}
	var worstH, worstGD float64
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := tc.design()
			if err != nil {
				t.Fatal(err)
			}
			fs := tc.fs
			// 20 s of settling is far longer than any transient here; 10 s
			// windows hold whole cycles of every tone on a 0.1 Hz grid.
			settle, n := int(20*fs), int(10*fs)
			for _, f := range tc.freqs {
				want := s.Response(f, fs)
				got := measure(s, f, fs, settle, n)
				eH := cmplx.Abs(got-want) / cmplx.Abs(want)
				if !(eH <= 1e-9) {
					t.Errorf("H(%g Hz) measured %v, designed %v (relative error %.3g)", f, got, want, eH)
				}
				worstH = math.Max(worstH, eH)

				const df = 0.1
				lo, hi := measure(s, f-df, fs, settle, n), measure(s, f+df, fs, settle, n)
				gd := -cmplx.Phase(hi/lo) / (2 * math.Pi * 2 * df)
				wantGD := s.GroupDelay(f, fs)
				// The central difference itself is accurate to ~(df/f_c)².
				eGD := math.Abs(gd-wantGD) / math.Abs(wantGD)
				if !(eGD <= 1e-3) {
					t.Errorf("group delay at %g Hz measured %g s, designed %g s (relative error %.3g)", f, gd, wantGD, eGD)
				}
				worstGD = math.Max(worstGD, eGD)
			}
		})
	}
	t.Logf("measured vs designed: max relative error of H %.3g, of group delay %.3g", worstH, worstGD)
}

// TestSetSteady starts each filter at a steady input of 1 and steps it to
// 3: by linearity the output must be DCGain + 2·(step response from rest),
// the latter from scipy.signal.sosfilt.
func TestSetSteady(t *testing.T) {
	r := loadRef(t)
	for _, d := range r.Responses {
		s, err := d.design()
		if err != nil {
			t.Fatalf("%s: %v", d.name(), err)
		}
		f := New(s)
		f.SetSteady(1)
		g := s.DCGain()
		for n := 0; n < 50; n++ {
			if y := f.Step(1); math.Abs(y-g) > 1e-12 {
				t.Fatalf("%s: after SetSteady(1), sample %d = %.17g, want DC gain %.17g", d.name(), n, y, g)
			}
		}
		for n, step := range d.Step {
			want := g + 2*step
			if y := f.Step(3); math.Abs(y-want) > 1e-11 {
				t.Fatalf("%s: sample %d after 1→3 step = %.17g, want %.17g", d.name(), n, y, want)
			}
		}
	}
}

func TestReset(t *testing.T) {
	s, err := ChebyshevI(3, 1, LowPass, 1000, 100)
	if err != nil {
		t.Fatal(err)
	}
	f, fresh := New(s), New(s)
	for n := 0; n < 100; n++ {
		f.Step(math.Sin(float64(n)))
	}
	f.Step(math.NaN())
	f.Reset()
	for n := 0; n < 100; n++ {
		x := float64(n%7) - 3
		if a, b := f.Step(x), fresh.Step(x); a != b {
			t.Fatalf("sample %d after Reset: %g, fresh filter %g", n, a, b)
		}
	}
}

func TestNaNRecoversWithSetSteady(t *testing.T) {
	s, err := Butterworth(2, LowPass, 1000, 50)
	if err != nil {
		t.Fatal(err)
	}
	f := New(s)
	f.SetSteady(0.2)
	if y := f.Step(math.NaN()); !math.IsNaN(y) {
		t.Fatalf("Step(NaN) = %g, want NaN", y)
	}
	if y := f.Step(0.2); !math.IsNaN(y) {
		t.Fatalf("state should hold the NaN until reset, got %g", y)
	}
	f.SetSteady(0.2)
	if y := f.Step(0.2); math.Abs(y-0.2) > 1e-15 {
		t.Fatalf("after SetSteady(0.2), Step(0.2) = %g", y)
	}
}

func TestZeroAllocations(t *testing.T) {
	s, err := ChebyshevI(8, 1, BandPass, 1000, 20, 60)
	if err != nil {
		t.Fatal(err)
	}
	f := New(s)
	x := 0.0
	tests := []struct {
		name string
		fn   func()
	}{
		{"Step", func() { x = f.Step(x + 1) }},
		{"Reset", f.Reset},
		{"SetSteady", func() { f.SetSteady(x) }},
		{"Response", func() { x = real(s.Response(40, 1000)) }},
		{"GroupDelay", func() { x = s.GroupDelay(40, 1000) }},
		{"DCGain", func() { x = s.DCGain() }},
	}
	for _, tc := range tests {
		if a := testing.AllocsPerRun(1000, tc.fn); a != 0 {
			t.Errorf("%s: %v allocations per call, want 0", tc.name, a)
		}
	}
}

var sink float64

func BenchmarkStep(b *testing.B) {
	for _, sections := range []int{1, 2, 4, 8} {
		b.Run(fmt.Sprintf("sections=%d", sections), func(b *testing.B) {
			var s SOS
			var err error
			if sections == 8 {
				s, err = ChebyshevI(8, 1, BandPass, 1000, 20, 60)
			} else {
				s, err = Butterworth(2*sections, LowPass, 1000, 50)
			}
			if err != nil {
				b.Fatal(err)
			}
			f := New(s)
			b.ReportAllocs()
			x := 0.0
			for i := 0; b.Loop(); i++ {
				x = f.Step(float64(i&1) - x*1e-3)
			}
			sink = x
		})
	}
}

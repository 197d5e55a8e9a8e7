package filter

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"os"
	"strings"
	"testing"
)

// scipyRef is testdata/scipy_ref.json, written by testdata/gen_scipy.py
// (scipy.signal.butter / cheby1 with output='sos', SciPy 1.10).
type scipyRef struct {
	SciPy     string      `json:"scipy"`
	Designs   []refDesign `json:"designs"`
	Responses []refDesign `json:"responses"`
}

type refDesign struct {
	Kind     string       `json:"kind"`
	Order    int          `json:"order"`
	RippleDB float64      `json:"ripple_db"`
	Band     string       `json:"band"`
	Fs       float64      `json:"fs"`
	Corners  []float64    `json:"corners"`
	SOS      [][6]float64 `json:"sos"`

	FreqsHz          []float64 `json:"freqs_hz"`
	HRe              []float64 `json:"h_re"`
	HIm              []float64 `json:"h_im"`
	GroupDelayS      []float64 `json:"group_delay_s"`
	GroupDelayExactS []float64 `json:"group_delay_exact_s"`
	Step             []float64 `json:"step"`
}

func loadRef(t testing.TB) scipyRef {
	t.Helper()
	b, err := os.ReadFile("testdata/scipy_ref.json")
	if err != nil {
		t.Fatal(err)
	}
	var r scipyRef
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Designs) == 0 {
		t.Fatal("testdata/scipy_ref.json holds no designs")
	}
	return r
}

func (d refDesign) name() string {
	if d.Kind == "cheby1" {
		return fmt.Sprintf("%s/N=%d/rp=%g/%s/fs=%g/f=%v", d.Kind, d.Order, d.RippleDB, d.Band, d.Fs, d.Corners)
	}
	return fmt.Sprintf("%s/N=%d/%s/fs=%g/f=%v", d.Kind, d.Order, d.Band, d.Fs, d.Corners)
}

func (d refDesign) design() (SOS, error) {
	band := map[string]Band{"lowpass": LowPass, "highpass": HighPass, "bandpass": BandPass}[d.Band]
	if d.Kind == "cheby1" {
		return ChebyshevI(d.Order, d.RippleDB, band, d.Fs, d.Corners...)
	}
	return Butterworth(d.Order, band, d.Fs, d.Corners...)
}

func (d refDesign) sos() SOS {
	s := make(SOS, len(d.SOS))
	for i, r := range d.SOS {
		s[i] = Section{B0: r[0], B1: r[1], B2: r[2], A1: r[4], A2: r[5]}
	}
	return s
}

// relErr is the elementwise relative error of got against want; where want
// is exactly zero it is |got| relative to the largest coefficient of the
// same polynomial (numerator or denominator, including its leading 1).
func relErr(got, want Section) float64 {
	g := [5]float64{got.B0, got.B1, got.B2, got.A1, got.A2}
	w := [5]float64{want.B0, want.B1, want.B2, want.A1, want.A2}
	nb := math.Max(math.Abs(w[0]), math.Max(math.Abs(w[1]), math.Abs(w[2])))
	na := math.Max(1, math.Max(math.Abs(w[3]), math.Abs(w[4])))
	var e float64
	for i := range g {
		d := math.Abs(g[i] - w[i])
		switch {
		case w[i] != 0:
			d /= math.Abs(w[i])
		case i < 3:
			d /= nb
		default:
			d /= na
		}
		if !(d <= e) {
			e = d
		}
	}
	return e
}

// TestDesignMatchesSciPy compares every design of the committed grid section
// by section, in SciPy's order: pairSections reproduces zpk2sos's
// pairing='nearest', so no reordering is needed.
func TestDesignMatchesSciPy(t *testing.T) {
	const tol = 1e-10
	r := loadRef(t)
	var worst float64
	var worstName string
	for _, d := range r.Designs {
		got, err := d.design()
		if err != nil {
			t.Errorf("%s: %v", d.name(), err)
			continue
		}
		want := d.sos()
		if len(got) != len(want) {
			t.Errorf("%s: %d sections, SciPy has %d", d.name(), len(got), len(want))
			continue
		}
		for i := range want {
			e := relErr(got[i], want[i])
			if e > tol {
				t.Errorf("%s: section %d = %+v, SciPy %+v (relative error %.3g > %g)", d.name(), i, got[i], want[i], e, tol)
			}
			if !(e <= worst) {
				worst, worstName = e, d.name()
			}
		}
	}
	t.Logf("%d designs (SciPy %s): max elementwise relative error %.3g (%s)", len(r.Designs), r.SciPy, worst, worstName)
}

func TestPolesInsideUnitCircle(t *testing.T) {
	r := loadRef(t)
	var maxR float64
	var maxName string
	for _, d := range r.Designs {
		s, err := d.design()
		if err != nil {
			t.Fatalf("%s: %v", d.name(), err)
		}
		p := s.Poles()
		want := d.Order
		if d.Band == "bandpass" {
			want *= 2
		}
		if len(p) != want {
			t.Errorf("%s: %d poles, want %d", d.name(), len(p), want)
		}
		for _, v := range p {
			if a := cmplx.Abs(v); !(a < 1) {
				t.Errorf("%s: pole %v, |p| = %v", d.name(), v, a)
			} else if a > maxR {
				maxR, maxName = a, d.name()
			}
		}
	}
	t.Logf("largest pole radius over the grid: %.9f (%s)", maxR, maxName)
}

func TestBadParameters(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name   string
		design func() (SOS, error)
		msg    string
	}{
		{"order 0", func() (SOS, error) { return Butterworth(0, LowPass, 1000, 30) }, "order 0"},
		{"order 9", func() (SOS, error) { return ChebyshevI(9, 1, LowPass, 1000, 30) }, "order 9"},
		{"negative order", func() (SOS, error) { return Butterworth(-2, LowPass, 1000, 30) }, "order -2"},
		{"corner at Nyquist", func() (SOS, error) { return Butterworth(2, LowPass, 1000, 500) }, "corner 500 Hz"},
		{"corner above Nyquist", func() (SOS, error) { return Butterworth(2, HighPass, 1000, 700) }, "corner 700 Hz"},
		{"corner zero", func() (SOS, error) { return Butterworth(2, LowPass, 1000, 0) }, "corner 0 Hz"},
		{"corner negative", func() (SOS, error) { return ChebyshevI(2, 1, HighPass, 1000, -5) }, "corner -5 Hz"},
		{"corner NaN", func() (SOS, error) { return Butterworth(2, LowPass, 1000, nan) }, "corner NaN Hz"},
		{"corner Inf", func() (SOS, error) { return Butterworth(2, LowPass, 1000, inf) }, "corner +Inf Hz"},
		{"sampling NaN", func() (SOS, error) { return Butterworth(2, LowPass, nan, 30) }, "sampling rate NaN Hz"},
		{"sampling zero", func() (SOS, error) { return Butterworth(2, LowPass, 0, 30) }, "sampling rate 0 Hz"},
		{"sampling Inf", func() (SOS, error) { return ChebyshevI(2, 1, LowPass, inf, 30) }, "sampling rate +Inf Hz"},
		{"ripple negative", func() (SOS, error) { return ChebyshevI(3, -1, LowPass, 1000, 30) }, "ripple -1 dB"},
		{"ripple zero", func() (SOS, error) { return ChebyshevI(3, 0, LowPass, 1000, 30) }, "ripple 0 dB"},
		{"ripple NaN", func() (SOS, error) { return ChebyshevI(3, nan, LowPass, 1000, 30) }, "ripple NaN dB"},
		{"ripple Inf", func() (SOS, error) { return ChebyshevI(3, inf, LowPass, 1000, 30) }, "ripple +Inf dB"},
		{"band-pass reversed", func() (SOS, error) { return Butterworth(2, BandPass, 1000, 60, 20) }, "corners (60, 20) Hz must be increasing"},
		{"band-pass equal", func() (SOS, error) { return ChebyshevI(2, 1, BandPass, 1000, 40, 40) }, "corners (40, 40) Hz must be increasing"},
		{"band-pass one corner", func() (SOS, error) { return Butterworth(2, BandPass, 1000, 40) }, "needs 2 corner frequencies, got 1"},
		{"low-pass two corners", func() (SOS, error) { return Butterworth(2, LowPass, 1000, 20, 60) }, "needs 1 corner frequencies, got 2"},
		{"no corner", func() (SOS, error) { return Butterworth(2, HighPass, 1000) }, "needs 1 corner frequencies, got 0"},
		{"unknown band", func() (SOS, error) { return Butterworth(2, Band(7), 1000, 30) }, "unknown band Band(7)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := tc.design()
			if err == nil {
				t.Fatalf("got %v, want an error", s)
			}
			if !errors.Is(err, ErrParameter) {
				t.Errorf("error %q does not wrap ErrParameter", err)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "filter: ") || !strings.Contains(msg, tc.msg) {
				t.Errorf("error %q: want prefix \"filter: \" and %q", msg, tc.msg)
			}
			if s != nil {
				t.Errorf("got sections %v alongside the error", s)
			}
		})
	}
}

// FuzzDesign checks that any parameters give either an error wrapping
// ErrParameter, or a finite cascade of the right size with
// every pole strictly inside the unit circle, and never a panic.
func FuzzDesign(f *testing.F) {
	f.Add(2, 0.0, 0, 1000.0, 30.0, 0.0, false)
	f.Add(3, 1.0, 0, 1000.0, 100.0, 0.0, true)
	f.Add(8, 3.0, 2, 10000.0, 50.0, 200.0, true)
	f.Add(0, 1.0, 0, 1000.0, 30.0, 0.0, true)
	f.Add(9, 1.0, 1, 1000.0, 30.0, 0.0, false)
	f.Add(4, 1.0, 0, 1000.0, 500.0, 0.0, false)
	f.Add(4, -1.0, 0, 1000.0, 30.0, 0.0, true)
	f.Add(4, 1.0, 2, 1000.0, 60.0, 20.0, true)
	f.Add(4, math.NaN(), 1, 1000.0, math.NaN(), 0.0, true)
	f.Add(8, 1e6, 0, 1000.0, 1e-300, 0.0, true)
	f.Add(8, 1.0, 0, 1e300, 1e-10, 0.0, false)
	f.Add(1, 1.0, 2, 1000.0, 499.999999, 499.9999999, false)
	f.Add(8, 0.0, 0, 1000.0, 1e-6, 0.0, false)
	f.Add(8, 1.0, 2, 1000.0, 1e-8, 2e-8, true)
	f.Fuzz(func(t *testing.T, order int, ripple float64, band int, fs, f1, f2 float64, cheby bool) {
		corners := []float64{f1}
		if Band(band) == BandPass {
			corners = append(corners, f2)
		}
		var s SOS
		var err error
		if cheby {
			s, err = ChebyshevI(order, ripple, Band(band), fs, corners...)
		} else {
			s, err = Butterworth(order, Band(band), fs, corners...)
		}
		if err != nil {
			if !errors.Is(err, ErrParameter) {
				t.Fatalf("error %q does not wrap ErrParameter", err)
			}
			if !strings.HasPrefix(err.Error(), "filter: ") {
				t.Fatalf("error %q lacks the package prefix", err)
			}
			return
		}
		want := order
		if Band(band) == BandPass {
			want *= 2
		}
		if got := len(s.Poles()); got > want || got < want-1 {
			t.Fatalf("%d poles, want %d (or one fewer, at the origin): %v", got, want, s)
		}
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		for _, p := range s.Poles() {
			if !(cmplx.Abs(p) < 1) {
				t.Fatalf("pole %v outside the unit circle: %v", p, s)
			}
		}
		flt := New(s)
		flt.SetSteady(1)
		if y := flt.Step(1); math.IsNaN(y) {
			t.Fatalf("Step after SetSteady(1) gave NaN: %v", s)
		}
	})
}

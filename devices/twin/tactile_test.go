package twin

import (
	"fmt"
	"math"
	"math/cmplx"
	"testing"
	"time"

	"github.com/haptex/haptex/devices"
	"gonum.org/v1/gonum/dsp/fourier"
)

// steady drives every pin of a at (a40, a320) from time 0 and advances it
// to d.
func steady(t *testing.T, a *Tactile, a40, a320 float64, d time.Duration) {
	t.Helper()
	a.Advance(0)
	var f devices.TactileFrame
	for i := range f.A40Um {
		f.A40Um[i], f.A320Um[i] = a40, a320
	}
	if err := a.WriteFrame(&f); err != nil {
		t.Fatal(err)
	}
	a.Advance(d)
}

// At steady state each pin vibrates with the commanded amplitudes times
// its own sensitivity (the electronics equalise the nominal resonator),
// and the vibrometer's reading is what a spectrum of the pin's trace
// shows at 40 and 320 Hz.
func TestTactileSteadyState(t *testing.T) {
	a, err := NewTactile(DefaultTactileParams(), 1)
	if err != nil {
		t.Fatal(err)
	}
	steady(t, a, 50, 10, 200*time.Millisecond)
	var got devices.TactileFrame
	a.Delivered(&got)
	x := make([]float64, TactileWindow)
	fft := fourier.NewFFT(TactileWindow)
	for p := range devices.Pins {
		if d := got.A40Um[p]/(50*a.gain[p]) - 1; math.Abs(d) > 1e-6 {
			t.Errorf("pin %d: %g µm at 40 Hz, want %g (gain %.3f)", p, got.A40Um[p], 50*a.gain[p], a.gain[p])
		}
		if d := got.A320Um[p]/(10*a.gain[p]) - 1; math.Abs(d) > 1e-6 {
			t.Errorf("pin %d: %g µm at 320 Hz, want %g", p, got.A320Um[p], 10*a.gain[p])
		}
		if _, err := a.Vibration(p, x); err != nil {
			t.Fatal(err)
		}
		c := fft.Coefficients(nil, x)
		line := func(hz int) float64 { return 2 * cmplx.Abs(c[hz*TactileWindow/TactileSampleRate]) / TactileWindow }
		if d := line(40)/got.A40Um[p] - 1; math.Abs(d) > 1e-9 {
			t.Errorf("pin %d: trace's 40 Hz line %g µm, vibrometer %g µm", p, line(40), got.A40Um[p])
		}
		if d := line(320)/got.A320Um[p] - 1; math.Abs(d) > 1e-9 {
			t.Errorf("pin %d: trace's 320 Hz line %g µm, vibrometer %g µm", p, line(320), got.A320Um[p])
		}
	}
}

// A pin is a damped resonator: switched off after vibrating at 320 Hz, it
// rings down at its damped natural frequency ω√(1-ζ²), each half cycle
// smaller by exp(-πζ/√(1-ζ²)); and the first 25 ms after a new command
// read less than the command by the electronics' ramp and the ringing in.
func TestTactileResonator(t *testing.T) {
	p := DefaultTactileParams()
	p.PinSpreadDB = 0
	a, err := NewTactile(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	steady(t, a, 0, 20, 100*time.Millisecond)
	if err := a.WriteFrame(&devices.TactileFrame{}); err != nil {
		t.Fatal(err)
	}
	a.Advance(100*time.Millisecond + 10*time.Millisecond)
	x := make([]float64, TactileWindow)
	start, err := a.Vibration(3, x)
	if err != nil {
		t.Fatal(err)
	}
	// Local extrema after the drive's ramp has ended.
	var tExt, aExt []float64
	for k := 1; k+1 < len(x); k++ {
		tk := start.Seconds() + float64(k)/TactileSampleRate
		if tk < 0.1+0.003 {
			continue
		}
		if (x[k]-x[k-1])*(x[k+1]-x[k]) < 0 && math.Abs(x[k]) > 1e-6 {
			// A parabola through three samples places the extremum.
			d := 0.5 * (x[k-1] - x[k+1]) / (x[k-1] - 2*x[k] + x[k+1])
			tExt = append(tExt, tk+d/TactileSampleRate)
			aExt = append(aExt, math.Abs(x[k]-0.25*(x[k-1]-x[k+1])*d))
		}
	}
	if len(tExt) < 4 {
		t.Fatalf("%d extrema in the ring-down", len(tExt))
	}
	wd := 2 * math.Pi * p.ResonanceHz * math.Sqrt(1-p.Damping*p.Damping)
	halfPeriod := (tExt[3] - tExt[0]) / 3
	if d := halfPeriod/(math.Pi/wd) - 1; math.Abs(d) > 0.02 {
		t.Errorf("ring-down half period %.1f µs, want π/ω_d = %.1f µs", halfPeriod*1e6, math.Pi/wd*1e6)
	}
	ratio := math.Pow(aExt[3]/aExt[0], 1.0/3)
	if want := math.Exp(-math.Pi * p.Damping / math.Sqrt(1-p.Damping*p.Damping)); math.Abs(ratio/want-1) > 0.03 {
		t.Errorf("ring-down ratio per half cycle %.4f, want %.4f", ratio, want)
	}

	// From rest to 10 µm at 320 Hz: the first window reads short by the
	// electronics' ramp (its mean, 1.25 ms of 25 ms) and by the ringing
	// in (about a time constant, 1.2 ms, at most); the second reads the
	// command.
	b, _ := NewTactile(p, 0)
	steady(t, b, 0, 10, 25*time.Millisecond)
	var got devices.TactileFrame
	b.Delivered(&got)
	t.Logf("first 25 ms after a step at 320 Hz: %.4f of the command", got.A320Um[0]/10)
	if r := got.A320Um[0] / 10; r < 0.9 || r > 0.955 {
		t.Errorf("first 25 ms after the step: %.3f of the command, want 0.90-0.955", r)
	}
	b.Advance(50 * time.Millisecond)
	b.Delivered(&got)
	if r := got.A320Um[0] / 10; math.Abs(r-1) > 1e-3 {
		t.Errorf("second 25 ms: %.4f of the command, want 1", r)
	}
}

// A pin switched off rings down and then rests at exactly zero: it never
// decays into the subnormal numbers (about 10⁻³⁰⁸), on which the
// arithmetic is a hundred times slower; a decay of 0.3 damping at 450 Hz
// gets there in under 0.6 s.
func TestTactileRingsDownToRest(t *testing.T) {
	a, err := NewTactile(DefaultTactileParams(), 0)
	if err != nil {
		t.Fatal(err)
	}
	steady(t, a, 150, 25, 100*time.Millisecond)
	if err := a.WriteFrame(&devices.TactileFrame{}); err != nil {
		t.Fatal(err)
	}
	x := make([]float64, TactileWindow)
	for ms := 105; ms <= 1100; ms += 5 {
		a.Advance(time.Duration(ms) * time.Millisecond)
		for p := range devices.Pins {
			if _, err := a.Vibration(p, x); err != nil {
				t.Fatal(err)
			}
			for k, v := range x {
				if v != 0 && math.Abs(v) < 0x1p-1022 {
					t.Fatalf("at %d ms pin %d sample %d is subnormal: %g µm", ms, p, k, v)
				}
			}
		}
	}
	var got devices.TactileFrame
	a.Delivered(&got)
	for p := range devices.Pins {
		if got.A40Um[p] != 0 || got.A320Um[p] != 0 || a.state[p] != [2]float64{} {
			t.Errorf("pin %d 1 s after its drive stopped: state %g, reads %g and %g µm, want rest", p, a.state[p], got.A40Um[p], got.A320Um[p])
		}
	}
}

func TestTactileClampsBadAndLargeCommands(t *testing.T) {
	p := DefaultTactileParams()
	p.PinSpreadDB = 0
	a, _ := NewTactile(p, 0)
	a.Advance(0)
	var f devices.TactileFrame
	f.A40Um[0], f.A40Um[1], f.A40Um[2], f.A320Um[3] = math.NaN(), -3, 1e6, math.Inf(1)
	a.WriteFrame(&f)
	a.Advance(time.Second)
	var got devices.TactileFrame
	a.Delivered(&got)
	if got.A40Um[0] != 0 || got.A40Um[1] != 0 || math.Abs(got.A40Um[2]-p.MaxA40Um) > 1e-9 || math.Abs(got.A320Um[3]-p.MaxA320Um) > 1e-9 {
		t.Fatalf("delivered %v / %v", got.A40Um[:4], got.A320Um[:4])
	}
	if _, clamped := a.Frames(); clamped != 2 {
		t.Fatalf("clamped %d pins, want 2", clamped)
	}
}

// The pin sensitivity spread is reproducible for a seed and has about the
// configured standard deviation.
func TestTactilePinSpread(t *testing.T) {
	p := DefaultTactileParams()
	p.PinSpreadDB = 2
	a, _ := NewTactile(p, 1)
	b, _ := NewTactile(p, 1)
	if a.gain != b.gain {
		t.Fatal("same seed, different spread")
	}
	var sum, sum2 float64
	n := 0
	for seed := uint64(1); seed <= 40; seed++ {
		p.Seed = seed
		c, _ := NewTactile(p, 0)
		for _, g := range c.gain {
			db := 20 * math.Log10(g)
			sum += db
			sum2 += db * db
			n++
		}
	}
	sd := math.Sqrt(sum2/float64(n) - (sum/float64(n))*(sum/float64(n)))
	if math.Abs(sd-2) > 0.2 {
		t.Fatalf("spread %.2f dB, want 2", sd)
	}
}

func TestTactileClosed(t *testing.T) {
	a, _ := NewTactile(DefaultTactileParams(), 0)
	a.Close()
	if err := a.WriteFrame(&devices.TactileFrame{}); err != devices.ErrDisconnected {
		t.Fatalf("write after close: %v", err)
	}
}

func TestTactileParamErrors(t *testing.T) {
	for _, mod := range []func(*TactileParams){
		func(p *TactileParams) { p.ResonanceHz = 300 },
		func(p *TactileParams) { p.Damping = 0 },
		func(p *TactileParams) { p.MaxA320Um = math.NaN() },
		func(p *TactileParams) { p.PinSpreadDB = -1 },
	} {
		p := DefaultTactileParams()
		mod(&p)
		if _, err := NewTactile(p, 0); err == nil {
			t.Errorf("%+v: no error", p)
		}
	}
}

// The rig's work on one array per 25 ms frame: a new frame, 25 ms of
// contactor motion, and two vibrometer readings (the frame's record and
// the interval's), with every pin driven and with a third of them (the
// pad's edge, out of contact) silent for good.
func BenchmarkTactileFrame(b *testing.B) {
	for _, silent := range []int{0, 8} {
		b.Run(fmt.Sprintf("silent=%d", silent), func(b *testing.B) { benchmarkTactileFrame(b, silent) })
	}
}

func benchmarkTactileFrame(b *testing.B, silent int) {
	a, err := NewTactile(DefaultTactileParams(), 0)
	if err != nil {
		b.Fatal(err)
	}
	a.Advance(0)
	var f, got devices.TactileFrame
	for i := silent; i < len(f.A40Um); i++ {
		f.A40Um[i], f.A320Um[i] = 20+float64(i), 3+0.1*float64(i)
	}
	for i := range silent {
		f.A40Um[i], f.A320Um[i] = 100, 10
	}
	if err := a.WriteFrame(&f); err != nil {
		b.Fatal(err)
	}
	a.Advance(time.Second)
	for i := range silent {
		f.A40Um[i], f.A320Um[i] = 0, 0
	}
	if err := a.WriteFrame(&f); err != nil {
		b.Fatal(err)
	}
	// Two seconds after the silent pins' drive stopped.
	n := 120
	a.Advance(time.Duration(n) * 25 * time.Millisecond)
	b.ReportAllocs()
	for b.Loop() {
		n++
		f.Seq = uint32(n)
		if err := a.WriteFrame(&f); err != nil {
			b.Fatal(err)
		}
		a.Advance(time.Duration(n) * 25 * time.Millisecond)
		a.Delivered(&got)
		a.Delivered(&got)
	}
}

package twin

import (
	"math"
	"testing"
	"time"

	"github.com/haptex/haptex/devices"
)

// The delivered envelope follows a step command as a first-order system
// with time constant 1/(ζ·2π·fn): 63.2 % after one time constant.
func TestTactileEnvelopeStep(t *testing.T) {
	p := DefaultTactileParams()
	p.PinSpreadDB = 0
	a, err := NewTactile(p, 1)
	if err != nil {
		t.Fatal(err)
	}
	tau := 1 / (p.Damping * 2 * math.Pi * p.ResonanceHz)
	a.Advance(0)
	var f devices.TactileFrame
	for i := range f.A40Um {
		f.A40Um[i], f.A320Um[i] = 50, 10
	}
	a.WriteFrame(&f)
	a.Advance(time.Duration(tau * 1e9))
	var got devices.TactileFrame
	a.Delivered(&got)
	if want := 50 * (1 - math.Exp(-1)); math.Abs(got.A40Um[0]-want) > 0.05 {
		t.Fatalf("after one time constant: %g µm, want %g", got.A40Um[0], want)
	}
	a.Advance(time.Duration(tau*1e9) + 25*time.Millisecond)
	a.Delivered(&got)
	if math.Abs(got.A40Um[5]-50) > 1e-6 || math.Abs(got.A320Um[5]-10) > 1e-6 {
		t.Fatalf("settled at %g / %g µm, want 50 / 10", got.A40Um[5], got.A320Um[5])
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

package sim

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDahlStepIsTheODE integrates dz/dε = (zs - sign·z)/Strain with small
// Runge-Kutta steps along a random path of moves and compares the exact
// step, and its work with the integral of z.
func TestDahlStepIsTheODE(t *testing.T) {
	d := Dahl{Saturation: 2, Strain: 0.01}
	rng := rand.New(rand.NewPCG(15, 16))
	z, zr, wr := 0.0, 0.0, 0.0
	dir := 1.0
	for range 200 {
		de := (rng.Float64() - 0.5) * 0.06
		var w float64
		z, _, w = d.Step(z, de, dir)
		s := math.Copysign(1, de)
		f := func(z float64) float64 { return (d.Saturation - s*z) / d.Strain }
		const n = 400
		h := de / n
		wsum := 0.0
		for range n {
			k1 := f(zr)
			k2 := f(zr + h/2*k1)
			k3 := f(zr + h/2*k2)
			k4 := f(zr + h*k3)
			zn := zr + h/6*(k1+2*k2+2*k3+k4)
			wsum += h * (zr + zn) / 2
			zr = zn
		}
		wr = wsum
		if math.Abs(z-zr) > 1e-8 || math.Abs(w-wr) > 1e-5*math.Abs(de)*d.Saturation {
			t.Fatalf("after a move of %g: z %.12g against %.12g, work %.12g against %.12g", de, z, zr, w, wr)
		}
		dir = s
	}
}

// TestDahlDerivative checks the returned dz against a difference quotient
// of zNew, and that the work's derivative is z: within a step the friction
// is the gradient of the work.
func TestDahlDerivative(t *testing.T) {
	d := Dahl{Saturation: 1.5, Strain: 0.02}
	for _, z0 := range []float64{-1.4, -0.3, 0, 0.9, 1.5} {
		for _, de := range []float64{-0.05, -0.003, 0.001, 0.04} {
			const h = 1e-7
			zp, _, wp := d.Step(z0, de+h, 1)
			zm, _, wm := d.Step(z0, de-h, 1)
			z, dz, _ := d.Step(z0, de, 1)
			if num := (zp - zm) / (2 * h); math.Abs(dz-num) > 1e-5*math.Max(1, math.Abs(num)) {
				t.Errorf("z0 %g, de %g: dz %g, difference quotient %g", z0, de, dz, num)
			}
			if num := (wp - wm) / (2 * h); math.Abs(z-num) > 1e-6 {
				t.Errorf("z0 %g, de %g: z %g, work's difference quotient %g", z0, de, z, num)
			}
		}
	}
}

// TestDahlLoop: a cycle of amplitude A many times the characteristic
// strain traces a loop of width 2·Saturation and dissipates what the
// closed form gives, 4·Saturation·A less the transients.
func TestDahlLoop(t *testing.T) {
	d := Dahl{Saturation: 0.8, Strain: 0.002}
	const amp, steps = 0.05, 1000
	z := 0.0
	var work float64
	// Settle on the loop, then measure one cycle.
	for cycle := range 2 {
		work = 0
		for _, leg := range [4]float64{1, -1, -1, 1} {
			for range steps / 4 {
				var w float64
				z, _, w = d.Step(z, leg*amp/(steps/4), leg)
				work += w
			}
		}
		_ = cycle
	}
	// Closed form for one settled cycle of ±amp: each reversal costs
	// the exponential's catch-up, 2·Saturation·Strain·(1 - e^{-2amp/Strain})
	// below the rectangle 4·Saturation·amp.
	want := 4*d.Saturation*amp - 2*2*d.Saturation*d.Strain*(-math.Expm1(-2*amp/d.Strain))
	if math.Abs(work-want) > 1e-9 {
		t.Errorf("work per cycle %.9g, closed form %.9g", work, want)
	}
	if work <= 0 {
		t.Error("a cycle gained energy")
	}
}

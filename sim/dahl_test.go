package sim

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDahlStepIsTheODE integrates dz/dε = (S(ε) - sign·z)/Strain, S
// linear in ε, with small Runge-Kutta steps along a random path of moves
// and compares the exact step, and its work with the integral of z.
func TestDahlStepIsTheODE(t *testing.T) {
	const s0, slope = 2.0, 5.0 // S(ε) = s0 + slope·ε, positive on the path
	d := Dahl{Strain: 0.01, Slope: slope}
	rng := rand.New(rand.NewPCG(15, 16))
	z, zr, wr, e := 0.0, 0.0, 0.0, 0.0
	for range 200 {
		de := (rng.Float64() - 0.5) * 0.06
		if math.Abs(e+de) > 0.2 {
			de = -de
		}
		d.Saturation = s0 + slope*e
		var w float64
		z, _, w = d.Step(z, de)
		s := math.Copysign(1, de)
		e0 := e
		e += de
		f := func(z, x float64) float64 { return (s0 + slope*(e0+x) - s*z) / d.Strain }
		zr, wr = rk4(f, zr, de/400, 400)
		if math.Abs(z-zr) > 1e-8 || math.Abs(w-wr) > 1e-5*math.Abs(de)*d.Saturation {
			t.Fatalf("after a move of %g: z %.12g against %.12g, work %.12g against %.12g", de, z, zr, w, wr)
		}
	}
}

// rk4 integrates dz/dx = f(z, x) from z0 at x = 0 over n classic
// Runge-Kutta steps of h, and returns z and ∫z dx (trapezoids).
func rk4(f func(z, x float64) float64, z0, h float64, n int) (z, w float64) {
	z = z0
	for k := range n {
		x := float64(k) * h
		k1 := f(z, x)
		k2 := f(z+h/2*k1, x+h/2)
		k3 := f(z+h/2*k2, x+h/2)
		k4 := f(z+h*k3, x+h)
		zn := z + h/6*(k1+2*k2+2*k3+k4)
		w += h * (z + zn) / 2
		z = zn
	}
	return z, w
}

// TestDahlDerivative checks the returned dz against a difference quotient
// of zNew, and that the work's derivative is z: within a step the friction
// is the gradient of the work.
func TestDahlDerivative(t *testing.T) {
	d := Dahl{Saturation: 1.5, Slope: -3, Strain: 0.02}
	for _, z0 := range []float64{-1.4, -0.3, 0, 0.9, 1.5} {
		for _, de := range []float64{-0.05, -0.003, 0.001, 0.04} {
			const h = 1e-7
			zp, _, wp := d.Step(z0, de+h)
			zm, _, wm := d.Step(z0, de-h)
			z, dz, _ := d.Step(z0, de)
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
				z, _, w = d.Step(z, leg*amp/(steps/4))
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

// TestDahlDissipates: with a constant saturation the element stores
// Strain·z²/(2·Saturation) (its stiffness at z = 0 is Saturation/Strain)
// and every move's work is at least the change of that: the element
// never gives back more than it stored.
func TestDahlDissipates(t *testing.T) {
	d := Dahl{Saturation: 0.8, Strain: 0.003}
	stored := func(z float64) float64 { return d.Strain * z * z / (2 * d.Saturation) }
	rng := rand.New(rand.NewPCG(3, 4))
	z := 0.0
	for i := range 2000 {
		de := (rng.Float64() - 0.5) * 0.02 * math.Pow(10, -3*rng.Float64())
		zn, _, w := d.Step(z, de)
		if diss := w - (stored(zn) - stored(z)); diss < -1e-15 {
			t.Fatalf("move %d of %g from z %g: work %g, stored energy change %g", i, de, z, w, stored(zn)-stored(z))
		}
		z = zn
	}
}

// TestDahlReversalStiffness: where the move starts (de = 0) Step gives
// the larger of the two sides' stiffnesses, the reversal's, which the
// difference quotient on that side confirms.
func TestDahlReversalStiffness(t *testing.T) {
	d := Dahl{Saturation: 1.2, Slope: 0.5, Strain: 0.01}
	for _, z := range []float64{-1.1, -0.2, 0, 0.7, 1.2} {
		_, dz, _ := d.Step(z, 0)
		const h = 1e-9
		back := -math.Copysign(1, z)
		if z == 0 {
			back = 1
		}
		zh, _, _ := d.Step(z, back*h)
		if num := (zh - z) / (back * h); math.Abs(dz-num) > 1e-4*num {
			t.Errorf("z %g: stiffness %g at the start, the reversal's difference quotient %g", z, dz, num)
		}
	}
}

// TestDahlSaturationStaysPositive: a move towards a smaller saturation
// that would carry its linear form below zero holds S at zero beyond, as
// the ODE with S = max(0, S₀ + Slope·δ) integrated by Runge-Kutta does;
// the work is the gradient of z across the point where S reaches zero;
// and no move does more than |z|·Strain of negative work (what the
// friction stress already there can give back), where the linear S
// continued below zero gave −|Slope|·p²/2 for a long move p and let a
// dropped cloth's Newton iterations run to 28 times its drop energy.
func TestDahlSaturationStaysPositive(t *testing.T) {
	d := Dahl{Saturation: 0.8, Slope: 40, Strain: 0.01}
	for _, z0 := range []float64{-0.7, 0, 0.5} {
		for _, de := range []float64{-0.005, -0.02, -0.05, -0.2} {
			z, _, w := d.Step(z0, de)
			// The ODE along p = |δ|: dz/dp = (s·S(p) - z)/Strain, S(p) = max(0, S₀ + Slope·s·p).
			s := math.Copysign(1, de)
			f := func(z, x float64) float64 {
				return (s*math.Max(0, d.Saturation+d.Slope*s*x) - z) / d.Strain
			}
			p := math.Abs(de)
			zr, wr := rk4(f, z0, p/20000, 20000)
			wr *= s
			if math.Abs(z-zr) > 1e-7 || math.Abs(w-wr) > 1e-7*p {
				t.Errorf("z0 %g, move %g: z %.10g against %.10g, work %.10g against %.10g", z0, de, z, zr, w, wr)
			}
			const hd = 1e-8
			_, _, wp := d.Step(z0, de+hd)
			_, _, wm := d.Step(z0, de-hd)
			if g := (wp - wm) / (2 * hd); math.Abs(g-z) > 1e-5 {
				t.Errorf("z0 %g, move %g: the work's derivative %.8g, z %.8g", z0, de, g, z)
			}
		}
	}
	rng := rand.New(rand.NewPCG(17, 18))
	for range 100000 {
		d := Dahl{Saturation: rng.Float64(), Slope: 100 * (rng.Float64() - 0.5), Strain: 0.001 + 0.05*rng.Float64()}
		z := 2 * (rng.Float64() - 0.5)
		de := math.Pow(10, -4+4*rng.Float64()) * math.Copysign(1, rng.Float64()-0.5)
		if _, _, w := d.Step(z, de); !(w >= -math.Abs(z)*d.Strain*(1+1e-9)) {
			t.Fatalf("%+v from z %g, move %g: work %g, below -|z|·Strain %g", d, z, de, w, -math.Abs(z)*d.Strain)
		}
	}
}

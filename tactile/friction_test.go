package tactile

import (
	"math"
	"testing"
)

// padWindowBrute is the pad's window squared, 8 J₂(z)/z² squared, from
// math.Jn (the renderer interpolates a table of it).
func padWindowBrute(z float64) float64 {
	if z == 0 {
		return 1
	}
	p := 8 * math.Jn(2, z) / (z * z)
	return p * p
}

// axisLine returns the 2D spectrum summed across the u axis (alongU) or
// the v axis, normalised to unit sum, and its bin size [cycles/m]: the
// shape a stroke along that axis meets, bin i at k = (i - n/2) dk.
func axisLine(sp Spectrum, alongU bool) ([]float64, float64) {
	n, dk := sp.Nu, sp.Dku
	if !alongU {
		n, dk = sp.Nv, sp.Dkv
	}
	line := make([]float64, n)
	var sum float64
	for j := range sp.Nv {
		for i := range sp.Nu {
			p := sp.P[j*sp.Nu+i]
			if alongU {
				line[i] += p
			} else {
				line[j] += p
			}
			sum += p
		}
	}
	for i := range line {
		line[i] /= sum
	}
	return line, dk
}

// probeGainBrute is 1 / Σ r(k) sinc²(π k length) over the 2D spectrum's
// lines along u and v (their mean), each cell's share spread evenly over
// its width and integrated with 64 points: the factor that makes a probe
// of that length read unit variance.
func probeGainBrute(sp Spectrum, length float64) float64 {
	const sub = 64
	var seen float64
	for _, alongU := range []bool{true, false} {
		line, dk := axisLine(sp, alongU)
		n := len(line)
		for idx, p := range line {
			for s := range sub {
				k := (float64(idx-n/2) + (float64(s)+0.5)/sub - 0.5) * dk
				x := math.Pi * k * length
				h := 1.0
				if x != 0 {
					h = math.Sin(x) / x
				}
				seen += p / sub * h * h / 2
			}
		}
	}
	return 1 / seen
}

// The pad's window is the net tangential force of a friction field
// μ(s) = cos(2π k s) along the stroke under the pad's paraboloid pressure
// over its ellipse, divided by the normal force: integrated here over the
// ellipse on a 600² grid for patches and strokes at several angles, it
// agrees with the table's 8 J₂(z)/z² (squared) within 2·10⁻⁴.
func TestPadWindowIsNetForce(t *testing.T) {
	const n = 600
	for _, c := range []struct{ a, b, th float64 }{
		{5e-3, 4e-3, 0}, {5e-3, 4e-3, math.Pi / 2}, {3.6e-3, 2.9e-3, 0.6}, {6.5e-3, 5.4e-3, 2.2},
	} {
		h := math.Hypot(c.a*math.Cos(c.th), c.b*math.Sin(c.th))
		cs, sn := math.Cos(c.th), math.Sin(c.th)
		for _, z := range []float64{0.5, 1, 2, 3.5, 5.1356, 7, 10, 15, 25} {
			k := z / (2 * math.Pi * h)
			var force, load float64
			for i := range n {
				x := c.a * (2*(float64(i)+0.5)/n - 1)
				for j := range n {
					y := c.b * (2*(float64(j)+0.5)/n - 1)
					rho2 := sq(x/c.a) + sq(y/c.b)
					if rho2 >= 1 {
						continue
					}
					p := 1 - rho2
					load += p
					// The stroke runs at th from the finger's axis.
					force += p * math.Cos(2*math.Pi*k*(x*cs+y*sn))
				}
			}
			got := sq(force / load)
			if d := math.Abs(got - padWindowSq(z)); d > 2e-4 {
				t.Errorf("a %g b %g mm at %.2f rad, z = %g: net force² %.6f, window² %.6f", c.a*1e3, c.b*1e3, c.th, z, got, padWindowSq(z))
			}
		}
	}
	if padWindowSq(padZMax) != 0 || padWindowBrute(padZMax) > 1e-6 {
		t.Errorf("the window is not negligible at the table's end: %g", padWindowBrute(padZMax))
	}
}

// The friction's part of a stroke's excitation (the excitation less the
// height's alone) agrees with a brute-force integration over the 2D
// spectrum: the friction field scaled so that KES's 5 mm probe reads σ_μ,
// seen through the pad's window and compliance. It logs how large the
// pad's displacement is, against the F σ_μ / k_t of a pad that felt the
// probe's fluctuation whole, and the excitation of that fluctuation
// rendered whole at the yarns' wavelengths (the model before).
func TestFrictionFollowsKESProbe(t *testing.T) {
	w, err := compileWeights(ReferenceChannels(), DefaultShearCornerHz)
	if err != nil {
		t.Fatal(err)
	}
	m := ReferenceChannels()
	for _, name := range []string{"twill", "nonwoven"} {
		s := surface(t, name)
		sp := s.Spectrum()
		gain := probeGainBrute(sp, KESFrictionProbeLength)
		if d := s.fricGain/gain - 1; math.Abs(d) > 0.02 {
			t.Errorf("%s: the probe's gain %.4g, brute force %.4g", name, s.fricGain, gain)
		}
		var tip Fingertip
		tip = tip.withDefaults()
		const force = 0.22
		patch := tip.patch(force, 0)
		kt := tip.shearStiffness(patch.Area, tip.patch(1, 0).Area)
		whole := force * s.FrictionStd() / kt
		for _, alongU := range []bool{true, false} {
			dir := 0.0
			if !alongU {
				dir = math.Pi / 2
			}
			line, dk := axisLine(sp, alongU)
			var pad float64
			for i, p := range line {
				pad += p * padWindowBrute(2*math.Pi*math.Abs(float64(i-len(line)/2)*dk)*patch.A)
			}
			t.Logf("%s along %s, %g N: the pad's displacement %.3f µm (a pad feeling σ_μ whole: %.3f µm)",
				name, map[bool]string{true: "u", false: "v"}[alongU], force, whole*math.Sqrt(gain*pad)*1e6, whole*1e6)
			for _, speed := range []float64{0.006, 0.05, 0.2, 0.5} {
				fv := whole * whole * gain
				base := s.excite(w, dir, speed, 0, 0)
				got := s.excite(w, dir, speed, fv, patch.A)
				want := axisPrediction(sp, m, alongU, speed, 0, fv, DefaultShearCornerHz, patch.A)
				height := axisPrediction(sp, m, alongU, speed, sq(s.HeightStd()), 0, DefaultShearCornerHz, 0)
				// The model before: σ_μ whole, at the yarns' wavelengths.
				whole := s.excite(w, dir, speed, whole*whole, 0)
				for c := range NumChannels {
					fr := got[c] - base[c]
					t.Logf("  %3.0f mm/s channel %d: friction %.4g, brute force %.4g (%.2f dB); height %.4g; σ_μ whole at the yarns' wavelengths %.4g",
						speed*1e3, c, fr, want[c], dB(fr, want[c]), height[c], whole[c]-base[c])
					// Where the friction is 40 dB under the height, a
					// relative error of it does not matter.
					if math.Abs(fr-want[c]) > 0.06*want[c]+1e-4*height[c] {
						t.Errorf("%s dir %g speed %g channel %d: friction's excitation %.5g, brute force %.5g", name, dir, speed, c, fr, want[c])
					}
				}
			}
		}
	}
}

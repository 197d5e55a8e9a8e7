package tactile

import (
	"math"
	"strings"
	"testing"
)

func gratingMap(nu, nv int, dx, period, angle, amp float64) HeightMap {
	hm := HeightMap{Nu: nu, Nv: nv, Dx: dx, Z: make([]float64, nu*nv)}
	cu, su := math.Cos(angle), math.Sin(angle)
	for j := range nv {
		for i := range nu {
			x := float64(i)*dx*cu + float64(j)*dx*su
			hm.Z[j*nu+i] = amp * math.Sin(2*math.Pi*x/period)
		}
	}
	return hm
}

// A sinusoidal grating of period 1 mm stroked at 80 mm/s puts its
// energy at 80 ± 2 Hz.
func TestGratingEnergyAtStrokeFrequency(t *testing.T) {
	for _, tc := range []struct {
		name  string
		angle float64
		nv    int
	}{
		{"along u", 0, 128},
		{"at 30 degrees", math.Pi / 6, 256},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// 10.3 mm long: not a whole number of periods, so the line
			// falls between bins and the window's leakage counts.
			hm := gratingMap(515, tc.nv, 20e-6, 1e-3, tc.angle, 5e-6)
			s, err := NewSurfaceFromHeightMap(hm, SurfaceParams{UniformMap: true}, 1)
			if err != nil {
				t.Fatal(err)
			}
			freq, power := make([]float64, s.Bins()), make([]float64, s.Bins())
			n := s.TemporalSpectrum(freq, power, tc.angle, 0.08)
			var total, moment, near float64
			for j := range n {
				total += power[j]
				moment += freq[j] * power[j]
				if math.Abs(freq[j]-80) <= 16 {
					near += power[j]
				}
			}
			centroid := moment / total
			t.Logf("energy centroid %.2f Hz, %.1f %% within 80 ± 16 Hz, variance %.3g µm² (sine: %.3g)", centroid, 100*near/total, total*1e12, 12.5)
			if math.Abs(centroid-80) > 2 {
				t.Errorf("energy centroid at %.2f Hz, want 80 ± 2 Hz", centroid)
			}
			// ±16 Hz is the Hann main lobe at this tile (±2 bins of
			// 0.1 cycles/mm at 80 mm/s).
			if near < 0.95*total {
				t.Errorf("%.1f %% of the energy within 80 ± 16 Hz, want >= 95 %%", 100*near/total)
			}
			if math.Abs(total/12.5e-12-1) > 0.05 {
				t.Errorf("variance %.4g m², want the sine's 1.25e-11 ± 5 %%", total)
			}
		})
	}
}

// A fine fabric stroked at 20 mm/s gets A320 > 0.
func TestFineFabricSlowStrokeHasA320(t *testing.T) {
	s := surface(t, "silk")
	r := renderer(t, s)
	for _, deg := range []float64{0, 37, 90, 200} {
		for _, force := range []float64{0.02, 0.5} {
			var in [NumFingers]Contact
			dir := deg * math.Pi / 180
			in[fIndex] = pressing(t, force)
			in[fIndex].SlipU, in[fIndex].SlipV = 0.02*math.Cos(dir), 0.02*math.Sin(dir)
			var out Frame
			r.Step(0, &in, &out)
			f := out.Fingers[fIndex]
			if !(f.MetamerA320Um > 0) {
				t.Errorf("silk at 20 mm/s, %g°, %g N: A320 = %g, want > 0", deg, force, f.MetamerA320Um)
			}
			pins := 0
			for p := range Pins {
				if f.A320Um[p] > 0 {
					pins++
				}
			}
			if pins != f.Active || pins == 0 {
				t.Errorf("silk at 20 mm/s: %d pins with A320 > 0, %d active", pins, f.Active)
			}
			if deg == 0 {
				t.Logf("silk 20 mm/s %g N: A40 %.2f µm, A320 %.2f µm, levels NP I %.1f dB, P %.1f dB", force, f.MetamerA40Um, f.MetamerA320Um, f.Level(NonPacinian), f.Level(Pacinian))
			}
		}
	}
}

// axisPrediction computes the channel excitations of a stroke along u
// (alongU) or v straight from the 2D spectrum, as a density that is
// uniform over each bin's cell: the projection on an axis is the sum over
// the other axis, spread evenly over the cell's width, integrated here with
// 64 points per cell; weights come from the threshold curves directly. The
// spectrum's shape carries the height variance hVar and the friction's
// displacement fVar (per unit of shape), the latter through the pad's
// window for a patch of half-width half along the stroke (8 J₂(z)/z², z =
// 2π k half, from math.Jn) and its compliance with corner frequency
// corner [Hz].
func axisPrediction(sp Spectrum, m ChannelModel, alongU bool, speed, hVar, fVar, corner, half float64) [NumChannels]float64 {
	line, dk := axisLine(sp, alongU)
	n := len(line)
	const sub = 64
	var e [NumChannels]float64
	for idx, p := range line {
		for s := range sub {
			k := (float64(idx-n/2) + (float64(s)+0.5)/sub - 0.5) * dk
			f := speed * math.Abs(k)
			a := 2 * p / sub * (hVar + fVar*padWindowBrute(2*math.Pi*math.Abs(k)*half)/(1+f*f/(corner*corner))) * 1e12
			e[NonPacinian] += a * math.Pow(10, -m.NonPacinian.At(f)/10)
			e[Pacinian] += a * math.Pow(10, -m.Pacinian.At(f)/10)
		}
	}
	return e
}

// Rotating the stroke direction by 90° on a twill changes A40 and
// A320 as the spectrum predicts (within 1 dB).
func TestTwillRotationFollowsSpectrum(t *testing.T) {
	s := surface(t, "twill")
	r := renderer(t, s)
	m := ReferenceChannels()
	sp := s.Spectrum()
	// The friction's displacement of the pad on stroke's contact
	// (Fingertip): F σ_μ / k_t, k_t scaling with the patch's size.
	c := pressing(t, 0.1)
	var tip Fingertip
	patch := tip.Patch(c.NormalForce, c.Curvature)
	kt := DefaultShearStiffness * math.Sqrt(patch.Area/tip.Patch(1, 0).Area)
	fr := c.NormalForce * s.FrictionStd() / kt
	gain := probeGainBrute(sp, KESFrictionProbeLength)
	var biggest float64
	for _, speed := range []float64{0.02, 0.05, 0.1, 0.2} {
		var got, want [2][2]float64 // [direction][A40, A320]
		for k, alongU := range []bool{true, false} {
			dir := 0.0
			if !alongU {
				dir = math.Pi / 2
			}
			f := stroke(t, r, fIndex, dir, speed)
			got[k] = [2]float64{f.MetamerA40Um, f.MetamerA320Um}
			th := dir - c.Orientation
			half := math.Hypot(patch.A*math.Cos(th), patch.B*math.Sin(th))
			mm := SolveMetamer(m.Drive, axisPrediction(sp, m, alongU, speed, sq(s.HeightStd()), fr*fr*gain, DefaultShearCornerHz, half))
			want[k] = [2]float64{mm.A40, mm.A320}
		}
		for c, name := range []string{"A40", "A320"} {
			gotChange := ampDB(got[1][c]) - ampDB(got[0][c])
			wantChange := ampDB(want[1][c]) - ampDB(want[0][c])
			biggest = math.Max(biggest, math.Abs(wantChange))
			t.Logf("%3.0f mm/s %-4s along u %6.2f µm (predicted %6.2f), along v %6.2f µm (%6.2f); change %+5.2f dB, predicted %+5.2f dB",
				speed*1e3, name, got[0][c], want[0][c], got[1][c], want[1][c], gotChange, wantChange)
			if math.Abs(gotChange-wantChange) > 1 {
				t.Errorf("%g mm/s: rotating 90° changes %s by %+.2f dB, the spectrum predicts %+.2f dB", speed*1e3, name, gotChange, wantChange)
			}
			for k := range 2 {
				if d := ampDB(got[k][c]) - ampDB(want[k][c]); math.Abs(d) > 1 {
					t.Errorf("%g mm/s direction %d: %s = %.3g µm, predicted %.3g µm (%+.2f dB)", speed*1e3, k, name, got[k][c], want[k][c], d)
				}
			}
		}
	}
	if biggest < 3 {
		t.Errorf("the twill's largest predicted change on rotation is %.2f dB; the test needs an anisotropic surface", biggest)
	}
}

// An isotropic surface gives the same amplitudes in every
// direction (within 0.5 dB). The finger turns with the stroke: the
// patch is longer along the finger than across it, and its window on the
// friction's fluctuation differs with the stroke's direction on the
// finger (Surface.excite): at 40 Hz up to 1.0 dB from 100 mm/s.
func TestIsotropicSurfaceSameInEveryDirection(t *testing.T) {
	s := surface(t, "nonwoven")
	r := renderer(t, s)
	c := pressing(t, 0.1)
	for _, speed := range []float64{0.005, 0.02, 0.05, 0.1, 0.2, 0.5} {
		lo, hi := [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
		for deg := 0.0; deg < 360; deg += 2.5 {
			dir := deg * math.Pi / 180
			var in [NumFingers]Contact
			in[fThumb] = c
			in[fThumb].Orientation = c.Orientation + dir
			in[fThumb].SlipU, in[fThumb].SlipV = speed*math.Cos(dir), speed*math.Sin(dir)
			var out Frame
			r.Step(0, &in, &out)
			f := out.Fingers[fThumb]
			for c, a := range [2]float64{f.MetamerA40Um, f.MetamerA320Um} {
				if !(a > 0) {
					t.Fatalf("%g mm/s %g°: amplitude %d = %g", speed*1e3, deg, c, a)
				}
				lo[c] = math.Min(lo[c], ampDB(a))
				hi[c] = math.Max(hi[c], ampDB(a))
			}
		}
		t.Logf("%3.0f mm/s: spread over 144 directions A40 %.3f dB, A320 %.3f dB", speed*1e3, hi[0]-lo[0], hi[1]-lo[1])
		for c := range 2 {
			if hi[c]-lo[c] > 0.5 {
				t.Errorf("%g mm/s: amplitude %d varies %.3f dB with direction, want <= 0.5 dB", speed*1e3, c, hi[c]-lo[c])
			}
		}
	}
}

func TestKESMapping(t *testing.T) {
	p := silkParams()
	p.UniformMap = true
	p.GridN = 64 // the mapping does not depend on resolution
	s, err := NewSurface(p, 1)
	if err != nil {
		t.Fatal(err)
	}
	// σ_h = √(π/2) SMD; friction σ_μ = √(π/2) MMD FingerMu/MIU.
	wantH := math.Sqrt(math.Pi/2) * p.SMD
	if got := s.HeightStd(); math.Abs(got/wantH-1) > 1e-6 {
		t.Errorf("HeightStd() = %g m, want 1.2533 SMD = %g m", got, wantH)
	}
	wantF := math.Sqrt(math.Pi/2) * p.MMD
	if got := s.FrictionStd(); math.Abs(got/wantF-1) > 1e-6 {
		t.Errorf("FrictionStd() = %g, want 1.2533 MMD = %g", got, wantF)
	}
	p.FingerMu = 2 * p.MIU
	s2, err := NewSurface(p, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := s2.FrictionStd(); math.Abs(got/(2*wantF)-1) > 1e-6 {
		t.Errorf("with FingerMu = 2 MIU: FrictionStd() = %g, want %g", got, 2*wantF)
	}
	var sum float64
	for _, v := range s.Spectrum().P {
		sum += v
	}
	if math.Abs(sum/(wantH*wantH)-1) > 1e-9 {
		t.Errorf("spectrum sums to %g m², want σ_h² = %g m²", sum, wantH*wantH)
	}
	if res := s.Spectrum().Resolution(); res > MaxGridSpacing {
		t.Errorf("resolution %g m, want <= %g m", res, MaxGridSpacing)
	}
}

func TestNewSurfaceErrors(t *testing.T) {
	good := silkParams()
	for _, tc := range []struct {
		name string
		edit func(*SurfaceParams)
		want string
	}{
		{"SMD in µm", func(p *SurfaceParams) { p.SMD = 3 }, "pass metres"},
		{"SMD zero", func(p *SurfaceParams) { p.SMD = 0 }, "SMD"},
		{"SMD NaN", func(p *SurfaceParams) { p.SMD = math.NaN() }, "SMD"},
		{"no weave", func(p *SurfaceParams) { p.Weave = 0 }, "weave type"},
		{"no MIU", func(p *SurfaceParams) { p.MIU = 0 }, "MIU"},
		{"spacing below grid", func(p *SurfaceParams) { p.WarpSpacing = 10e-6 }, "WarpSpacing"},
		{"spacing in mm", func(p *SurfaceParams) { p.WeftSpacing = 0.3 }, "WeftSpacing"},
		{"coarse grid", func(p *SurfaceParams) { p.GridSpacing = 0.1e-3 }, "400 Hz"},
		{"odd grid", func(p *SurfaceParams) { p.GridN = 255 }, "GridN"},
		{"twill float", func(p *SurfaceParams) { p.Weave, p.Repeat, p.Float = Twill, 4, 4 }, "twill"},
		{"satin move", func(p *SurfaceParams) { p.Weave, p.Repeat, p.Move = Satin, 8, 4 }, "satin"},
		{"hurst", func(p *SurfaceParams) { p.Hurst = 1.5 }, "Hurst"},
		{"MMD", func(p *SurfaceParams) { p.MMD = -1 }, "MMD"},
		{"huge map", func(p *SurfaceParams) { p.WidthU, p.HeightV, p.MapSpacing = 10, 10, 1e-3 }, "million"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := good
			tc.edit(&p)
			_, err := NewSurface(p, 1)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "tactile: ") {
				t.Errorf("NewSurface: error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

func TestWeaveNames(t *testing.T) {
	for w := Plain; w <= NonWoven; w++ {
		if n := w.String(); n == "" || n != strings.ToLower(n) || strings.HasPrefix(n, "WeaveType") {
			t.Errorf("weave %d is named %q", int(w), n)
		}
	}
	if n := (NonWoven + 1).String(); !strings.HasPrefix(n, "WeaveType(") {
		t.Errorf("an unknown weave is named %q", n)
	}
}

// The repeat pattern puts the weave's harmonics where the construction
// does. A plain weave has a crown at every interlacing, so its strongest
// harmonics are the yarn spacings (1/a_u, 0) and (0, 1/a_v); all lie on the
// lattice of the 2 x 2 repeat. (Its warp and weft crowns are the same
// shape turned by 90° in yarn units, so their alternation at
// (±1/(2 a_u), ±1/(2 a_v)) cancels in this geometry.) A twill's pattern is a function of
// i + j, so its harmonics (p/(R a_u), q/(R a_v)) have p ≡ q mod R: they
// lie across the twill lines.
func TestWeaveHarmonics(t *testing.T) {
	p := SurfaceParams{Weave: Plain, WarpSpacing: 0.2e-3, WeftSpacing: 0.3e-3}.withDefaults()
	peaks := weavePeaks(&p)
	for _, pk := range peaks {
		iu, iv := pk.ku*2*p.WarpSpacing, pk.kv*2*p.WeftSpacing // in units of 1/(2a)
		if math.Abs(iu-math.Round(iu)) > 1e-9 || math.Abs(iv-math.Round(iv)) > 1e-9 {
			t.Errorf("plain weave peak at (%g, %g)/(2a) is off the lattice", iu, iv)
		}
	}
	top := peaks[0]
	onAxis := (math.Abs(math.Abs(top.ku)*p.WarpSpacing-1) < 1e-9 && top.kv == 0) ||
		(math.Abs(math.Abs(top.kv)*p.WeftSpacing-1) < 1e-9 && top.ku == 0)
	if !onAxis {
		t.Errorf("plain weave's strongest harmonic at (%g, %g) /mm, want a yarn spacing on an axis", top.ku/1e3, top.kv/1e3)
	}

	tw := SurfaceParams{Weave: Twill, Repeat: 4, Float: 2, WarpSpacing: 0.2e-3, WeftSpacing: 0.2e-3}.withDefaults()
	var off int
	for _, pk := range weavePeaks(&tw) {
		pu, qv := int(math.Round(pk.ku*4*tw.WarpSpacing)), int(math.Round(pk.kv*4*tw.WeftSpacing))
		if mod(pu-qv, 4) != 0 {
			t.Errorf("2/2 twill harmonic (%d, %d) is not across the twill lines", pu, qv)
		}
		if mod(pu, 4) != 0 || mod(qv, 4) != 0 {
			off++
		}
	}
	if off == 0 {
		t.Error("2/2 twill has no harmonics of its repeat, only of the yarn lattice")
	}
}

func TestMaps(t *testing.T) {
	m, err := RandomMap(0.1, 0.08, 1e-3, 0.12, 5e-3, 3)
	if err != nil {
		t.Fatal(err)
	}
	nu, nv, _ := m.Size()
	if nu != 101 || nv != 81 {
		t.Errorf("map size %d x %d, want 101 x 81", nu, nv)
	}
	var mean, m2 float64
	for j := range nv {
		for i := range nu {
			mean += m.Value(i, j)
		}
	}
	mean /= float64(nu * nv)
	for j := range nv {
		for i := range nu {
			m2 += sq(m.Value(i, j) - mean)
		}
	}
	cv := math.Sqrt(m2/float64(nu*nv)) / mean
	if math.Abs(mean-1) > 1e-12 || math.Abs(cv-0.12) > 0.01 {
		t.Errorf("random map mean %g, cv %g; want 1 and 0.12", mean, cv)
	}
	again, _ := RandomMap(0.1, 0.08, 1e-3, 0.12, 5e-3, 3)
	if again.Value(17, 33) != m.Value(17, 33) {
		t.Error("RandomMap is not reproducible from its seed")
	}

	g, err := NewMap(3, 2, 1e-3, []float64{0, 1, 2, 10, 11, 12})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ u, v, want float64 }{
		{0, 0, 0}, {0.5e-3, 0, 0.5}, {1.5e-3, 0.5e-3, 6.5}, {2e-3, 1e-3, 12},
		{-1, -1, 0}, {1, 1, 12}, {math.NaN(), 0.5e-3, 5},
	} {
		if got := g.At(tc.u, tc.v); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("At(%g, %g) = %g, want %g", tc.u, tc.v, got, tc.want)
		}
	}
	if _, err := NewMap(2, 2, 1e-3, []float64{1, 1, -1, 1}); err == nil {
		t.Error("NewMap accepted a negative value")
	}
	s := surface(t, "silk")
	s2, err := s.WithMaps(g, m)
	if err != nil || s2.Map40() != g || s2.Map320() != m || s.Map40() == g {
		t.Errorf("WithMaps: %v; maps not swapped on the copy only", err)
	}
}

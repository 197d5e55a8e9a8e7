package tactile

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/dsp/fourier"
)

// stepBound is the largest sample-to-sample step that amplitudes a40 and
// a320 alone imply at sample rate fs: 2 A sin(π f / fs) per sine.
func stepBound(a40, a320 float64, fs int) float64 {
	return 2*a40*math.Sin(math.Pi*F40/float64(fs)) + 2*a320*math.Sin(math.Pi*F320/float64(fs))
}

// naiveSynth changes amplitude at the frame boundary without a ramp, as a
// control that the continuity test can fail.
func naiveSynth(dst []float32, k0 uint64, fs int, a40, a320 float64) {
	for i := range dst {
		t := float64(k0+uint64(i)) / float64(fs)
		dst[i] = float32(a40*math.Sin(2*math.Pi*F40*t) + a320*math.Sin(2*math.Pi*F320*t))
	}
}

// Synthesis has no discontinuity at frame boundaries: the largest
// sample-to-sample step is within 1 % of what the amplitude alone implies.
//
// The amplitude in effect at each sample is the synthesiser's envelope,
// read back after each frame; as an outside check, the envelope must stay
// within the targets of the frames of the last 20 ms, and the bound from
// those targets must hold too. Frames start 7 samples off the sines' zero
// crossings: at 8 kHz and 25 ms every frame boundary is a zero crossing of
// both sines, where even an abrupt change cannot click.
func TestSynthNoClicks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fs     int
		period float64
	}{
		{"8 kHz 25 ms", 8000, 0.025},
		{"10 kHz 5 ms", 10000, 0.005},
		{"44.1 kHz 25 ms", 44100, 0.025},
		{"2 kHz 10 ms", 2000, 0.010},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const pins, frames, offset = 3, 120, 7
			n := int(math.Round(tc.period * float64(tc.fs)))
			s, err := NewSynth(tc.fs, pins, tc.period, n)
			if err != nil {
				t.Fatal(err)
			}
			hist := int(math.Ceil(0.020/tc.period)) + 1
			rng := rand.New(rand.NewPCG(40, 320))
			frame := make([]float32, pins*n)
			naive := make([]float32, n)
			var targets [][2][pins]float64
			var last [pins]float32
			var lastEnv [pins][2]float64
			var lastNaive float32
			var worst, worstTargets, worstNaive float64
			for f := range frames {
				var tg [2][pins]float64
				for p := range pins {
					// Jumps between silence and the device limits, and
					// changes of any size.
					switch rng.IntN(3) {
					case 0:
					case 1:
						tg[0][p], tg[1][p] = 100*rng.Float64(), 20*rng.Float64()
					default:
						tg[0][p], tg[1][p] = 100, 20
					}
				}
				targets = append(targets, tg)
				k0 := uint64(f*n + offset)
				s.Render(frame, float64(k0)/float64(tc.fs), tg[0][:], tg[1][:])
				naiveSynth(naive, k0, tc.fs, tg[0][0], tg[1][0])
				for p := range pins {
					var m40, m320 float64
					for _, h := range targets[max(0, len(targets)-hist):] {
						m40, m320 = math.Max(m40, h[0][p]), math.Max(m320, h[1][p])
					}
					prev, env := last[p], lastEnv[p]
					for i := range n {
						e := [2]float64{
							s.from[0][p] + (s.to[0][p]-s.from[0][p])*s.frac[0][i],
							s.from[1][p] + (s.to[1][p]-s.from[1][p])*s.frac[1][i],
						}
						if e[0] > m40+1e-9 || e[1] > m320+1e-9 {
							t.Fatalf("frame %d pin %d: envelope %v above the targets of the last %d frames (%g, %g)", f, p, e, hist, m40, m320)
						}
						x := frame[p*n+i]
						if f > 0 || i > 0 {
							step := math.Abs(float64(x - prev))
							if b := stepBound(math.Max(e[0], env[0]), math.Max(e[1], env[1]), tc.fs); b > 0 {
								worst = math.Max(worst, step/b)
							}
							if b := stepBound(m40, m320, tc.fs); b > 0 {
								worstTargets = math.Max(worstTargets, step/b)
							}
						}
						prev, env = x, e
					}
					last[p], lastEnv[p] = prev, env
				}
				b := stepBound(math.Max(tg[0][0], targets[max(0, f-1)][0][0]), math.Max(tg[1][0], targets[max(0, f-1)][1][0]), tc.fs)
				for i, x := range naive {
					if (f > 0 || i > 0) && b > 0 {
						worstNaive = math.Max(worstNaive, math.Abs(float64(x-lastNaive))/b)
					}
					lastNaive = x
				}
			}
			t.Logf("largest step / bound from the envelope: %.5f, from the targets: %.5f (naive synthesis: %.2f)", worst, worstTargets, worstNaive)
			if worst > 1.01 || worstTargets > 1.01 {
				t.Errorf("largest sample-to-sample step is %.4f (envelope) and %.4f (targets) times what the amplitudes imply, want <= 1.01", worst, worstTargets)
			}
			if worstNaive < 1.5 {
				t.Errorf("control: naive synthesis stays within %.2f of the bound; the test cannot see clicks", worstNaive)
			}
		})
	}
}

// With constant amplitudes, after the ramp, the waveform is the two sines
// with the commanded amplitudes, phase-continuous across frames: frames
// rendered one after another equal one long render, and the FFT over whole
// cycles shows exactly the two lines.
func TestSynthSteadyState(t *testing.T) {
	const fs, n, frames = 8000, 200, 20
	s, _ := NewSynth(fs, 2, 0, n)
	long, _ := NewSynth(fs, 2, 0, n*frames)
	a40, a320 := []float64{30, 0}, []float64{7, 12}
	seq := make([]float32, 0, n*frames)
	frame := make([]float32, 2*n)
	for f := range frames {
		s.Render(frame, float64(f*n)/fs, a40, a320)
		seq = append(seq, frame[:n]...)
	}
	all := make([]float32, 2*n*frames)
	long.Render(all, 0, a40, a320)
	for i := 4 * n; i < n*frames; i++ {
		if math.Abs(float64(seq[i]-all[i])) > 1e-4 {
			t.Fatalf("sample %d: frame by frame %g, one render %g", i, seq[i], all[i])
		}
	}
	// The last 0.4 s: 16 cycles of 40 Hz, 128 of 320 Hz.
	tail := seq[len(seq)-3200:]
	x := make([]float64, len(tail))
	for i, v := range tail {
		x[i] = float64(v)
	}
	c := fourier.NewFFT(len(x)).Coefficients(nil, x)
	amp := func(f int) float64 { return 2 * cmplx.Abs(c[f*len(x)/fs]) / float64(len(x)) }
	if math.Abs(amp(40)-30) > 1e-3 || math.Abs(amp(320)-7) > 1e-3 {
		t.Errorf("lines at 40 and 320 Hz: %.5f and %.5f µm, want 30 and 7", amp(40), amp(320))
	}
	var rest float64
	for k := 1; k < len(c); k++ {
		if f := k * fs / len(x); f != 40 && f != 320 {
			rest = math.Max(rest, 2*cmplx.Abs(c[k])/float64(len(x)))
		}
	}
	if rest > 1e-3 {
		t.Errorf("energy outside the two lines: %g µm", rest)
	}
	// Phase: the waveform is A sin(2π f t) of absolute time.
	k := uint64(len(seq) - 1)
	want := 30*math.Sin(2*math.Pi*40*float64(k)/fs) + 7*math.Sin(2*math.Pi*320*float64(k)/fs)
	if math.Abs(float64(seq[k])-want) > 1e-4 {
		t.Errorf("last sample %g, want %g", seq[k], want)
	}
}

func TestSynthInputs(t *testing.T) {
	for _, tc := range []struct {
		fs, pins int
		ramp     float64
		n        int
	}{{500, 1, 0, 10}, {8000, 0, 0, 10}, {8000, 2, -1, 10}, {8000, 2, 0, -1}} {
		if _, err := NewSynth(tc.fs, tc.pins, tc.ramp, tc.n); err == nil {
			t.Errorf("NewSynth%+v succeeded", tc)
		}
	}
	s, _ := NewSynth(8000, 2, 0, 8)
	dst := make([]float32, 2*8)
	s.Render(dst, 0, []float64{math.NaN(), -5}, []float64{math.Inf(1), 0})
	for i, v := range dst {
		if v != 0 {
			t.Fatalf("NaN, negative and infinite amplitudes produced sample %d = %g", i, v)
		}
	}
	// A longer frame than preallocated still works.
	long := make([]float32, 2*100)
	if n := s.Render(long, 0.001, []float64{1, 1}, []float64{1, 1}); n != 100 {
		t.Errorf("Render returned %d samples, want 100", n)
	}
	defer func() {
		if recover() == nil {
			t.Error("Render with a ragged buffer did not panic")
		}
	}()
	s.Render(make([]float32, 3), 0, []float64{1, 1}, []float64{1, 1})
}

func TestSynthAllocs(t *testing.T) {
	const pins, n = NumFingers * Pins, 200
	s, _ := NewSynth(8000, pins, 0.025, n)
	dst := make([]float32, pins*n)
	a40, a320 := make([]float64, pins), make([]float64, pins)
	tm := 0.0
	allocs := testing.AllocsPerRun(100, func() {
		for p := range pins {
			a40[p] = 50 + 50*math.Sin(tm+float64(p))
			a320[p] = 10 + 10*math.Cos(tm*3+float64(p))
		}
		s.Render(dst, tm, a40, a320)
		tm += 0.025
	})
	if allocs != 0 {
		t.Errorf("Render allocates %v times per frame, want 0", allocs)
	}
}

func BenchmarkSynth(b *testing.B) {
	const pins, n = NumFingers * Pins, 200
	s, _ := NewSynth(8000, pins, 0.025, n)
	dst := make([]float32, pins*n)
	a40, a320 := make([]float64, pins), make([]float64, pins)
	for p := range pins {
		a40[p], a320[p] = float64(p), float64(p)/4
	}
	b.ReportAllocs()
	tm := 0.0
	for b.Loop() {
		s.Render(dst, tm, a40, a320)
		tm += 0.025
	}
}

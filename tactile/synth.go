package tactile

import (
	"fmt"
	"math"
)

// Synth turns per-pin amplitude frames into drive waveforms
//
//	s_p(t) = A40_p(t) sin(2π 40 t) + A320_p(t) sin(2π 320 t)   [µm]
//
// for arrays that take sampled waveforms and for simulated arrays. The sines
// are functions of the absolute sample index k = t·fs, so consecutive frames
// join with continuous phase. Amplitude changes ramp over RampSeconds in
// equal steps taken only at the zero crossings of their own sine: the
// waveform stays continuous and its slope never exceeds what the larger of
// the two amplitudes implies, so a frame boundary cannot click. (A linear
// ramp of a 40 Hz amplitude over one 25 ms frame would exceed that slope by
// up to 1.3 %.) The 40 Hz amplitude can therefore only change every half
// cycle, 12.5 ms, whatever the frame period.
//
// Render allocates nothing once it has seen its longest frame. A Synth is
// used from one goroutine.
type Synth struct {
	fs, pins  int
	halfSteps [2]int // J: half-cycles per ramp at 40 and 320 Hz

	cur, from, to [2][]float64 // envelope per component and pin
	done          [2]int       // half-cycles of the current ramp already taken

	sin, frac [2][]float64 // per-sample sine and ramp fraction, sized to the longest frame
}

var synthFreq = [2]uint64{F40, F320}

// NewSynth returns a synthesiser at sampleRate [Hz] for pins channels
// (48 for both fingers), ramping amplitude changes over rampSeconds
// (0: 25 ms, one default frame), with scratch for frames of up to
// maxFrameSamples samples per pin.
func NewSynth(sampleRate, pins int, rampSeconds float64, maxFrameSamples int) (*Synth, error) {
	if sampleRate < 1000 || sampleRate > 192000 {
		return nil, fmt.Errorf("tactile: sample rate %d Hz must be in [1000, 192000] Hz", sampleRate)
	}
	if pins < 1 || pins > 1024 {
		return nil, fmt.Errorf("tactile: %d pins must be in [1, 1024]", pins)
	}
	if rampSeconds == 0 {
		rampSeconds = 0.025
	}
	if !inRange(rampSeconds, 0, 1) {
		return nil, fmt.Errorf("tactile: ramp %g s must be in (0, 1] s", rampSeconds)
	}
	if maxFrameSamples < 0 {
		return nil, fmt.Errorf("tactile: frame of %d samples", maxFrameSamples)
	}
	s := &Synth{fs: sampleRate, pins: pins}
	for c, f := range synthFreq {
		s.halfSteps[c] = max(1, int(math.Round(2*float64(f)*rampSeconds)))
		s.cur[c] = make([]float64, pins)
		s.from[c] = make([]float64, pins)
		s.to[c] = make([]float64, pins)
	}
	s.grow(maxFrameSamples)
	return s, nil
}

func (s *Synth) grow(n int) {
	for c := range s.sin {
		if cap(s.sin[c]) < n {
			s.sin[c] = make([]float64, n)
			s.frac[c] = make([]float64, n)
		}
		s.sin[c] = s.sin[c][:n]
		s.frac[c] = s.frac[c][:n]
	}
}

// Render writes one frame starting at time t [s] (t >= 0) into dst,
// pin-major: dst[p*n+i] is pin p's sample i [µm], n = len(dst)/pins. a40 and
// a320 are the frame's target amplitudes [µm peak], one per pin; NaN and
// negative values count as 0. It returns n. Render panics if len(dst) is not
// a multiple of the pin count or the amplitude slices are not one per pin.
func (s *Synth) Render(dst []float32, t float64, a40, a320 []float64) int {
	if len(dst)%s.pins != 0 || len(a40) != s.pins || len(a320) != s.pins {
		panic(fmt.Sprintf("tactile: Render with %d samples, %d and %d amplitudes for %d pins", len(dst), len(a40), len(a320), s.pins))
	}
	n := len(dst) / s.pins
	if n == 0 {
		return 0
	}
	s.grow(n)
	k0 := uint64(0)
	if t > 0 {
		k0 = uint64(math.Round(t * float64(s.fs)))
	}
	fs := uint64(s.fs)
	for c, f := range synthFreq {
		targets := a40
		if c == 1 {
			targets = a320
		}
		for p, a := range targets {
			if !(a > 0) || math.IsInf(a, 0) {
				a = 0
			}
			s.from[c][p] = s.cur[c][p]
			s.to[c][p] = a
		}
		s.done[c] = 0
		// Half-cycle index of sample k: floor(2 f k / fs); the ramp takes a
		// step wherever it changes, i.e. at a zero crossing.
		prev := uint64(math.MaxUint64)
		if k0 > 0 {
			prev = 2 * f * (k0 - 1) / fs
		}
		j := float64(s.halfSteps[c])
		sn, fr := s.sin[c], s.frac[c]
		for i := range n {
			k := k0 + uint64(i)
			h := 2 * f * k / fs
			if h != prev && prev != math.MaxUint64 && s.done[c] < s.halfSteps[c] {
				s.done[c]++
			}
			prev = h
			fr[i] = float64(s.done[c]) / j
			sn[i] = math.Sin(2 * math.Pi * float64(f*k%fs) / float64(fs))
		}
	}
	s40, s320 := s.sin[0][:n], s.sin[1][:n]
	f40, f320 := s.frac[0][:n], s.frac[1][:n]
	for p := range s.pins {
		b40, d40 := s.from[0][p], s.to[0][p]-s.from[0][p]
		b320, d320 := s.from[1][p], s.to[1][p]-s.from[1][p]
		out := dst[p*n : (p+1)*n]
		for i, x := range s40 {
			out[i] = float32((b40+d40*f40[i])*x + (b320+d320*f320[i])*s320[i])
		}
		s.cur[0][p] = b40 + d40*f40[n-1]
		s.cur[1][p] = b320 + d320*f320[n-1]
	}
	return n
}

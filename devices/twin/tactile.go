package twin

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/haptex/haptex/devices"
)

// TactileParams describes a simulated 6 x 4 vibrotactile pin array of the
// HAPTEX kind: each contactor is driven by a piezoelectric bimorph (Summers
// et al., "Design of array stimulators for synthetic tactile sensations",
// World Haptics 2005; working bandwidth 20-400 Hz, 2 mm pitch).
type TactileParams struct {
	// ResonanceHz and Damping describe one contactor as a second-order
	// resonator (bimorph plus pin), driven by the array's electronics
	// through its stiffness. The electronics equalise the resonator's
	// nominal response at 40 and 320 Hz, so that at steady state a pin of
	// nominal sensitivity vibrates with the commanded amplitude; after a
	// new command it rings in over a few time constants
	// 1/(Damping·2π·ResonanceHz).
	ResonanceHz float64
	Damping     float64
	// Limits of the drive at 40 and 320 Hz [µm peak]. Commands beyond them
	// are clamped, as the amplifier clips.
	MaxA40Um, MaxA320Um float64
	// PinSpreadDB is the standard deviation of the contactors' sensitivity
	// around nominal [dB] (manufacturing spread); per-pin calibration exists
	// to measure and undo it. Seed makes the spread reproducible.
	PinSpreadDB float64
	Seed        uint64
}

// DefaultTactileParams returns the simulated array's defaults: a 450 Hz
// contactor resonance with damping 0.3 (time constant 1.2 ms), drive
// limits of 200 µm at 40 Hz and 30 µm at 320 Hz (enough for 30-40 dB above
// detection threshold in both channels; tactile.ReferenceChannels), and
// a 1 dB sensitivity spread between pins.
func DefaultTactileParams() TactileParams {
	return TactileParams{ResonanceHz: 450, Damping: 0.3, MaxA40Um: 200, MaxA320Um: 30, PinSpreadDB: 1, Seed: 1}
}

// The simulated array's time base: its electronics and the contactors'
// motion are sampled at TactileSampleRate, and its vibrometer reads the
// last TactileWindow of it, one cycle of 40 Hz and eight of 320 Hz, so
// that the two lines are separated exactly.
const (
	TactileSampleRate = 16000 // [Hz]
	TactileWindow     = TactileSampleRate / 40
	// driveRamp is how many samples the electronics take to move a pin's
	// drive to a new frame's amplitude, linearly (2.5 ms).
	driveRamp = TactileSampleRate / 400
	// maxCatchUp bounds the samples one Advance integrates: after a longer
	// silence of the clock the contactors have long settled, and the last
	// 100 ms decide what they do now.
	maxCatchUp = TactileSampleRate / 10
	// settledUm is the displacement and scaled velocity below which an
	// undriven pin is at rest [µm]: 10⁻¹⁸ m, a millionth of the picometre
	// a laser vibrometer resolves at best.
	settledUm = 1e-12
)

// Tactile is the simulated twin of one vibrotactile array. It implements
// devices.TactileArray and devices.Clocked: the rig writes a frame each
// tactile period and advances it with the run's clock, and Advance
// integrates every pin's motion sample by sample. Delivered reports what
// a laser vibrometer on each pin reads; Vibration gives its trace.
type Tactile struct {
	p    TactileParams
	spec devices.TactileSpec

	// The discretised resonator, state (x, v/ω) in µm, input u the drive
	// in µm: s(k+1) = phi s(k) + gam u(k).
	phi [2][2]float64
	gam [2]float64
	// One 40 Hz cycle of each equalised drive sine per µm of command:
	// drive[f][k mod TactileWindow].
	drive [2][TactileWindow]float64
	// The vibrometer's reference: cos and sin of 40 Hz and 320 Hz at
	// sample k mod TactileWindow.
	ref [2][2][TactileWindow]float64

	mu    sync.Mutex // WriteFrame, Advance, Delivered and Vibration may come from different goroutines
	cmd   devices.TactileFrame
	from  [2][devices.Pins]float64 // drive amplitudes when the last command came [µm]
	rampK int64                    // sample at which the last command came
	state [devices.Pins][2]float64
	trace [devices.Pins][TactileWindow]float64 // displacement, ring indexed by sample mod TactileWindow [µm]
	k     int64                                // next sample to compute
	// The vibrometer's last reading, of the window before sample readK.
	read40, read320 [devices.Pins]float64
	readK           int64
	// playSeq is the Seq of the frame the pins played when Advance last
	// moved on: what the window Delivered reads ended with.
	playSeq uint32
	gain    [devices.Pins]float64
	started bool
	frames  uint64
	clamped uint64
	closed  bool
}

var (
	_ devices.TactileArray = (*Tactile)(nil)
	_ devices.Clocked      = (*Tactile)(nil)
)

// NewTactile returns a simulated array for finger f (0 thumb, 1 index).
func NewTactile(p TactileParams, f int) (*Tactile, error) {
	switch {
	case !(p.ResonanceHz > 400) || p.ResonanceHz > 5000:
		return nil, fmt.Errorf("devices/twin: tactile resonance %g Hz outside (400, 5000]: the array must pass 400 Hz", p.ResonanceHz)
	case !(p.Damping > 0) || p.Damping > 2:
		return nil, fmt.Errorf("devices/twin: tactile damping %g outside (0, 2]", p.Damping)
	case !(p.MaxA40Um > 0) || !(p.MaxA320Um > 0):
		return nil, fmt.Errorf("devices/twin: tactile limits %g µm at 40 Hz, %g µm at 320 Hz: want > 0", p.MaxA40Um, p.MaxA320Um)
	case !(p.PinSpreadDB >= 0) || p.PinSpreadDB > 10:
		return nil, fmt.Errorf("devices/twin: tactile pin spread %g dB outside [0, 10]", p.PinSpreadDB)
	}
	t := &Tactile{p: p}
	t.spec = devices.TactileSpec{
		Model: "haptex simulated 24-pin array", Serial: fmt.Sprintf("sim-tactile-%d", f),
		Transport: devices.TransportSim, Rows: devices.PinRows, Cols: devices.PinCols, PitchM: 0.002,
		MaxA40Um: p.MaxA40Um, MaxA320Um: p.MaxA320Um, Measures: true,
	}
	rng := rand.New(rand.NewPCG(p.Seed, uint64(f)+0x5eed))
	for i := range t.gain {
		t.gain[i] = math.Pow(10, p.PinSpreadDB*rng.NormFloat64()/20)
	}
	wn := 2 * math.Pi * p.ResonanceHz
	t.phi, t.gam = discretise(wn, p.Damping, 1.0/TactileSampleRate)
	for c, hz := range [2]float64{40, 320} {
		w := 2 * math.Pi * hz
		// What the discretised resonator does to a sine of this frequency
		// at steady state: the electronics divide it out.
		z := cmplx.Exp(complex(0, w/TactileSampleRate))
		h := t.response(z)
		for k := range TactileWindow {
			ph := w * float64(k) / TactileSampleRate
			t.drive[c][k] = math.Sin(ph-cmplx.Phase(h)) / cmplx.Abs(h)
			t.ref[c][0][k], t.ref[c][1][k] = math.Cos(ph), math.Sin(ph)
		}
	}
	return t, nil
}

// discretise returns the exact zero-order-hold discretisation over dt of
// the resonator x” + 2ζω x' + ω² x = ω² u, in the state (x, x'/ω).
func discretise(w, zeta, dt float64) (phi [2][2]float64, gam [2]float64) {
	// exp of the augmented matrix [[A, B], [0, 0]] dt, A = ω [[0, 1],
	// [-1, -2ζ]], B = ω [0, 1]: its norm is about 2ω dt, well below 1, so
	// the Taylor series converges fast.
	a := [3][3]float64{{0, w * dt, 0}, {-w * dt, -2 * zeta * w * dt, w * dt}, {0, 0, 0}}
	e := [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	term := e
	for n := 1; n <= 30; n++ {
		var next [3][3]float64
		for i := range 3 {
			for j := range 3 {
				for k := range 3 {
					next[i][j] += term[i][k] * a[k][j]
				}
				next[i][j] /= float64(n)
			}
		}
		term = next
		for i := range 3 {
			for j := range 3 {
				e[i][j] += term[i][j]
			}
		}
	}
	phi = [2][2]float64{{e[0][0], e[0][1]}, {e[1][0], e[1][1]}}
	gam = [2]float64{e[0][2], e[1][2]}
	return phi, gam
}

// response returns the discretised resonator's transfer function from
// drive to displacement at z.
func (t *Tactile) response(z complex128) complex128 {
	// x = e₀ᵀ (z I - phi)⁻¹ gam.
	a, b, c, d := z-complex(t.phi[0][0], 0), complex(-t.phi[0][1], 0), complex(-t.phi[1][0], 0), z-complex(t.phi[1][1], 0)
	det := a*d - b*c
	return (d*complex(t.gam[0], 0) - b*complex(t.gam[1], 0)) / det
}

// Spec returns the array's capability record.
func (t *Tactile) Spec() devices.TactileSpec { return t.spec }

// WriteFrame sets the amplitudes the drive aims for, clamped to the limits,
// from the sample the clock has reached: the electronics ramp each pin's
// drive to them over 2.5 ms. NaN, Inf and negative amplitudes drive the
// pin at zero.
func (t *Tactile) WriteFrame(f *devices.TactileFrame) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return devices.ErrDisconnected
	}
	for i := range f.A40Um {
		t.from[0][i], t.from[1][i] = t.amplitude(0, i, t.k), t.amplitude(1, i, t.k)
	}
	t.rampK = t.k
	t.cmd.Seq = f.Seq
	for i := range f.A40Um {
		t.cmd.A40Um[i] = t.clamp(f.A40Um[i], t.p.MaxA40Um)
		t.cmd.A320Um[i] = t.clamp(f.A320Um[i], t.p.MaxA320Um)
	}
	t.frames++
	return nil
}

func (t *Tactile) clamp(a, limit float64) float64 {
	switch {
	case !(a > 0): // NaN, negative, zero
		return 0
	case a > limit:
		t.clamped++
		return limit
	}
	return a
}

// amplitude returns the drive amplitude of component c (0: 40 Hz, 1:
// 320 Hz) of pin i at sample k.
func (t *Tactile) amplitude(c, i int, k int64) float64 {
	to := t.cmd.A40Um[i]
	if c == 1 {
		to = t.cmd.A320Um[i]
	}
	n := k - t.rampK
	if n >= driveRamp {
		return to
	}
	return t.from[c][i] + (to-t.from[c][i])*float64(n)/driveRamp
}

// Advance moves the contactors to time tt, sample by sample. A clock that
// goes back or stands still changes nothing.
func (t *Tactile) Advance(tt time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	end := int64(math.Floor(tt.Seconds() * TactileSampleRate))
	if !t.started {
		t.started, t.k, t.rampK = true, end, end
		return
	}
	if end-t.k > maxCatchUp {
		t.k = end - maxCatchUp
	}
	if end <= t.k {
		return
	}
	t.playSeq = t.cmd.Seq
	// Sample by sample across the pins, each pin's recurrence the same
	// sequence of operations as alone: 24 independent chains keep the
	// core busy, and the ring's index is counted, not divided.
	j := ring(t.k)
	for k := t.k; k < end; k++ {
		d40, d320 := t.drive[0][j], t.drive[1][j]
		ramp := k-t.rampK < driveRamp
		for i := range t.state {
			s := &t.state[i]
			a40, a320 := t.cmd.A40Um[i], t.cmd.A320Um[i]
			if ramp {
				a40, a320 = t.amplitude(0, i, k), t.amplitude(1, i, k)
			}
			u := t.gain[i] * (a40*d40 + a320*d320)
			if u == 0 && math.Abs(s[0]) < settledUm && math.Abs(s[1]) < settledUm {
				// An undriven pin that has rung down rests: left to decay,
				// its state reaches the subnormal numbers, where every
				// operation on it costs a hundred times as much.
				s[0], s[1] = 0, 0
			} else {
				s[0], s[1] = t.phi[0][0]*s[0]+t.phi[0][1]*s[1]+t.gam[0]*u, t.phi[1][0]*s[0]+t.phi[1][1]*s[1]+t.gam[1]*u
			}
			t.trace[i][j] = s[0]
		}
		if j++; j == TactileWindow {
			j = 0
		}
	}
	t.k = end
}

// ring returns sample k's place in one 40 Hz cycle.
func ring(k int64) int { return int(((k % TactileWindow) + TactileWindow) % TactileWindow) }

// Delivered writes the amplitudes the pins vibrated with over the last
// 25 ms before the time Advance reached [µm peak], as a laser vibrometer
// reads them: each pin's 40 Hz and 320 Hz lines, by demodulating its
// displacement over exactly one 40 Hz cycle (eight 320 Hz cycles). Seq is
// that of the frame the pins played at the end of the window (a frame
// written since is not in it). Before the first 25 ms have passed, the
// pins count as still. It always has a measurement
// (devices.DeliveryReader).
func (t *Tactile) Delivered(dst *devices.TactileFrame) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	dst.Seq = t.playSeq
	if t.readK != t.k {
		// The trace changes only when Advance moves on: a second reading
		// of the same window (the rig's frame record and its interval's)
		// is the first one.
		for i := range t.trace {
			t.read40[i], t.read320[i] = t.lines(i)
		}
		t.readK = t.k
	}
	dst.A40Um, dst.A320Um = t.read40, t.read320
	return true
}

// lines returns the amplitudes of pin i's 40 Hz and 320 Hz lines over the
// trace's window, in one pass (four independent sums).
func (t *Tactile) lines(i int) (a40, a320 float64) {
	var re0, im0, re1, im1 float64
	c0, s0, c1, s1 := &t.ref[0][0], &t.ref[0][1], &t.ref[1][0], &t.ref[1][1]
	for j, x := range t.trace[i] {
		re0 += x * c0[j]
		im0 += x * s0[j]
		re1 += x * c1[j]
		im1 += x * s1[j]
	}
	return 2 * math.Hypot(re0, im0) / TactileWindow, 2 * math.Hypot(re1, im1) / TactileWindow
}

// Vibration copies pin's displacement over the last 25 ms before the time
// Advance reached into dst [µm], oldest first, one sample every
// 1/TactileSampleRate s, and returns the time of its first sample. dst
// must hold TactileWindow samples.
func (t *Tactile) Vibration(pin int, dst []float64) (time.Duration, error) {
	if pin < 0 || pin >= devices.Pins || len(dst) < TactileWindow {
		return 0, fmt.Errorf("devices/twin: Vibration of pin %d into %d samples: want a pin in 0..%d and %d samples", pin, len(dst), devices.Pins-1, TactileWindow)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	start := t.k - TactileWindow
	for n := range TactileWindow {
		k := start + int64(n)
		dst[n] = t.trace[pin][ring(k)]
	}
	return time.Duration(float64(start) / TactileSampleRate * float64(time.Second)), nil
}

// Frames returns the frames written and the pin amplitudes clamped so far.
func (t *Tactile) Frames() (frames, clamped uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.frames, t.clamped
}

// Close makes every later call return devices.ErrDisconnected.
func (t *Tactile) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	return nil
}

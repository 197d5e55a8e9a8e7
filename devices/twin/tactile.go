package twin

import (
	"fmt"
	"math"
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
	// resonator (bimorph plus pin). The drive electronics equalise its
	// response at 40 and 320 Hz, so the amplitude delivered at steady state
	// is the one commanded; what remains of the resonator is how fast the
	// vibration envelope follows a new command: time constant
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
// contactor resonance with damping 0.3 (envelope time constant 1.2 ms), drive
// limits of 200 µm at 40 Hz and 30 µm at 320 Hz (enough for 30-40 dB above
// detection threshold in both channels; tactile.ReferenceChannels), and
// a 1 dB sensitivity spread between pins.
func DefaultTactileParams() TactileParams {
	return TactileParams{ResonanceHz: 450, Damping: 0.3, MaxA40Um: 200, MaxA320Um: 30, PinSpreadDB: 1, Seed: 1}
}

// Tactile is the simulated twin of one vibrotactile array. It implements
// devices.TactileArray and devices.Clocked: the rig writes a frame each
// tactile period and advances it with the run's clock. Delivered reports
// what a laser vibrometer on each pin would read.
type Tactile struct {
	p    TactileParams
	spec devices.TactileSpec
	tau  float64 // envelope time constant [s]

	mu      sync.Mutex // WriteFrame, Advance and Delivered may come from different goroutines
	cmd     devices.TactileFrame
	env     devices.TactileFrame // envelope of the delivered amplitudes before the pin spread
	gain    [devices.Pins]float64
	t       time.Duration
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
	t := &Tactile{p: p, tau: 1 / (p.Damping * 2 * math.Pi * p.ResonanceHz)}
	t.spec = devices.TactileSpec{
		Model: "haptex simulated 24-pin array", Serial: fmt.Sprintf("sim-tactile-%d", f),
		Transport: devices.TransportSim, Rows: devices.PinRows, Cols: devices.PinCols, PitchM: 0.002,
		MaxA40Um: p.MaxA40Um, MaxA320Um: p.MaxA320Um,
	}
	rng := rand.New(rand.NewPCG(p.Seed, uint64(f)+0x5eed))
	for i := range t.gain {
		t.gain[i] = math.Pow(10, p.PinSpreadDB*rng.NormFloat64()/20)
	}
	return t, nil
}

// Spec returns the array's capability record.
func (t *Tactile) Spec() devices.TactileSpec { return t.spec }

// WriteFrame sets the amplitudes the drive aims for, clamped to the limits.
// NaN, Inf and negative amplitudes drive the pin at zero.
func (t *Tactile) WriteFrame(f *devices.TactileFrame) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return devices.ErrDisconnected
	}
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

// Advance moves the contactors' vibration envelopes to time tt: each
// approaches its command exponentially with the resonator's time constant.
func (t *Tactile) Advance(tt time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.started {
		t.started, t.t = true, tt
		return
	}
	dt := (tt - t.t).Seconds()
	if dt <= 0 {
		return
	}
	t.t = tt
	k := 1 - math.Exp(-dt/t.tau)
	for i := range t.env.A40Um {
		t.env.A40Um[i] += k * (t.cmd.A40Um[i] - t.env.A40Um[i])
		t.env.A320Um[i] += k * (t.cmd.A320Um[i] - t.env.A320Um[i])
	}
}

// Delivered writes the amplitudes the pins vibrate with now [µm peak], as a
// vibrometer would measure them: the envelopes times each pin's own
// sensitivity.
func (t *Tactile) Delivered(dst *devices.TactileFrame) {
	t.mu.Lock()
	defer t.mu.Unlock()
	dst.Seq = t.cmd.Seq
	for i := range dst.A40Um {
		dst.A40Um[i] = t.env.A40Um[i] * t.gain[i]
		dst.A320Um[i] = t.env.A320Um[i] * t.gain[i]
	}
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

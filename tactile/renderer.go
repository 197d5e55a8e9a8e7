package tactile

import (
	"fmt"
	"math"
	"time"
)

// Array geometry (the same as devices.PinRows, devices.PinCols) and the
// number of fingers a Renderer renders. The renderer has no names for the
// fingers: its caller indexes them (app/rig by sim's finger indices).
const (
	Rows       = 6 // along the finger's distal axis, row 0 distal
	Cols       = 4 // across the finger
	Pins       = Rows * Cols
	NumFingers = 2
)

// Renderer defaults.
const (
	DefaultPitch     = 2e-3   // pin spacing [m]
	DefaultMaxA40Um  = 100.0  // [µm peak]; 30-40 dB above the 40 Hz threshold (ReferenceChannels) needs 100-300 µm
	DefaultMaxA320Um = 20.0   // [µm peak]; the same range above the 320 Hz threshold needs 10-50 µm
	MinLevelDB       = -120.0 // Level's value for no excitation
	// MaxNormalForce bounds the normal force the renderer believes [N]:
	// fingertip exoskeletons render a few newtons, so more is a fault
	// upstream and must not turn into maximal vibration.
	MaxNormalForce = 20.0
)

// The comfortable range: the sensation levels a pin is driven at, in dB
// above the finger's detection threshold at its frequency (the NP I
// threshold at 40 Hz, the P threshold at 320 Hz; ChannelModel.Drive). The
// HAPTEX tutorial (§4.2) puts "comfortable" levels at "a few microns at
// frequencies around 300 Hz and a few tens of microns at frequencies
// around 50 Hz": with the reference thresholds, 30 dB above 0.16 µm is
// 5 µm at 320 Hz and 25 dB above 4 µm is 71 µm at 40 Hz. Verrillo, Fraioli
// & Smith (Percept Psychophys 6:366-372, 1969) found sensation magnitude
// growing steadily with level over this range at both frequencies. Levels
// up to ComfortKneeDB below the top are rendered as they are; above it they
// are compressed smoothly towards the top, which they never reach.
const (
	DefaultComfort40DB  = 25.0 // top of the range at 40 Hz [dB SL]
	DefaultComfort320DB = 30.0 // top of the range at 320 Hz [dB SL]
	ComfortKneeDB       = 10.0
)

// Contact is one finger's contact with the fabric in one frame: where the
// pad touches it and how hard. Positions on the fabric are in fabric
// coordinates (u along the weft, v along the warp, metres on the
// undeformed cloth). The rig copies it from sim.ContactPatch and the
// force the cloth's local model gives at the measured fingertip.
type Contact struct {
	InContact    bool
	U, V         float64 // the contact point on the fabric [m]
	Orientation  float64 // angle of the finger's distal axis from the u axis [rad]
	SlipU, SlipV float64 // slip velocity of the finger relative to the fabric [m/s]
	NormalForce  float64 // force pressing pad and fabric together [N]
	// Curvature is the cloth's curvature under the pad [1/m], positive
	// where it curves round the pad (see Fingertip).
	Curvature float64
	// PadD and PadL place the contact point on the pad, relative to the
	// array's centre, along the finger's distal axis and its lateral axis
	// (the direction of increasing pin column) [m].
	PadD, PadL float64
}

// FingerFrame is the renderer's output for one finger in one frame.
type FingerFrame struct {
	A40Um  [Pins]float64 // per-pin amplitude at 40 Hz [µm peak], pin = row*Cols+col
	A320Um [Pins]float64 // per-pin amplitude at 320 Hz [µm peak]

	// The stroke, before the per-pin weighting.
	Excitation [NumChannels]float64 // what the fabric would excite, power re threshold (1 = detection)
	Achieved   [NumChannels]float64 // what the two sines of the metamer excite through the drive thresholds
	// ResidualDB is the channel solve's error, 10 log10(Achieved /
	// Excitation) per channel [dB]: 0 when Exact (solveMetamer).
	ResidualDB                  [NumChannels]float64
	MetamerA40Um, MetamerA320Um float64 // the metamer's amplitudes [µm peak]
	Exact                       bool    // Achieved equals Excitation (a non-negative solution existed)

	Patch  Patch // the pad's contact patch (Fingertip)
	Active int   // pins under the patch
	Driven int   // pins with a non-zero amplitude
	// RMSA40Um and RMSA320Um summarise A40Um and A320Um over the driven
	// pins (root mean square) [µm peak]; 0 when none is driven.
	RMSA40Um, RMSA320Um float64
	// PeakSL40DB and PeakSL320DB are the highest sensation level a pin is
	// meant to deliver at 40 and 320 Hz, dB above the finger's threshold
	// there (before the pin calibration, which only corrects the pins);
	// MinLevelDB when no pin is driven.
	PeakSL40DB, PeakSL320DB float64
	Compressed              int  // pin amplitudes the comfortable range compressed this frame
	Clamped                 int  // pin amplitudes cut to the device limits this frame
	BadInput                bool // the contact held NaN or Inf; every pin is zero
}

// Level returns channel c's excitation in dB above threshold, MinLevelDB
// when there is none.
func (f *FingerFrame) Level(c int) float64 { return levelDB(f.Excitation[c]) }

func levelDB(e float64) float64 {
	if !(e > 0) {
		return MinLevelDB
	}
	return math.Max(10*math.Log10(e), MinLevelDB)
}

// Frame is the renderer's output for both fingers.
type Frame struct {
	T       time.Duration // frame time
	Fingers [NumFingers]FingerFrame
}

// Config is the array, its limits and the fingers touching it. Zero
// fields take the defaults.
type Config struct {
	PitchM    float64 // pin spacing [m] (0: DefaultPitch)
	MaxA40Um  float64 // device limit at 40 Hz [µm peak] (0: DefaultMaxA40Um)
	MaxA320Um float64 // device limit at 320 Hz [µm peak] (0: DefaultMaxA320Um)
	// Fingertip is each finger's pad: its contact patch and tangential
	// impedance.
	Fingertip [NumFingers]Fingertip
	// Mirror puts column 0 on the other side of a finger's distal axis, for
	// a finger that touches the fabric's back face.
	Mirror [NumFingers]bool
}

func (c Config) withDefaults() Config {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.PitchM, DefaultPitch)
	def(&c.MaxA40Um, DefaultMaxA40Um)
	def(&c.MaxA320Um, DefaultMaxA320Um)
	for f := range c.Fingertip {
		c.Fingertip[f] = c.Fingertip[f].withDefaults()
	}
	return c
}

func (c Config) validate() error {
	if !inRange(c.PitchM, 0.5e-3, 5e-3) {
		return fmt.Errorf("tactile: pin pitch %g m must be in [0.5, 5] mm", c.PitchM)
	}
	if !inRange(c.MaxA40Um, 0.1, 5000) || !inRange(c.MaxA320Um, 0.01, 5000) {
		return fmt.Errorf("tactile: device limits %g µm (40 Hz), %g µm (320 Hz) must be in [0.1, 5000] and [0.01, 5000] µm", c.MaxA40Um, c.MaxA320Um)
	}
	for _, ft := range c.Fingertip {
		if err := ft.validate(); err != nil {
			return err
		}
	}
	return nil
}

// Calibration is one finger's calibration.
type Calibration struct {
	// Channels is the receptor model, usually ReferenceChannels() made
	// personal with WithUserThresholds.
	Channels ChannelModel
	// Gain40DB and Gain320DB shift the finger's 40 Hz and 320 Hz
	// amplitudes (a matching level, an experiment's stimulus), in
	// [-40, 40] dB, before the comfortable range applies.
	Gain40DB, Gain320DB float64
	// Comfort40DB and Comfort320DB are the top of the finger's comfortable
	// range at 40 and 320 Hz [dB SL] (0: DefaultComfort40DB,
	// DefaultComfort320DB), in [10, 60] dB.
	Comfort40DB, Comfort320DB float64
	// Pin40DB and Pin320DB correct each pin so that it delivers the
	// commanded amplitude (pin = row*Cols+col), in [-40, 40] dB.
	Pin40DB, Pin320DB [Pins]float64
}

// DefaultCalibration returns the reference channels and no gains.
func DefaultCalibration() Calibration { return Calibration{Channels: ReferenceChannels()} }

func (c *Calibration) validate() error {
	ok := func(v float64) bool { return inRange(v, -40, 40) }
	if !ok(c.Gain40DB) || !ok(c.Gain320DB) {
		return fmt.Errorf("tactile: finger gains %g, %g dB must be in [-40, 40] dB", c.Gain40DB, c.Gain320DB)
	}
	for _, v := range [...]float64{c.Comfort40DB, c.Comfort320DB} {
		if v != 0 && !inRange(v, 10, 60) {
			return fmt.Errorf("tactile: comfortable range up to %g dB SL; want [10, 60] dB (0 for the default)", v)
		}
	}
	for p := range Pins {
		if !ok(c.Pin40DB[p]) || !ok(c.Pin320DB[p]) {
			return fmt.Errorf("tactile: pin %d gains %g, %g dB must be in [-40, 40] dB", p, c.Pin40DB[p], c.Pin320DB[p])
		}
	}
	return c.Channels.Validate()
}

// Stats counts what the renderer did since it was made.
type Stats struct {
	Frames     uint64 // Step calls
	BadInput   uint64 // finger frames zeroed because the contact held NaN or Inf
	Compressed uint64 // pin amplitudes the comfortable range compressed
	Clamped    uint64 // pin amplitudes cut to the device limits
	Inexact    uint64 // finger frames whose metamer could not match both channels
}

// band is one drive frequency's level mapping for one finger.
type band struct {
	gain      float64       // finger gain (Gain40DB, Gain320DB) as a factor
	threshold float64       // the finger's detection threshold there [µm peak]
	top, knee [Pins]float64 // per pin: the comfortable range's top and its knee [µm peak], as meant to be delivered
	pin       [Pins]float64 // pin calibration as a factor
	limit     float64       // device limit [µm peak]
}

// level maps amplitude a [µm peak], meant to be delivered by pin p, into
// the comfortable range: unchanged up to the knee, then compressed in dB
// towards the top, with slope 1 at the knee.
func (b *band) level(p int, a float64) (out float64, compressed bool) {
	k := b.knee[p]
	if !(a > k) {
		return a, false
	}
	span := 20 * math.Log10(b.top[p]/k)
	over := 20 * math.Log10(a/k)
	return k * math.Pow(10, span*(1-math.Exp(-over/span))/20), true
}

type fingerCal struct {
	cal   Calibration
	w     *weights
	tip   Fingertip
	ktRef float64 // the pad's patch area at 1 N on a flat cloth [m²], for shearStiffness
	b40   band
	b320  band
}

// Renderer turns each finger's contact into per-pin amplitudes, one frame
// per Step. Step allocates nothing. A Renderer is used from one goroutine
// (the tactile loop); SetCalibration and SetSurface must not run
// concurrently with Step.
type Renderer struct {
	surf       *Surface
	cfg        Config
	fing       [NumFingers]fingerCal
	offD, offL [Pins]float64 // pin offsets along the distal and lateral axes [m]
	stats      Stats
}

// NewRenderer returns a renderer for surface s with the reference
// calibration on both fingers.
func NewRenderer(s *Surface, cfg Config) (*Renderer, error) {
	if s == nil {
		return nil, fmt.Errorf("tactile: NewRenderer needs a surface")
	}
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	r := &Renderer{surf: s, cfg: cfg}
	for p := range Pins {
		row, col := p/Cols, p%Cols
		r.offD[p] = (float64(Rows-1)/2 - float64(row)) * cfg.PitchM
		r.offL[p] = (float64(col) - float64(Cols-1)/2) * cfg.PitchM
	}
	for f := range NumFingers {
		if err := r.SetCalibration(f, DefaultCalibration()); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// SetCalibration sets finger f's calibration, f in [0, NumFingers) in
// the caller's finger order.
func (r *Renderer) SetCalibration(f int, c Calibration) error {
	if f < 0 || f >= NumFingers {
		return fmt.Errorf("tactile: finger %d outside 0..%d", f, NumFingers-1)
	}
	if err := c.validate(); err != nil {
		return err
	}
	tip := r.cfg.Fingertip[f]
	w, err := compileWeights(c.Channels, tip.ShearCornerHz)
	if err != nil {
		return err
	}
	fc := fingerCal{cal: c, w: w, tip: tip, ktRef: tip.patch(1, 0).Area}
	comfort40, comfort320 := c.Comfort40DB, c.Comfort320DB
	if comfort40 == 0 {
		comfort40 = DefaultComfort40DB
	}
	if comfort320 == 0 {
		comfort320 = DefaultComfort320DB
	}
	d := c.Channels.Drive
	fc.b40 = newBand(c.Gain40DB, d.NP40, comfort40, &c.Pin40DB, r.cfg.MaxA40Um)
	fc.b320 = newBand(c.Gain320DB, d.P320, comfort320, &c.Pin320DB, r.cfg.MaxA320Um)
	r.fing[f] = fc
	return nil
}

// newBand sets up a drive frequency's level mapping: the comfortable
// range's top, lowered for each pin to what the device can deliver through
// the pin's calibration, so that no pin is ever driven into the limit.
func newBand(gainDB, thresholdDB, comfortDB float64, pinDB *[Pins]float64, limit float64) band {
	b := band{gain: dbToGain(gainDB), threshold: dbToGain(thresholdDB), limit: limit}
	top := b.threshold * dbToGain(comfortDB)
	for p := range Pins {
		b.pin[p] = dbToGain(pinDB[p])
		b.top[p] = math.Min(top, limit/b.pin[p]*(1-1e-9))
		b.knee[p] = b.top[p] * dbToGain(-ComfortKneeDB)
	}
	return b
}

// Calibration returns finger f's calibration.
func (r *Renderer) Calibration(f int) Calibration { return r.fing[f].cal }

// SetSurface switches to another fabric.
func (r *Renderer) SetSurface(s *Surface) error {
	if s == nil {
		return fmt.Errorf("tactile: SetSurface needs a surface")
	}
	r.surf = s
	return nil
}

// Surface returns the fabric being rendered.
func (r *Renderer) Surface() *Surface { return r.surf }

// Config returns the configuration with defaults filled in.
func (r *Renderer) Config() Config { return r.cfg }

// Stats returns the counters.
func (r *Renderer) Stats() Stats { return r.stats }

// PinOffset returns pin p's position on the finger relative to the
// array's centre, along the distal and lateral axes [m].
func (r *Renderer) PinOffset(p int) (distal, lateral float64) { return r.offD[p], r.offL[p] }

func dbToGain(db float64) float64 { return math.Pow(10, db/20) }

// Step renders the frame at time t for both fingers into dst.
//
// Per finger: the contact patch and the pad's tangential stiffness from
// the normal force and the cloth's curvature (Fingertip); the excitation
// of each channel from the surface spectrum projected on the slip
// direction and mapped to temporal frequency with the slip speed, the
// height spectrum and the friction fluctuations through the pad's
// tangential impedance (Surface); the two-sine metamer (solveMetamer);
// then per pin under the patch: its share of the contact pressure, the
// large-scale maps at its place on the fabric, the finger's level gains,
// the comfortable range, the pin's calibration and, as a last guard, the
// device limits.
//
// A pin carries the stimulus power in proportion to the contact pressure
// under it: its amplitude is the metamer's times √(p/p̄) = √(2(1 - ρ²)),
// so that over the patch the mean power is the metamer's and pins fade to
// zero at its edge.
//
// A finger out of contact, with no normal force, or whose contact holds
// NaN or Inf gets all-zero pins. Negative normal force counts as 0, more
// than MaxNormalForce as MaxNormalForce. A static finger (slip speed 0) gets zero
// amplitudes too: the vibrotactile channels respond to change, and every
// spatial component of a resting surface has temporal frequency 0.
// Amplitudes grow continuously with speed from 0, since the channel
// weights fall towards low frequency (NP I 6 dB/octave below 8 Hz, P
// 12 dB/octave).
func (r *Renderer) Step(t time.Duration, in *[NumFingers]Contact, dst *Frame) {
	dst.T = t
	r.stats.Frames++
	for f := range NumFingers {
		r.finger(f, &in[f], &dst.Fingers[f])
	}
}

func finite(xs ...float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

func (r *Renderer) finger(f int, c *Contact, out *FingerFrame) {
	*out = FingerFrame{PeakSL40DB: MinLevelDB, PeakSL320DB: MinLevelDB}
	if !c.InContact {
		return
	}
	if !finite(c.U, c.V, c.Orientation, c.SlipU, c.SlipV, c.NormalForce, c.Curvature, c.PadD, c.PadL) {
		out.BadInput = true
		r.stats.BadInput++
		return
	}
	fc := &r.fing[f]
	force := clamp(c.NormalForce, 0, MaxNormalForce)
	patch := fc.tip.patch(force, c.Curvature)
	if patch.Area == 0 {
		return
	}
	out.Patch = patch
	speed := math.Hypot(c.SlipU, c.SlipV)
	var e [NumChannels]float64
	if speed > 0 {
		kt := fc.tip.shearStiffness(patch.Area, fc.ktRef)
		fr := force * r.surf.fricSigma / kt
		dir := math.Atan2(c.SlipV, c.SlipU)
		// The patch's half-width along the stroke: the pad's window
		// on the friction field (Surface.excite).
		th := dir - c.Orientation
		half := math.Hypot(patch.A*math.Cos(th), patch.B*math.Sin(th))
		e = r.surf.excite(fc.w, dir, speed, fr*fr*r.surf.fricGain, half)
	}
	if !finite(e[NonPacinian], e[Pacinian]) { // a slip speed beyond float range
		out.BadInput = true
		r.stats.BadInput++
		return
	}
	x, y, exact := solveMetamer(fc.w.m, e)
	m := &fc.w.m
	out.Excitation = e
	out.Achieved[NonPacinian] = m[NonPacinian][0]*x + m[NonPacinian][1]*y
	out.Achieved[Pacinian] = m[Pacinian][0]*x + m[Pacinian][1]*y
	for ch := range NumChannels {
		if e[ch] > 0 && out.Achieved[ch] > 0 {
			out.ResidualDB[ch] = 10 * math.Log10(out.Achieved[ch]/e[ch])
		}
	}
	out.Exact = exact
	if !exact {
		r.stats.Inexact++
	}
	a40, a320 := math.Sqrt(x), math.Sqrt(y)
	out.MetamerA40Um, out.MetamerA320Um = a40, a320

	cd, sd := math.Cos(c.Orientation), math.Sin(c.Orientation)
	mirror := 1.0
	if r.cfg.Mirror[f] {
		mirror = -1
	}
	m40, m320 := r.surf.map40, r.surf.map320
	b40, b320 := &fc.b40, &fc.b320
	var sum40, sum320, peak40, peak320 float64
	for p := range Pins {
		// The pin relative to the contact point, on the finger.
		od, ol := r.offD[p]-c.PadD, r.offL[p]-c.PadL
		rho2 := sq(od/patch.A) + sq(ol/patch.B)
		if !(rho2 < 1) {
			continue
		}
		out.Active++
		w := math.Sqrt(2 * (1 - rho2))
		// On the fabric: distal axis (cd, sd), lateral axis (-sd, cd),
		// mirrored for a finger on the fabric's back face.
		ol *= mirror
		u := c.U + od*cd - ol*sd
		v := c.V + od*sd + ol*cd
		p40, k40 := b40.level(p, a40*w*m40.At(u, v)*b40.gain)
		p320, k320 := b320.level(p, a320*w*m320.At(u, v)*b320.gain)
		out.Compressed += b2i(k40) + b2i(k320)
		peak40, peak320 = math.Max(peak40, p40), math.Max(peak320, p320)
		p40 *= b40.pin[p]
		p320 *= b320.pin[p]
		if p40 > b40.limit {
			p40 = b40.limit
			out.Clamped++
		}
		if p320 > b320.limit {
			p320 = b320.limit
			out.Clamped++
		}
		out.A40Um[p], out.A320Um[p] = p40, p320
		if p40 > 0 || p320 > 0 {
			out.Driven++
			sum40 += p40 * p40
			sum320 += p320 * p320
		}
	}
	if out.Driven > 0 {
		n := float64(out.Driven)
		out.RMSA40Um, out.RMSA320Um = math.Sqrt(sum40/n), math.Sqrt(sum320/n)
	}
	if peak40 > 0 {
		out.PeakSL40DB = 20 * math.Log10(peak40/b40.threshold)
	}
	if peak320 > 0 {
		out.PeakSL320DB = 20 * math.Log10(peak320/b320.threshold)
	}
	r.stats.Compressed += uint64(out.Compressed)
	r.stats.Clamped += uint64(out.Clamped)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

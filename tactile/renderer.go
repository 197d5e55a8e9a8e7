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
	DefaultEdge      = 0.5e-3 // [m]
	MinLevelDB       = -120.0 // Level's value for no excitation
	// MaxNormalForce bounds the normal force the renderer believes [N]:
	// fingertip exoskeletons render a few newtons, so more is a fault
	// upstream and must not turn into maximal vibration.
	MaxNormalForce = 20.0
)

// Contact is one finger's contact with the fabric in one frame, in fabric
// coordinates (u along the weft, v along the warp, metres on the
// undeformed cloth). The rig copies it from sim.ContactPatch field by
// field.
type Contact struct {
	InContact    bool
	U, V         float64 // patch centre [m]
	Orientation  float64 // angle of the finger's distal axis from the u axis [rad]
	SlipU, SlipV float64 // slip velocity of the finger relative to the fabric [m/s]
	NormalForce  float64 // [N]
	Area         float64 // contact area [m²]
}

// FingerFrame is the renderer's output for one finger in one frame.
type FingerFrame struct {
	A40Um  [Pins]float64 // per-pin amplitude at 40 Hz [µm peak], pin = row*Cols+col
	A320Um [Pins]float64 // per-pin amplitude at 320 Hz [µm peak]

	// The stroke, before the per-pin weighting (large-scale map, patch
	// gate, pin calibration, device limit).
	Excitation [NumChannels]float64 // what the fabric would excite, power re threshold (1 = detection)
	Achieved   [NumChannels]float64 // what the two sines A40, A320 excite through the drive thresholds
	A40, A320  float64              // metamer amplitudes including the finger's level gains [µm peak]
	Exact      bool                 // Achieved equals Excitation (a non-negative solution existed)
	Active     int                  // pins inside the contact patch
	Clamped    int                  // pin amplitudes cut to the device limits this frame
	BadInput   bool                 // the contact held NaN or Inf; every pin is zero
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

// Config is the array and its limits. Zero fields take the defaults.
type Config struct {
	PitchM    float64 // pin spacing [m] (0: DefaultPitch)
	MaxA40Um  float64 // device limit at 40 Hz [µm peak] (0: DefaultMaxA40Um)
	MaxA320Um float64 // device limit at 320 Hz [µm peak] (0: DefaultMaxA320Um)
	// EdgeM is the band inside the contact patch's boundary over which a
	// pin's amplitude rises from 0 to full, so that pins fade rather than
	// switch as the patch changes (0: DefaultEdge). Pins on or outside the
	// boundary are always zero.
	EdgeM float64
	// PatchAspect is the ratio of the contact ellipse's semi-axis along the
	// finger to the one across it (0: 1, a circle of the contact's area).
	PatchAspect float64
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
	def(&c.EdgeM, DefaultEdge)
	def(&c.PatchAspect, 1)
	return c
}

func (c Config) validate() error {
	if !inRange(c.PitchM, 0.5e-3, 5e-3) {
		return fmt.Errorf("tactile: pin pitch %g m must be in [0.5, 5] mm", c.PitchM)
	}
	if !inRange(c.MaxA40Um, 0.1, 5000) || !inRange(c.MaxA320Um, 0.01, 5000) {
		return fmt.Errorf("tactile: device limits %g µm (40 Hz), %g µm (320 Hz) must be in [0.1, 5000] and [0.01, 5000] µm", c.MaxA40Um, c.MaxA320Um)
	}
	if !inRange(c.EdgeM, 1e-6, 5e-3) || !inRange(c.PatchAspect, 0.2, 5) {
		return fmt.Errorf("tactile: patch edge %g m (want [1 µm, 5 mm]) or aspect %g (want [0.2, 5]) out of range", c.EdgeM, c.PatchAspect)
	}
	return nil
}

// Calibration is one finger's calibration.
type Calibration struct {
	// Channels is the receptor model, usually ReferenceChannels() made
	// personal with WithUserThresholds.
	Channels ChannelModel
	// Gain40DB and Gain320DB shift the finger's 40 Hz and 320 Hz
	// amplitudes (a comfort or matching level), in [-40, 40] dB.
	Gain40DB, Gain320DB float64
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
	for p := range Pins {
		if !ok(c.Pin40DB[p]) || !ok(c.Pin320DB[p]) {
			return fmt.Errorf("tactile: pin %d gains %g, %g dB must be in [-40, 40] dB", p, c.Pin40DB[p], c.Pin320DB[p])
		}
	}
	return c.Channels.Validate()
}

// Stats counts what the renderer did since it was made.
type Stats struct {
	Frames   uint64 // Step calls
	BadInput uint64 // finger frames zeroed because the contact held NaN or Inf
	Clamped  uint64 // pin amplitudes cut to the device limits
	Inexact  uint64 // finger frames whose metamer could not match both channels
}

type fingerCal struct {
	cal           Calibration
	w             *weights
	g40, g320     float64
	pin40, pin320 [Pins]float64
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
	w, err := compileWeights(c.Channels)
	if err != nil {
		return err
	}
	fc := fingerCal{cal: c, w: w, g40: dbToGain(c.Gain40DB), g320: dbToGain(c.Gain320DB)}
	for p := range Pins {
		fc.pin40[p] = dbToGain(c.Pin40DB[p])
		fc.pin320[p] = dbToGain(c.Pin320DB[p])
	}
	r.fing[f] = fc
	return nil
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

func dbToGain(db float64) float64 { return math.Pow(10, db/20) }

// Step renders the frame at time t for both fingers into dst.
//
// Per finger: project the surface spectrum on the slip direction, map
// spatial to temporal frequency with the slip speed, weight by each
// channel's sensitivity to get the excitations, solve the two-sine metamer
// (metamer.go), apply the finger's level gains, then per pin: place the
// pins on the fabric with the patch orientation, weight by the large-scale
// maps there, gate by the contact patch, apply the pin's calibration and
// clamp to the device limits.
//
// A finger out of contact, with no contact area, or whose contact holds
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
	*out = FingerFrame{}
	if !c.InContact {
		return
	}
	if !finite(c.U, c.V, c.Orientation, c.SlipU, c.SlipV, c.NormalForce, c.Area) {
		out.BadInput = true
		r.stats.BadInput++
		return
	}
	if !(c.Area > 0) {
		return
	}
	fc := &r.fing[f]
	speed := math.Hypot(c.SlipU, c.SlipV)
	var e [NumChannels]float64
	if speed > 0 {
		e = r.surf.excite(fc.w, math.Atan2(c.SlipV, c.SlipU), speed, clamp(c.NormalForce, 0, MaxNormalForce))
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
	out.Exact = exact
	if !exact {
		r.stats.Inexact++
	}
	a40, a320 := math.Sqrt(x)*fc.g40, math.Sqrt(y)*fc.g320
	out.A40, out.A320 = a40, a320

	// Contact ellipse of the patch's area: semi-axes a (distal) and b
	// (lateral) with a/b = PatchAspect.
	b := math.Sqrt(c.Area / (math.Pi * r.cfg.PatchAspect))
	a := r.cfg.PatchAspect * b
	cd, sd := math.Cos(c.Orientation), math.Sin(c.Orientation)
	mirror := 1.0
	if r.cfg.Mirror[f] {
		mirror = -1
	}
	m40, m320 := r.surf.map40, r.surf.map320
	for p := range Pins {
		od, ol := r.offD[p], mirror*r.offL[p]
		rho := math.Hypot(od/a, ol/b)
		if rho >= 1 {
			continue
		}
		// Distance to the boundary along the ray from the centre.
		g := 1.0
		if rho > 0 {
			g = math.Min(1, math.Hypot(od, ol)*(1/rho-1)/r.cfg.EdgeM)
		}
		out.Active++
		// Distal axis (cd, sd), lateral axis (-sd, cd).
		u := c.U + od*cd - ol*sd
		v := c.V + od*sd + ol*cd
		p40 := a40 * g * m40.At(u, v) * fc.pin40[p]
		p320 := a320 * g * m320.At(u, v) * fc.pin320[p]
		if p40 > r.cfg.MaxA40Um {
			p40 = r.cfg.MaxA40Um
			out.Clamped++
		}
		if p320 > r.cfg.MaxA320Um {
			p320 = r.cfg.MaxA320Um
			out.Clamped++
		}
		out.A40Um[p], out.A320Um[p] = p40, p320
	}
	r.stats.Clamped += uint64(out.Clamped)
}

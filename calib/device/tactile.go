package device

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/haptex/haptex/calib"
	"github.com/haptex/haptex/devices"
)

// The tactile array's two drive frequencies [Hz].
const (
	Hz40  = 40
	Hz320 = 320
)

// TactileSample is one vibrometer measurement of one pin.
type TactileSample struct {
	Pin         int     `json:"pin"`          // row*Cols+col
	FreqHz      int     `json:"freq_hz"`      // Hz40 or Hz320
	CommandedUm float64 `json:"commanded_um"` // amplitude asked for [µm peak]
	MeasuredUm  float64 `json:"measured_um"`  // amplitude measured [µm peak]
}

// TactileReport is the quality of a per-pin tactile calibration.
type TactileReport struct {
	Samples []TactileSample `json:"samples"`
	// Gain40DB and Gain320DB are each pin's measured gain, delivered over
	// commanded [dB], the mean over its levels; the corrections are their
	// negatives. The standard errors are 0 with one level per pin.
	Gain40DB  [devices.Pins]float64 `json:"gain_40_db"`
	Gain320DB [devices.Pins]float64 `json:"gain_320_db"`
	Gain40SE  [devices.Pins]float64 `json:"gain_40_se_db"`
	Gain320SE [devices.Pins]float64 `json:"gain_320_se_db"`
	// ResidualRMSDB and ResidualMaxDB are the spread of each pin's
	// measured gains about its mean over levels [dB]: the array's
	// non-linearity plus the vibrometer's noise.
	ResidualRMSDB float64 `json:"residual_rms_db"`
	ResidualMaxDB float64 `json:"residual_max_db"`
	// Verify holds RunTactile's re-measurement of every pin with its
	// correction applied (CommandedUm is the amplitude wanted, before the
	// correction), VerifyMaxDB the largest |delivered/wanted| in dB.
	Verify      []TactileSample `json:"verify,omitempty"`
	VerifyMaxDB float64         `json:"verify_max_db"`
	// UsableMax40Um and UsableMax320Um are the largest amplitudes every
	// pin delivers after correction: the array's limits divided by the
	// largest boost (RunTactile).
	UsableMax40Um  float64  `json:"usable_max_40_um,omitempty"`
	UsableMax320Um float64  `json:"usable_max_320_um,omitempty"`
	Warnings       []string `json:"warnings,omitempty"`
}

const (
	tactileFormat  = "haptex-tactile-calibration"
	tactileVersion = 1
	// maxPinDB is the renderer's range for a pin correction
	// (tactile.Calibration); warnPinDB flags a pin far off the others.
	maxPinDB  = 40
	warnPinDB = 6
)

// TactileCalibration is the per-pin gain correction of one vibrotactile
// array, and the calibration file's content.
//
// Pin40DB and Pin320DB go unchanged into the fields of the same names of
// tactile.Calibration: the renderer multiplies pin p's 40 Hz amplitude by
// 10^(Pin40DB[p]/20), so a pin whose measured gain is g dB gets −g dB and
// then delivers the commanded amplitude.
type TactileCalibration struct {
	Format   string                `json:"format"`
	Version  int                   `json:"version"`
	Device   string                `json:"device"` // model and serial, as in devices.TactileSpec
	Finger   string                `json:"finger"` // "thumb" or "index"
	Created  time.Time             `json:"created"`
	Pin40DB  [devices.Pins]float64 `json:"pin_40_db"`
	Pin320DB [devices.Pins]float64 `json:"pin_320_db"`
	Report   TactileReport         `json:"report"`
}

// FitTactile fits each pin's gain at 40 and 320 Hz from vibrometer
// measurements: the mean of 20·log10(measured/commanded) over the pin's
// samples at that frequency (a least-squares fit in dB, so every level
// counts alike whatever its amplitude), with its standard error and
// residuals. Every pin needs at least one sample at each frequency.
func FitTactile(samples []TactileSample) (*TactileCalibration, error) {
	var byPin [devices.Pins][2][]float64 // measured gains [dB]
	for i, s := range samples {
		if s.Pin < 0 || s.Pin >= devices.Pins {
			return nil, fmt.Errorf("device: tactile sample %d: pin %d not in 0..%d", i, s.Pin, devices.Pins-1)
		}
		f, err := freqIndex(s.FreqHz)
		if err != nil {
			return nil, fmt.Errorf("device: tactile sample %d: %w", i, err)
		}
		if !(s.CommandedUm > 0) || math.IsInf(s.CommandedUm, 0) {
			return nil, fmt.Errorf("device: tactile sample %d: commanded %g µm, want a positive amplitude", i, s.CommandedUm)
		}
		if !(s.MeasuredUm > 0) || math.IsInf(s.MeasuredUm, 0) {
			return nil, fmt.Errorf("device: tactile sample %d: pin %d measured %g µm at %d Hz for %g µm commanded: dead contactor or vibrometer off the pin?",
				i, s.Pin, s.MeasuredUm, s.FreqHz, s.CommandedUm)
		}
		byPin[s.Pin][f] = append(byPin[s.Pin][f], 20*math.Log10(s.MeasuredUm/s.CommandedUm))
	}
	c := &TactileCalibration{Format: tactileFormat, Version: tactileVersion}
	c.Report.Samples = append([]TactileSample(nil), samples...)
	var ss float64
	var n int
	for p := range devices.Pins {
		for f, hz := range [2]int{Hz40, Hz320} {
			g := byPin[p][f]
			if len(g) == 0 {
				return nil, fmt.Errorf("device: tactile calibration: no measurement of pin %d at %d Hz", p, hz)
			}
			ls, err := calib.LinearLeastSquares(mat.NewDense(len(g), 1, ones(len(g))), mat.NewDense(len(g), 1, g))
			if err != nil {
				return nil, fmt.Errorf("device: tactile calibration, pin %d at %d Hz: %w", p, hz, err)
			}
			gain, se := ls.Coef.At(0, 0), ls.StdErr.At(0, 0)
			if math.Abs(gain) > maxPinDB {
				return nil, fmt.Errorf("device: pin %d delivers %+.1f dB at %d Hz, beyond the ±%d dB a correction may take: broken contactor?", p, gain, hz, maxPinDB)
			}
			if math.Abs(gain) > warnPinDB {
				c.Report.Warnings = append(c.Report.Warnings, fmt.Sprintf("pin %d delivers %+.1f dB at %d Hz: check its contactor", p, gain, hz))
			}
			if f == 0 {
				c.Report.Gain40DB[p], c.Report.Gain40SE[p], c.Pin40DB[p] = gain, se, -gain
			} else {
				c.Report.Gain320DB[p], c.Report.Gain320SE[p], c.Pin320DB[p] = gain, se, -gain
			}
			for i := range g {
				r := ls.Residuals.At(i, 0)
				ss += r * r
				n++
				c.Report.ResidualMaxDB = math.Max(c.Report.ResidualMaxDB, math.Abs(r))
			}
		}
	}
	c.Report.ResidualRMSDB = math.Sqrt(ss / float64(n))
	return c, nil
}

func ones(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 1
	}
	return v
}

func freqIndex(hz int) (int, error) {
	switch hz {
	case Hz40:
		return 0, nil
	case Hz320:
		return 1, nil
	}
	return 0, fmt.Errorf("device: frequency %d Hz (want %d or %d)", hz, Hz40, Hz320)
}

// Validate checks format, version and finger and that every correction
// is finite and within the renderer's ±40 dB.
func (c *TactileCalibration) Validate() error {
	if err := checkHeader("tactile", c.Format, tactileFormat, c.Version, tactileVersion, c.Finger); err != nil {
		return err
	}
	for p := range devices.Pins {
		for _, v := range [2]float64{c.Pin40DB[p], c.Pin320DB[p]} {
			if !(math.Abs(v) <= maxPinDB) {
				return fmt.Errorf("device: tactile calibration pin %d corrections %g, %g dB: want finite values within ±%d dB", p, c.Pin40DB[p], c.Pin320DB[p], maxPinDB)
			}
		}
	}
	return nil
}

// Write validates c and writes it as indented JSON.
func (c *TactileCalibration) Write(w io.Writer) error {
	if err := c.Validate(); err != nil {
		return err
	}
	return writeJSON(w, "tactile", c)
}

// ReadTactileCalibration reads and validates a tactile calibration file.
// Unknown fields are errors.
func ReadTactileCalibration(r io.Reader) (*TactileCalibration, error) {
	var c TactileCalibration
	if err := readJSON(r, "tactile", &c); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// Vibrometer measures one pin's vibration: the peak amplitude [µm] of its
// spectral line at freqHz (Hz40 or Hz320), as a laser vibrometer aimed at
// the pin reads it.
type Vibrometer interface {
	Measure(pin, freqHz int) (amplitudeUm float64, err error)
}

// DeliveredVibrometer is the vibrometer of a simulated array: it reads
// the amplitudes its pins deliver (devices/twin.Tactile.Delivered).
type DeliveredVibrometer struct {
	Array devices.DeliveryReader
}

// Measure returns the delivered amplitude of pin at freqHz.
func (v DeliveredVibrometer) Measure(pin, freqHz int) (float64, error) {
	if pin < 0 || pin >= devices.Pins {
		return 0, fmt.Errorf("device: pin %d not in 0..%d", pin, devices.Pins-1)
	}
	f, err := freqIndex(freqHz)
	if err != nil {
		return 0, err
	}
	var d devices.TactileFrame
	if !v.Array.Delivered(&d) {
		return 0, errors.New("device: the array has no measurement of its pins to give")
	}
	if f == 0 {
		return d.A40Um[pin], nil
	}
	return d.A320Um[pin], nil
}

// TactilePlan is the drive of a per-pin calibration.
type TactilePlan struct {
	// Levels40Um and Levels320Um are the amplitudes each pin is driven
	// with, one frequency at a time [µm peak].
	Levels40Um  []float64 `json:"levels_40_um"`
	Levels320Um []float64 `json:"levels_320_um"`
	// Settle is how long each drive is held before the vibrometer reads
	// (contactor envelope plus the vibrometer's own averaging).
	Settle time.Duration `json:"settle"`
}

// DefaultTactilePlan drives each pin at 10% and 40% of the array's limits,
// which leaves room for the correction (up to +8 dB) during verification,
// and holds each drive 50 ms.
func DefaultTactilePlan(spec devices.TactileSpec) TactilePlan {
	return TactilePlan{
		Levels40Um:  []float64{0.1 * spec.MaxA40Um, 0.4 * spec.MaxA40Um},
		Levels320Um: []float64{0.1 * spec.MaxA320Um, 0.4 * spec.MaxA320Um},
		Settle:      50 * time.Millisecond,
	}
}

func (p *TactilePlan) check(spec devices.TactileSpec) error {
	if len(p.Levels40Um) == 0 || len(p.Levels320Um) == 0 {
		return errors.New("device: tactile plan needs levels at both frequencies")
	}
	for _, l := range [2]struct {
		hz     int
		levels []float64
		max    float64
	}{{Hz40, p.Levels40Um, spec.MaxA40Um}, {Hz320, p.Levels320Um, spec.MaxA320Um}} {
		for _, a := range l.levels {
			if !(a > 0) || a > l.max {
				return fmt.Errorf("device: tactile plan level %g µm at %d Hz outside (0, %g] µm, the array's limit", a, l.hz, l.max)
			}
		}
	}
	if p.Settle <= 0 {
		return fmt.Errorf("device: tactile plan settle time %v, want > 0", p.Settle)
	}
	return nil
}

// tactileRig drives one pin at a time and reads the vibrometer.
type tactileRig struct {
	arr   devices.TactileArray
	vib   Vibrometer
	clock Clock
	plan  *TactilePlan
	frame devices.TactileFrame
}

// measure drives pin alone at amplitude a and freqHz, waits the settle
// time and returns the vibrometer's reading.
func (r *tactileRig) measure(pin, freqHz int, a float64) (float64, error) {
	r.frame.Seq++
	r.frame.A40Um, r.frame.A320Um = [devices.Pins]float64{}, [devices.Pins]float64{}
	if freqHz == Hz40 {
		r.frame.A40Um[pin] = a
	} else {
		r.frame.A320Um[pin] = a
	}
	if err := r.arr.WriteFrame(&r.frame); err != nil {
		return 0, fmt.Errorf("device: drive pin %d: %w", pin, err)
	}
	if err := r.applied(); err != nil {
		return 0, fmt.Errorf("device: drive pin %d: %w", pin, err)
	}
	r.clock.Sleep(r.plan.Settle)
	m, err := r.vib.Measure(pin, freqHz)
	if err != nil {
		return 0, fmt.Errorf("device: vibrometer on pin %d at %d Hz: %w", pin, freqHz, err)
	}
	return m, nil
}

// ackWait bounds how long a calibration waits for an array to report a
// frame applied.
const ackWait = 2 * time.Second

// applied waits until an array that reports its status has applied the
// frame just written, so that the settle time counts from when the pins
// took it, not from when it left the host (a frame can wait on the way
// to a device behind a link).
func (r *tactileRig) applied() error {
	sr, ok := r.arr.(devices.StatusReader)
	if !ok {
		return nil
	}
	var st devices.TactileStatus
	for waited := time.Duration(0); ; waited += time.Millisecond {
		err := sr.Status(&st)
		switch {
		case err == nil || errors.Is(err, devices.ErrTimeout):
			if st.AckSeq == r.frame.Seq {
				return nil
			}
		default:
			return err
		}
		if waited >= ackWait {
			return fmt.Errorf("the array has not reported frame %d applied after %v (newest applied: %d)", r.frame.Seq, ackWait, st.AckSeq)
		}
		r.clock.Sleep(time.Millisecond)
	}
}

func (r *tactileRig) silence() error {
	r.frame.Seq++
	r.frame.A40Um, r.frame.A320Um = [devices.Pins]float64{}, [devices.Pins]float64{}
	return r.arr.WriteFrame(&r.frame)
}

// RunTactile runs a per-pin tactile calibration: for each pin it asks the
// operator to aim the vibrometer at it, drives it alone at every level of
// plan at 40 Hz and then at 320 Hz (each drive held plan.Settle from when
// an array that reports its status has applied it), fits its gains, and re-measures it
// with the correction applied (Report.Verify). The array is left silent,
// also on error.
func RunTactile(ctx context.Context, arr devices.TactileArray, vib Vibrometer, s Session, plan TactilePlan) (c *TactileCalibration, err error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	spec := arr.Spec()
	if err := plan.check(spec); err != nil {
		return nil, err
	}
	rig := &tactileRig{arr: arr, vib: vib, clock: s.Clock, plan: &plan}
	defer func() {
		if serr := rig.silence(); serr != nil && err == nil {
			err = fmt.Errorf("device: silence the array: %w", serr)
		}
	}()
	levels := [2][]float64{plan.Levels40Um, plan.Levels320Um}
	var samples, verify []TactileSample
	var warnings []string
	for pin := range devices.Pins {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("device: tactile calibration: %w", err)
		}
		instr := fmt.Sprintf("aim the vibrometer at pin %d (row %d, column %d)", pin, pin/devices.PinCols, pin%devices.PinCols)
		if err := s.Prompt(Step{Index: pin, Total: devices.Pins, Instruction: instr}); err != nil {
			return nil, fmt.Errorf("device: tactile calibration pin %d: %w", pin, err)
		}
		var mine []TactileSample
		for f, hz := range [2]int{Hz40, Hz320} {
			for _, a := range levels[f] {
				m, err := rig.measure(pin, hz, a)
				if err != nil {
					return nil, err
				}
				mine = append(mine, TactileSample{Pin: pin, FreqHz: hz, CommandedUm: a, MeasuredUm: m})
			}
		}
		samples = append(samples, mine...)
		// Verify while the vibrometer is on this pin: the pin's own
		// gains are the mean of its own samples.
		var sum, cnt [2]float64
		for _, sm := range mine {
			f, _ := freqIndex(sm.FreqHz)
			if !(sm.MeasuredUm > 0) || math.IsInf(sm.MeasuredUm, 0) {
				return nil, fmt.Errorf("device: pin %d measured %g µm at %d Hz for %g µm commanded: dead contactor or vibrometer off the pin?",
					pin, sm.MeasuredUm, sm.FreqHz, sm.CommandedUm)
			}
			sum[f] += 20 * math.Log10(sm.MeasuredUm/sm.CommandedUm)
			cnt[f]++
		}
		for f, hz := range [2]int{Hz40, Hz320} {
			boost := math.Pow(10, -sum[f]/cnt[f]/20)
			limit := [2]float64{spec.MaxA40Um, spec.MaxA320Um}[f]
			for _, a := range levels[f] {
				if a*boost > limit {
					warnings = append(warnings, fmt.Sprintf("pin %d at %d Hz: %g µm corrected is %.3g µm, beyond the array's %g µm; not verified", pin, hz, a, a*boost, limit))
					continue
				}
				m, err := rig.measure(pin, hz, a*boost)
				if err != nil {
					return nil, err
				}
				verify = append(verify, TactileSample{Pin: pin, FreqHz: hz, CommandedUm: a, MeasuredUm: m})
			}
		}
	}
	c, err = FitTactile(samples)
	if err != nil {
		return nil, err
	}
	rep := &c.Report
	rep.Verify = verify
	rep.Warnings = append(rep.Warnings, warnings...)
	for _, v := range verify {
		if !(v.MeasuredUm > 0) {
			return nil, fmt.Errorf("device: verification of pin %d at %d Hz measured %g µm", v.Pin, v.FreqHz, v.MeasuredUm)
		}
		rep.VerifyMaxDB = math.Max(rep.VerifyMaxDB, math.Abs(20*math.Log10(v.MeasuredUm/v.CommandedUm)))
	}
	rep.UsableMax40Um, rep.UsableMax320Um = spec.MaxA40Um, spec.MaxA320Um
	for p := range devices.Pins {
		rep.UsableMax40Um = math.Min(rep.UsableMax40Um, spec.MaxA40Um/math.Pow(10, c.Pin40DB[p]/20))
		rep.UsableMax320Um = math.Min(rep.UsableMax320Um, spec.MaxA320Um/math.Pow(10, c.Pin320DB[p]/20))
	}
	c.Device, c.Finger, c.Created = deviceName(spec.Model, spec.Serial), s.Finger, s.Now().UTC()
	return c, c.Validate()
}

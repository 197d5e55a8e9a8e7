package tactile

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// Receptor channels. Every [NumChannels] array in this package is indexed by
// these.
const (
	// NonPacinian is the NP I channel (RA afferents, Meissner corpuscles),
	// targeted by the 40 Hz drive.
	NonPacinian = 0
	// Pacinian is the P channel (PC afferents), targeted by the 320 Hz drive.
	Pacinian    = 1
	NumChannels = 2
)

// The two drive frequencies of the array [Hz] (HAPTEX tutorial §4.3).
const (
	F40  = 40
	F320 = 320
)

// ThresholdCurve is a channel's detection threshold as a function of
// frequency: a table of (FreqHz, DB) points, DB in dB re 1 µm peak. Between
// points the threshold is linear in dB against log frequency; outside the
// table it continues with the slope of the end segment. The channel's
// sensitivity (weighting) is W(f) = 1/threshold(f) [µm⁻¹].
type ThresholdCurve struct {
	Name   string
	Source string    // where the numbers come from
	FreqHz []float64 // strictly increasing, > 0
	DB     []float64 // detection threshold [dB re 1 µm peak]
}

// Validate reports whether the curve can be evaluated.
func (c ThresholdCurve) Validate() error {
	if len(c.FreqHz) < 2 || len(c.FreqHz) != len(c.DB) {
		return fmt.Errorf("tactile: threshold curve %q: need >= 2 points and equal lengths, have %d frequencies and %d levels",
			c.Name, len(c.FreqHz), len(c.DB))
	}
	for i, f := range c.FreqHz {
		if !(f > 0) || math.IsInf(f, 0) {
			return fmt.Errorf("tactile: threshold curve %q: frequency %g Hz at point %d is not a positive finite number", c.Name, f, i)
		}
		if i > 0 && !(f > c.FreqHz[i-1]) {
			return fmt.Errorf("tactile: threshold curve %q: frequencies not increasing at point %d (%g Hz after %g Hz)", c.Name, i, f, c.FreqHz[i-1])
		}
		if d := c.DB[i]; math.IsNaN(d) || d < -80 || d > 120 {
			return fmt.Errorf("tactile: threshold curve %q: level %g dB at %g Hz is outside [-80, 120] dB re 1 µm", c.Name, d, f)
		}
	}
	return nil
}

// At returns the threshold at f [dB re 1 µm peak]. f must be > 0.
func (c ThresholdCurve) At(f float64) float64 {
	n := len(c.FreqHz)
	i := sort.SearchFloat64s(c.FreqHz, f) // first point >= f
	switch {
	case i <= 0:
		i = 1
	case i >= n:
		i = n - 1
	}
	l0, l1 := math.Log2(c.FreqHz[i-1]), math.Log2(c.FreqHz[i])
	t := (math.Log2(f) - l0) / (l1 - l0)
	return c.DB[i-1] + t*(c.DB[i]-c.DB[i-1])
}

// PacinianReference returns the working threshold template of the P channel
// (thenar eminence, large contactor).
//
// Shape: flat composite threshold to 40 Hz, falling 12 dB/octave to the
// maximum sensitivity near 250 Hz, U-shaped with its minimum at 250-300 Hz
// (Gescheider & Verrillo, doi:10.1007/978-1-4613-3039-4_10; Bolanowski et
// al., JASA 84:1680, 1988). Level (P minimum -20 dB re 1 µm) and the
// +10 dB/octave rise above 300 Hz are recalled from the literature, not
// fitted to its curves, so ±5 dB. The table is the template
//
//	T = -20 + 12 log2(250/f)  for f <= 250 Hz
//	T = -20                   for 250-300 Hz
//	T = -20 + 10 log2(f/300)  above 300 Hz
//
// evaluated at its breakpoints and at octave points; per-user calibration
// on the array (ChannelModel.WithUserThresholds) replaces its level.
func PacinianReference() ThresholdCurve {
	return ThresholdCurve{
		Name:   "P (Pacinian)",
		Source: "working template: Gescheider & Verrillo (shape), Bolanowski et al. 1988 (channels); level ±5 dB",
		FreqHz: []float64{10, 20, 40, 80, 160, 250, 300, 320, 400, 500, 1000},
		DB:     []float64{35.73, 23.73, 11.73, -0.27, -12.27, -20, -20, -19.07, -15.85, -12.63, -2.63},
	}
}

// NonPacinianReference returns the working threshold template of the NP I
// channel.
//
// From 8 Hz up it is a working template: flat at +12 dB re 1 µm to 60 Hz,
// then +10 dB/octave (level and slope recalled from the literature, ±5 dB;
// Bolanowski et al., JASA 84:1680, 1988). Below 8 Hz the threshold rises 6 dB/octave as frequency falls:
// RA afferents are most easily excited at 8-64 Hz (Johansson, Landström &
// Lundström, Brain Res 244:17-25, 1982) and lower frequencies belong to the
// NP III channel, which an array driven at 40 and 320 Hz cannot address. The
// 6 dB/octave slope is haptex's assumption; it makes a slowly moving finger
// fade out continuously instead of feeling its static indentation as
// vibration.
func NonPacinianReference() ThresholdCurve {
	return ThresholdCurve{
		Name:   "NP I (non-Pacinian I)",
		Source: "working template after Bolanowski et al. 1988 (>= 8 Hz); below 8 Hz +6 dB/octave, haptex assumption after Johansson et al. 1982",
		FreqHz: []float64{1, 2, 4, 8, 60, 80, 160, 250, 320, 400, 500, 1000},
		DB:     []float64{30, 24, 18, 12, 12, 16.15, 26.15, 32.59, 36.15, 39.37, 42.59, 52.59},
	}
}

// DriveThresholds are the detection thresholds of each channel for the
// array's own stimulus (all pins under the finger driven alike) at the two
// drive frequencies [dB re 1 µm peak]. They form the metamer matrix.
type DriveThresholds struct {
	NP40, NP320 float64 // NP I channel at 40 Hz and 320 Hz
	P40, P320   float64 // P channel at 40 Hz and 320 Hz
}

// PinPenaltyDB is how much higher the P channel's threshold is for the
// array's pins than for the whole contact patch that the reference curve
// describes: only P shows spatial summation, about 3 dB per doubling of area
// and less on the fingertip (Gescheider et al., Behav Brain Res 148:35-40,
// 2004; Gescheider et al., Somatosens Mot Res, 2002); 24 pins of about
// 1 mm² cover about a third of a 60 mm² patch. A default only: per-user
// calibration on the array replaces it.
const PinPenaltyDB = 3.0

// ChannelModel is the receptor model the renderer solves against.
//
// NonPacinian and Pacinian describe how a natural stimulus (the fabric over
// the whole contact patch) excites each channel: the excitation of a
// stimulus with spectral lines of amplitude a_i at f_i is
// E_c = Σ (a_i / T_c(f_i))², with energy summation inside a channel
// (haptex's assumption, rather than amplitude summation). E_c = 1 is the
// channel's detection threshold; 10 log10 E_c is its sensation level in dB.
//
// Drive describes how the array excites each channel. The renderer picks
// A40 and A320 so that the array produces the same E_c on both channels as
// the fabric would.
type ChannelModel struct {
	NonPacinian, Pacinian ThresholdCurve
	Drive                 DriveThresholds
}

// ReferenceChannels returns the literature model: the two reference curves,
// and drive thresholds read from them at 40 and 320 Hz with PinPenaltyDB
// added to the P channel.
func ReferenceChannels() ChannelModel {
	np, p := NonPacinianReference(), PacinianReference()
	return ChannelModel{
		NonPacinian: np,
		Pacinian:    p,
		Drive: DriveThresholds{
			NP40:  np.At(F40),
			NP320: np.At(F320),
			P40:   p.At(F40) + PinPenaltyDB,
			P320:  p.At(F320) + PinPenaltyDB,
		},
	}
}

// WithUserThresholds returns m calibrated for one user and one finger from
// the detection thresholds measured on the array at 40 Hz and 320 Hz [dB re
// 1 µm peak], all pins under the finger driven alike.
//
// The 320 Hz threshold is the P channel's (55 dB apart from NP I there). The
// 40 Hz threshold is taken as the NP I channel's, the more sensitive one at
// 40 Hz on small contactors, where P loses its spatial summation
// (PinPenaltyDB). The cross terms keep the shape of the
// reference curves: P40 = t320 + P(40) - P(320), NP320 = t40 + NP(320) -
// NP(40). The fabric side (the curves) is left alone, so a user whose
// thresholds are 6 dB higher gets 6 dB more drive and feels each channel at
// the same level above their own threshold as the reference observer feels
// the real fabric.
func (m ChannelModel) WithUserThresholds(t40DB, t320DB float64) (ChannelModel, error) {
	for _, v := range [...]float64{t40DB, t320DB} {
		if math.IsNaN(v) || v < -60 || v > 80 {
			return m, fmt.Errorf("tactile: user threshold %g dB re 1 µm is outside [-60, 80] dB", v)
		}
	}
	if err := m.Validate(); err != nil {
		return m, err
	}
	m.Drive = DriveThresholds{
		NP40:  t40DB,
		NP320: t40DB + m.NonPacinian.At(F320) - m.NonPacinian.At(F40),
		P40:   t320DB + m.Pacinian.At(F40) - m.Pacinian.At(F320),
		P320:  t320DB,
	}
	return m, nil
}

// Validate reports whether m can be used for rendering.
func (m ChannelModel) Validate() error {
	if err := m.NonPacinian.Validate(); err != nil {
		return err
	}
	if err := m.Pacinian.Validate(); err != nil {
		return err
	}
	d := m.Drive
	for _, v := range [...]float64{d.NP40, d.NP320, d.P40, d.P320} {
		if math.IsNaN(v) || v < -80 || v > 120 {
			return fmt.Errorf("tactile: drive threshold %g dB re 1 µm is outside [-80, 120] dB", v)
		}
	}
	// The metamer needs 40 Hz to favour NP I and 320 Hz to favour P;
	// otherwise the two drive frequencies cannot separate the channels.
	if !(d.NP40-d.P40 < d.NP320-d.P320) {
		return errors.New("tactile: drive thresholds do not separate the channels: 40 Hz must favour NP I relative to 320 Hz")
	}
	return nil
}

// matrix returns the metamer matrix M with M[c][0] = W_c(40)², M[c][1] =
// W_c(320)² [µm⁻²], so that a two-sine stimulus of amplitudes A40, A320
// has excitation E_c = M[c][0] A40² + M[c][1] A320².
func (d DriveThresholds) matrix() [NumChannels][2]float64 {
	w2 := func(db float64) float64 { return math.Pow(10, -db/10) }
	var m [NumChannels][2]float64
	m[NonPacinian] = [2]float64{w2(d.NP40), w2(d.NP320)}
	m[Pacinian] = [2]float64{w2(d.P40), w2(d.P320)}
	return m
}

// Dense weighting tables: W_c(f)² sampled every 1/32 octave from 2^-6 Hz to
// 2^14 Hz, so that the per-frame evaluation is a linear interpolation at a
// precomputed log2 frequency. Interpolating W² linearly errs by less than
// 0.1 % along a 12 dB/octave slope and by up to 1.2 % (0.05 dB) next to a
// breakpoint of the curves.
const (
	weightLog2Min = -6
	weightLog2Max = 14
	weightPerOct  = 32
	weightEntries = (weightLog2Max-weightLog2Min)*weightPerOct + 1
	weightFreqMin = 1.0 / 64
	weightFreqMax = 16384.0
)

// weights is a ChannelModel compiled for the frame: dense W² tables, the
// same weighted by a finger pad's tangential compliance, and the metamer
// matrix.
type weights struct {
	w2  [NumChannels][weightEntries]float64 // W_c(f)² [µm⁻²]
	w2f [NumChannels][weightEntries]float64 // W_c(f)² / (1 + (f/f_c)²) [µm⁻²]
	m   [NumChannels][2]float64
}

// compileWeights compiles m for a finger pad whose tangential impedance
// turns from elastic to viscous at cornerHz (Fingertip.ShearCornerHz).
func compileWeights(m ChannelModel, cornerHz float64) (*weights, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if !(cornerHz > 0) || math.IsInf(cornerHz, 0) {
		return nil, fmt.Errorf("tactile: pad corner frequency %g Hz must be positive", cornerHz)
	}
	w := &weights{m: m.Drive.matrix()}
	curves := [NumChannels]ThresholdCurve{NonPacinian: m.NonPacinian, Pacinian: m.Pacinian}
	for c := range curves {
		for i := range weightEntries {
			f := math.Exp2(weightLog2Min + float64(i)/weightPerOct)
			w.w2[c][i] = math.Pow(10, -curves[c].At(f)/10)
			w.w2f[c][i] = w.w2[c][i] / (1 + sq(f/cornerHz))
		}
	}
	return w, nil
}

// at returns where frequency f = 2^log2f falls in the tables: entry i and
// the fraction a of the way to entry i+1. Outside the tables ok is false
// and i is the nearer end; there W² continues from the end value falling
// 6 dB/octave (outside), which only matters for continuity at v → 0. The
// comparison is on floats: int(+Inf) is not an index.
func (w *weights) at(log2f float64) (i int, a float64, ok bool) {
	x := (log2f - weightLog2Min) * weightPerOct
	if x < 0 {
		return 0, 0, false
	}
	if !(x < weightEntries-1) {
		return weightEntries - 1, 0, false
	}
	i = int(x)
	return i, x - float64(i), true
}

// outside returns the factor that carries the end value of the tables to
// f outside them (below 1/64 Hz or above 16 kHz).
func (w *weights) outside(f float64) float64 {
	r := f / weightFreqMin
	if f > weightFreqMin {
		r = weightFreqMax / f
	}
	return r * r
}

package psych

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"
)

// Default expected detection thresholds of a vibrotactile pin on the
// fingertip, µm peak. The 40 Hz value is the non-Pacinian plateau (≈ 4 µm,
// +12 dB re 1 µm); the 320 Hz value is the Pacinian minimum for a large
// contactor (≈ 0.11 µm) raised by 10 dB for the lost spatial summation of
// one small pin (the reference curves of tactile.ReferenceChannels). Both
// are only starting points; the per-user staircase replaces them.
const (
	Expected40Um  = 4.0
	Expected320Um = 0.35
)

// TactileThresholdSpec describes one per-user detection-threshold
// measurement on the tactile array.
type TactileThresholdSpec struct {
	FrequencyHz float64 `json:"frequency_hz" toml:"frequency_hz"`
	// MaxUm is the array's maximum amplitude at this frequency
	// (devices.TactileSpec.MaxA40Um or MaxA320Um).
	MaxUm float64 `json:"max_um" toml:"max_um"`
	// ExpectedUm is the expected threshold; 0 selects Expected40Um or
	// Expected320Um for 40 and 320 Hz, and is an error otherwise.
	ExpectedUm float64 `json:"expected_um,omitempty" toml:"expected_um"`
	// Method is "staircase" (the default) or "quest".
	Method Kind `json:"method,omitempty" toml:"method"`
	// MaxTrials caps the run; 0 means 80 for the staircase and 40 for
	// QUEST.
	MaxTrials int `json:"max_trials,omitempty" toml:"max_trials"`
}

// TactileThreshold returns the procedure that measures a detection
// threshold in µm. The task is two-interval forced choice (which of two
// intervals held the vibration) and the scale dB re 1 µm.
//
// The staircase (the default) is 1-up/3-down, converging on 79.4%
// correct; it starts 15 dB above the expected threshold (or at MaxUm),
// steps 4 dB, then 2 dB after the first reversal and 1 dB after the
// second, stops at 14 reversals or MaxTrials, and averages the reversals
// after the fourth. It has no 1-up/1-down fast start: in forced choice
// that plunges far below threshold on lucky guesses.
//
// QUEST assumes a Weibull with β = 3 and λ = 0.02, a prior centred on the
// expected threshold with SD 10 dB, and estimates the 75%-correct point.
// It needs about half the staircase's trials for the same test-retest
// spread, at the price of a bias of up to about 1 dB when the subject's
// slope is far from 3 (see the package's test figures).
func TactileThreshold(s TactileThresholdSpec) (Config, error) {
	if !(s.FrequencyHz > 0) || !finite(s.FrequencyHz) {
		return Config{}, fmt.Errorf("psych: tactile threshold frequency %g Hz invalid", s.FrequencyHz)
	}
	exp := s.ExpectedUm
	if exp == 0 {
		switch s.FrequencyHz {
		case 40:
			exp = Expected40Um
		case 320:
			exp = Expected320Um
		default:
			return Config{}, fmt.Errorf("psych: no default expected threshold at %g Hz; set expected_um", s.FrequencyHz)
		}
	}
	if !(exp > 0) || !finite(exp) || !(s.MaxUm > exp) || !finite(s.MaxUm) {
		return Config{}, fmt.Errorf("psych: tactile threshold at %g Hz: expected %g µm must be positive and below the maximum %g µm", s.FrequencyHz, exp, s.MaxUm)
	}
	n := s.MaxTrials
	switch s.Method {
	case "", KindStaircase:
		if n == 0 {
			n = 80
		}
		c := StaircaseConfig{
			Task:         TwoAFC,
			Scale:        DB,
			Start:        math.Min(exp*math.Pow(10, 15.0/20), s.MaxUm),
			Min:          exp / 100,
			Max:          s.MaxUm,
			Up:           1,
			Down:         3,
			Steps:        []float64{4, 2, 1},
			MaxTrials:    n,
			MaxReversals: 14,
			Discard:      4,
		}
		if err := c.Validate(); err != nil {
			return Config{}, err
		}
		return Config{Kind: KindStaircase, Staircase: &c}, nil
	case KindQuest:
		if n == 0 {
			n = 40
		}
		c := QuestConfig{Task: TwoAFC, Form: Weibull, Beta: 3, Lambda: 0.02, Scale: DB, Min: exp / 100, Max: s.MaxUm,
			PriorThreshold: exp, PriorSD: 10, MaxTrials: n}
		if err := c.resolve(); err != nil {
			return Config{}, err
		}
		return Config{Kind: KindQuest, Quest: &c}, nil
	}
	return Config{}, fmt.Errorf("psych: tactile threshold method %q (want staircase or quest)", s.Method)
}

// TactileThresholdSession interleaves the 40 Hz and 320 Hz staircases of
// one finger in random order (track 0 is 40 Hz, track 1 is 320 Hz), so
// that the subject cannot predict the next level.
func TactileThresholdSession(at40, at320 TactileThresholdSpec, seed uint64) (Config, error) {
	a, err := TactileThreshold(at40)
	if err != nil {
		return Config{}, err
	}
	b, err := TactileThreshold(at320)
	if err != nil {
		return Config{}, err
	}
	return Config{Kind: KindInterleaved, Interleaved: &InterleavedConfig{Tracks: []Config{a, b}, Order: OrderRandom, Seed: seed}}, nil
}

// ThresholdEntry is one measured detection threshold.
type ThresholdEntry struct {
	Finger      string  `json:"finger"` // "thumb" or "index"
	FrequencyHz float64 `json:"frequency_hz"`
	ThresholdUm float64 `json:"threshold_um"`
	// ThresholdDB is 20·log10(ThresholdUm), dB re 1 µm.
	ThresholdDB float64 `json:"threshold_db"`
	// SDDB is the standard deviation of the averaged reversals
	// (staircase) or the posterior SD (QUEST), dB.
	SDDB float64 `json:"sd_db"`
	// TargetP is the proportion correct the threshold corresponds to
	// (for QUEST, under its assumed lapse rate).
	TargetP   float64 `json:"target_p"`
	Trials    int     `json:"trials"`
	Reversals int     `json:"reversals"`
	Method    Kind    `json:"method"`
}

// NewThresholdEntry reads the result of a finished TactileThreshold
// procedure.
func NewThresholdEntry(finger string, frequencyHz float64, p Procedure) (ThresholdEntry, error) {
	if !p.Done() {
		return ThresholdEntry{}, fmt.Errorf("psych: %s %g Hz threshold: procedure not finished (%d trials)", finger, frequencyHz, len(p.Records()))
	}
	e := p.Estimate()
	switch q := p.(type) {
	case *Staircase:
		if q.s.Config.Scale != DB {
			return ThresholdEntry{}, fmt.Errorf("psych: %s %g Hz threshold: staircase on a %s scale, want db", finger, frequencyHz, q.s.Config.Scale)
		}
	case *Quest:
		c := q.s.Config
		if c.Scale != DB {
			return ThresholdEntry{}, fmt.Errorf("psych: %s %g Hz threshold: QUEST on a %s scale, want db", finger, frequencyHz, c.Scale)
		}
		e.TargetP = c.Gamma + (1-c.Gamma-c.Lambda)*c.Criterion
	default:
		return ThresholdEntry{}, fmt.Errorf("psych: %s %g Hz threshold: want a staircase or QUEST, have %s", finger, frequencyHz, p.Kind())
	}
	sd := e.SD
	if !finite(sd) {
		sd = 0
	}
	te := ThresholdEntry{Finger: finger, FrequencyHz: frequencyHz, ThresholdUm: e.Threshold, ThresholdDB: e.Level,
		SDDB: sd, TargetP: e.TargetP, Trials: e.Trials, Reversals: e.Reversals, Method: p.Kind()}
	return te, te.validate()
}

func (e ThresholdEntry) validate() error {
	if e.Finger != "thumb" && e.Finger != "index" {
		return fmt.Errorf("psych: threshold finger %q (want thumb or index)", e.Finger)
	}
	if !(e.FrequencyHz > 0) || !finite(e.FrequencyHz) || !(e.ThresholdUm > 0) || !finite(e.ThresholdUm) {
		return fmt.Errorf("psych: %s threshold %g µm at %g Hz invalid", e.Finger, e.ThresholdUm, e.FrequencyHz)
	}
	if math.Abs(20*math.Log10(e.ThresholdUm)-e.ThresholdDB) > 1e-6 {
		return fmt.Errorf("psych: %s %g Hz threshold %g µm disagrees with %g dB", e.Finger, e.FrequencyHz, e.ThresholdUm, e.ThresholdDB)
	}
	if e.Method != KindStaircase && e.Method != KindQuest {
		return fmt.Errorf("psych: %s %g Hz threshold: method %q (want staircase or quest)", e.Finger, e.FrequencyHz, e.Method)
	}
	if !finite(e.SDDB) || e.SDDB < 0 || !(e.TargetP > 0 && e.TargetP < 1) || e.Trials < 1 || e.Reversals < 0 {
		return fmt.Errorf("psych: %s %g Hz threshold: SD %g dB, target %g, %d trials, %d reversals invalid", e.Finger, e.FrequencyHz, e.SDDB, e.TargetP, e.Trials, e.Reversals)
	}
	return nil
}

const (
	thresholdFormat  = "haptex-tactile-thresholds"
	thresholdVersion = 1
)

// ThresholdFile is a subject's per-user tactile calibration: the detection
// thresholds the tactile renderer expresses its channel levels against.
type ThresholdFile struct {
	Format  string           `json:"format"`
	Version int              `json:"version"`
	Subject string           `json:"subject"`
	Created time.Time        `json:"created"`
	Entries []ThresholdEntry `json:"entries"`
}

// NewThresholdFile returns an empty calibration for subject, stamped with
// the given time.
func NewThresholdFile(subject string, created time.Time) *ThresholdFile {
	return &ThresholdFile{Format: thresholdFormat, Version: thresholdVersion, Subject: subject, Created: created.UTC()}
}

// Validate checks the format, version and every entry, and that no finger
// and frequency appears twice.
func (f *ThresholdFile) Validate() error {
	if f.Format != thresholdFormat {
		return fmt.Errorf("psych: threshold file format %q, want %q", f.Format, thresholdFormat)
	}
	if f.Version != thresholdVersion {
		return fmt.Errorf("psych: threshold file version %d, this build reads %d", f.Version, thresholdVersion)
	}
	if f.Subject == "" {
		return fmt.Errorf("psych: threshold file has no subject")
	}
	seen := map[[2]any]bool{}
	for i, e := range f.Entries {
		if err := e.validate(); err != nil {
			return fmt.Errorf("psych: threshold file entry %d: %w", i, err)
		}
		k := [2]any{e.Finger, e.FrequencyHz}
		if seen[k] {
			return fmt.Errorf("psych: threshold file: %s at %g Hz appears twice", e.Finger, e.FrequencyHz)
		}
		seen[k] = true
	}
	return nil
}

// Set adds or replaces the entry for its finger and frequency.
func (f *ThresholdFile) Set(e ThresholdEntry) error {
	if err := e.validate(); err != nil {
		return err
	}
	for i, old := range f.Entries {
		if old.Finger == e.Finger && old.FrequencyHz == e.FrequencyHz {
			f.Entries[i] = e
			return nil
		}
	}
	f.Entries = append(f.Entries, e)
	return nil
}

// Lookup returns the threshold of a finger at a frequency.
func (f *ThresholdFile) Lookup(finger string, frequencyHz float64) (ThresholdEntry, bool) {
	for _, e := range f.Entries {
		if e.Finger == finger && e.FrequencyHz == frequencyHz {
			return e, true
		}
	}
	return ThresholdEntry{}, false
}

// Write validates f and writes it as indented JSON.
func (f *ThresholdFile) Write(w io.Writer) error {
	if err := f.Validate(); err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		return fmt.Errorf("psych: write threshold file: %w", err)
	}
	return nil
}

// ReadThresholdFile reads and validates a threshold file. Unknown fields
// are errors, so that a file from a newer format is not half-read.
func ReadThresholdFile(r io.Reader) (*ThresholdFile, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var f ThresholdFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("psych: read threshold file: %w", err)
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return &f, nil
}

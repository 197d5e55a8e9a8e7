package psych

import (
	"fmt"
	"math"
)

// Scale is the axis on which an adaptive procedure steps and spaces its
// grids. Stimuli (Trial.X) are always in physical units; a procedure's
// "level" is the stimulus expressed on its Scale.
type Scale int

const (
	// Linear levels are the stimulus itself.
	Linear Scale = iota
	// Log10 levels are log10 of the stimulus.
	Log10
	// DB levels are 20·log10 of the stimulus (amplitude decibels re 1
	// stimulus unit; dB re 1 µm for tactile amplitudes in µm).
	DB
)

var scaleNames = [...]string{Linear: "linear", Log10: "log10", DB: "db"}

func (s Scale) String() string {
	if s < 0 || int(s) >= len(scaleNames) {
		return fmt.Sprintf("Scale(%d)", int(s))
	}
	return scaleNames[s]
}

// MarshalText implements encoding.TextMarshaler.
func (s Scale) MarshalText() ([]byte, error) {
	if s < 0 || int(s) >= len(scaleNames) {
		return nil, fmt.Errorf("psych: unknown scale %d", int(s))
	}
	return []byte(scaleNames[s]), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *Scale) UnmarshalText(b []byte) error {
	for i, n := range scaleNames {
		if string(b) == n {
			*s = Scale(i)
			return nil
		}
	}
	return fmt.Errorf("psych: unknown scale %q (want linear, log10 or db)", b)
}

// Level maps a stimulus to the scale. It returns NaN for a non-positive
// stimulus on a logarithmic scale.
func (s Scale) Level(x float64) float64 {
	switch s {
	case Log10:
		if x <= 0 {
			return math.NaN()
		}
		return math.Log10(x)
	case DB:
		if x <= 0 {
			return math.NaN()
		}
		return 20 * math.Log10(x)
	}
	return x
}

// Stimulus maps a level back to the stimulus.
func (s Scale) Stimulus(level float64) float64 {
	switch s {
	case Log10:
		return math.Pow(10, level)
	case DB:
		return math.Pow(10, level/20)
	}
	return level
}

func (s Scale) valid() bool { return s >= Linear && s <= DB }

// checkRange reports an error unless lo < hi are finite stimuli that the
// scale can represent.
func (s Scale) checkRange(what string, lo, hi float64) error {
	if !finite(lo) || !finite(hi) || lo >= hi {
		return fmt.Errorf("psych: %s range [%g, %g] must be finite with min < max", what, lo, hi)
	}
	if s != Linear && lo <= 0 {
		return fmt.Errorf("psych: %s range [%g, %g] must be positive on a %s scale", what, lo, hi, s)
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

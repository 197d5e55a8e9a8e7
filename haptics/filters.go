package haptics

import (
	"fmt"
	"time"

	"github.com/haptex/haptex/haptics/filter"
)

// Filters are the servo's IIR filters as a Config designs them, at the
// sampling rate of its Period: what the controller runs, and what
// `haptex bench control` analyses (their delay costs the force loop phase
// margin).
type Filters struct {
	Force     filter.SOS // Butterworth on the measured force
	Reference filter.SOS // Butterworth on the desired force and its stiffness part (Force when ReferenceHz is 0)
	Speed     filter.SOS // Butterworth on the encoder-derived joint speed
	Velocity  filter.SOS // Chebyshev I on the joint-speed error
}

// Filters designs the servo's filters; the error names the one whose
// parameters are wrong.
func (c *Config) Filters() (Filters, error) {
	var d Filters
	fs := float64(time.Second) / float64(c.Period) // sample rate [Hz]
	var err error
	if d.Force, err = filter.Butterworth(c.Force.ButterOrder, filter.LowPass, fs, c.Force.ButterHz); err != nil {
		return d, fmt.Errorf("haptics: force filter: %w", err)
	}
	d.Reference = d.Force
	if c.Force.ReferenceHz > 0 {
		if d.Reference, err = filter.Butterworth(c.Force.ButterOrder, filter.LowPass, fs, c.Force.ReferenceHz); err != nil {
			return d, fmt.Errorf("haptics: reference filter: %w", err)
		}
	}
	if d.Speed, err = filter.Butterworth(c.Velocity.SpeedOrder, filter.LowPass, fs, c.Velocity.SpeedHz); err != nil {
		return d, fmt.Errorf("haptics: joint-speed filter: %w", err)
	}
	if d.Velocity, err = filter.ChebyshevI(c.Velocity.ChebyOrder, c.Velocity.ChebyRippleDB, filter.LowPass, fs, c.Velocity.ChebyHz); err != nil {
		return d, fmt.Errorf("haptics: velocity-loop filter: %w", err)
	}
	return d, nil
}

package servobench

import (
	"math"
	"math/cmplx"
	"time"

	"github.com/haptex/haptex/haptics"
	"github.com/haptex/haptex/haptics/filter"
)

// FilterFigures analyse one of the servo's filters: its gain for a
// constant input, its delay, and at the force loop's crossover the delay
// and phase lag it adds there (what it costs the phase margin); the
// largest pole radius says how close to the unit circle, and so how slow
// to settle, it is.
type FilterFigures struct {
	Name          string  `json:"name"`
	DCGain        float64 `json:"dc_gain"`
	DelayDCMs     float64 `json:"delay_dc_ms"`
	DelayCrossMs  float64 `json:"delay_crossover_ms,omitempty"`
	PhaseCrossDeg float64 `json:"phase_crossover_deg,omitempty"`
	MaxPoleRadius float64 `json:"max_pole_radius"`
}

// filterFigures analyses the filters cfg designs; crossoverHz 0 leaves
// out the figures at the crossover.
func filterFigures(cfg haptics.Config, crossoverHz float64) ([]FilterFigures, error) {
	d, err := cfg.Filters()
	if err != nil {
		return nil, err
	}
	fs := float64(time.Second) / float64(cfg.Period)
	var out []FilterFigures
	for _, f := range []struct {
		name string
		sos  filter.SOS
	}{{"force", d.Force}, {"reference", d.Reference}, {"joint_speed", d.Speed}, {"velocity_loop", d.Velocity}} {
		r := FilterFigures{Name: f.name, DCGain: f.sos.DCGain(), DelayDCMs: 1e3 * f.sos.GroupDelay(0, fs)}
		for _, p := range f.sos.Poles() {
			r.MaxPoleRadius = math.Max(r.MaxPoleRadius, cmplx.Abs(p))
		}
		if crossoverHz > 0 {
			r.DelayCrossMs = 1e3 * f.sos.GroupDelay(crossoverHz, fs)
			r.PhaseCrossDeg = cmplx.Phase(f.sos.Response(crossoverHz, fs)) * 180 / math.Pi
		}
		out = append(out, r)
	}
	return out, nil
}

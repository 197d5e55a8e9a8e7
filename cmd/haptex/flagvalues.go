package main

// Parsers of the flag values several commands share: the mesh grading
// (-refine), lengths with a unit and finger lists (-finger both).

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/kes"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/sim"
)

// refineFlag adds -refine to fs; the function it returns sets cfg.Sim's
// grading from the flag (nothing when it is empty).
func refineFlag(fs *flag.FlagSet) func(cfg *rig.Config) error {
	v := fs.String("refine", "", "grade the cloth's mesh round the point where the fingers pinch: u,v in metres from its bottom-left corner, \"pinch\" for where the simulated hand pinches, or \"follow\" to move the grading to wherever a finger approaches (empty: uniform)")
	return func(cfg *rig.Config) error {
		if *v == "" {
			return nil
		}
		switch *v {
		case "pinch", "follow":
			cfg.Sim.Refine = rig.PinchRefinement(twin.DefaultScene(), &cfg.Sim)
			cfg.Sim.Refine.Follow = *v == "follow"
		default:
			r, err := parseRefine(*v)
			if err != nil {
				return fmt.Errorf("%w: -refine: %v", errUsage, err)
			}
			cfg.Sim.Refine = r
		}
		return nil
	}
}

// parseRefine reads -refine's "u,v" into the grading the sim tests
// validate: the finest spacing at the point, twice that 3 cm from it
// (TestPinchPullResolution).
func parseRefine(s string) (sim.Refinement, error) {
	f := strings.Split(s, ",")
	if len(f) != 2 {
		return sim.Refinement{}, fmt.Errorf("%q: want u,v in metres, pinch or follow", s)
	}
	var uv [2]float64
	for i, x := range f {
		v, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return sim.Refinement{}, fmt.Errorf("%q: %q is not a number", s, x)
		}
		uv[i] = v
	}
	return sim.Refinement{Centre: uv, Radius: sim.RefineRadius, Ratio: sim.RefineRatio}, nil
}

// parseLength reads a length with its unit (m, cm, mm or µm/um), or
// "finest" for the finest element size the check is tested at.
func parseLength(s string) (float64, error) {
	if s == "finest" {
		return kes.FinestElementSize, nil
	}
	for _, u := range []struct {
		suffix string
		scale  float64
	}{{"mm", 1e-3}, {"cm", 1e-2}, {"µm", 1e-6}, {"um", 1e-6}, {"m", 1}} {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
			if err != nil {
				return 0, fmt.Errorf("%q is not a length", s)
			}
			l := v * u.scale
			if !(l >= kes.FinestElementSize && l <= kes.MaxElementSize) {
				return 0, fmt.Errorf("%s is outside %g mm (finest) to %g cm", s, 1000*kes.FinestElementSize, 100*kes.MaxElementSize)
			}
			return l, nil
		}
	}
	return 0, fmt.Errorf("%q has no unit (m, cm, mm or µm)", s)
}

// fingerList reads -finger: thumb, index or both.
func fingerList(s string) ([]string, error) {
	if s == "both" {
		return []string{"thumb", "index"}, nil
	}
	if sim.FingerByName(s) < 0 {
		return nil, fmt.Errorf("%w: -finger %q, want thumb, index or both", errUsage, s)
	}
	return []string{s}, nil
}

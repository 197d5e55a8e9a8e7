package tactile

import (
	"math"
	"sync"
	"testing"
)

// Test fabrics. Values are illustrative, inside the class ranges calib/kes
// validates fabric files against; they are not measured fabrics. Their grids
// are half the default size (k-space twice as coarse) to keep the race
// detector's run short; the checks only get harder.
func silkParams() SurfaceParams {
	return SurfaceParams{SMD: 1.5e-6, MIU: 0.18, MMD: 0.012, Weave: Plain, WarpSpacing: 0.08e-3, WeftSpacing: 0.1e-3, GridN: 256}
}

// twillParams is the twill tactile/tactilebench renders, on a 256² grid.
func twillParams() SurfaceParams {
	return SurfaceParams{
		SMD: 6e-6, MIU: 0.22, MMD: 0.02,
		Weave: Twill, Repeat: 3, Float: 2,
		WarpSpacing: 0.3e-3, WeftSpacing: 0.45e-3, GridN: 256,
	}
}

func nonwovenParams() SurfaceParams {
	return SurfaceParams{SMD: 4e-6, MIU: 0.25, MMD: 0.015, Weave: NonWoven, WarpSpacing: 0.3e-3, WeftSpacing: 0.3e-3, GridN: 256}
}

func knitParams() SurfaceParams {
	return SurfaceParams{SMD: 4e-6, MIU: 0.25, MMD: 0.015, Weave: Knit, WarpSpacing: 0.8e-3, WeftSpacing: 0.6e-3, GridN: 256}
}

// surfaces caches test surfaces: building one takes 0.1-0.5 s (more under
// the race detector) and they are immutable.
var surfaces sync.Map

func surface(t testing.TB, name string) *Surface {
	t.Helper()
	if s, ok := surfaces.Load(name); ok {
		return s.(*Surface)
	}
	var p SurfaceParams
	switch name {
	case "silk":
		p = silkParams()
	case "twill":
		p = twillParams()
	case "nonwoven":
		p = nonwovenParams()
	case "knit":
		p = knitParams()
	default:
		t.Fatalf("no test surface %q", name)
	}
	s, err := NewSurface(p, 7)
	if err != nil {
		t.Fatal(err)
	}
	surfaces.Store(name, s)
	return s
}

func renderer(t testing.TB, s *Surface) *Renderer {
	t.Helper()
	r, err := NewRenderer(s, Config{MaxA40Um: 1000, MaxA320Um: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The rig's finger order (sim.Thumb, sim.IndexFinger); the renderer has
// no names for its fingers.
const (
	fThumb = 0
	fIndex = 1
)

// stroke renders one frame with the given finger stroking at speed [m/s]
// in direction dir [rad] and returns that finger's output.
func stroke(r *Renderer, finger int, dir, speed float64) FingerFrame {
	var in [NumFingers]Contact
	in[finger] = Contact{
		InContact: true, U: 0.1, V: 0.1,
		SlipU: speed * math.Cos(dir), SlipV: speed * math.Sin(dir),
		NormalForce: 0.5, Area: 80e-6,
	}
	var out Frame
	r.Step(0, &in, &out)
	return out.Fingers[finger]
}

func ampDB(a float64) float64 { return 20 * math.Log10(a) }

// strokeBoth fills in the contacts of a two-finger stroke at time t, as
// tactile/tactilebench strokes: speeds sweep 0-300 mm/s, directions turn,
// the second finger (the rig's index) lifts off now and then.
func strokeBoth(in *[NumFingers]Contact, t float64) {
	for f := range NumFingers {
		ph := t + float64(f)*0.37
		speed := 0.15 * (1 + math.Sin(2*math.Pi*0.3*ph))
		dir := 2 * math.Pi * 0.05 * ph
		in[f] = Contact{
			InContact:   f == 0 || math.Mod(t, 7) < 6,
			U:           0.15 + 0.05*math.Sin(0.2*ph),
			V:           0.15 + 0.05*math.Cos(0.17*ph),
			Orientation: 0.3*math.Sin(0.1*ph) + float64(f)*math.Pi,
			SlipU:       speed * math.Cos(dir),
			SlipV:       speed * math.Sin(dir),
			NormalForce: 0.5 + 0.3*math.Sin(ph),
			Area:        (50 + 20*math.Sin(0.7*ph)) * 1e-6,
		}
	}
}

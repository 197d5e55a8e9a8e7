package tactile

import (
	"math"
	"sync"
	"testing"
)

// Test fabrics. Values are illustrative, inside the class ranges of
// anchors-tactile-kes.md §5.4; they are not measured fabrics. Their grids
// are half the default size (k-space twice as coarse) to keep the race
// detector's run short; the checks only get harder.
func silkParams() SurfaceParams {
	return SurfaceParams{SMD: 1.5e-6, MIU: 0.18, MMD: 0.012, Weave: Plain, WarpSpacing: 0.08e-3, WeftSpacing: 0.1e-3, GridN: 256}
}

func twillParams() SurfaceParams {
	p := BenchParams()
	p.GridN = 256
	return p
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

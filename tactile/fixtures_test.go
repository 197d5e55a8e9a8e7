package tactile

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"strconv"
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

// recorded is one finger's contact in one frame of a lockstep run of the
// showcase handling script (testdata/showcase_contacts.csv, made by
// testdata/showcase_contacts.py from the run's tactile.csv): the contact
// points, forces, curvatures and places on the pad the simulation produced.
type recorded struct {
	T      float64
	Finger int
	C      Contact
}

var (
	showcaseOnce sync.Once
	showcaseRecs []recorded
	showcaseErr  error
)

// showcase returns the recorded contacts, in the order of the run.
func showcase(t testing.TB) []recorded {
	t.Helper()
	showcaseOnce.Do(func() {
		f, err := os.Open("testdata/showcase_contacts.csv")
		if err != nil {
			showcaseErr = err
			return
		}
		defer f.Close()
		rows, err := csv.NewReader(f).ReadAll()
		if err != nil {
			showcaseErr = err
			return
		}
		for i, row := range rows[1:] {
			var v [11]float64
			for k := range v {
				if v[k], err = strconv.ParseFloat(row[k], 64); err != nil {
					showcaseErr = fmt.Errorf("showcase_contacts.csv row %d: %w", i+2, err)
					return
				}
			}
			showcaseRecs = append(showcaseRecs, recorded{T: v[0], Finger: int(v[1]), C: Contact{
				InContact: true, U: v[2], V: v[3], Orientation: v[4], SlipU: v[5], SlipV: v[6],
				NormalForce: v[7], Curvature: v[8], PadD: v[9], PadL: v[10]}})
		}
	})
	if showcaseErr != nil {
		t.Fatal(showcaseErr)
	}
	if len(showcaseRecs) < 100 {
		t.Fatalf("%d recorded contacts, want the showcase's hundreds", len(showcaseRecs))
	}
	return showcaseRecs
}

// pressing returns a recorded contact of the index finger stroking the
// cloth: the first one of the stroke phase with a normal force of at least
// force [N].
func pressing(t testing.TB, force float64) Contact {
	t.Helper()
	for _, r := range showcase(t) {
		if r.Finger == fIndex && r.T > 1.5 && r.C.NormalForce >= force {
			return r.C
		}
	}
	t.Fatalf("no recorded index contact of %g N or more", force)
	return Contact{}
}

// stroke renders one frame with the given finger on a recorded contact
// (0.1 N or more) stroking at speed [m/s] in direction dir [rad], and
// returns that finger's output.
func stroke(t testing.TB, r *Renderer, finger int, dir, speed float64) FingerFrame {
	t.Helper()
	var in [NumFingers]Contact
	in[finger] = pressing(t, 0.1)
	in[finger].SlipU, in[finger].SlipV = speed*math.Cos(dir), speed*math.Sin(dir)
	var out Frame
	r.Step(0, &in, &out)
	return out.Fingers[finger]
}

func ampDB(a float64) float64 { return 20 * math.Log10(a) }

package experiment

import (
	"math"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/sim"
)

// The pull motion's bench: a square swatch clamped along two edges, its
// top (its warp's end) and its left (its weft's), which thumb and index
// pinch at its middle and pull diagonally away from both clamps. The
// fabric between the pads and each clamp is a strip along one of the two
// directions, stretched by the same strain, so the force grows with the
// warp's and the weft's tensile curves together, as KES's EMT averages
// them (the hanging fabric's stretch loads mostly the warp, pre-tensioned
// by the weight of the fabric below, which raised the cue of the heavier
// fabrics by up to 1.9 times). At equal strain the built-in fabrics' mean
// force per width orders them as EMT does from about 1 % strain on, while
// at equal load it does so only near KES's 500 gf/cm, far beyond what a
// pinch holds (TestTensileCurvesOrderByEMT): a pull of a given length
// loads every fabric to a similar strain, though a light pinch reaches
// about 1 % at most (docs/evaluation.md, "Tensile stiffness across the
// fabrics").
const (
	pullSide = 0.025 // swatch side [m], clamps included
	// pullGrip is how far each pad's intended surface goes past the
	// fabric's [m]: a light pinch (0.5-0.6 N with the finger's 300 N/m).
	// The hanging fabric's 5.5 mm asks the servo, between two pads on a
	// thin fabric stiff in compression (polyester lining), for more contact
	// stiffness than it renders steadily: the cloth's normal force swung
	// between nothing and the 5 N limit and the pads left the contact
	// region in one tick of eight; at 4 mm they still did, at 3.5 mm the
	// grip held but polyester lining, the slipperiest fabric, slipped
	// under the pull.
	pullGrip = 0.003
	// pullLength is how far the pads pull the pinched point [m], at 45°
	// between away from the top clamp (−y) and away from the left (+x):
	// short enough that the stiffest fabric (polyester lining, the
	// slipperiest too) does not slip out of the light pinch.
	pullLength = 0.0004
)

// pullBench sets the rig's cloth to the pull motion's swatch (meshed as
// flex's, clamped along its top and left edges, its middle at the
// scene's pinch point) and the scene's thickness to the fabric's.
func pullBench(cfg *rig.Config) {
	clampedSwatch(cfg, pullSide, pullSide, pullSide/2)
	cfg.Clamps = []sim.Edge{sim.EdgeLeft}
}

// pullScript is the stretch (twin.StretchScript: a conditioning pull and
// return, then the measured pull and a hold, 4.2 s) with the pull
// motion's pinch and pull.
func pullScript(sc twin.Scene) *twin.Script {
	sc.Grip = pullGrip
	d := pullLength / math.Sqrt2
	sc.Stretch = [3]float64{d, -d, 0}
	return twin.StretchScript(sc)
}

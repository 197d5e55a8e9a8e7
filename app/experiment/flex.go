package experiment

import (
	"math"
	"time"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/sim"
)

// The flex motion's bench: a small swatch held in a clamp along its top
// edge, as a cantilever (the bending tester's strip, Peirce's cantilever
// turned to hang), which the index pushes near its free bottom edge. The
// swatch hangs in the stand's plane with the push point at the scene's
// pinch point, within the devices' reach.
//
// Its size and mesh set what the finger can feel of B: a cantilever of
// free length L and width b pushed at its tip resists with 3·B·b/L³ (B per
// width), so the length is as short as the 8 mm pad allows (it must not
// reach the clamp), and its elements are small enough that the bending
// between the clamp and the pad is resolved (a fold over 2 cm elements put
// a few millinewtons on the pads where a resolved one puts tens). Gravity
// acts along the hanging strip: as the push tilts it, its weight resists by
// about W·g·b/2 per metre of push whatever its length, a few per cent of
// the bending's on the built-in fabrics. The strip bends about lines along
// x, the fabric's weft: its curvature is along the warp, whose B orders the
// built-in fabrics as the mean of warp and weft does (the weft's B ties
// polyester lining with knit jersey). What the finger feels of it, with
// the simulated exoskeleton's own force error, is in docs/evaluation.md.
const (
	swatchWidth   = 0.03   // along x [m]
	swatchHeight  = 0.015  // along y [m], clamp included
	swatchSpacing = 0.0025 // element side [m]
	swatchClamp   = 2      // node rows the clamp holds
	// flexAbove is how far above the swatch's bottom edge the pad pushes
	// [m]: one element, so that the pad stays on the swatch.
	flexAbove = 0.0025
	// flexPress is how far the pad's intended surface goes past the
	// swatch's resting surface when it touches [m], and flexPush how much
	// further it pushes in the bend [m].
	flexPress = 0.002
	flexPush  = 0.006
	// flexReset is how far past the swatch's resting surface the thumb
	// presses it back before each push [m].
	flexReset = 0.003
	// flexBack is how far the index overshoots each rest and comes back
	// [m], so that it reaches both rests moving the same way.
	flexBack = 0.0003
)

// swatchBench sets the rig's cloth to the flex motion's swatch, placed so
// that the push point is the scene's pinch point, and the scene's
// thickness to the fabric's (KES T0), so that the finger touches each
// fabric by flexPress past its own surface: the push then starts at the
// same bend on a fleece as on a silk (the cantilever stiffens as it
// bends). A set run's rig takes the first fabric's.
func swatchBench(cfg *rig.Config) {
	clampedSwatch(cfg, swatchWidth, swatchHeight, swatchHeight-flexAbove)
}

// clampedSwatch sets the rig's cloth to a width × height swatch [m],
// meshed at swatchSpacing and held by a clamp of swatchClamp node rows
// along its top edge, placed with the scene's pinch point below [m] under
// its top edge, and the scene's thickness to the fabric's (KES T0).
func clampedSwatch(cfg *rig.Config, width, height, below float64) {
	if f := cfg.Fabric; f != nil && f.Compression.T0 != nil && f.Compression.TM != nil {
		if t0, _ := f.Thickness(); t0 > 0 {
			cfg.Scene.Thickness = t0
		}
	}
	p := cfg.Scene.Pinch
	s := &cfg.Sim
	s.Width, s.Height = width, height
	s.NodesU = int(math.Round(width/swatchSpacing)) + 1
	s.NodesV = int(math.Round(height/swatchSpacing)) + 1
	s.Offset = [3]float64{p[0], p[1] + below - height, p[2]}
	s.Pin, s.PinLines, s.NoRod = sim.PinTopEdge, swatchClamp, true
	s.Refine = sim.Refinement{}
}

// flexScript is the flex motion, 4.3 s. The thumb first presses the
// swatch's free part flexReset towards the index's side from behind and
// withdraws ("reset", to 1.0 s): the swatch's bending friction keeps part
// of the last push's bend, and each push would start from further back
// than the one before. The index, waiting above, comes down on the
// swatch's face at the pinch point, flexPress past its surface ("touch",
// to 1.4 s), rests there ("rest", to 2.2 s), pushes it flexPush further
// over 0.6 s ("bend"), holds ("hold", 2.8 to 3.6 s), lifts off and
// returns. The swatch bends between the clamp and the finger, and the
// force growth over the push is the cantilever's bending stiffness; the
// rests before and after it let the force be averaged still.
func flexScript(sc twin.Scene) *twin.Script {
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	p := sc.Pinch
	surf := sc.PadRadius + sc.Thickness/2
	at := func(z float64) [3]float64 { return [3]float64{p[0], p[1], p[2] + z} }
	touch := surf - flexPress
	index := []twin.Keyframe{
		{T: 0, Pos: at(0.03)},
		{T: sec(1.0), Pos: at(surf + flexReset + 0.002)},
		{T: sec(1.3), Pos: at(touch - flexBack)},
		{T: sec(1.5), Pos: at(touch)},
		{T: sec(2.2), Pos: at(touch)},
		{T: sec(2.7), Pos: at(touch - flexPush - flexBack)},
		{T: sec(2.9), Pos: at(touch - flexPush)},
		{T: sec(3.6), Pos: at(touch - flexPush)},
		{T: sec(3.9), Pos: at(surf + 0.01)},
		{T: sec(4.3), Pos: at(0.03)},
	}
	thumb := []twin.Keyframe{
		{T: 0, Pos: at(-0.03)},
		{T: sec(0.5), Pos: at(-surf + flexReset)},
		{T: sec(0.7), Pos: at(-surf + flexReset)},
		{T: sec(1.0), Pos: at(-0.03)},
		{T: sec(4.3), Pos: at(-0.03)},
	}
	s, err := twin.NewScript(thumb, index, []twin.Phase{
		{Name: "reset", Start: 0}, {Name: "touch", Start: sec(1.0)}, {Name: "rest", Start: sec(1.5)},
		{Name: bendPhase, Start: sec(2.2)}, {Name: "hold", Start: sec(2.9)}, {Name: "release", Start: sec(3.6)},
	})
	if err != nil {
		panic(err) // constant keyframes, checked by tests
	}
	return s
}

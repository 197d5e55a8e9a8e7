package experiment

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/sim"
)

// The draw motion's bench: a swatch held in a clamp along its top edge,
// which thumb and index pinch from either side and draw down towards its
// free edge, as one draws a fabric between finger and thumb to judge its
// hand. Both pads slide over the fabric together and the clamp holds it in
// tension, so each pad's tangential force is the fabric's sliding friction
// on it, whatever the fabric's stiffness: on the hanging fabric, a finger
// rubbing over the thumb presses the fabric on the thumb only within a
// couple of millimetres of the thumb's centre (two 8 mm spheres), and
// beyond that the fabric moves with the finger and the drag is the
// fabric's pull rather than its friction.
const (
	drawWidth  = 0.03 // swatch along x [m]
	drawHeight = 0.04 // swatch along y [m], clamp included
	// drawBelow is how far below the swatch's top edge the pads pinch
	// [m], and drawLength how far down they draw it, measured [m], after
	// drawTakeUp [m] in the same movement: they end drawHeight -
	// drawBelow - drawTakeUp - drawLength (19 mm) above its free edge.
	drawBelow  = 0.006
	drawLength = 0.012
	// drawTakeUp: pads that pinch a fabric and draw it first stretch it,
	// until its pull on them reaches the pinch's friction; only then do
	// they slide over it. Knit jersey, the most extensible fabric built
	// in, sticks for its first 3 mm (docs/evaluation.md, "Friction: the
	// draw"), the others for under 1.5 mm. So the friction is read once
	// every fabric slides, as a friction tester reads the kinetic
	// coefficient once its sled slides.
	drawTakeUp = 0.003
	// drawGrip is how far each pad's intended surface goes past the
	// fabric's surface [m]: the finger's 300 N/m times it, less how far the
	// pads sink in, presses 0.15 (fleece) to 0.36 N (cotton shirting).
	drawGrip = 0.002
)

// drawBench sets the rig's cloth to the draw motion's swatch (meshed and
// clamped as flex's), placed so that the pinch starts at the scene's
// pinch point, and the scene's thickness to the fabric's, so that the
// pads grip each fabric by drawGrip past its own surface.
func drawBench(cfg *rig.Config) { clampedSwatch(cfg, drawWidth, drawHeight, drawBelow) }

// drawScript is the draw motion, 3.45 s: the pads approach the swatch
// from either side (to 0.8 s), grip it ("grip", to 1.2 s), draw it
// drawTakeUp + drawLength down in one movement (to 2.45 s, 12 mm/s on
// average; "take-up", then "draw" from where the pads have drawn
// drawTakeUp), hold ("hold", to 2.75 s), open and return.
func drawScript(sc twin.Scene) *twin.Script {
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	p := sc.Pinch
	surf := sc.PadRadius + sc.Thickness/2
	const start, end = 1.2, 2.45 // the draw's movement [s]
	down := -(drawTakeUp + drawLength)
	kf := func(side float64) []twin.Keyframe {
		at := func(dy, z float64) [3]float64 { return [3]float64{p[0], p[1] + dy, p[2] + side*z} }
		return []twin.Keyframe{
			{T: 0, Pos: at(0, 0.03)},
			{T: sec(0.5), Pos: at(0, surf+0.004)},
			{T: sec(0.8), Pos: at(0, surf-drawGrip)},
			{T: sec(start), Pos: at(0, surf-drawGrip)},
			{T: sec(end), Pos: at(down, surf-drawGrip)},
			{T: sec(end + 0.3), Pos: at(down, surf-drawGrip)},
			{T: sec(end + 0.6), Pos: at(down, surf+0.01)},
			{T: sec(end + 1), Pos: at(0, 0.03)},
		}
	}
	taken := start + (end-start)*twin.MinJerkTime(drawTakeUp/(drawTakeUp+drawLength))
	s, err := twin.NewScript(kf(-1), kf(1), []twin.Phase{
		{Name: "approach", Start: 0}, {Name: "grip", Start: sec(0.8)}, {Name: "take-up", Start: sec(start)},
		{Name: drawPhase, Start: sec(taken)}, {Name: "hold", Start: sec(end)}, {Name: "release", Start: sec(end + 0.3)},
	})
	if err != nil {
		panic(err) // constant keyframes, checked by tests
	}
	return s
}

// drawPhase is the draw motion's phase the friction is measured over.
const drawPhase = "draw"

// drawFriction is cueFrictionDrag: over the draw phase, the work both pads
// do against their fingertip sensors' force in the fabric's plane,
// −Σ∫F·v dt with F and v across z (the axis along which the pads press
// the fabric), over their normal forces integrated along the same paths,
// Σ∫|F_z|·|v| dt: the friction coefficient the fingers feel. The swatch's
// stretch under the pull gives back what it stores, a hundredth of the
// friction's work.
func drawFriction(tr *rig.IntervalTrace, script *twin.Script) (float64, error) {
	start, end, ok := script.PhaseSpan(drawPhase)
	if !ok {
		return 0, fmt.Errorf("%w %q", errNoPhase, drawPhase)
	}
	h := tr.Haptics
	t0 := h[0].T
	if h[len(h)-1].T-t0 < end.Seconds()-2*tr.HapticsPeriod.Seconds() {
		return 0, fmt.Errorf("%w: it lasted %.3g s, the draw ends %.3g s into the motion",
			errIntervalShort, h[len(h)-1].T-t0+tr.HapticsPeriod.Seconds(), end.Seconds())
	}
	dt := tr.HapticsPeriod.Seconds()
	var work, path, press float64
	in := 0
	var n [sim.NumFingers]int
	for i := range h {
		if t := h[i].T - t0; t < start.Seconds() || t >= end.Seconds() {
			continue
		}
		in++
		for f := range sim.NumFingers {
			fr := &h[i].Fingers[f]
			if fr.Contact {
				n[f]++
			}
			v := math.Hypot(fr.Vel[0], fr.Vel[1])
			work -= (fr.ForceMeas[0]*fr.Vel[0] + fr.ForceMeas[1]*fr.Vel[1]) * dt
			path += v * dt
			press += math.Abs(fr.ForceMeas[2]) * v * dt
		}
	}
	for f := range sim.NumFingers {
		if n[f] < in*3/4 {
			return 0, fmt.Errorf("the %s touched the fabric in %d of the draw's %d ticks", sim.FingerName(f), n[f], in)
		}
	}
	if !(path > 1e-3) {
		return 0, fmt.Errorf("the pads slid %.3g mm in the draw", 1000*path)
	}
	if !(press > 0) {
		return 0, errors.New("the pads did not press the fabric in the draw")
	}
	return work / press, nil
}

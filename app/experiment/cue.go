package experiment

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/psych"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/internal/vec3"
	"github.com/haptex/haptex/sim"
)

// Cue is the physical quantity a person judges a stimulus dimension by,
// computed from what the devices delivered in one interval: the
// fingertip force sensors, the pads' measured positions and the
// amplitudes the tactile arrays report delivering. Nominal stimuli and
// commanded values never enter a cue.
//
// A cue's discrimination threshold is a Weber fraction W: a person tells
// two intervals apart (75 % correct in 2AFC) when their cues differ by the
// factor 1 + W. Detection cues (whose reference is nothing at all) have a
// Floor f added to both intervals (Weber's law with a floor, Δc = W·(c +
// f)): f is chosen so that the detection threshold is the cue's absolute
// threshold, W·f = Absolute.
type Cue struct {
	Name string `json:"name"`
	Unit string `json:"unit"`
	// Weber is the default discrimination threshold, a fraction, from the
	// literature (Source).
	Weber  float64 `json:"weber"`
	Source string  `json:"source"`
	// Absolute is the detection threshold of a detection cue, in its unit
	// (0: a discrimination cue, no floor).
	Absolute float64 `json:"absolute,omitempty"`
	// Phase is the phase of the handling motion the cue is measured over
	// ("" for the whole interval).
	Phase string `json:"phase,omitempty"`
	// What the cue is, in a sentence (docs and sidecar.json).
	Doc string `json:"doc"`

	compute func(tr *rig.IntervalTrace, script *twin.Script) (float64, error)
}

// Floor returns the floor for a Weber fraction w (0 for a discrimination
// cue).
func (c *Cue) Floor(w float64) float64 {
	if c.Absolute == 0 {
		return 0
	}
	return c.Absolute / w
}

// Contrast returns how far the test interval's cue exceeds the
// reference's, as a fraction: (test + f)/(reference + f) − 1 with the
// floor f for the Weber fraction w. A person discriminates the pair when
// it reaches w.
func (c *Cue) Contrast(test, reference, w float64) float64 {
	f := c.Floor(w)
	return (test+f)/(reference+f) - 1
}

// errNoPhase is returned when the motion has no phase the cue needs.
var errNoPhase = errors.New("the motion has no such phase")

// errIntervalShort is returned when the interval ended before the part of
// the motion the cue is measured over.
var errIntervalShort = errors.New("the interval ended before the cue's part of the motion was over")

// Needs returns how far into the motion script an interval must last for
// the cue to be measured: the end of the phase after the cue's Phase (the
// rest it is compared at). ok is false when the cue needs no phase or the
// motion has not the cue's phase.
func (c *Cue) Needs(script *twin.Script) (d time.Duration, ok bool) {
	if c.Phase == "" {
		return 0, false
	}
	_, d, ok = phaseAndRest(script, c.Phase)
	return d, ok
}

// phaseAndRest returns the start of the script's phase and the end of the
// phase after it (the motion's end when it is the last).
func phaseAndRest(script *twin.Script, phase string) (start, end time.Duration, ok bool) {
	start, end, ok = script.PhaseSpan(phase)
	for i, p := range script.Phases {
		if p.Name == phase && i+1 < len(script.Phases) {
			_, end, _ = script.PhaseSpan(script.Phases[i+1].Name)
		}
	}
	return start, end, ok
}

// The cues of the built-in dimensions. Their Weber fractions:
//
//   - stiffness: 23 %, Jones LA, Hunter IW, "A perceptual analysis of
//     stiffness", Exp Brain Res 79:150–156 (1990); Tan HZ, Durlach NI,
//     Beauregard GL, Srinivasan MA, "Manual discrimination of compliance
//     using active pinch grasp", Percept Psychophys 57:495–510 (1995)
//     report 8–22 % depending on the cues left.
//   - force: 7 %, Jones LA, "Matching forces: constant errors and
//     differential thresholds", Perception 18:681–687 (1989); Pang XD, Tan
//     HZ, Durlach NI, "Manual discrimination of force using active finger
//     motion", Percept Psychophys 49:531–540 (1991): 5–10 %.
//   - vibration: 1.5 dB (amplitude ratio 1.189, W = 0.189), Craig JC,
//     "Difference threshold for intensity of tactile stimuli", Percept
//     Psychophys 11:150–152 (1972); Gescheider GA, Bolanowski SJ, Verrillo
//     RT, Arpajian DJ, Ryan TF, "Vibrotactile intensity discrimination
//     measured by three methods", J Acoust Soc Am 87:330–338 (1990).
var (
	cueLoadingStiffness = &Cue{
		Name: "loading-stiffness", Unit: "N/m", Weber: 0.23, Phase: stretchPhase,
		Source: "Jones & Hunter 1990 (23 %); Tan et al. 1995 (8-22 %)",
		Doc: "the growth of the net fingertip force against the pull (both sensors) over the pads' mean displacement, " +
			"from rest before the motion's stretch phase to rest after it (each averaged over 0.3 s)",
		compute: func(tr *rig.IntervalTrace, script *twin.Script) (float64, error) {
			return phaseStiffness(tr, script, stretchPhase, averageWindow, true)
		},
	}
	// cueBending is the stiffness the pushing finger feels as the flex
	// motion bends the clamped swatch: a cantilever's, which grows with B
	// (docs/evaluation.md). Over the fold (the pinch pushed up in the
	// hanging fabric's plane) it is mostly the weight the pads take over.
	cueBending = &Cue{
		Name: "bending-stiffness", Unit: "N/m", Weber: 0.23, Phase: bendPhase,
		Source: "a stiffness cue: Jones & Hunter 1990 (23 %)",
		Doc: "the growth of the force on the fingers that touch the fabric through the motion's bend phase (their fingertip sensors, summed) " +
			"against their mean displacement, from rest before the bend to rest after it (each averaged over 0.5 s)",
		compute: func(tr *rig.IntervalTrace, script *twin.Script) (float64, error) {
			return phaseStiffness(tr, script, bendPhase, bendWindow, false)
		},
	}
	// cueFrictionDrag is the drag the rubbing finger feels.
	cueFrictionDrag = &Cue{
		Name: "friction-drag", Unit: "1", Weber: 0.10, Phase: drawPhase,
		Source: "Pang et al. 1991 (force, 5-10 %), taken at its upper end for a force along the skin",
		Doc: "the mean force opposing the pads' sliding over the motion's draw phase per newton of their press: the work both pads " +
			"do against their fingertip sensors' force in the plane of the fabric (across the pads' approach), over the sensors' normal force integrated along the paths slid",
		compute: drawFriction,
	}
	cueContactForce = &Cue{
		Name: "contact-force", Unit: "N", Weber: 0.07,
		Source: "Jones 1989 (7 %); Pang et al. 1991 (5-10 %)",
		Doc:    "the mean magnitude of the net force of both fingertip sensors while a finger touched the fabric (a pinch's squeeze cancels in the sum)",
		compute: func(tr *rig.IntervalTrace, _ *twin.Script) (float64, error) {
			return contactForce(tr)
		},
	}
	cueVibration = &Cue{
		Name: "vibration-level", Unit: "× threshold", Weber: math.Pow(10, 1.5/20) - 1,
		Source: "Craig 1972; Gescheider et al. 1990 (1-2 dB)",
		Doc: "the RMS over the interval's frames and the array's pins of the delivered amplitudes in multiples of their " +
			"detection thresholds (40 Hz: 4 µm, 320 Hz: 0.35 µm), combining both channels, the larger of the two fingers",
		compute: func(tr *rig.IntervalTrace, _ *twin.Script) (float64, error) {
			return vibrationLevel(tr)
		},
	}
	// cueVibrationDetection is the vibration level judged against
	// nothing: its absolute threshold is one detection threshold.
	cueVibrationDetection = &Cue{
		Name: "vibration-level", Unit: "× threshold", Weber: cueVibration.Weber, Absolute: 1,
		Source: cueVibration.Source + "; detection at 1 × threshold",
		Doc:    cueVibration.Doc,
		compute: func(tr *rig.IntervalTrace, _ *twin.Script) (float64, error) {
			return vibrationLevel(tr)
		},
	}
)

// measureCue computes the cue of one interval's trace; script is the
// interval's handling motion.
func measureCue(c *Cue, tr *rig.IntervalTrace, script *twin.Script) (float64, error) {
	if len(tr.Haptics) == 0 {
		return math.NaN(), errors.New("the interval has no haptics ticks")
	}
	v, err := c.compute(tr, script)
	if err != nil {
		return math.NaN(), err
	}
	return v, nil
}

// phaseStiffness is cueLoadingStiffness and cueBending: the secant
// stiffness of the motion's phase (the stretch, the bend), from the force
// and the pads' position averaged at rest before it (the last window of
// the phase before) and after it (the last window of the phase after),
// so that the servo's force ripple and the sensors' noise average out.
// The fingers measured are both (both: or an error), which must touch the
// fabric from the rest before the phase to the rest after it, or those
// (at least one) that touch it at rest after the phase, nearly throughout.
func phaseStiffness(tr *rig.IntervalTrace, script *twin.Script, phase string, w time.Duration, both bool) (float64, error) {
	start, after, ok := phaseAndRest(script, phase)
	if !ok {
		return 0, fmt.Errorf("%w %q", errNoPhase, phase)
	}
	h := tr.Haptics
	t0 := h[0].T
	window := func(to time.Duration) (lo, hi int) {
		lo, hi = -1, -1
		for i := range h {
			dt := h[i].T - t0
			if lo < 0 && dt >= (to-w).Seconds() {
				lo = i
			}
			if dt < to.Seconds() {
				hi = i
			}
		}
		return lo, hi
	}
	b0, b1 := window(start)
	a0, a1 := window(after)
	if b0 < 0 || a0 < 0 || a1 <= a0 || b1 <= b0 || h[len(h)-1].T-t0 < after.Seconds()-2*tr.HapticsPeriod.Seconds() {
		return 0, fmt.Errorf("%w: it lasted %.3g s, the %s and the hold after it end %.3g s into the motion",
			errIntervalShort, h[len(h)-1].T-t0+tr.HapticsPeriod.Seconds(), phase, after.Seconds())
	}
	// Both pads hold the stretch from the rest before it to the rest
	// after it. A finger that bends the fabric need only touch it at rest
	// after the bend, in nine ticks of ten: a light touch (a silk swatch
	// pushes back with a millinewton or two) leaves the cloth's contact
	// region for a tick now and then.
	var fingers []int
	for f := range sim.NumFingers {
		held := true
		if both {
			for i := b0; i <= a1 && held; i++ {
				held = h[i].Fingers[f].Contact
			}
		} else {
			n := 0
			for i := a0; i <= a1; i++ {
				if h[i].Fingers[f].Contact {
					n++
				}
			}
			held = 10*n >= 9*(a1-a0+1)
		}
		if held {
			fingers = append(fingers, f)
		}
	}
	switch {
	case both && len(fingers) < sim.NumFingers:
		return 0, fmt.Errorf("the pads did not both hold the fabric through the %s", phase)
	case len(fingers) == 0:
		return 0, fmt.Errorf("no finger touched the fabric through the %s", phase)
	}
	mean := func(lo, hi int) (pos, force [3]float64) {
		n := float64(hi - lo + 1)
		for i := lo; i <= hi; i++ {
			for _, f := range fingers {
				p := &h[i].Fingers[f]
				pos = vec3.Add(pos, vec3.Scale(1/(n*float64(len(fingers))), p.Pos))
				force = vec3.Add(force, vec3.Scale(1/n, p.ForceMeas))
			}
		}
		return pos, force
	}
	p0, f0 := mean(b0, b1)
	p1, f1 := mean(a0, a1)
	d := vec3.Sub(p1, p0)
	travel := vec3.Norm(d)
	if !(travel > 1e-5) {
		return 0, fmt.Errorf("the pads moved %.3g mm in the %s", 1000*travel, phase)
	}
	// The sensors measure the device's force on the finger, which renders
	// the fabric's: its growth against the motion is the fabric resisting.
	u := vec3.Scale(1/travel, d)
	return -vec3.Dot(vec3.Sub(f1, f0), u) / travel, nil
}

// The motion phases the cues are measured over: the loading stiffness
// over the stretch, the bending stiffness over the fold, the tangential
// force over the stroke.
const (
	stretchPhase = "stretch"
	bendPhase    = "bend"
)

// averageWindow is how long the loading stiffness averages force and
// position at rest, before and after the stretch; bendWindow the bending
// stiffness, whose forces are tens of millinewtons against the sensors'
// 6 mN of noise per sample (devices/twin's exo.toml).
const (
	averageWindow = 300 * time.Millisecond
	bendWindow    = 500 * time.Millisecond
)

// contactForce is cueContactForce: the mean magnitude of the net force
// of both fingertip sensors over the ticks where a finger touches the
// fabric. Summed over the fingers, a pinch's squeeze (equal and opposite
// on the two pads, set by how hard the fingers close rather than by the
// fabric) cancels, and what is left is the force the fabric exerts on the
// hand.
func contactForce(tr *rig.IntervalTrace) (float64, error) {
	var sum float64
	n := 0
	for i := range tr.Haptics {
		th, ix := &tr.Haptics[i].Fingers[sim.Thumb], &tr.Haptics[i].Fingers[sim.IndexFinger]
		if th.Contact || ix.Contact {
			sum += vec3.Norm(vec3.Add(th.ForceMeas, ix.ForceMeas))
			n++
		}
	}
	if n == 0 {
		return 0, errors.New("no finger touched the fabric")
	}
	return sum / float64(n), nil
}

// vibrationLevel is cueVibration.
func vibrationLevel(tr *rig.IntervalTrace) (float64, error) {
	if len(tr.Tactile) == 0 {
		return 0, errors.New("the interval has no tactile frames")
	}
	var best float64
	for f := range sim.NumFingers {
		var ss float64
		n := 0
		for i := range tr.Tactile {
			s := &tr.Tactile[i]
			if !s.Measured[f] {
				return 0, fmt.Errorf("the %s array does not report what it delivers", sim.FingerName(f))
			}
			d := &s.Delivered[f]
			for p := range d.A40Um {
				a, b := d.A40Um[p]/psych.Expected40Um, d.A320Um[p]/psych.Expected320Um
				ss += a*a + b*b
				n++
			}
		}
		best = math.Max(best, math.Sqrt(ss/float64(n)))
	}
	return best, nil
}

package twin

import (
	"fmt"
	"math"
	"time"
)

// Keyframe is a fingertip pad-centre position [m, world frame] to be reached
// at time T. Between keyframes the pad follows a minimum-jerk path (Flash &
// Hogan 1985), so it starts and stops each segment at rest with zero
// acceleration, as a reaching hand does.
type Keyframe struct {
	T   time.Duration
	Pos [3]float64
}

// Phase names a stretch of a handling script.
type Phase struct {
	Name  string // approach, touch, stroke, pinch, stretch, release
	Start time.Duration
}

// Script moves thumb and index pad centres through keyframes. It is a
// kinematic motion source, no dynamics: the positions are what the script
// says, whatever the cloth does. Tests program it with their own keyframes;
// DefaultScript is the showcase handling sequence.
//
// A Script is immutable after construction and safe for concurrent use.
type Script struct {
	Fingers [2][]Keyframe // [thumb, index], keyframes in increasing T
	Phases  []Phase
}

// NewScript checks that each finger has at least one keyframe, that times
// increase and that positions are finite.
func NewScript(thumb, index []Keyframe, phases []Phase) (*Script, error) {
	s := &Script{Fingers: [2][]Keyframe{thumb, index}, Phases: phases}
	for f, kf := range s.Fingers {
		if len(kf) == 0 {
			return nil, fmt.Errorf("devices/twin: script: finger %d has no keyframes", f)
		}
		for i, k := range kf {
			for _, x := range k.Pos {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return nil, fmt.Errorf("devices/twin: script: finger %d keyframe %d: non-finite position %v", f, i, k.Pos)
				}
			}
			if i > 0 && k.T <= kf[i-1].T {
				return nil, fmt.Errorf("devices/twin: script: finger %d keyframe %d at %v not after %v", f, i, k.T, kf[i-1].T)
			}
		}
	}
	return s, nil
}

// Duration returns the time of the last keyframe of either finger.
func (s *Script) Duration() time.Duration {
	var d time.Duration
	for _, kf := range s.Fingers {
		d = max(d, kf[len(kf)-1].T)
	}
	return d
}

// At returns the pad-centre position [m] and velocity [m/s] of finger (0 =
// thumb, 1 = index) at time t. Before the first keyframe and after the last
// the finger rests at that keyframe. It allocates nothing.
func (s *Script) At(t time.Duration, finger int) (pos, vel [3]float64) {
	kf := s.Fingers[finger]
	if t <= kf[0].T {
		return kf[0].Pos, vel
	}
	last := kf[len(kf)-1]
	if t >= last.T {
		return last.Pos, vel
	}
	i := 1
	for kf[i].T < t {
		i++
	}
	if kf[i].T == t {
		return kf[i].Pos, vel
	}
	a, b := kf[i-1], kf[i]
	span := (b.T - a.T).Seconds()
	tau := (t - a.T).Seconds() / span
	s5 := minJerk(tau)
	ds := 30 * tau * tau * (1 - tau) * (1 - tau) / span // s'(τ) = 30τ²(1 − τ)²
	for k := range pos {
		d := b.Pos[k] - a.Pos[k]
		pos[k] = a.Pos[k] + d*s5
		vel[k] = d * ds
	}
	return pos, vel
}

// minJerk is the share of its way a minimum-jerk segment has covered at
// the share tau of its time: s(τ) = 10τ³ − 15τ⁴ + 6τ⁵.
func minJerk(tau float64) float64 { return tau * tau * tau * (10 + tau*(-15+6*tau)) }

// MinJerkTime is minJerk's inverse: the share of a segment's time at which
// its pad has covered the share s in [0, 1] of its way (found by
// bisection), for a script that names a phase by how far a movement has
// gone.
func MinJerkTime(s float64) float64 {
	lo, hi := 0.0, 1.0
	for range 60 {
		m := (lo + hi) / 2
		if minJerk(m) < s {
			lo = m
		} else {
			hi = m
		}
	}
	return (lo + hi) / 2
}

// PhaseAt returns the name of the phase running at t ("" before the first).
func (s *Script) PhaseAt(t time.Duration) string {
	name := ""
	for _, p := range s.Phases {
		if t >= p.Start {
			name = p.Name
		}
	}
	return name
}

// Scene holds the geometry the default script is built for (the showcase
// scene: a fabric hanging in the plane z = 0 from a rod at its top edge).
type Scene struct {
	PadRadius  float64 // fingertip pad sphere radius [m]
	Thickness  float64 // fabric thickness [m]
	Touch      [3]float64
	Pinch      [3]float64
	Pull       [3]float64 // displacement of the pinched point during the stretch [m]
	StrokeHalf float64    // half the stroke length along x [m]
	Press      float64    // how far the pad surface goes past the fabric surface on touch [m]
	Squeeze    float64    // how far each pad surface goes past the fabric surface in the pinch [m]
	// Grip is how far each pad's intended surface goes past the fabric
	// surface in the firm pinch of StretchScript and BendScript [m]. The
	// simulated finger stops at the fabric, so this sets the grip force:
	// the finger's stiffness (ExoParams.Finger, 300 N/m) times Grip less
	// how far the pads sink into the fabric, about 1.1 N at 5.5 mm. A
	// harder grip asks the servo for more contact stiffness than it
	// renders steadily between two pads: at 11 mm (2.3 N) the grip
	// oscillates at about 15 Hz and the pads slide off each other.
	Grip float64
	// Stretch is how far StretchScript pulls the pinched point [m]: the
	// intended motion of both pads, which the fingers follow less the give
	// of their own stiffness against the fabric's pull. It is small so
	// that the pull (about 0.25 N at 1 mm) stays well below what the
	// grip's friction holds: a grip that slips lets a stiffer fabric pull
	// less, not more.
	Stretch [3]float64
	// Lift is how far BendScript moves the pinched point [m].
	Lift [3]float64
	// Rub is how far StrokeScript's index moves to either side of the
	// touch point [m]: it rubs the fabric over the thumb's pad, which
	// holds the fabric from behind, so it stays within the pad's reach.
	Rub float64
}

// DefaultScene is the showcase scene (see README.md): touch and
// stroke around (0, 0.12), pinch at (0.05, 0.10), pull 3 cm away from the
// stand's plane and 2 cm down. The experiment motions grip with 5.5 mm,
// stretch the pinched point 1 mm down (away from the rod, so the fabric
// between the pinch and the rod is in tension) and, to bend it, lift it
// 25 mm up and 15 mm out of the plane.
func DefaultScene() Scene {
	return Scene{
		PadRadius:  0.008,
		Thickness:  0.0005,
		Touch:      [3]float64{0, 0.12, 0},
		Pinch:      [3]float64{0.05, 0.10, 0},
		Pull:       [3]float64{0, -0.02, -0.03},
		StrokeHalf: 0.03,
		Press:      0.0015,
		Squeeze:    0.001,
		Grip:       0.0055,
		Stretch:    [3]float64{0, -0.001, 0},
		Lift:       [3]float64{0, 0.025, -0.015},
		Rub:        0.003,
	}
}

// DefaultScript is the showcase handling sequence, 10 s long: approach,
// touch, stroke (±3 cm along x, about 50 mm/s on average), pinch, stretch,
// release. It ends where it starts, so it can be played again and again. The index finger approaches from +z with its pad facing -z; the
// thumb from -z facing +z.
func DefaultScript(sc Scene) *Script {
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	at := func(p [3]float64, dx, dy, z float64) [3]float64 { return [3]float64{p[0] + dx, p[1] + dy, z} }
	surf := sc.PadRadius + sc.Thickness/2 // pad centre distance from the mid-plane at first contact
	touchZ := surf - sc.Press
	pinchZ := surf - sc.Squeeze
	pu := sc.Pull
	index := []Keyframe{
		{0, at(sc.Touch, 0, 0, 0.06)},
		{sec(1.0), at(sc.Touch, 0, 0, surf+0.004)},
		{sec(1.5), at(sc.Touch, 0, 0, touchZ)},
		{sec(2.1), at(sc.Touch, sc.StrokeHalf, 0, touchZ)},
		{sec(3.3), at(sc.Touch, -sc.StrokeHalf, 0, touchZ)},
		{sec(4.5), at(sc.Touch, sc.StrokeHalf, 0, touchZ)},
		{sec(5.1), at(sc.Touch, sc.StrokeHalf, 0, surf+0.01)},
		{sec(5.7), at(sc.Pinch, 0, 0, surf+0.01)},
		{sec(6.2), at(sc.Pinch, 0, 0, pinchZ)},
		{sec(6.6), at(sc.Pinch, 0, 0, pinchZ)},
		{sec(8.0), at(sc.Pinch, pu[0], pu[1], pinchZ+pu[2])},
		{sec(8.5), at(sc.Pinch, pu[0], pu[1], pinchZ+pu[2])},
		{sec(9.0), at(sc.Pinch, pu[0], pu[1], 0.03)},
		{sec(10.0), at(sc.Touch, 0, 0, 0.06)},
	}
	thumb := []Keyframe{
		{0, at(sc.Touch, 0, 0, -0.06)},
		{sec(1.0), at(sc.Touch, 0, 0, -0.04)},
		{sec(5.1), at(sc.Touch, 0, 0, -0.04)},
		{sec(5.7), at(sc.Pinch, 0, 0, -(surf + 0.01))},
		{sec(6.2), at(sc.Pinch, 0, 0, -pinchZ)},
		{sec(6.6), at(sc.Pinch, 0, 0, -pinchZ)},
		{sec(8.0), at(sc.Pinch, pu[0], pu[1], -pinchZ+pu[2])},
		{sec(8.5), at(sc.Pinch, pu[0], pu[1], -pinchZ+pu[2])},
		{sec(9.0), at(sc.Pinch, pu[0], pu[1], -0.03+pu[2])},
		{sec(10.0), at(sc.Touch, 0, 0, -0.06)},
	}
	phases := []Phase{
		{"approach", 0}, {"touch", sec(1.0)}, {"stroke", sec(1.5)},
		{"pinch", sec(5.1)}, {"stretch", sec(6.6)}, {"release", sec(8.5)},
	}
	s, err := NewScript(thumb, index, phases)
	if err != nil {
		panic(err) // the default keyframes are constants checked by tests
	}
	return s
}

// PadNormal returns the direction out of the pulp of finger f in the
// showcase scene: +z for the thumb, -z for the index.
func PadNormal(f int) [3]float64 {
	if f == 0 {
		return [3]float64{0, 0, 1}
	}
	return [3]float64{0, 0, -1}
}

// PinchScript is a 3 s handling motion for experiment intervals: both
// fingers approach the pinch point, close on the fabric, pull it as in the
// showcase stretch, release and return where they started. A subject's
// judgement of a fabric's stretch or grip rests on exactly this motion.
func PinchScript(sc Scene) *Script {
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	surf := sc.PadRadius + sc.Thickness/2
	pinchZ := surf - sc.Squeeze
	p, pu := sc.Pinch, sc.Pull
	kf := func(side float64) []Keyframe {
		at := func(dx, dy, z float64) [3]float64 { return [3]float64{p[0] + dx, p[1] + dy, z} }
		return []Keyframe{
			{0, at(0, 0, side*0.03)},
			{sec(0.6), at(0, 0, side*(surf+0.004))},
			{sec(1.0), at(0, 0, side*pinchZ)},
			{sec(1.3), at(0, 0, side*pinchZ)},
			{sec(2.1), at(pu[0], pu[1], side*pinchZ+pu[2])},
			{sec(2.3), at(pu[0], pu[1], side*pinchZ+pu[2])},
			{sec(2.6), at(pu[0], pu[1], side*0.02+pu[2])},
			{sec(3.0), at(0, 0, side*0.03)},
		}
	}
	phases := []Phase{{"approach", 0}, {"pinch", sec(0.6)}, {"stretch", sec(1.3)}, {"release", sec(2.3)}}
	s, err := NewScript(kf(-1), kf(1), phases)
	if err != nil {
		panic(err) // constant keyframes, checked by tests
	}
	return s
}

// StretchScript is a 4.2 s pinch and stretch for experiment intervals:
// both pads close firmly on the fabric at the pinch point (Grip), pull the
// pinched point by Stretch and bring it back (the "precondition" phase,
// 1.2 to 2.0 s), hold it for 0.4 s ("settle"), pull it by Stretch again
// (the "stretch" phase, 2.4 to 2.9 s), hold it there for 0.6 s ("hold"),
// open and return. Pulled down, away from the rod, the fabric between the
// pinch and the rod is loaded in tension, so the force felt while
// stretching grows with the fabric's tensile stiffness; the small stretch
// keeps the pull below what the pads' friction holds, and the holds before
// and after it let a force be averaged at rest.
//
// The first cycle conditions the grip and the fabric, as a KES tensile
// test cycles its specimen: a pinch closes on the fabric in whatever
// friction state the last handling left at the pads and in the cloth, and
// a stretch from there loads it along a different path each time (without
// the cycle the loading stiffness of one fabric scattered by about 20 %
// from interval to interval). After a stretch and its return the pads'
// contacts and the fabric's internal friction have been driven over the
// same path, so the measured stretch starts from the same state.
func StretchScript(sc Scene) *Script {
	return gripScript(sc, sc.Stretch, []float64{1.2, 1.6, 2.0, 2.4, 2.9, 3.5}, []float64{0, 1, 0, 0, 1, 1},
		[]Phase{{"precondition", 1200 * time.Millisecond}, {"settle", 2 * time.Second}, {"stretch", 2400 * time.Millisecond}, {"hold", 2900 * time.Millisecond}})
}

// BendScript is a 3.3 s pinch and lift for experiment intervals: the pads
// grip as in StretchScript and then carry the pinched point by Lift over
// 0.5 s (the "bend" phase, 1.5 to 2.0 s) and hold it there. Lifted towards
// the rod and out of the stand's plane, the fabric above the pinch can no
// longer hang straight: it folds, and the force grows with its bending
// rigidity and weight rather than its tensile stiffness.
func BendScript(sc Scene) *Script {
	return GripScript(sc, sc.Lift, "bend")
}

// GripScript is the 3.3 s firm pinch of BendScript that moves the pinched
// point by move [m] in its phase named phase (1.5 to 2.0 s), holds it
// there and releases.
func GripScript(sc Scene, move [3]float64, phase string) *Script {
	return gripScript(sc, move, []float64{1.5, 2.0, 2.6}, []float64{0, 1, 1},
		[]Phase{{phase, 1500 * time.Millisecond}, {"hold", 2 * time.Second}})
}

// gripScript is a firm pinch at the pinch point: the pads approach (0 to
// 0.6 s) and close on the fabric by Grip (the "pinch" phase, from 0.6 s;
// closed at 1.0 s), then carry the pinched point to the fractions at[i] of
// move at the times ts[i] [s], open 0.3 s after the last (the "release"
// phase) and return to where they started 0.4 s later. phases name what
// happens between the pinch and the release.
func gripScript(sc Scene, move [3]float64, ts, at []float64, phases []Phase) *Script {
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	surf := sc.PadRadius + sc.Thickness/2
	gripZ := surf - sc.Grip
	p := sc.Pinch
	last, end := ts[len(ts)-1], at[len(at)-1]
	kf := func(side float64) []Keyframe {
		pos := func(d float64, z float64) [3]float64 {
			return [3]float64{p[0] + d*move[0], p[1] + d*move[1], side*z + d*move[2]}
		}
		k := []Keyframe{{0, pos(0, 0.03)}, {sec(0.6), pos(0, surf+0.004)}, {sec(1.0), pos(0, gripZ)}}
		for i, t := range ts {
			k = append(k, Keyframe{sec(t), pos(at[i], gripZ)})
		}
		return append(k, Keyframe{sec(last + 0.3), pos(end, surf+0.01)}, Keyframe{sec(last + 0.7), pos(0, 0.03)})
	}
	all := append([]Phase{{"approach", 0}, {"pinch", sec(0.6)}}, phases...)
	all = append(all, Phase{"release", sec(last)})
	s, err := NewScript(kf(-1), kf(1), all)
	if err != nil {
		panic(err) // constant keyframes, checked by tests
	}
	return s
}

// StrokeScript is a 3 s stroke for experiment intervals on the fabric's
// surface, as one rubs a fabric between finger and thumb: the thumb comes
// up behind the fabric at the touch point and holds it there, pressing it
// by Press; the index pad comes down on the other side, presses it by
// Press and rubs it Rub to one side, to the other and back (about
// 12 mm/s), and both lift off. The thumb is the support: on the hanging
// fabric alone a stroke drags the cloth along, loads the pad with a few
// millinewtons and slips only now and then, so what the pins deliver
// comes in rare bursts. What the stroke delivers is the surface: the
// tactile rendering of its texture under the moving index.
func StrokeScript(sc Scene) *Script { return RubScript(sc, 500*time.Millisecond, 500*time.Millisecond) }

// RubScript is the stroke with the index's rub timed by first and leg:
// touched at 0.8 s, the index rubs to +Rub in first, then from side to
// side, a leg each, for as long as a leg ends by 2.3 s, returns to the
// touch point at 2.6 s and lifts off by 3 s, as the thumb does. The
// stroke rubs in legs of 500 ms; a faster rub in shorter ones.
func RubScript(sc Scene, first, leg time.Duration) *Script {
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	surf := sc.PadRadius + sc.Thickness/2
	touchZ := surf - sc.Press
	at := func(dx, z float64) [3]float64 { return [3]float64{sc.Touch[0] + dx, sc.Touch[1], z} }
	index := []Keyframe{
		{0, at(0, 0.03)},
		{sec(0.5), at(0, surf+0.004)},
		{sec(0.8), at(0, touchZ)},
	}
	x := sc.Rub
	for t := sec(0.8) + first; t <= sec(2.3); t += leg {
		index = append(index, Keyframe{t, at(x, touchZ)})
		x = -x
	}
	index = append(index, Keyframe{sec(2.6), at(0, touchZ)}, Keyframe{sec(3.0), at(0, 0.03)})
	thumb := []Keyframe{
		{0, at(0, -0.03)},
		{sec(0.5), at(0, -surf-0.004)},
		{sec(0.8), at(0, -touchZ)},
		{sec(2.6), at(0, -touchZ)},
		{sec(3.0), at(0, -0.03)},
	}
	s, err := NewScript(thumb, index, []Phase{{"approach", 0}, {"touch", sec(0.5)}, {"stroke", sec(0.8)}, {"release", sec(2.6)}})
	if err != nil {
		panic(err)
	}
	return s
}

// PhaseSpan returns the start and end of the named phase (the end is the
// next phase's start, or the script's end), and whether there is one.
func (s *Script) PhaseSpan(name string) (start, end time.Duration, ok bool) {
	for i, p := range s.Phases {
		if p.Name != name {
			continue
		}
		end = s.Duration()
		if i+1 < len(s.Phases) {
			end = s.Phases[i+1].Start
		}
		return p.Start, end, true
	}
	return 0, 0, false
}

// RestScript holds both fingers still, 3 cm off either face of the fabric
// at the pinch point: the hand at rest on the tactile arrays, for
// stimuli that need no handling (vibration thresholds).
func RestScript(sc Scene) *Script {
	p := sc.Pinch
	s, err := NewScript([]Keyframe{{0, [3]float64{p[0], p[1], -0.03}}}, []Keyframe{{0, [3]float64{p[0], p[1], 0.03}}}, []Phase{{"rest", 0}})
	if err != nil {
		panic(err)
	}
	return s
}

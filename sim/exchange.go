package sim

import "time"

// This file defines the data that crosses between the three loops of a
// running system (README.md, Architecture): the haptics loop publishes FingerState, the
// simulation publishes one LocalModel and one ContactPatch per finger and a
// Snapshot of the cloth. All of them are plain values (no pointers, no
// slices except Snapshot's preallocated arrays) so that they can live in the
// preallocated slots of the lock-free buffers in internal/statebuf. Times
// are time.Duration on the run's clock, as every loop's; the numerics
// convert them to seconds where they need to.

// Finger indices: the one finger vocabulary of haptex. Every per-finger
// array is indexed by these; packages that may not import sim (tactile)
// take the index from their caller.
const (
	Thumb       = 0
	IndexFinger = 1
	NumFingers  = 2
)

// FingerName returns "thumb" or "index" for a finger index.
func FingerName(i int) string {
	switch i {
	case Thumb:
		return "thumb"
	case IndexFinger:
		return "index"
	}
	return "finger?"
}

// FingerByName is FingerName's inverse: Thumb or IndexFinger, or -1 for
// any other name.
func FingerByName(name string) int {
	for i := range NumFingers {
		if FingerName(i) == name {
			return i
		}
	}
	return -1
}

// Finger is one fingertip as the haptics loop measured it in one tick.
// Positions are those of the centre of the fingertip pad in the world frame.
type Finger struct {
	Pos    [3]float64 // pad centre [m], world frame
	Vel    [3]float64 // pad centre velocity [m/s], world frame
	Normal [3]float64 // unit vector out of the finger pulp (the direction the pad presses), world frame
	Force  [3]float64 // force the device measured on the fingertip [N], world frame
	Valid  bool       // false when the finger's device is absent or in its safe state
}

// FingerState is what the haptics loop publishes every tick: both fingers,
// sampled in the same tick.
type FingerState struct {
	T       time.Duration // time of the sample on the run's clock
	Tick    uint64        // haptics tick number
	Fingers [NumFingers]Finger
}

// LocalModel is the cloth's force on one fingertip, linearised at a
// simulation step so that the 1 kHz loop can evaluate it at the measured
// fingertip position between steps without calling the simulation:
//
//	F(x) = F0 + K (x - X0)   while the finger is inside the valid region,
//	F(x) = 0                 outside it.
//
// The valid region is the half-space of contact: the finger is in contact
// while Depth + Normal·(x - X0) > 0. Normal points from the finger into the
// cloth (the direction the pad presses), so moving the finger along Normal
// goes deeper and moving it back by Depth leaves the cloth. Depth is where
// the linearised pressing force F·Normal reaches zero (the cloth gives way
// as the finger retreats, so this is usually more than the fabric's
// compression at X0). A finger that leaves the cloth therefore feels no
// force, whatever K says.
//
// The cloth under the pad moves (it swings away from a touching finger, it
// travels with a pinch): EvalAt(t, x) lets the reference point move with
// it, F = F0 + K (x - X0 - V (t - T)), with the region moving alike. Eval(x)
// is EvalAt(T, x). A loop that knows the time should call EvalAt: in a
// pinch both fingers move together and the cloth with them, which K alone
// (the stiffness against moving one finger) would render as a squeeze.
type LocalModel struct {
	T         time.Duration // simulation time of the linearisation
	Step      uint64        // simulation step number
	X0        [3]float64    // fingertip position the model was linearised at [m]
	F0        [3]float64    // force of the cloth on the fingertip at X0 [N]
	K         [3][3]float64 // dF/dx at X0 [N/m]; row i is dF_i/dx; symmetric, negative semi-definite
	Normal    [3]float64    // contact normal, unit, pointing from the finger into the cloth
	Depth     float64       // distance the finger can retreat along -Normal before losing contact [m]; > 0 in contact
	InContact bool          // the finger touched the cloth at this step
	Valid     bool          // the model holds a simulation result (false before the first step)
	V         [3]float64    // velocity of the cloth under the pad [m/s]: the reference point's drift
}

// Eval returns the force of the cloth on a fingertip at x [N] at the
// model's own time T; see EvalAt.
func (m *LocalModel) Eval(x [3]float64) [3]float64 { return m.EvalAt(m.T, x) }

// EvalAt returns the force of the cloth on a fingertip at x at time t [N]:
// zero outside the valid region and when the model holds no contact,
// otherwise F0 + K (x - X0 - V (t - T)) with two safeguards that keep it
// continuous and passive: the force never pulls the finger into the cloth
// (a positive component along Normal is removed), and over the last quarter
// of Depth before the region's boundary it ramps linearly to zero. It
// allocates nothing.
func (m *LocalModel) EvalAt(t time.Duration, x [3]float64) [3]float64 {
	var f [3]float64
	d, g := m.gap(t, x)
	if !(g > 0) {
		return f
	}
	n := &m.Normal
	for i := range f {
		f[i] = m.F0[i] + m.K[i][0]*d[0] + m.K[i][1]*d[1] + m.K[i][2]*d[2]
	}
	if fn := f[0]*n[0] + f[1]*n[1] + f[2]*n[2]; fn > 0 {
		for i := range f {
			f[i] -= fn * n[i]
		}
	}
	if band := m.Depth / 4; g < band {
		s := g / band
		for i := range f {
			f[i] *= s
		}
	}
	return f
}

// Touches reports whether a fingertip at x at time t is inside the model's
// valid region, where EvalAt may give a force.
func (m *LocalModel) Touches(t time.Duration, x [3]float64) bool {
	_, g := m.gap(t, x)
	return g > 0
}

// gap returns the fingertip's offset from the drifting reference point and
// its distance inside the valid region (not positive outside it, and when
// the model holds no contact).
func (m *LocalModel) gap(t time.Duration, x [3]float64) (d [3]float64, g float64) {
	if !m.Valid || !m.InContact {
		return d, 0
	}
	dt := (t - m.T).Seconds()
	d = [3]float64{x[0] - m.X0[0] - m.V[0]*dt, x[1] - m.X0[1] - m.V[1]*dt, x[2] - m.X0[2] - m.V[2]*dt}
	n := &m.Normal
	return d, m.Depth + n[0]*d[0] + n[1]*d[1] + n[2]*d[2]
}

// ContactPatch describes one finger's contact with the fabric for the
// tactile renderer, in fabric coordinates (u along the weft, v along the
// warp, metres on the undeformed cloth).
type ContactPatch struct {
	T           time.Duration // simulation time
	InContact   bool
	U, V        float64 // patch centre on the undeformed fabric [m]
	Orientation float64 // angle of the finger's distal axis from the fabric u axis [rad]
	SlipU       float64 // slip velocity of the finger relative to the fabric, along u [m/s]
	SlipV       float64 // slip velocity along v [m/s]
	NormalForce float64 // force pressing pad and fabric together [N], >= 0
	Area        float64 // contact area [m^2]
	// Curvature is the cloth's mean curvature under the pad [1/m],
	// positive where it curves round the pad (it wraps the fingertip),
	// negative where it bulges towards it; its normals' spread over the
	// contact, weighted by the normal force.
	Curvature float64
}

// Output is what one simulation step publishes for the other loops.
type Output struct {
	T       time.Duration // simulation time
	Step    uint64
	Local   [NumFingers]LocalModel
	Contact [NumFingers]ContactPatch
}

// Topology is the fixed part of the cloth's render data: it does not change
// while the cloth moves, so it is handed over once, not per step.
type Topology struct {
	Nodes     int
	Triangles []uint32   // 3 node indices per triangle, counter-clockwise seen from +z at rest
	UV        []float32  // 2 per node: rest coordinates (u, v) [m]
	WidthU    float64    // fabric size along u [m]
	HeightV   float64    // fabric size along v [m]
	RodRadius float64    // radius of the stand's rod [m]; 0 when there is none
	RodCenter [3]float64 // a point on the rod's axis (the middle), world frame [m]; the axis runs along x
}

// Snapshot is the cloth's moving shape for rendering. Its slices are
// allocated once for a mesh (NewSnapshot) and overwritten in place, so a
// Snapshot can live in a lock-free buffer slot.
type Snapshot struct {
	T      time.Duration
	Step   uint64
	Pos    []float32 // 3 per node [m], world frame
	Normal []float32 // 3 per node, unit, smooth (area-weighted) vertex normals
	// UV are the nodes' rest coordinates (as Topology.UV), which change
	// when a following grading regrades the mesh (Refinement.Follow);
	// Grading counts the regrades, so a renderer re-uploads UV only when
	// it changes.
	UV      []float32
	Grading uint64
}

// NewSnapshot returns a snapshot sized for n nodes.
func NewSnapshot(n int) Snapshot {
	return Snapshot{Pos: make([]float32, 3*n), Normal: make([]float32, 3*n), UV: make([]float32, 2*n)}
}

package twin

import (
	"errors"
	"fmt"
)

// PlaceJoints sets the joint angles to q [rad], at rest: a calibration jig
// that holds the pad at a point. The device must be on its stand
// (Clamp(true)), which keeps them there; q must be within the joint
// limits. The next sample reads them.
func (e *Exo) PlaceJoints(q [3]float64) error {
	if !e.clamped {
		return errors.New("devices/twin: PlaceJoints needs the device clamped on its stand")
	}
	for i := range 3 {
		lo, hi := e.p.Kinematics.JointMin[i], e.p.Kinematics.JointMax[i]
		if !(q[i] >= lo && q[i] <= hi) {
			return fmt.Errorf("devices/twin: joint %d at %g rad, outside [%g, %g]", i+1, q[i], lo, hi)
		}
	}
	e.q, e.qd = q, [3]float64{}
	return nil
}

package twin

import "github.com/haptex/haptex/devices/exo"

// DefaultBase returns where the default exoskeleton base of finger f
// (0 = thumb, 1 = index) sits in the showcase scene: 16 cm behind the
// fabric plane on the finger's side (index +z, thumb -z), 10 cm up, its x
// axis pointing at the fabric and its z axis (the abduction axis) up. The
// pad at the home posture is then 3 cm from the fabric plane, facing it,
// and the default script's workspace lies inside the device's
// well-conditioned region.
func DefaultBase(f int) exo.Pose {
	up := [3]float64{0, 1, 0}
	if f == 0 {
		return exo.PoseFromAxes([3]float64{0, 0, 1}, up, [3]float64{0.02, 0.10, -0.16})
	}
	return exo.PoseFromAxes([3]float64{0, 0, -1}, up, [3]float64{0.01, 0.10, 0.16})
}

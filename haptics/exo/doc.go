// Package exo owns the kinematics of the single-phalanx 3-DoF fingertip
// exoskeleton: forward kinematics, the Jacobian and a damped-least-squares
// inverse.
package exo

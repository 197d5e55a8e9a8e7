// Package exo owns the kinematics of the single-phalanx 3-DoF fingertip
// exoskeleton: forward kinematics of the pad centre and of the distal link
// frame, the Jacobian, damped-least-squares differential inversion and an
// iterative position inverse.
//
// It never talks to a device and never knows about forces or control: it maps
// joint angles to fingertip geometry and back.
//
// # Conventions
//
// SI units (m, rad). The chain is three revolute joints in standard
// Denavit-Hartenberg form, A_i = Rz(q_i+Offset_i) Tz(D_i) Tx(A_i) Rx(Alpha_i);
// joint i turns about the z axis of frame i-1, frame 0 is the device base.
// The pad centre is the point Tool fixed in frame 3 (the distal link, which
// also carries the force sensor). Vectors are [3]float64, matrices Mat3
// (row-major, [row][col]); kernels take the destination first.
//
// # Invariants
//
// A Model is immutable after New and safe for concurrent use. Every method
// is allocation-free.
//
// # References
//
// Siciliano, Sciavicco, Villani, Oriolo: Robotics: Modelling, Planning and
// Control, Springer 2009, §2.8 (DH convention), §3.1 (geometric Jacobian).
//
// Nakamura, Hanafusa: Inverse kinematic solutions with singularity
// robustness for robot manipulator control, J. Dyn. Sys. Meas. Control 108
// (1986) 163-171 (damped least squares).
//
// Chiaverini: Singularity-robust task-priority redundancy resolution for
// real-time kinematic control of robot manipulators, IEEE Trans. Robot.
// Autom. 13(3) (1997) 398-410 (damping from the smallest singular value).
package exo

// Package sim owns the cloth: the mesh, the fabric's tensile and bending
// forces and their Jacobians, the implicit integrator and its conjugate
// gradient solver, finger contact, and what a step publishes (the per-finger
// LocalModel and ContactPatch, and snapshots for rendering).
//
// It never touches a device, a window, the wall clock or the environment:
// time is an argument, and every input arrives as a value.
//
// # Conventions
//
// SI units throughout (m, s, kg, N, Pa, rad). World frame: metres, y up,
// gravity along -y. Fabric frame: (u, v) in metres on the undeformed cloth,
// u along the weft, v along the warp.
package sim

// Package kes owns Kawabata (KES-F) fabric data: the fabric file format
// (FORMAT.md), its validation, the built-in fabric library with the
// provenance of every value, and the pure-data curves and constants derived
// from a fabric (tensile, shear, bending and compression curves, bending
// rigidity, areal mass, thickness, friction, roughness) in SI units.
//
// Kawabata units (gf/cm, gf·cm²/cm, mg/cm², ...) exist only in fabric files;
// every loaded value carries its SI equivalent beside it, and every helper
// returns SI.
//
// Loading never panics: a malformed file gives an error of one line naming
// the file and the field (FieldError, or Error for several problems).
//
// It maps a fabric into the cloth simulation's material (Material; a
// switch between trials blends it in with sim.Cloth.SetMaterial), the
// tactile renderer's surface (SurfaceParams) and the view's look in plain
// values (Appearance), and checks the material mapping by running virtual
// Kawabata tests on the simulation (Check). It never imports device code or
// the rig, and reads no flags or environment: callers pass the user library
// directory.
package kes

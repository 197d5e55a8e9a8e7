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
// The package never imports the simulation, the tactile renderer or any
// device code, and reads no flags or environment: callers pass the user
// library directory. Mapping a Fabric into sim materials and tactile surfaces
// builds on the helpers here.
package kes

// Package tactile turns a finger's contact with the fabric into per-pin
// 40 Hz and 320 Hz amplitudes for a 6 x 4 vibrotactile array, and those
// amplitudes into drive waveforms.
//
// It owns the fabric's pseudo-topology (Surface: a 2D height spectrum from
// Kawabata KES-FB4 values and the weave, plus large-scale non-uniformity
// Maps), the fingertip's mechanics (Fingertip: the contact patch, its
// pressure and the pad's tangential impedance), the receptor-channel model
// (ChannelModel: Pacinian and non-Pacinian threshold curves, per-user
// calibration), the per-frame renderer (Renderer.Step) and the waveform
// synthesiser (Synth). It never imports device, simulation or rendering
// code, reads no clock and keeps no goroutine: the rig fills Contact from
// the simulation's contact patch and the rendered force, copies
// devices.TactileFrame out of FingerFrame, and passes the time.
//
// # The frame
//
// Per finger and frame (HAPTEX tutorial §4.4, Figure 20; Allerkamp et al.
// 2007): the contact patch and the pad's tangential stiffness from the
// normal force and the cloth's curvature (Fingertip); the surface
// spectrum, projected on the slip direction (tabulated for 180 directions
// and interpolated), mapped to temporal frequency with the slip speed, the
// friction's displacement of the pad added through the pad's tangential
// impedance, and weighted by each channel's sensitivity W_c(f) =
// 1/threshold, giving the excitation E_c of the stroke. A40 and A320 are
// then chosen so that the two sines excite both channels as the fabric
// would, 40 Hz counting in the Pacinian channel too, or as nearly as two
// sines can in felt level (metamer.go). Each pin under the patch is placed
// on the fabric with the patch orientation and weighted by the contact
// pressure under it and the large-scale maps there; the finger's gains
// apply, the pin's level is held in the comfortable range of sensation
// level above the finger's thresholds, and the pin's calibration
// corrects it. Out of contact, with no normal force, with invalid input,
// or with the finger at rest, every pin is zero.
//
// # Conventions
//
// SI inside: metres, seconds, newtons, cycles per metre for spatial
// frequency, hertz. Amplitudes are micrometres peak; thresholds are dB re
// 1 µm peak; channel excitations are power ratios to the detection
// threshold (10 log10 E is the sensation level). Fabric coordinates: u
// along the weft, v along the warp, on the undeformed cloth. Pin index =
// row*Cols + col, row 0 at the distal end; the lateral axis is the distal
// axis turned +90° in the fabric plane, column 0 on its negative side.
// Channels are indexed NonPacinian, Pacinian; fingers 0 to NumFingers-1
// in the caller's order.
//
// # Invariants
//
// Surface and Map are immutable after construction and may be shared.
// Renderer.Step and Synth.Render allocate nothing and do not retain their
// arguments; a Renderer or Synth is used from one goroutine, and its
// Set methods must not run concurrently with Step.
//
// # References
//
//   - The HAPTEX tutorial, Eurographics 2007 Tutorial Notes vol. 1
//     (ISSN 1017-4656), §4 (stimulator arrays, drive signals at 40 and
//     320 Hz every 25 ms, the renderer of Figures 19 and 20).
//   - Summers et al., "Results from a tactile array on the fingertip",
//     Eurohaptics 2001 (40 and 320 Hz for the two receptor populations).
//   - Allerkamp, Böttcher, Wolter, Brady, Qu, Summers, "A vibrotactile
//     approach to tactile rendering", The Visual Computer 23:97-108, 2007,
//     doi:10.1007/s00371-006-0031-5.
//   - Bolanowski, Gescheider, Verrillo, Checkosky, "Four channels mediate
//     the mechanical aspects of touch", JASA 84:1680-1694, 1988.
//   - Gescheider & Verrillo, doi:10.1007/978-1-4613-3039-4_10 (threshold
//     shape); Johansson, Landström, Lundström, Brain Res 244:17-25, 1982.
//   - Kawabata, The Standardization and Analysis of Hand Evaluation, 1980
//     (KES-FB4: SMD, MIU, MMD).
//   - Serina, Mote, Rempel, "Force response of the fingertip pulp to
//     repeated compression", J Biomech 30:1035-1040, 1997; Pawluk & Howe,
//     "Dynamic contact of the human fingerpad against a flat surface", J
//     Biomech Eng 121:605-611, 1999 (the pulp's force law, the pressure).
//   - Pataky, Latash, Zatsiorsky, "Viscoelastic response of the finger pad
//     to incremental tangential displacements", J Biomech 38:1441-1449,
//     2005; Wiertlewski & Hayward, "Mechanical behavior of the fingertip in
//     the range of frequencies and displacements relevant to touch", J
//     Biomech 45:1869-1874, 2012 (the pad's tangential impedance).
//   - Verrillo, Fraioli, Smith, "Sensation magnitude of vibrotactile
//     stimuli", Percept Psychophys 6:366-372, 1969 (the comfortable range).
package tactile

// Package device owns the calibration maths of haptex's devices: the
// fingertip force sensor's bias and gain (per axis, or a full 3×3 gain
// matrix with cross-talk) fitted by least squares to known loads, with a
// residual report, and the versioned calibration file that stores them.
//
// It never talks to a device: the `haptex calib force` command applies the
// loads of a LoadPlan, averages the raw readings, and hands the samples to
// FitForce. Encoder zero offsets and link-length refinement belong to the
// exoskeleton kinematics (package haptics), which can reuse
// calib.LinearLeastSquares.
//
// # Model
//
// The sensor reads raw = G·f + b + noise, raw in sensor units (ADC counts
// or volts), f the force on the fingertip in the sensor frame [N], G the
// gain [units/N] and b the bias [units]. Loads are known and readings
// noisy, so G and b are fitted by regressing raw on f (not the reverse,
// which would bias the gain toward zero), and the calibrated force is
// f = G⁻¹·(raw − b). Residuals are reported in newtons as G⁻¹·residual.
package device

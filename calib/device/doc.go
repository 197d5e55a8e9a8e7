// Package device owns the calibration of haptex's devices and the
// versioned files that store it:
//
//   - the fingertip force sensor's bias and gain (per axis, or a full 3×3
//     gain matrix with cross-talk) fitted by least squares to known loads
//     (FitForce, ForceCalibration);
//   - the exoskeleton's kinematics: encoder zero offsets, link lengths,
//     link offsets and twists refined by nonlinear least squares from the
//     encoder readings with the pad held at known jig points, with the
//     identifiability of each parameter and a pose plan that makes the
//     chosen ones identifiable (FitKinematics, Identify, PlanPoses,
//     KinematicCalibration.Apply);
//   - the tactile array's per-pin gain at 40 and 320 Hz from vibrometer
//     measurements, as the corrections tactile.Calibration takes
//     (FitTactile, TactileCalibration).
//
// RunForce, RunKinematics and RunTactile carry out each calibration on a
// device (devices.Exoskeleton, devices.TactileArray) with an operator
// Prompt and a Clock, so that the same code runs interactively on the rig
// (RealClock, a prompt that waits for a key) and unattended on the
// simulated twins (VirtualClock, Jig.Operator, DeliveredVibrometer).
// TwinStand sets up the calibration twin, built with known errors
// (TwinSensorError, TwinKinematics), and runs each calibration on it.
//
// It never renders, never runs a control loop and never keeps a device:
// the runs take one for their duration and leave its motors off and its
// pins silent. An exoskeleton's runs wait for a sample reporting the
// motors off before the first prompt, and stop with an error on one that
// reports them on: a hand or a load goes on a device whose motors its
// own report says are off, and no reading is taken under torque.
//
// # Models
//
// Force: the sensor reads raw = G·f + b + noise, raw in sensor units (ADC
// counts, volts, or the device's own newtons), f the force on the
// fingertip in the sensor frame [N], G the gain [units/N] and b the bias
// [units]. Loads are known and readings noisy, so G and b are fitted by
// regressing raw on f (not the reverse, which would bias the gain toward
// zero), and the calibrated force is f = G⁻¹·(raw − b). Residuals are
// reported in newtons as G⁻¹·residual.
//
// Kinematics: the pad centre is exo.Model's forward kinematics of the
// encoder readings; the parameters minimise Σ|jig point − pad(q)|² over
// the poses (Levenberg-Marquardt with the analytic parameter Jacobian).
// Jig points are in the device base frame (the jig is registered to the
// base). Standard errors come from the linearised problem at the
// solution, σ̂²(JᵀJ)⁻¹ with σ̂² the residual variance.
//
// Tactile: pin p delivers g_p times the commanded amplitude at each
// frequency; g_p in dB is the mean of 20·log10(measured/commanded) over
// the levels, and the correction is −g_p dB.
package device

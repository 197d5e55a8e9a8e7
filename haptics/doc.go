// Package haptics owns the 1 kHz force-feedback servo: evaluation of the
// cloth's LocalModel at the measured fingertips, the explicit force
// controller, the safety envelope and the passivity observer.
//
// It never calls the simulation and never blocks: it reads the latest
// simulation output from a lock-free buffer and talks to devices through the
// devices interfaces.
//
// # The servo
//
// NewServo takes a Config (servo.toml holds the documented defaults,
// DefaultConfig returns them) and one Finger per finger: the device, its
// kinematic model (devices/exo) and its base pose in the world. Servo.Tick(t, in, out, rec) is one period: advance simulated
// devices (devices.Clocked) to t, read both exoskeletons, forward
// kinematics, the cloth's force at the measured pads (continuous across sim
// steps: a jump between two steps is blended out at model.slew_n_per_s),
// the safety envelope, the passivity observer, the force controllers, the
// torque commands, FingerState and the TickRecord. It allocates nothing.
//
// # The force controller
//
// Per finger, after HAPTEX (tutorial §5.4, Fig. 30; Volpe & Khosla 1993):
// the measured and desired forces are low-passed (Butterworth), a PI
// admittance turns their difference into a Cartesian velocity reference
// (set-point weighted, so a force step does not overshoot through the
// proportional term), damped least squares (Chiaverini 1997) turn it into
// joint speed references, and per joint an inner velocity loop (a 3rd-order
// Chebyshev I on the speed error, the speed estimated from encoder
// differences through a Butterworth) produces the torque; a share of
// Jᵀ F_des and partial Coulomb and viscous friction compensation on the
// speed reference are fed forward; torques saturate with conditional
// integration (anti-windup).
//
// In contact the rendered force depends on the device's own position: the
// part the local model's stiffness makes, K (x - X0), is the environment's
// reaction, not a set point, so the proportional term takes it whole, and
// the force gains are scaled down with the rendered stiffness so that the
// position loop the contact closes stays inside the velocity loop's
// bandwidth. The integrator holds the admittance's speed, the speed of a
// virtual mass of tens of grams: at first contact a share of its speed
// into the cloth (beyond the cloth's own) is dropped, and in contact it is
// damped in proportion to the stiffness, so the device does not carry its
// approach into the cloth. The encoders read the motors; the pad is
// located from them minus the cables' stretch under the load the links
// carry (the force sensor's reading through Jᵀ and the identified cable
// stiffness, drive.transmission_stiffness_nm_per_rad).
//
// # Safety
//
// Each finger is in one State (safe, enabling, active, stopping) with a
// Reason. Faults (device gone or erroring, silent for more than
// safety.silent_ms of the loop's own time, a streak of late ticks, a host
// clock that runs back, NaN or Inf in a sample, the model or the
// controller, a model that breaks sim.LocalModel's contract (a normal
// not of unit length, K not symmetric negative semi-definite, a drift
// faster than safety.max_speed_mps, the touching pad more than 5 cm from
// the point of a model with a stiffness), a sensor spike, a force or
// speed trip, device fault bits, a power stage that goes off, or does not
// report itself on within safety.enable_wait_ms of the enable) ramp the
// torque to zero within safety.stop_ramp_ms, never above the torque held
// at the fault (a vanished device, or a clock that ran back before the
// stop began, is zeroed at once) and switch the power stage off; after
// safety.recover_ms of health the finger is re-enabled with the enable
// ramp. Enabling never waits for the device
// inside the tick. The rendered force is clamped in magnitude (every tick
// records whether the cloth's force was capped) and rate, and the
// stiffness of a local model to model.max_stiffness_npm (by default half
// the device's measured Z-width, so that no stiffness outside the stable
// region is rendered; 0 takes Colgate's bound 2b/T); every tick records
// the stiffness asked and whether it was limited. A passivity observer (Hannaford & Ryu) sums, with a memory of
// passivity.leak_ms, the energy the device and controller add beyond the
// force they were asked for; below -passivity.bound_j its controller adds
// damping to the force loop's admittance. The TickRecord holds both the cloth's own force at the measured
// pad (ForceDes) and what the servo rendered towards (ForceCmd);
// ContactTracking measures from the records how closely the fingertip
// force follows the cloth's in contact.
//
// The servo also checks the device against what it knows without it
// (safety.go, docs/safety.md): a device that declares more than the
// host's [limits] is refused (LimitsConfig.CheckSpec); the commanded
// torques are bounded so that the fingertip force they imply through the
// kinematics, beyond the drive's declared friction, stays within the
// continuous force limit whatever the force sensor says; a force sample
// that disagrees with the torques (sensor-implausible), a joint reading
// outside the declared range (joint-range) or a device clock that jumps
// (clock-jump) trips the finger. A safe finger's Confirm says whether the
// device has confirmed its power stage off; one whose samples keep
// reporting it on trips stays-enabled. Servo.Stop ends the session the
// same way (reason stopped, not a trip): no device is left enabled
// holding its last command when the loop stops.
//
// # Conventions
//
// SI units; vectors in the world frame (metres, y up) unless a name says
// base or sensor frame; forces are those of the device on the finger.
// Time is explicit: the servo never reads a clock.
//
// # References
//
// Volpe, Khosla: A theoretical and experimental investigation of explicit
// force control strategies for manipulators, IEEE Trans. Autom. Control
// 38(11) (1993) 1634-1650.
//
// Colgate, Schenkel: Passivity of a class of sampled-data systems:
// application to haptic interfaces, J. Robotic Systems 14(1) (1997) 37-47.
//
// Hannaford, Ryu: Time-domain passivity control of haptic interfaces, IEEE
// Trans. Robot. Autom. 18(1) (2002) 1-10.
//
// Åström, Hägglund: Advanced PID Control, ISA 2006 (set-point weighting,
// conditional integration).
package haptics

package haptics

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/BurntSushi/toml"
)

//go:embed servo.toml
var defaultConfigTOML []byte

// Config is the servo's configuration: gains, filter corners and the
// safety envelope. DefaultConfig holds the documented defaults (servo.toml,
// whose keys name their units); durations are time.Duration here, decoded
// from the file's milliseconds once, at load.
type Config struct {
	Period    time.Duration // nominal tick period
	Force     ForceConfig
	DLS       DLSConfig
	Velocity  VelocityConfig
	Model     ModelConfig
	Safety    SafetyConfig
	Limits    LimitsConfig
	Passivity PassivityConfig
	Drive     DriveConfig
}

// DriveConfig is what the servo knows of the device's drive train.
type DriveConfig struct {
	// TransmissionStiffness is each joint's identified cable stiffness
	// between motor and link [N·m/rad]: the servo locates the pad from
	// the motor encoders minus the stretch under the load the link
	// carries. 0: a rigid transmission.
	TransmissionStiffness [3]float64 `toml:"transmission_stiffness_nm_per_rad"`
	// The drive's friction and inertia at the joint output, as identified:
	// the torque bound allows for the friction (safety.go), the
	// plausibility check for friction and inertia.
	Coulomb [3]float64 `toml:"coulomb_nm"`   // Coulomb friction per joint [N·m]
	Viscous [3]float64 `toml:"viscous_nms"`  // viscous friction per joint [N·m·s/rad]
	Inertia [3]float64 `toml:"inertia_kgm2"` // reflected rotor inertia per joint [kg·m²]
	Slip    float64    `toml:"slip_rps"`     // joint speed from which the torque bound counts on the whole Coulomb friction [rad/s]
}

// ForceConfig is the outer force loop.
type ForceConfig struct {
	Kf             float64 `toml:"kf_mps_per_n"`  // proportional gain [(m/s)/N]
	Ki             float64 `toml:"ki_mps2_per_n"` // integral gain [(m/s²)/N]
	ButterOrder    int     `toml:"butter_order"`
	ButterHz       float64 `toml:"butter_hz"`
	ReferenceHz    float64 `toml:"reference_hz"`          // corner of the desired-force filter; 0 = butter_hz
	VMax           float64 `toml:"vmax_mps"`              // velocity reference limit [m/s]
	Feedforward    float64 `toml:"feedforward"`           // share of Jᵀ F_des sent to the motors directly
	SetpointWeight float64 `toml:"setpoint_weight"`       // β: the proportional term acts on β (F_des - F_stiff) + F_stiff - F_meas
	StiffBandwidth float64 `toml:"stiff_bandwidth_rad_s"` // ω_K: gain scaling against rendered stiffness; 0 = off
	StiffIntegral  float64 `toml:"stiff_integral_rad_s"`  // ω_I: the integral gain scales by 1/(1 + K_i k/ω_I²) while rendering stiffness k; 0 = as the proportional gain
	OnsetStop      bool    `toml:"onset_stop"`            // at first contact, drop a share of the admittance's speed into the cloth beyond the cloth's own
	OnsetStopNpm   float64 `toml:"onset_stop_npm"`        // k_s: the share dropped is k/(k + k_s) for a contact of normal stiffness k [N/m]; 0 = all
	ContactTau     float64 `toml:"contact_tau_s"`         // τ_c: in contact, damp the admittance's speed into the cloth with k·τ_c [s]; 0 = off
	ContactRest    float64 `toml:"contact_rest_mps"`      // while the pad moves slower than this, damp only the speed into the cloth it makes [m/s]; 0 = damp the admittance's speed always
}

// DLSConfig is the damped-least-squares inverse Jacobian.
type DLSConfig struct {
	LambdaMax float64 `toml:"lambda_max_m"`
	SigmaMin  float64 `toml:"sigma_min_m"`
}

// VelocityConfig is the inner joint velocity loop.
type VelocityConfig struct {
	Kv            [3]float64 `toml:"kv_nms"` // [N·m·s/rad]
	Ki            [3]float64 `toml:"ki_nm"`  // [N·m/rad]
	ChebyOrder    int        `toml:"cheby_order"`
	ChebyRippleDB float64    `toml:"cheby_ripple_db"`
	ChebyHz       float64    `toml:"cheby_hz"`
	SpeedOrder    int        `toml:"speed_filter_order"`
	SpeedHz       float64    `toml:"speed_filter_hz"`
	Friction      [3]float64 `toml:"friction_nm"`        // Coulomb friction compensated per joint [N·m]
	FrictionWidth float64    `toml:"friction_width_rps"` // joint speed reference of full compensation [rad/s]
	Viscous       [3]float64 `toml:"viscous_nms"`        // viscous friction compensated per joint on the speed reference [N·m·s/rad]
}

// ModelConfig governs how the cloth's LocalModel is rendered.
type ModelConfig struct {
	SlewNPerS       float64 `toml:"slew_n_per_s"`
	MaxStiffness    float64 `toml:"max_stiffness_npm"`
	PhysicalDamping float64 `toml:"physical_damping_nspm"`
}

// SafetyConfig is the per-finger safety envelope (servo.toml's [safety]).
type SafetyConfig struct {
	MaxForce      float64       // clamp on the rendered force [N]; 0: the device's MaxForceCont
	MaxForceRate  float64       // rate limit of the rendered force [N/s]
	TripForce     float64       // measured force that trips the finger [N]; 0: 1.5 x the device's MaxForcePeak
	MaxForceJump  float64       // a larger sample-to-sample change of the measured force is a sensor spike [N]
	MaxSpeed      float64       // pad speed that trips the finger [m/s]
	EnableRamp    time.Duration // torque and force ramp from 0 on enable
	EnableWait    time.Duration // how long a device may take to report its power stage on after enable
	StopRamp      time.Duration // torque ramp to 0 on a fault
	Silent        time.Duration // a device with no new sample for longer, in the loop's own time (its stalls not counted), is silent
	OverrunStreak int           // this many late ticks in a row trip both fingers
	OverrunFactor float64       // a tick later than this many periods after the previous one is late
	Recover       time.Duration // healthy time before a tripped finger is re-enabled

	// Checks of the device against the host's model (safety.go).
	PlausibleForce float64       // largest tolerated disagreement of the force sensor with the torque-implied force [N]
	PlausibleTime  time.Duration // how long a larger disagreement may last before it trips
	DisableWait    time.Duration // how long after the host switched the power stage off the device may still report it on
	ClockJump      time.Duration // how far the device's clock may run ahead of the host's between two samples
}

// ForceBound is the clamp on the rendered force for a device whose
// continuous force rating is maxForceCont [N]: MaxForce, or the rating
// where MaxForce is 0.
func (c SafetyConfig) ForceBound(maxForceCont float64) float64 {
	if c.MaxForce == 0 {
		return maxForceCont
	}
	return c.MaxForce
}

// LimitsConfig is what the host allows whatever a device declares
// (servo.toml's [limits]): a device that declares more is refused
// (CheckSpec), and no device is driven past them.
type LimitsConfig struct {
	MaxForceCont float64    `toml:"max_force_cont_n"` // largest continuous fingertip force a device may declare [N]
	MaxForcePeak float64    `toml:"max_force_peak_n"` // largest peak fingertip force a device may declare [N]
	MaxTorque    [3]float64 `toml:"max_torque_nm"`    // largest joint torque a device may declare, per joint [N·m]
	JointRange   float64    `toml:"joint_range_rad"`  // declared joint limits must lie within ±JointRange [rad]
	JointMargin  float64    `toml:"joint_margin_rad"` // a reading this far outside the declared range trips [rad]
}

// PassivityConfig is the time-domain passivity observer and controller.
type PassivityConfig struct {
	Enabled    bool    `toml:"enabled"`
	Bound      float64 `toml:"bound_j"`
	MaxDamping float64 `toml:"max_damping_nspm"`
	// LeakMs is the observer's memory [ms]: the energy it holds decays
	// with this time constant, so a steady non-passive flow settles at
	// power x leak instead of accumulating; the controller thus tolerates
	// Bound/leak of steady flow. 0 keeps every joule (the classic
	// observer).
	LeakMs float64 `toml:"leak_ms"`
}

// configFile is the layout of servo.toml, durations in the milliseconds
// their keys name. Its Go field names are the JSON keys the servo's
// configuration has always had in session.json, so it is the JSON form too.
type configFile struct {
	PeriodMs  float64         `toml:"period_ms"`
	Force     ForceConfig     `toml:"force"`
	DLS       DLSConfig       `toml:"dls"`
	Velocity  VelocityConfig  `toml:"velocity"`
	Model     ModelConfig     `toml:"model"`
	Safety    safetyFile      `toml:"safety"`
	Limits    LimitsConfig    `toml:"limits"`
	Passivity PassivityConfig `toml:"passivity"`
	Drive     DriveConfig     `toml:"drive"`
}

type safetyFile struct {
	MaxForce      float64 `toml:"max_force_n"`
	MaxForceRate  float64 `toml:"max_force_rate_n_per_s"`
	TripForce     float64 `toml:"trip_force_n"`
	MaxForceJump  float64 `toml:"max_force_jump_n"`
	MaxSpeed      float64 `toml:"max_speed_mps"`
	EnableRampMs  float64 `toml:"enable_ramp_ms"`
	EnableWaitMs  float64 `toml:"enable_wait_ms"`
	StopRampMs    float64 `toml:"stop_ramp_ms"`
	SilentMs      float64 `toml:"silent_ms"`
	OverrunStreak int     `toml:"overrun_streak"`
	OverrunFactor float64 `toml:"overrun_factor"`
	RecoverMs     float64 `toml:"recover_ms"`

	PlausibleForce float64 `toml:"plausible_force_n"`
	PlausibleMs    float64 `toml:"plausible_ms"`
	DisableWaitMs  float64 `toml:"disable_wait_ms"`
	ClockJumpMs    float64 `toml:"clock_jump_ms"`
}

// file returns c in the file's units.
func (c *Config) file() configFile {
	s := &c.Safety
	return configFile{
		PeriodMs: ms(c.Period), Force: c.Force, DLS: c.DLS, Velocity: c.Velocity, Model: c.Model,
		Safety: safetyFile{
			MaxForce: s.MaxForce, MaxForceRate: s.MaxForceRate, TripForce: s.TripForce,
			MaxForceJump: s.MaxForceJump, MaxSpeed: s.MaxSpeed,
			EnableRampMs: ms(s.EnableRamp), EnableWaitMs: ms(s.EnableWait), StopRampMs: ms(s.StopRamp),
			SilentMs: ms(s.Silent), OverrunStreak: s.OverrunStreak, OverrunFactor: s.OverrunFactor,
			RecoverMs:      ms(s.Recover),
			PlausibleForce: s.PlausibleForce, PlausibleMs: ms(s.PlausibleTime),
			DisableWaitMs: ms(s.DisableWait), ClockJumpMs: ms(s.ClockJump),
		},
		Limits:    c.Limits,
		Passivity: c.Passivity, Drive: c.Drive,
	}
}

// config decodes the file's durations.
func (f *configFile) config() (Config, error) {
	s := &f.Safety
	var errs []error
	dur := func(key string, v float64) time.Duration {
		d, err := fromMs(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("haptics: %s = %g: %w", key, v, err))
		}
		return d
	}
	c := Config{
		Period: dur("period_ms", f.PeriodMs), Force: f.Force, DLS: f.DLS, Velocity: f.Velocity, Model: f.Model,
		Safety: SafetyConfig{
			MaxForce: s.MaxForce, MaxForceRate: s.MaxForceRate, TripForce: s.TripForce,
			MaxForceJump: s.MaxForceJump, MaxSpeed: s.MaxSpeed,
			EnableRamp:    dur("safety.enable_ramp_ms", s.EnableRampMs),
			EnableWait:    dur("safety.enable_wait_ms", s.EnableWaitMs),
			StopRamp:      dur("safety.stop_ramp_ms", s.StopRampMs),
			Silent:        dur("safety.silent_ms", s.SilentMs),
			OverrunStreak: s.OverrunStreak, OverrunFactor: s.OverrunFactor,
			Recover:        dur("safety.recover_ms", s.RecoverMs),
			PlausibleForce: s.PlausibleForce,
			PlausibleTime:  dur("safety.plausible_ms", s.PlausibleMs),
			DisableWait:    dur("safety.disable_wait_ms", s.DisableWaitMs),
			ClockJump:      dur("safety.clock_jump_ms", s.ClockJumpMs),
		},
		Limits:    f.Limits,
		Passivity: f.Passivity, Drive: f.Drive,
	}
	return c, errors.Join(errs...)
}

// ms is d in milliseconds, the unit of the file's keys.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// fromMs is the duration of v milliseconds, to the nearest nanosecond.
func fromMs(v float64) (time.Duration, error) {
	ns := math.Round(v * float64(time.Millisecond))
	if math.IsNaN(ns) || math.Abs(ns) >= math.MaxInt64 {
		return 0, errors.New("not a duration")
	}
	return time.Duration(ns), nil
}

// MarshalJSON writes the configuration in the file's units, under the keys
// session.json has always used.
func (c Config) MarshalJSON() ([]byte, error) { return json.Marshal(c.file()) }

// UnmarshalJSON reads what MarshalJSON wrote. Into a zero Config, keys
// the JSON lacks (a session recorded before they existed) take the
// defaults.
func (c *Config) UnmarshalJSON(data []byte) error {
	base := *c
	if base == (Config{}) {
		base = DefaultConfig()
	}
	f := base.file()
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	d, err := f.config()
	if err != nil {
		return err
	}
	*c = d
	return nil
}

// DefaultConfig returns the embedded defaults.
func DefaultConfig() Config {
	c, err := decodeConfig(defaultConfigTOML)
	if err != nil {
		panic("haptics: embedded servo.toml: " + err.Error())
	}
	return c
}

// decodeConfig reads a configuration in the servo.toml format; unknown
// keys are an error.
func decodeConfig(data []byte) (Config, error) {
	var f configFile
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		return Config{}, fmt.Errorf("haptics: servo configuration: %w", err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return Config{}, fmt.Errorf("haptics: servo configuration: unknown key %q", und[0].String())
	}
	c, err := f.config()
	if err != nil {
		return Config{}, err
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// Validate checks ranges; filter corners are checked against the period.
func (c *Config) Validate() error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf("haptics: "+format, args...))
		}
	}
	fin := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	pos := func(v float64) bool { return v > 0 && fin(v) }
	nonneg := func(v float64) bool { return v >= 0 && fin(v) }
	check(c.Period > 0, "period_ms = %g, want > 0", ms(c.Period))
	nyq := 0.5 / c.Period.Seconds()
	check(nonneg(c.Force.Kf), "force.kf_mps_per_n = %g, want >= 0", c.Force.Kf)
	check(nonneg(c.Force.Ki), "force.ki_mps2_per_n = %g, want >= 0", c.Force.Ki)
	check(c.Force.ButterOrder >= 1 && c.Force.ButterOrder <= 8, "force.butter_order = %d, want 1..8", c.Force.ButterOrder)
	check(pos(c.Force.ButterHz) && c.Force.ButterHz < nyq, "force.butter_hz = %g, want in (0, %g)", c.Force.ButterHz, nyq)
	check(nonneg(c.Force.ReferenceHz) && c.Force.ReferenceHz < nyq, "force.reference_hz = %g, want in [0, %g)", c.Force.ReferenceHz, nyq)
	check(pos(c.Force.VMax), "force.vmax_mps = %g, want > 0", c.Force.VMax)
	check(c.Force.Feedforward >= 0 && c.Force.Feedforward <= 1, "force.feedforward = %g, want 0..1", c.Force.Feedforward)
	check(nonneg(c.Force.StiffBandwidth), "force.stiff_bandwidth_rad_s = %g, want >= 0", c.Force.StiffBandwidth)
	check(nonneg(c.Force.StiffIntegral), "force.stiff_integral_rad_s = %g, want >= 0", c.Force.StiffIntegral)
	check(nonneg(c.Force.ContactTau), "force.contact_tau_s = %g, want >= 0", c.Force.ContactTau)
	check(nonneg(c.Force.ContactRest), "force.contact_rest_mps = %g, want >= 0", c.Force.ContactRest)
	check(nonneg(c.Force.OnsetStopNpm), "force.onset_stop_npm = %g, want >= 0", c.Force.OnsetStopNpm)
	check(c.Force.SetpointWeight >= 0 && c.Force.SetpointWeight <= 1, "force.setpoint_weight = %g, want 0..1", c.Force.SetpointWeight)
	check(nonneg(c.Velocity.FrictionWidth), "velocity.friction_width_rps = %g, want >= 0", c.Velocity.FrictionWidth)
	check(pos(c.DLS.LambdaMax), "dls.lambda_max_m = %g, want > 0", c.DLS.LambdaMax)
	check(pos(c.DLS.SigmaMin), "dls.sigma_min_m = %g, want > 0", c.DLS.SigmaMin)
	for i := range 3 {
		check(nonneg(c.Velocity.Kv[i]), "velocity.kv_nms[%d] = %g, want >= 0", i, c.Velocity.Kv[i])
		check(nonneg(c.Velocity.Ki[i]), "velocity.ki_nm[%d] = %g, want >= 0", i, c.Velocity.Ki[i])
		check(nonneg(c.Velocity.Friction[i]), "velocity.friction_nm[%d] = %g, want >= 0", i, c.Velocity.Friction[i])
		check(nonneg(c.Velocity.Viscous[i]), "velocity.viscous_nms[%d] = %g, want >= 0", i, c.Velocity.Viscous[i])
	}
	check(c.Velocity.ChebyOrder >= 1 && c.Velocity.ChebyOrder <= 8, "velocity.cheby_order = %d, want 1..8", c.Velocity.ChebyOrder)
	check(pos(c.Velocity.ChebyRippleDB), "velocity.cheby_ripple_db = %g, want > 0", c.Velocity.ChebyRippleDB)
	check(pos(c.Velocity.ChebyHz) && c.Velocity.ChebyHz < nyq, "velocity.cheby_hz = %g, want in (0, %g)", c.Velocity.ChebyHz, nyq)
	check(c.Velocity.SpeedOrder >= 1 && c.Velocity.SpeedOrder <= 8, "velocity.speed_filter_order = %d, want 1..8", c.Velocity.SpeedOrder)
	check(pos(c.Velocity.SpeedHz) && c.Velocity.SpeedHz < nyq, "velocity.speed_filter_hz = %g, want in (0, %g)", c.Velocity.SpeedHz, nyq)
	check(nonneg(c.Model.SlewNPerS), "model.slew_n_per_s = %g, want >= 0", c.Model.SlewNPerS)
	check(nonneg(c.Model.MaxStiffness), "model.max_stiffness_npm = %g, want >= 0", c.Model.MaxStiffness)
	check(c.Model.MaxStiffness > 0 || pos(c.Model.PhysicalDamping), "model.physical_damping_nspm = %g, want > 0 when max_stiffness_npm is 0", c.Model.PhysicalDamping)
	s := &c.Safety
	check(nonneg(s.MaxForce), "safety.max_force_n = %g, want >= 0", s.MaxForce)
	check(pos(s.MaxForceRate), "safety.max_force_rate_n_per_s = %g, want > 0", s.MaxForceRate)
	check(nonneg(s.TripForce), "safety.trip_force_n = %g, want >= 0", s.TripForce)
	check(pos(s.MaxForceJump), "safety.max_force_jump_n = %g, want > 0", s.MaxForceJump)
	check(pos(s.MaxSpeed), "safety.max_speed_mps = %g, want > 0", s.MaxSpeed)
	check(s.EnableRamp >= 0, "safety.enable_ramp_ms = %g, want >= 0", ms(s.EnableRamp))
	check(s.EnableWait > 0, "safety.enable_wait_ms = %g, want > 0", ms(s.EnableWait))
	check(s.StopRamp >= 0 && s.StopRamp <= 10*time.Millisecond, "safety.stop_ramp_ms = %g, want 0..10 (the 10 ms stop budget)", ms(s.StopRamp))
	check(s.Silent > 0, "safety.silent_ms = %g, want > 0", ms(s.Silent))
	check(s.OverrunStreak >= 1, "safety.overrun_streak = %d, want >= 1", s.OverrunStreak)
	check(s.OverrunFactor > 1 && fin(s.OverrunFactor), "safety.overrun_factor = %g, want > 1", s.OverrunFactor)
	check(s.Recover >= 0, "safety.recover_ms = %g, want >= 0", ms(s.Recover))
	check(pos(s.PlausibleForce), "safety.plausible_force_n = %g, want > 0", s.PlausibleForce)
	check(s.PlausibleTime >= 0, "safety.plausible_ms = %g, want >= 0", ms(s.PlausibleTime))
	check(s.DisableWait > 0, "safety.disable_wait_ms = %g, want > 0", ms(s.DisableWait))
	check(s.ClockJump > 0, "safety.clock_jump_ms = %g, want > 0", ms(s.ClockJump))
	for i := range 3 {
		check(nonneg(c.Drive.Coulomb[i]), "drive.coulomb_nm[%d] = %g, want >= 0", i, c.Drive.Coulomb[i])
		check(nonneg(c.Drive.Viscous[i]), "drive.viscous_nms[%d] = %g, want >= 0", i, c.Drive.Viscous[i])
		check(nonneg(c.Drive.Inertia[i]), "drive.inertia_kgm2[%d] = %g, want >= 0", i, c.Drive.Inertia[i])
	}
	check(pos(c.Drive.Slip), "drive.slip_rps = %g, want > 0", c.Drive.Slip)
	l := &c.Limits
	check(pos(l.MaxForceCont), "limits.max_force_cont_n = %g, want > 0", l.MaxForceCont)
	check(pos(l.MaxForcePeak) && l.MaxForcePeak >= l.MaxForceCont, "limits.max_force_peak_n = %g, want >= limits.max_force_cont_n", l.MaxForcePeak)
	for i := range 3 {
		check(pos(l.MaxTorque[i]), "limits.max_torque_nm[%d] = %g, want > 0", i, l.MaxTorque[i])
	}
	check(pos(l.JointRange), "limits.joint_range_rad = %g, want > 0", l.JointRange)
	check(nonneg(l.JointMargin), "limits.joint_margin_rad = %g, want >= 0", l.JointMargin)
	check(s.MaxForce <= l.MaxForceCont, "safety.max_force_n = %g, want <= limits.max_force_cont_n = %g", s.MaxForce, l.MaxForceCont)
	check(nonneg(c.Passivity.Bound), "passivity.bound_j = %g, want >= 0", c.Passivity.Bound)
	check(nonneg(c.Passivity.MaxDamping), "passivity.max_damping_nspm = %g, want >= 0", c.Passivity.MaxDamping)
	check(nonneg(c.Passivity.LeakMs), "passivity.leak_ms = %g, want >= 0", c.Passivity.LeakMs)
	for i, k := range c.Drive.TransmissionStiffness {
		check(nonneg(k), "drive.transmission_stiffness_nm_per_rad[%d] = %g, want >= 0", i, k)
	}
	return errors.Join(errs...)
}

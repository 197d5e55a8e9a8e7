package twin

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/haptex/haptex/devices/exo"
)

//go:embed exo.toml
var defaultExoTOML []byte

// ExoParams is the device description of a simulated fingertip exoskeleton
// and the finger strapped into it. The embedded exo.toml holds the
// defaults, each with its source; its sample_period_ms is decoded into
// SamplePeriod once, at load.
type ExoParams struct {
	Model        string          `toml:"model"`
	Serial       string          `toml:"serial"`
	Seed         uint64          `toml:"seed"`       // sensor-noise PRNG seed
	SamplePeriod time.Duration   `toml:"-" json:"-"` // device sample and command period
	Substeps     int             `toml:"substeps"`   // integration substeps per sample
	Kinematics   exo.Params      `toml:"kinematics"`
	Drive        DriveParams     `toml:"drive"`
	Links        [3]LinkParams   `toml:"link"`
	Sensor       SensorParams    `toml:"sensor"`
	Transport    TransportParams `toml:"transport"`
	Rating       RatingParams    `toml:"rating"`
	Finger       FingerParams    `toml:"finger"`
	Pulp         PulpParams      `toml:"pulp"`
}

// exoParamsFile is exo.toml's layout: ExoParams with the sample period in
// the milliseconds its key names. It is also the JSON form, with the keys
// session.json has always had.
type exoParamsFile struct {
	exoParamsFields
	SamplePeriodMs float64 `toml:"sample_period_ms"`
}

// exoParamsFields is ExoParams without its methods, so that embedding it
// does not give exoParamsFile ExoParams's MarshalJSON.
type exoParamsFields ExoParams

func (p *ExoParams) file() exoParamsFile {
	return exoParamsFile{exoParamsFields(*p), float64(p.SamplePeriod) / float64(time.Millisecond)}
}

func (f *exoParamsFile) params() (ExoParams, error) {
	p := ExoParams(f.exoParamsFields)
	ns := math.Round(f.SamplePeriodMs * float64(time.Millisecond))
	if math.IsNaN(ns) || math.Abs(ns) >= math.MaxInt64 {
		return ExoParams{}, fmt.Errorf("devices/twin: sample_period_ms = %g, not a duration", f.SamplePeriodMs)
	}
	p.SamplePeriod = time.Duration(ns)
	return p, nil
}

// MarshalJSON writes the description with the sample period in
// milliseconds, under the keys session.json has always used.
func (p ExoParams) MarshalJSON() ([]byte, error) { return json.Marshal(p.file()) }

// UnmarshalJSON reads what MarshalJSON wrote.
func (p *ExoParams) UnmarshalJSON(data []byte) error {
	f := p.file()
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	q, err := f.params()
	if err != nil {
		return err
	}
	*p = q
	return nil
}

// DriveParams describes motors, gears, transmission, friction and
// encoders. Torques, friction and the transmission's stiffness are at the
// joint output (motor-side values times the gear ratio, squared for
// stiffness and inertia).
//
// With a transmission stiffness the drive of a joint is two bodies: the
// rotor (its reflected inertia, where the motor torque, the friction and
// the encoder act) and the link, joined by the cable as a spring and
// damper. A stiffness of 0 makes the transmission rigid.
type DriveParams struct {
	GearRatio     [3]float64 `toml:"gear_ratio"`
	RotorInertia  [3]float64 `toml:"rotor_inertia_kgm2"` // motor side [kg·m²]
	MaxTorque     [3]float64 `toml:"max_torque_nm"`      // [N·m]
	Coulomb       [3]float64 `toml:"coulomb_nm"`         // [N·m]
	Viscous       [3]float64 `toml:"viscous_nms"`        // [N·m·s/rad]
	EncoderCounts float64    `toml:"encoder_counts_per_rev"`
	// TransmissionStiffness is the cable's stiffness between rotor and
	// link [N·m/rad]; 0: rigid.
	TransmissionStiffness [3]float64 `toml:"transmission_stiffness_nm_per_rad"`
	// TransmissionDamping is the cable's internal damping [N·m·s/rad].
	TransmissionDamping [3]float64 `toml:"transmission_damping_nms_per_rad"`
}

// LinkParams is one link as a rigid body.
type LinkParams struct {
	Mass    float64    `toml:"mass_kg"`
	COM     [3]float64 `toml:"com_m"`        // centre of mass in the link's DH frame [m]
	Inertia [3]float64 `toml:"inertia_kgm2"` // principal inertia about the COM, frame axes [kg·m²]
}

// SensorParams describes the 3-axis force sensor on the end plate.
type SensorParams struct {
	NoiseRMS   float64    `toml:"noise_rms_n"`  // per axis [N]
	Bias       [3]float64 `toml:"bias_n"`       // sensor frame [N]
	Gain       [3]float64 `toml:"gain"`         // per-axis sensitivity relative to nominal [-]; calibration measures it
	Resolution float64    `toml:"resolution_n"` // quantisation step [N]
}

// TransportParams sets the delays between the device and the servo.
type TransportParams struct {
	SensorDelay  int `toml:"sensor_delay_samples"`
	CommandDelay int `toml:"command_delay_samples"`
}

// RatingParams are the fingertip force ratings reported in ExoSpec.
type RatingParams struct {
	MaxForceCont float64 `toml:"max_force_cont_n"`
	MaxForcePeak float64 `toml:"max_force_peak_n"`
}

// FingerParams is the human finger as a mass-spring-damper on its intent.
type FingerParams struct {
	Mass      float64 `toml:"mass_kg"`
	Stiffness float64 `toml:"stiffness_npm"`
	Damping   float64 `toml:"damping_nspm"`
}

// PulpParams is the coupling between the finger pad and the end plate.
type PulpParams struct {
	Stiffness float64 `toml:"stiffness_npm"`
	Damping   float64 `toml:"damping_nspm"`
}

// maxDelay bounds the transport delays (samples).
const maxDelay = 8

// DefaultExoParams returns the embedded default description.
func DefaultExoParams() ExoParams {
	p, err := decodeExoParams(defaultExoTOML)
	if err != nil {
		panic("devices/twin: embedded exo.toml: " + err.Error())
	}
	return p
}

// decodeExoParams reads a description in the exo.toml format; unknown keys
// are an error.
func decodeExoParams(data []byte) (ExoParams, error) {
	var f exoParamsFile
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		return ExoParams{}, fmt.Errorf("devices/twin: exoskeleton description: %w", err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return ExoParams{}, fmt.Errorf("devices/twin: exoskeleton description: unknown key %q", und[0].String())
	}
	p, err := f.params()
	if err != nil {
		return ExoParams{}, err
	}
	if err := p.Validate(); err != nil {
		return ExoParams{}, err
	}
	return p, nil
}

// Validate checks that every parameter is finite and physically meaningful.
func (p *ExoParams) Validate() error {
	if _, err := exo.New(p.Kinematics); err != nil {
		return fmt.Errorf("devices/twin: %w", err)
	}
	pos := func(name string, v float64) error {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("devices/twin: %s = %g, want a positive finite value", name, v)
		}
		return nil
	}
	nonneg := func(name string, v float64) error {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("devices/twin: %s = %g, want a finite value >= 0", name, v)
		}
		return nil
	}
	finite := func(name string, v float64) error {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("devices/twin: %s = %g, want a finite value", name, v)
		}
		return nil
	}
	var errs []error
	for i := range 3 {
		if k := p.Drive.TransmissionStiffness[i]; k > 0 && (!(p.Drive.RotorInertia[i] > 0) || !(p.Links[i].Mass > 0)) {
			errs = append(errs, fmt.Errorf("devices/twin: drive.transmission_stiffness_nm_per_rad[%d] = %g needs a rotor inertia and a link mass > 0 on both sides of the cable", i, k))
		}
	}
	if p.SamplePeriod <= 0 {
		errs = append(errs, fmt.Errorf("devices/twin: sample_period_ms = %g, want a positive finite value", float64(p.SamplePeriod)/float64(time.Millisecond)))
	}
	if p.Substeps < 1 || p.Substeps > 1000 {
		errs = append(errs, fmt.Errorf("devices/twin: substeps = %d, want 1..1000", p.Substeps))
	}
	for i := range 3 {
		j := fmt.Sprintf("[%d]", i)
		errs = append(errs,
			pos("drive.gear_ratio"+j, p.Drive.GearRatio[i]),
			nonneg("drive.rotor_inertia_kgm2"+j, p.Drive.RotorInertia[i]),
			pos("drive.max_torque_nm"+j, p.Drive.MaxTorque[i]),
			nonneg("drive.coulomb_nm"+j, p.Drive.Coulomb[i]),
			nonneg("drive.viscous_nms"+j, p.Drive.Viscous[i]),
			nonneg("drive.transmission_stiffness_nm_per_rad"+j, p.Drive.TransmissionStiffness[i]),
			nonneg("drive.transmission_damping_nms_per_rad"+j, p.Drive.TransmissionDamping[i]),
			nonneg("link.mass_kg"+j, p.Links[i].Mass),
			finite("sensor.bias_n"+j, p.Sensor.Bias[i]),
			pos("sensor.gain"+j, p.Sensor.Gain[i]),
		)
		for k := range 3 {
			errs = append(errs, finite("link.com_m", p.Links[i].COM[k]), nonneg("link.inertia_kgm2", p.Links[i].Inertia[k]))
		}
	}
	errs = append(errs,
		pos("drive.encoder_counts_per_rev", p.Drive.EncoderCounts),
		nonneg("sensor.noise_rms_n", p.Sensor.NoiseRMS),
		nonneg("sensor.resolution_n", p.Sensor.Resolution),
		pos("rating.max_force_cont_n", p.Rating.MaxForceCont),
		pos("rating.max_force_peak_n", p.Rating.MaxForcePeak),
		pos("finger.mass_kg", p.Finger.Mass),
		nonneg("finger.stiffness_npm", p.Finger.Stiffness),
		nonneg("finger.damping_nspm", p.Finger.Damping),
		pos("pulp.stiffness_npm", p.Pulp.Stiffness),
		nonneg("pulp.damping_nspm", p.Pulp.Damping),
	)
	for _, d := range []struct {
		name string
		v    int
	}{{"transport.sensor_delay_samples", p.Transport.SensorDelay}, {"transport.command_delay_samples", p.Transport.CommandDelay}} {
		if d.v < 0 || d.v > maxDelay {
			errs = append(errs, fmt.Errorf("devices/twin: %s = %d, want 0..%d", d.name, d.v, maxDelay))
		}
	}
	return errors.Join(errs...)
}

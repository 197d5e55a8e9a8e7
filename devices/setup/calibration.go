package setup

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"time"

	"github.com/haptex/haptex/calib/device"
	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/record"
	"github.com/haptex/haptex/internal/safefile"
)

// An exoskeleton's calibration files (haptex calib force and haptex calib
// kinematics) are named in the devices file, relative to it:
//
//	[index.exoskeleton]
//	kind = "serial"
//	port = "/dev/ttyACM1"
//	kinematics = "builtin"
//	force_calibration = "calibration/index-force.json"
//	kinematics_calibration = "calibration/index-kinematics.json"
//
// Load reads each through internal/safefile, validates it (its format,
// that it was made for this finger, and that a kinematic calibration was
// made for the kinematics the file names), and keeps its SHA-256. Open
// applies them: the force calibration turns every force sample into
// newtons, G⁻¹·(raw − b), before the servo sees it, and the kinematic
// calibration's encoder zeros and link lengths go into the model the servo
// drives the device with. Both must have been made on the device that
// answers at the port (the model and serial its CAPS announce), or the
// device is refused.

// Calibration kinds.
const (
	CalForce      = "force"
	CalKinematics = "kinematics"
)

// MaxCalibrationFile bounds a calibration file (a few kilobytes of JSON).
const MaxCalibrationFile = 1 << 20

// Calibration is a calibration file a devices file names, as a session
// records it.
type Calibration struct {
	Finger string `json:"finger"`
	Kind   string `json:"kind"` // CalForce or CalKinematics
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Device string `json:"device"` // the device it was made on, "model serial"
}

// calibrations are an exoskeleton's loaded calibration files.
type calibrations struct {
	force    *device.ForceCalibration
	kin      *device.KinematicCalibration
	forceRec Calibration
	kinRec   Calibration
}

// Calibrations lists the calibration files f names, loaded by Load, with
// their hashes: thumb before index, force before kinematics.
func (f *File) Calibrations() []Calibration {
	var out []Calibration
	for _, fg := range f.Fingers {
		if c := fg.Exoskeleton.cal; c != nil {
			if c.force != nil {
				out = append(out, c.forceRec)
			}
			if c.kin != nil {
				out = append(out, c.kinRec)
			}
		}
	}
	return out
}

// readCalibration reads a calibration file through safefile and decodes
// it with read; the record carries the hash of the bytes decoded.
func readCalibration[T any](path, finger, kind string, read func([]byte) (T, error)) (T, Calibration, error) {
	var zero T
	b, err := safefile.ReadJSON(path, MaxCalibrationFile, safefile.JSONLimits{})
	if err != nil {
		return zero, Calibration{}, err
	}
	v, err := read(b)
	if err != nil {
		return zero, Calibration{}, fmt.Errorf("%s: %w", path, err)
	}
	sum := sha256.Sum256(b)
	return v, Calibration{Finger: finger, Kind: kind, Path: path, SHA256: hex.EncodeToString(sum[:])}, nil
}

// loadCalibrations reads the calibration files of finger fi's exoskeleton
// d (paths relative to the devices file at file) and checks that they fit
// the finger and the kinematics d names.
func (d *Device) loadCalibrations(fi int, file string) error {
	if d.ForceCalibration == "" && d.KinematicsCalibration == "" {
		return nil
	}
	finger := Fingers[fi]
	key := finger + "." + RoleExo + "."
	abs := func(p string) string {
		if filepath.IsAbs(p) || file == "" {
			return p
		}
		return filepath.Join(filepath.Dir(file), p)
	}
	c := &calibrations{}
	if d.ForceCalibration != "" {
		d.ForceCalibration = abs(d.ForceCalibration)
		fc, rec, err := readCalibration(d.ForceCalibration, finger, CalForce, func(b []byte) (*device.ForceCalibration, error) {
			return device.ReadForceCalibration(bytes.NewReader(b))
		})
		if err == nil && fc.Finger != finger {
			err = fmt.Errorf("%s is the %s's force calibration, not the %s's", d.ForceCalibration, fc.Finger, finger)
		}
		if err != nil {
			return &FileError{File: file, Key: key + "force_calibration", Msg: err.Error(), Err: err}
		}
		rec.Device = fc.Device
		c.force, c.forceRec = fc, rec
	}
	if d.KinematicsCalibration != "" {
		d.KinematicsCalibration = abs(d.KinematicsCalibration)
		kc, rec, err := readCalibration(d.KinematicsCalibration, finger, CalKinematics, func(b []byte) (*device.KinematicCalibration, error) {
			return device.ReadKinematicCalibration(bytes.NewReader(b))
		})
		if err == nil && kc.Finger != finger {
			err = fmt.Errorf("%s is the %s's kinematic calibration, not the %s's", d.KinematicsCalibration, kc.Finger, finger)
		}
		if err == nil {
			var k record.Kinematics
			if k, err = d.nominalKinematics(fi); err == nil {
				_, err = kc.Apply(k.Params)
			}
		}
		if err != nil {
			return &FileError{File: file, Key: key + "kinematics_calibration", Msg: err.Error(), Err: err}
		}
		rec.Device = kc.Device
		c.kin, c.kinRec = kc, rec
	}
	d.cal = c
	return nil
}

// checkDevice refuses a device that is not the one the calibrations were
// made on.
func (c *calibrations) checkDevice(spec devices.ExoSpec) error {
	if c == nil {
		return nil
	}
	got := device.DeviceName(spec.Model, spec.Serial)
	for _, r := range []*Calibration{&c.forceRec, &c.kinRec} {
		if r.Path != "" && r.Device != got {
			return fmt.Errorf("%s was made on %q, but the device at the port is %q: calibrate this device (haptex calib %s -devices FILE)", r.Path, r.Device, got, r.Kind)
		}
	}
	return nil
}

// sensorCalibrated turns an exoskeleton's raw force samples into newtons
// with a force calibration: what the servo, and the session's recording
// of the device, see.
type sensorCalibrated struct {
	devices.Exoskeleton
	cal   *device.ForceCalibration
	clock devices.Clocked
}

func (s *sensorCalibrated) Read(dst *devices.ExoState) error {
	err := s.Exoskeleton.Read(dst)
	dst.Force = s.cal.Force(dst.Force)
	return err
}

// Advance passes the run time on to a clocked device.
func (s *sensorCalibrated) Advance(t time.Duration) {
	if s.clock != nil {
		s.clock.Advance(t)
	}
}

// Uncalibrated returns d without its calibration files: the device as it
// reports itself, which is what a new calibration must measure.
func (d Device) Uncalibrated() Device {
	d.ForceCalibration, d.KinematicsCalibration, d.cal = "", "", nil
	return d
}

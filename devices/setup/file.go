// Package setup chooses and opens the devices of a run: it parses the
// devices file (TOML; per finger an exoskeleton and a tactile array, each
// simulated, HID by vendor and product id, or serial by port) and opens the
// whole set before any loop starts, wrapping real devices for hot-plug and,
// when asked, for recording. An unknown, unreachable or mismatched device
// is an error that names the finger, the device and the port.
//
// It never runs a loop and never reads flags or the environment.
//
// # Devices file
//
//	# Fingers are "thumb" and "index"; a device left out is simulated.
//	[thumb.exoskeleton]
//	kind = "serial"              # sim | serial | hid
//	port = "/dev/serial/by-id/usb-haptex_exo-if00"
//	baud = 3000000               # optional
//	kinematics = "thumb-exo.toml" # required: a device description with a [kinematics] table, or "builtin"
//	base_origin_m = [0.02, 0.10, -0.16] # optional base pose in the world (default: the
//	base_x = [0.0, 0.0, 1.0]            # showcase scene's mount for the finger); x and z
//	base_z = [0.0, 1.0, 0.0]            # are the base's axes, orthonormal
//	force_calibration = "thumb-force.json"           # optional: haptex calib force's file
//	kinematics_calibration = "thumb-kinematics.json" # optional: haptex calib kinematics's file
//
//	[thumb.tactile]
//	kind = "hid"
//	vid = 0x1209
//	pid = 0x4858
//	serial = "TAC-0007"          # optional; required when several match
//
//	[index.exoskeleton]
//	kind = "sim"
package setup

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/haptex/haptex/internal/safefile"
)

// Finger names and indices (the same order as sim.Thumb and sim.IndexFinger).
var Fingers = [2]string{"thumb", "index"}

// Roles of the two devices of a finger.
const (
	RoleExo     = "exoskeleton"
	RoleTactile = "tactile"
)

// Kinds of device.
const (
	KindSim    = "sim"
	KindSerial = "serial"
	KindHID    = "hid"
)

// Device is one configured device.
type Device struct {
	Kind   string `toml:"kind" json:"kind"`
	Port   string `toml:"port" json:"port,omitempty"`
	Baud   int    `toml:"baud" json:"baud,omitempty"`
	VID    int    `toml:"vid" json:"vid,omitempty"`
	PID    int    `toml:"pid" json:"pid,omitempty"`
	Serial string `toml:"serial" json:"serial,omitempty"`
	// Exoskeletons only: where the kinematic model comes from (a device
	// description file, relative to the devices file, or
	// KinematicsBuiltin; required for a serial or HID exoskeleton) and the
	// base pose (nil: DefaultBase of the finger).
	Kinematics string      `toml:"kinematics" json:"kinematics,omitempty"`
	BaseOrigin *[3]float64 `toml:"base_origin_m" json:"base_origin_m,omitempty"`
	BaseX      *[3]float64 `toml:"base_x" json:"base_x,omitempty"`
	BaseZ      *[3]float64 `toml:"base_z" json:"base_z,omitempty"`
	// Exoskeletons only, optional: the calibration files haptex calib
	// force and haptex calib kinematics wrote for this device, relative to
	// the devices file (calibration.go).
	ForceCalibration      string `toml:"force_calibration" json:"force_calibration,omitempty"`
	KinematicsCalibration string `toml:"kinematics_calibration" json:"kinematics_calibration,omitempty"`
	cal                   *calibrations
}

// String describes the device for messages: "serial /dev/ttyACM0".
func (d Device) String() string {
	switch d.Kind {
	case KindSerial:
		return "serial " + d.Port
	case KindHID:
		s := fmt.Sprintf("hid %04x:%04x", d.VID, d.PID)
		if d.Serial != "" {
			s += " serial " + d.Serial
		}
		return s
	}
	return d.Kind
}

// Finger is the two devices of one finger.
type Finger struct {
	Exoskeleton Device `toml:"exoskeleton" json:"exoskeleton"`
	Tactile     Device `toml:"tactile" json:"tactile"`
}

// File is a devices file: Fingers[0] is the thumb, Fingers[1] the index.
// Load sets Path and SHA256 (of the bytes read).
type File struct {
	Fingers [2]Finger `json:"fingers"`
	Path    string    `json:"path,omitempty"`
	SHA256  string    `json:"sha256,omitempty"`
}

// Default is the file with every device simulated.
func Default() *File {
	f := &File{}
	for i := range f.Fingers {
		f.Fingers[i] = Finger{Exoskeleton: Device{Kind: KindSim}, Tactile: Device{Kind: KindSim}}
	}
	return f
}

// MaxFileSize bounds a devices file and a device description file: a
// few hundred bytes each; past this it is not one. Both are also held to
// safefile.DefaultTOML's structure limits before they are decoded.
const MaxFileSize = 1 << 20

// FileError is a devices file that cannot be used.
type FileError struct {
	File string
	Line int    // 0 when unknown
	Key  string // e.g. "thumb.exoskeleton.port"
	Msg  string
	Err  error // the cause, for errors.Is (a safefile limit); may be nil
}

// Unwrap returns the cause.
func (e *FileError) Unwrap() error { return e.Err }

// limitError turns a refusal by safefile into a FileError naming the file
// (and the line).
func limitError(file string, err error) error {
	var se *safefile.Error
	if errors.As(err, &se) {
		return &FileError{File: file, Line: se.Line, Msg: se.Detail, Err: err}
	}
	return fmt.Errorf("setup: %w", err)
}

// readTOML reads and checks the TOML file path, a regular file within
// MaxFileSize and the structure limits.
func readTOML(path string) ([]byte, error) {
	data, err := safefile.ReadTOML(path, MaxFileSize, safefile.TOMLLimits{})
	if err != nil {
		return nil, limitError(path, err)
	}
	return data, nil
}

func (e *FileError) Error() string {
	var b strings.Builder
	b.WriteString("setup: ")
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Key != "" {
		b.WriteString(": " + safefile.OneLine(e.Key))
	}
	b.WriteString(": " + safefile.OneLine(e.Msg))
	return b.String()
}

// Load reads and checks the devices file at path, and the device
// description and calibration files it names (their paths become
// absolute; see calibration.go for what is checked).
func Load(path string) (*File, error) {
	data, err := safefile.ReadFile(path, MaxFileSize)
	if err != nil {
		return nil, limitError(path, err)
	}
	f, err := Parse(bytes.NewReader(data), path)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	f.Path, f.SHA256 = path, hex.EncodeToString(sum[:])
	for fi := range f.Fingers {
		d := &f.Fingers[fi].Exoskeleton
		if d.Kinematics == "" || d.Kinematics == KinematicsBuiltin {
			continue
		}
		if !filepath.IsAbs(d.Kinematics) {
			d.Kinematics = filepath.Join(filepath.Dir(path), d.Kinematics)
		}
		if _, err := LoadKinematics(d.Kinematics); err != nil {
			return nil, &FileError{File: path, Key: Fingers[fi] + "." + RoleExo + ".kinematics", Msg: err.Error(), Err: err}
		}
	}
	for fi := range f.Fingers {
		if err := f.Fingers[fi].Exoskeleton.loadCalibrations(fi, path); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// Parse reads and checks a devices file; name is used in messages. It
// reads at most MaxFileSize bytes and checks the TOML structure limits
// before decoding.
func Parse(r io.Reader, name string) (*File, error) {
	data, err := safefile.ReadAll(r, name, MaxFileSize)
	if err == nil {
		err = safefile.CheckTOML(name, data, safefile.TOMLLimits{})
	}
	if err != nil {
		return nil, limitError(name, err)
	}
	// The file's shape first (fingers and devices are tables), so that a
	// device written as a string gets a line that says how to write it.
	var tree map[string]any
	if _, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&tree); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &FileError{File: name, Line: pe.Position.Line, Msg: pe.Message}
		}
		return nil, &FileError{File: name, Msg: err.Error()}
	}
	if err := checkShape(tree, name); err != nil {
		return nil, err
	}
	var raw map[string]map[string]Device
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&raw)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &FileError{File: name, Line: pe.Position.Line, Msg: pe.Message}
		}
		return nil, &FileError{File: name, Msg: err.Error()}
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		sort.Strings(keys)
		return nil, &FileError{File: name, Key: keys[0], Msg: fmt.Sprintf("unknown key (known: kind, port, baud, vid, pid, serial, kinematics, base_origin_m, base_x, base_z, force_calibration, kinematics_calibration)%s", more(keys))}
	}
	f := Default()
	for finger, roles := range raw {
		fi := fingerIndex(finger)
		if fi < 0 {
			return nil, &FileError{File: name, Key: finger, Msg: fmt.Sprintf("unknown finger (want %s)", strings.Join(Fingers[:], " or "))}
		}
		for role, d := range roles {
			key := finger + "." + role
			if err := check(&d); err != "" {
				return nil, &FileError{File: name, Key: key, Msg: err}
			}
			switch role {
			case RoleExo:
				if err := checkPose(&d); err != "" {
					return nil, &FileError{File: name, Key: key, Msg: err}
				}
				if d.Kind != KindSim && d.Kinematics == "" {
					return nil, &FileError{File: name, Key: key + ".kinematics", Msg: `missing: the model haptex drives the exoskeleton with, "builtin" (haptex's own geometry, which the emulator uses) or a device description file with a [kinematics] table`}
				}
				f.Fingers[fi].Exoskeleton = d
			case RoleTactile:
				if d.Kinematics != "" || d.BaseOrigin != nil || d.BaseX != nil || d.BaseZ != nil {
					return nil, &FileError{File: name, Key: key, Msg: "a tactile array takes no kinematics or base pose"}
				}
				if d.ForceCalibration != "" || d.KinematicsCalibration != "" {
					return nil, &FileError{File: name, Key: key, Msg: "a tactile array takes no force or kinematics calibration (its pins' calibration is haptex run -tactile-cal)"}
				}
				f.Fingers[fi].Tactile = d
			default:
				return nil, &FileError{File: name, Key: key, Msg: fmt.Sprintf("unknown device (want %s or %s)", RoleExo, RoleTactile)}
			}
		}
	}
	if err := f.checkShared(name); err != nil {
		return nil, err
	}
	return f, nil
}

// checkShape refuses a finger or a device that is not a table.
func checkShape(tree map[string]any, name string) error {
	fingers := make([]string, 0, len(tree))
	for f := range tree {
		fingers = append(fingers, f)
	}
	sort.Strings(fingers)
	for _, f := range fingers {
		roles, ok := tree[f].(map[string]any)
		if !ok {
			return &FileError{File: name, Key: f, Msg: fmt.Sprintf("a finger is a table of its devices ([%s.exoskeleton] and [%s.tactile]), not %s", f, f, tomlType(tree[f]))}
		}
		keys := make([]string, 0, len(roles))
		for r := range roles {
			keys = append(keys, r)
		}
		sort.Strings(keys)
		for _, r := range keys {
			if _, ok := roles[r].(map[string]any); !ok {
				return &FileError{File: name, Key: f + "." + r, Msg: fmt.Sprintf(`a device is a table: [%s.%s] with kind = "sim", "serial" (port = ...) or "hid" (vid = ..., pid = ...), not %s`, f, r, tomlType(roles[r]))}
			}
		}
	}
	return nil
}

func tomlType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64, float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any, []map[string]any:
		return "an array"
	}
	return fmt.Sprintf("a %T", v)
}

// more names the other unknown keys, the first five of them.
func more(keys []string) string {
	rest := keys[1:]
	switch {
	case len(rest) == 0:
		return ""
	case len(rest) > 5:
		return fmt.Sprintf("; also %s and %d more", strings.Join(rest[:5], ", "), len(rest)-5)
	}
	return fmt.Sprintf("; also %s", strings.Join(rest, ", "))
}

func fingerIndex(s string) int {
	for i, f := range Fingers {
		if f == s {
			return i
		}
	}
	return -1
}

// check returns what is wrong with d, or "".
func check(d *Device) string {
	switch d.Kind {
	case "":
		return `missing kind (want "sim", "serial" or "hid")`
	case KindSim:
		if d.Port != "" || d.VID != 0 || d.PID != 0 || d.Serial != "" || d.Baud != 0 {
			return "a simulated device takes no port, vid, pid, serial or baud"
		}
		if d.Kinematics != "" || d.BaseOrigin != nil || d.BaseX != nil || d.BaseZ != nil {
			return "a simulated device brings its own kinematics and base pose"
		}
		if d.ForceCalibration != "" || d.KinematicsCalibration != "" {
			return "a simulated device needs no calibration: its sensor and kinematics are exact"
		}
	case KindSerial:
		if d.Port == "" {
			return `serial device without port (e.g. port = "/dev/ttyACM0")`
		}
		if d.Baud < 0 || d.Baud > 50_000_000 {
			return fmt.Sprintf("baud %d out of range", d.Baud)
		}
		if d.VID != 0 || d.PID != 0 || d.Serial != "" {
			return "a serial device takes port and baud, not vid, pid or serial"
		}
	case KindHID:
		if d.VID <= 0 || d.VID > 0xFFFF || d.PID <= 0 || d.PID > 0xFFFF {
			return fmt.Sprintf("hid device needs vid and pid in 0x0001..0xFFFF (got vid %#x, pid %#x)", d.VID, d.PID)
		}
		if d.Port != "" || d.Baud != 0 {
			return "a hid device takes vid, pid and serial, not port or baud"
		}
	default:
		return fmt.Sprintf(`unknown kind %q (want "sim", "serial" or "hid")`, d.Kind)
	}
	return ""
}

// checkShared refuses two devices on the same port or HID identity.
func (f *File) checkShared(name string) error {
	seen := map[string]string{}
	for fi, fg := range f.Fingers {
		for _, rd := range []struct {
			role string
			d    Device
		}{{RoleExo, fg.Exoskeleton}, {RoleTactile, fg.Tactile}} {
			if rd.d.Kind == KindSim {
				continue
			}
			id := rd.d.String()
			key := Fingers[fi] + "." + rd.role
			if other, ok := seen[id]; ok {
				return &FileError{File: name, Key: key, Msg: fmt.Sprintf("%s is already used by %s", id, other)}
			}
			seen[id] = key
		}
	}
	return nil
}

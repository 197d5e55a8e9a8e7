package device

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
)

// editArray decodes the calibration file good, replaces the JSON array at
// path (keys and indices joined by dots) with edit's result and encodes it
// again.
func editArray(t *testing.T, good []byte, path string, edit func([]any) []any) []byte {
	t.Helper()
	var doc any
	if err := json.Unmarshal(good, &doc); err != nil {
		t.Fatal(err)
	}
	var at func(node any, keys []string) any
	at = func(node any, keys []string) any {
		if len(keys) == 0 {
			a, ok := node.([]any)
			if !ok {
				t.Fatalf("%s is no array", path)
			}
			return edit(a)
		}
		switch n := node.(type) {
		case map[string]any:
			n[keys[0]] = at(n[keys[0]], keys[1:])
		case []any:
			i, err := strconv.Atoi(keys[0])
			if err != nil || i >= len(n) {
				t.Fatalf("%s: no element %s", path, keys[0])
			}
			n[i] = at(n[i], keys[1:])
		default:
			t.Fatalf("%s: nothing at %s", path, keys[0])
		}
		return node
	}
	b, err := json.Marshal(at(doc, strings.Split(path, ".")))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// dropKey decodes the calibration file good, deletes the key at path
// (keys and indices joined by dots) and encodes it again.
func dropKey(t *testing.T, good []byte, path string) []byte {
	t.Helper()
	var doc any
	if err := json.Unmarshal(good, &doc); err != nil {
		t.Fatal(err)
	}
	keys := strings.Split(path, ".")
	node := doc
	for _, k := range keys[:len(keys)-1] {
		switch n := node.(type) {
		case map[string]any:
			node = n[k]
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i >= len(n) {
				t.Fatalf("%s: no element %s", path, k)
			}
			node = n[i]
		default:
			t.Fatalf("%s: nothing at %s", path, k)
		}
	}
	m, ok := node.(map[string]any)
	if _, has := m[keys[len(keys)-1]]; !ok || !has {
		t.Fatalf("%s: no such key", path)
	}
	delete(m, keys[len(keys)-1])
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A calibration file whose fixed-length array is short or long is refused
// with the array named: encoding/json filled a short one's rest with
// zeros (23 pin corrections left the 24th pin uncorrected, a bias of two
// axes read the third as zero) and dropped a long one's rest.
func TestCalibrationArrayLengths(t *testing.T) {
	files, readers := calibrationFiles(t)
	short := func(a []any) []any { return a[:len(a)-1] }
	long := func(a []any) []any { return append(a, a[0]) }
	for _, c := range []struct {
		file, path string
		edit       func([]any) []any
		want       string // "" for a file that must be read
	}{
		{"tactile", "", nil, ""},
		{"tactile", "pin_40_db", short, "pin_40_db has 23 values, want 24"},
		{"tactile", "pin_320_db", long, "pin_320_db has 25 values, want 24"},
		{"tactile", "report.gain_40_db", short, "report.gain_40_db has 23 values"},
		{"force", "", nil, ""},
		{"force", "bias", short, "bias has 2 values, want 3"},
		{"force", "gain.1", short, "gain[1] has 2 values, want 3"},
		{"force", "gain", long, "gain has 4 values, want 3"},
		{"kinematic", "", nil, ""},
		{"kinematic", "poses.0.point_m", short, "poses[0].point_m has 2 values, want 3"},
		{"kinematic", "poses.2.joints_rad", long, "poses[2].joints_rad has 4 values, want 3"},
	} {
		t.Run(c.file+"/"+c.path, func(t *testing.T) {
			b := files[c.file]
			if c.path != "" {
				b = editArray(t, b, c.path, c.edit)
			}
			err := readers[c.file](b)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("the file re-encoded: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("%v, want an error with %q", err, c.want)
			}
		})
	}
}

// calibrationFiles returns a tactile, a force and a kinematic calibration
// file as haptex writes them, and the functions that read each.
func calibrationFiles(t *testing.T) (map[string][]byte, map[string]func([]byte) error) {
	t.Helper()
	tc, err := FitTactile(tactileSamples(func(p, _ int) float64 { return 0.05 * float64(p) }, func(int) float64 { return 0 }))
	if err != nil {
		t.Fatal(err)
	}
	tc.Device, tc.Finger, tc.Created = "haptex simulated 24-pin array sim-tactile-1", "index", time.Date(2026, 5, 27, 9, 0, 0, 0, time.UTC)
	fc := calibrate(t, crossTalkSensor(2, 1), Matrix, 10)
	fc.Device, fc.Finger, fc.Created = "haptex-exo-sim 0001", "index", time.Date(2026, 5, 27, 9, 0, 0, 0, time.UTC)
	kc := testKinCalibration(t)
	var tb, fb, kb bytes.Buffer
	for _, err := range []error{tc.Write(&tb), fc.Write(&fb), kc.Write(&kb)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	readers := map[string]func([]byte) error{
		"tactile":   func(b []byte) error { _, err := ReadTactileCalibration(bytes.NewReader(b)); return err },
		"force":     func(b []byte) error { _, err := ReadForceCalibration(bytes.NewReader(b)); return err },
		"kinematic": func(b []byte) error { _, err := ReadKinematicCalibration(bytes.NewReader(b)); return err },
	}
	files := map[string][]byte{"tactile": tb.Bytes(), "force": fb.Bytes(), "kinematic": kb.Bytes()}
	return files, readers
}

// A calibration file with a field missing is refused with the field
// named: encoding/json left it at zero, so a force calibration without its
// bias read the sensor's offset as force on the finger, and a tactile one
// without its pin corrections left every pin uncorrected.
func TestCalibrationMissingFields(t *testing.T) {
	files, readers := calibrationFiles(t)
	for _, c := range []struct{ file, path, want string }{
		{"force", "bias", "bias is missing"},
		{"force", "report.bias_se", "report.bias_se is missing"},
		{"tactile", "pin_40_db", "pin_40_db is missing"},
		{"tactile", "pin_320_db", "pin_320_db is missing"},
		{"kinematic", "poses.1.joints_rad", "poses[1].joints_rad is missing"},
		{"kinematic", "params", "params is missing"},
		{"kinematic", "created", "created is missing"},
	} {
		t.Run(c.file+"/"+c.path, func(t *testing.T) {
			err := readers[c.file](dropKey(t, files[c.file], c.path))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v, want an error with %q", err, c.want)
			}
		})
	}
}

package setup_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/haptex/haptex/calib/device"
	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/emu"
	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/devices/link"
	"github.com/haptex/haptex/devices/record"
	"github.com/haptex/haptex/devices/replay"
	"github.com/haptex/haptex/devices/setup"
	"github.com/haptex/haptex/devices/wire"
	"github.com/haptex/haptex/internal/vec3"
)

// twinCals are the calibration twin's force and kinematic calibrations
// of the index finger (the errors the emulator's -errors devices carry),
// made once for the package's tests.
var twinCals = sync.OnceValues(func() ([2][]byte, error) {
	st := device.TwinStand{Finger: "index"}
	fc, err := st.Force(context.Background())
	if err != nil {
		return [2][]byte{}, err
	}
	kc, err := st.Kinematics(context.Background())
	if err != nil {
		return [2][]byte{}, err
	}
	fc.Device, kc.Device = "haptex-emu-exo EMU-INDEX-EXO", "haptex-emu-exo EMU-INDEX-EXO"
	var f, k bytes.Buffer
	if err := fc.Write(&f); err != nil {
		return [2][]byte{}, err
	}
	if err := kc.Write(&k); err != nil {
		return [2][]byte{}, err
	}
	return [2][]byte{f.Bytes(), k.Bytes()}, nil
})

// twinCalibrations writes the index finger's twin calibrations into dir,
// named for the emulated device.
func twinCalibrations(t *testing.T, dir string) (force, kin string) {
	t.Helper()
	b, err := twinCals()
	if err != nil {
		t.Fatal(err)
	}
	force, kin = filepath.Join(dir, "index-force.json"), filepath.Join(dir, "index-kinematics.json")
	for i, p := range []string{force, kin} {
		if err := os.WriteFile(p, b[i], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return force, kin
}

func sha(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Calibration files named in a devices file are loaded, hashed and
// applied: against an emulated exoskeleton with the calibration twin's
// errors, on its stand, the force the host reads under a known load and
// the pad position its kinematics compute at a jig point come out right
// with them and wrong (by the twin's errors) without them; and the device
// recording holds what the servo saw.
func TestCalibrationsApplied(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e, err := emu.Run(ctx, emu.Config{Stand: true, Errors: true, Devices: []emu.DeviceConfig{
		{Name: "index-exo", Kind: wire.KindExo, Model: "haptex-emu-exo", Serial: "EMU-INDEX-EXO", WatchdogMs: 10_000},
	}})
	if err != nil {
		t.Skipf("emulator: %v", err)
	}
	defer e.Close()
	dir := t.TempDir()
	force, kin := twinCalibrations(t, dir)
	devFile := func(extra string) string {
		p := filepath.Join(dir, "devices.toml")
		s := fmt.Sprintf("[index.exoskeleton]\nkind = \"serial\"\nport = %q\nkinematics = \"builtin\"\n%s", e.Plug("index-exo").Path(), extra)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	lo := link.Options{SilenceTimeout: 10 * time.Second, WriteLimit: 10 * time.Second, Limits: link.Limits{MaxExoWatchdog: 10 * time.Second}}
	open := func(f *setup.File, rec *record.Session) *setup.Exo {
		t.Helper()
		s, err := setup.Open(f, setup.Options{Link: lo, SkipSim: true, NoReconnect: true, Record: rec})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s.Exo[1].(*setup.Exo)
	}
	mean := func(x *setup.Exo) (joints, force [3]float64) {
		var st devices.ExoState
		n := 0
		for end := time.Now().Add(10 * time.Second); n < 100 && time.Now().Before(end); time.Sleep(time.Millisecond) {
			x.Advance(time.Duration(n) * time.Millisecond)
			if x.Read(&st) == nil && !st.Stale {
				joints, force = vec3.Add(joints, st.Joint), vec3.Add(force, st.Force)
				n++
			}
		}
		if n < 100 {
			t.Fatalf("%d samples in 10 s", n)
		}
		return vec3.Scale(0.01, joints), vec3.Scale(0.01, force)
	}

	f, err := setup.Load(devFile("force_calibration = \"index-force.json\"\nkinematics_calibration = \"index-kinematics.json\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	cals := f.Calibrations()
	if len(cals) != 2 || cals[0].Kind != setup.CalForce || cals[0].Path != force || cals[0].SHA256 != sha(t, force) ||
		cals[1].Kind != setup.CalKinematics || cals[1].Path != kin || cals[1].SHA256 != sha(t, kin) || cals[1].Finger != "index" {
		t.Fatalf("calibrations %+v", cals)
	}
	plain, err := setup.Load(devFile(""))
	if err != nil {
		t.Fatal(err)
	}

	plan, err := device.PlanPoses(exo.DefaultParams(), device.DefaultKinParams(), 15)
	if err != nil {
		t.Fatal(err)
	}
	point := plan.Points[7]
	if err := e.StandJig("index-exo", point); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	load := [3]float64{0, 0.1 * device.StandardGravity, 0.2}
	if err := e.StandLoad("index-exo", load); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	recDir := t.TempDir()
	sess, err := record.NewSession(recDir, record.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cal := open(f, sess)
	q, fCal := mean(cal)
	padCal := cal.Kinematics().Forward(q)
	// One host on the line at a time: with the calibrated session still
	// open, its reader took the device's CAPS from the second session's
	// handshake now and then (1 in 6 runs on a quiet machine).
	cal.Close()
	raw := open(plain, nil)
	q2, fRaw := mean(raw)
	padRaw := raw.Kinematics().Forward(q2)

	t.Logf("force under %v N: calibrated %.4f N, raw %.4f N; pad at the jig point: calibrated %.1f µm off, nominal %.1f µm off",
		load, fCal, fRaw, 1e6*vec3.Norm(vec3.Sub(padCal, point)), 1e6*vec3.Norm(vec3.Sub(padRaw, point)))
	if d := vec3.Norm(vec3.Sub(fCal, load)); d > 0.005*vec3.Norm(load)+2e-3 {
		t.Errorf("calibrated force %v N under a load of %v N", fCal, load)
	}
	if d := vec3.Norm(vec3.Sub(fRaw, load)); d < 0.02*vec3.Norm(load) {
		t.Errorf("raw force %v N is within 2 %% of the load %v N: the twin's sensor errors are missing", fRaw, load)
	}
	if d := vec3.Norm(vec3.Sub(padCal, point)); d > 20e-6 {
		t.Errorf("calibrated kinematics put the pad %.1f µm from the jig point", d*1e6)
	}
	if d := vec3.Norm(vec3.Sub(padRaw, point)); d < 200e-6 {
		t.Errorf("nominal kinematics put the pad %.1f µm from the jig point: the twin's errors are missing", d*1e6)
	}
	// The recording holds the calibrated kinematics and the calibrated
	// forces: a replay gives the servo what it had.
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	rx, err := replay.OpenExo(filepath.Join(record.Dir(recDir), "index-exo.hxr"))
	if err != nil {
		t.Fatal(err)
	}
	if rx.Kinematics().Params() != cal.Kinematics().Params() {
		t.Errorf("recorded kinematics %+v, the servo's %+v", rx.Kinematics().Params(), cal.Kinematics().Params())
	}
	var st devices.ExoState
	rx.Advance(time.Hour)
	if rx.Read(&st) != nil || vec3.Norm(vec3.Sub(st.Force, load)) > 0.05 {
		t.Errorf("recorded force %v N, want the calibrated %v N", st.Force, load)
	}
}

// What a devices file's calibration keys refuse, each with one line that
// names the key or the file.
func TestCalibrationRefusals(t *testing.T) {
	dir := t.TempDir()
	force, kin := twinCalibrations(t, dir)
	write := func(s string) string {
		p := filepath.Join(dir, "devices.toml")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	desc := filepath.Join(dir, "other.toml")
	p := exo.DefaultParams()
	p.Links[1].A += 1e-3
	var b strings.Builder
	if err := toml.NewEncoder(&b).Encode(struct {
		Kinematics exo.Params `toml:"kinematics"`
	}{p}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(desc, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	serial := "kind = \"serial\"\nport = \"/dev/null\"\n"
	for _, c := range []struct{ name, file, want string }{
		{"thumb's file under the index", "[thumb.exoskeleton]\n" + serial + "kinematics = \"builtin\"\nforce_calibration = " + quote(force), "the index's force calibration, not the thumb's"},
		{"kinematics made for another description", "[index.exoskeleton]\n" + serial + "kinematics = " + quote(desc) + "\nkinematics_calibration = " + quote(kin), "kinematics_calibration: device: kinematic calibration of"},
		{"a FIFO", "[index.exoskeleton]\n" + serial + "kinematics = \"builtin\"\nforce_calibration = " + quote(fifo), "a FIFO, not a regular file"},
		{"a missing file", "[index.exoskeleton]\n" + serial + "kinematics = \"builtin\"\nforce_calibration = \"nowhere.json\"", "no such file"},
		{"a force file as kinematics", "[index.exoskeleton]\n" + serial + "kinematics = \"builtin\"\nkinematics_calibration = " + quote(force), "kinematics_calibration"},
		{"a simulated device", "[index.exoskeleton]\nkind = \"sim\"\nforce_calibration = " + quote(force), "a simulated device needs no calibration"},
		{"a tactile array", "[index.tactile]\n" + serial + "force_calibration = " + quote(force), "a tactile array takes no force or kinematics calibration"},
	} {
		_, err := setup.Load(write(c.file))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", c.name, err, c.want)
		}
	}

	// Made on another device: refused when the device answers.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e, err := emu.Run(ctx, emu.Config{Devices: []emu.DeviceConfig{{Name: "index-exo", Kind: wire.KindExo, Serial: "EMU-OTHER", WatchdogMs: 10_000}}})
	if err != nil {
		t.Skipf("emulator: %v", err)
	}
	defer e.Close()
	f, err := setup.Load(write("[index.exoskeleton]\nkind = \"serial\"\nport = " + quote(e.Plug("index-exo").Path()) + "\nkinematics = \"builtin\"\nforce_calibration = " + quote(force)))
	if err != nil {
		t.Fatal(err)
	}
	lo := link.Options{SilenceTimeout: 10 * time.Second, WriteLimit: 10 * time.Second, Limits: link.Limits{MaxExoWatchdog: 10 * time.Second}}
	if s, err := setup.Open(f, setup.Options{Link: lo, SkipSim: true, NoReconnect: true}); err == nil || !strings.Contains(err.Error(), `was made on "haptex-emu-exo EMU-INDEX-EXO", but the device at the port is "haptex-sim-exo EMU-OTHER"`) {
		if s != nil {
			s.Close()
		}
		t.Errorf("a calibration of another device: %v", err)
	}
	checks := setup.Probe(f, lo)
	if len(checks) != 1 || !strings.Contains(checks[0].Err, "was made on") {
		t.Errorf("devices check of a calibration of another device: %+v", checks)
	}
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

// The devices file with calibrations that docs/protocol.md shows loads,
// with both files, their hashes and the device they were made on.
func TestDocumentedCalibratedFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "calibration"), 0o755); err != nil {
		t.Fatal(err)
	}
	force, kin := twinCalibrations(t, filepath.Join(dir, "calibration"))
	path := filepath.Join(dir, "devices.toml")
	if err := os.WriteFile(path, []byte(docBlock(t, "docs/protocol.md", "calibrated-devices-file")), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := setup.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	cals := f.Calibrations()
	if len(cals) != 2 || cals[0].Path != force || cals[1].Path != kin || cals[0].Device != "haptex-emu-exo EMU-INDEX-EXO" || cals[1].SHA256 != sha(t, kin) {
		t.Errorf("%+v", cals)
	}
}

package setup_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/emu"
	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/devices/link"
	"github.com/haptex/haptex/devices/record"
	"github.com/haptex/haptex/devices/replay"
	"github.com/haptex/haptex/devices/setup"
	"github.com/haptex/haptex/devices/twin"
)

func TestParse(t *testing.T) {
	good := `
# a lab rig
[thumb.exoskeleton]
kind = "serial"
port = "/dev/ttyACM0"
baud = 2000000
kinematics = "builtin"

[thumb.tactile]
kind = "hid"
vid = 0x1209
pid = 0x4858
serial = "TAC-7"

[index.exoskeleton]
kind = "sim"
`
	f, err := setup.Parse(strings.NewReader(good), "rig.toml")
	if err != nil {
		t.Fatal(err)
	}
	want := setup.File{Fingers: [2]setup.Finger{
		{Exoskeleton: setup.Device{Kind: "serial", Port: "/dev/ttyACM0", Baud: 2000000, Kinematics: "builtin"}, Tactile: setup.Device{Kind: "hid", VID: 0x1209, PID: 0x4858, Serial: "TAC-7"}},
		{Exoskeleton: setup.Device{Kind: "sim"}, Tactile: setup.Device{Kind: "sim"}},
	}}
	if *f != want {
		t.Errorf("parsed %+v\nwant %+v", *f, want)
	}
	tests := []struct {
		name, in, want string
	}{
		{"syntax", "[thumb.exoskeleton\nkind = 1", "rig.toml:2: expected"},
		{"unknown finger", "[ring.exoskeleton]\nkind = \"sim\"", `ring: unknown finger (want thumb or index)`},
		{"unknown device", "[thumb.glove]\nkind = \"sim\"", "thumb.glove: unknown device"},
		{"unknown kind", "[thumb.tactile]\nkind = \"usb\"", `thumb.tactile: unknown kind "usb"`},
		{"missing kind", "[thumb.tactile]\nport = \"/dev/x\"", "thumb.tactile: missing kind"},
		{"serial without port", "[index.exoskeleton]\nkind = \"serial\"", "index.exoskeleton: serial device without port"},
		{"exoskeleton without kinematics", "[index.exoskeleton]\nkind = \"serial\"\nport = \"/dev/a\"", "index.exoskeleton.kinematics: missing"},
		{"device as a string", "[thumb]\nexoskeleton = \"serial:/dev/ttyACM0\"", `thumb.exoskeleton: a device is a table: [thumb.exoskeleton] with kind = "sim"`},
		{"finger as a string", "thumb = \"sim\"", "thumb: a finger is a table of its devices"},
		{"hid without pid", "[index.tactile]\nkind = \"hid\"\nvid = 0x1209", "index.tactile: hid device needs vid and pid"},
		{"vid too large", "[index.tactile]\nkind = \"hid\"\nvid = 0x10000\npid = 1", "vid 0x10000"},
		{"typo", "[index.tactile]\nkind = \"hid\"\nvid = 1\npid = 1\nserail = \"x\"", "index.tactile.serail: unknown key"},
		{"sim with port", "[index.tactile]\nkind = \"sim\"\nport = \"/dev/x\"", "a simulated device takes no port"},
		{"shared port", "[thumb.exoskeleton]\nkind = \"serial\"\nport = \"/dev/a\"\nkinematics = \"builtin\"\n[index.exoskeleton]\nkind = \"serial\"\nport = \"/dev/a\"\nkinematics = \"builtin\"", "serial /dev/a is already used by"},
		{"wrong type", "[thumb.exoskeleton]\nkind = 3", "rig.toml"},
		{"partial base", "[thumb.exoskeleton]\nkind = \"serial\"\nport = \"/dev/a\"\nbase_x = [1.0, 0, 0]", "give all of base_origin_m, base_x and base_z"},
		{"skewed base", "[thumb.exoskeleton]\nkind = \"serial\"\nport = \"/dev/a\"\nbase_origin_m = [0, 0, 0]\nbase_x = [1.0, 0, 0]\nbase_z = [0.6, 0.8, 0]", "must be orthonormal"},
		{"tactile kinematics", "[thumb.tactile]\nkind = \"serial\"\nport = \"/dev/a\"\nkinematics = \"builtin\"", "a tactile array takes no kinematics"},
		{"sim kinematics", "[thumb.exoskeleton]\nkind = \"sim\"\nkinematics = \"builtin\"", "brings its own kinematics"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := setup.Parse(strings.NewReader(tc.in), "rig.toml")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
	if _, err := setup.Load(filepath.Join(t.TempDir(), "none.toml")); err == nil {
		t.Error("missing file loaded")
	}
}

// A devices file names a device description by a path relative to itself;
// Load reads its [kinematics] table and refuses a broken one.
func TestLoadKinematics(t *testing.T) {
	dir := t.TempDir()
	desc := `model = "lab-exo"
[kinematics]
tool_m = [0.004, -0.007, 0.0]
pad_normal = [0.5, -0.87, 0.0]
joint_min_rad = [-0.9, -1.6, -0.3]
joint_max_rad = [0.9, 0.8, 1.9]
home_rad = [0.0, -0.79, 1.34]
[[kinematics.link]]
alpha_rad = 1.5707963267948966
[[kinematics.link]]
a_m = 0.12
[[kinematics.link]]
a_m = 0.08
[drive]
anything = 1
`
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("lab-exo.toml", desc)
	f, err := setup.Load(write("rig.toml", "[index.exoskeleton]\nkind = \"serial\"\nport = \"/dev/x\"\nkinematics = \"lab-exo.toml\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Fingers[1].Exoskeleton.Kinematics; got != filepath.Join(dir, "lab-exo.toml") {
		t.Errorf("kinematics path %q", got)
	}
	p, err := setup.LoadKinematics(filepath.Join(dir, "lab-exo.toml"))
	if err != nil || p.Links[1].A != 0.12 || p.Links[2].A != 0.08 {
		t.Errorf("%+v %v", p, err)
	}
	for name, bad := range map[string]string{
		"none.toml":   "",
		"empty.toml":  "model = \"x\"\n",
		"limits.toml": strings.Replace(desc, "joint_max_rad = [0.9, 0.8, 1.9]", "joint_max_rad = [-1, 0.8, 1.9]", 1),
		"typo.toml":   strings.Replace(desc, "home_rad", "hom_rad", 1),
		// The decoder quotes the line break it failed on.
		"escape.toml": strings.Replace(desc, `model = "lab-exo"`, "model = \"lab\\\n\"", 1),
	} {
		if bad != "" {
			write(name, bad)
		}
		_, err := setup.Load(write("bad.toml", "[thumb.exoskeleton]\nkind = \"serial\"\nport = \"/dev/x\"\nkinematics = \""+name+"\"\n"))
		if err == nil || !strings.Contains(err.Error(), "thumb.exoskeleton.kinematics") || strings.ContainsAny(err.Error(), "\n\r") {
			t.Errorf("%s: %q", name, err)
		}
	}
}

func emulator(t *testing.T) *emu.Emulator {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	devs := emu.DefaultDevices()
	for i := range devs {
		devs[i].WatchdogMs = 10_000
	}
	e, err := emu.Run(ctx, emu.Config{Devices: devs})
	if err != nil {
		cancel()
		t.Skipf("emulator: %v", err)
	}
	t.Cleanup(func() { cancel(); e.Close() })
	return e
}

// TestOpenEmulatedRig opens the emulator's devices file through the real
// serial path, records a few ticks and replays them.
func TestOpenEmulatedRig(t *testing.T) {
	e := emulator(t)
	f, err := setup.Load(e.DevicesFile())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sess, err := record.NewSession(dir, record.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := setup.Open(f, setup.Options{Record: sess, Link: link.Options{SilenceTimeout: 10 * time.Second, WriteLimit: 10 * time.Second, Limits: link.Limits{MaxExoWatchdog: 10 * time.Second, MaxTactileWatchdog: 10 * time.Second}}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if sp := s.Exo[i].Spec(); sp.Transport != devices.TransportSerial || sp.Model != "haptex-emu-exo" {
			t.Errorf("finger %d exoskeleton spec %+v", i, sp)
		}
		if sp := s.Tactile[i].Spec(); sp.Rows*sp.Cols != devices.Pins {
			t.Errorf("finger %d tactile spec %+v", i, sp)
		}
		k, ok := s.Exo[i].(*setup.Exo)
		if !ok || k.Kinematics() == nil || k.Base() != twin.DefaultBase(i) {
			t.Errorf("finger %d exoskeleton without its kinematics and default base: %T", i, s.Exo[i])
		}
	}
	// COMMANDs go out once a device reports its stage on; on a loaded
	// machine its first STATEs can be late, and the link refuses to
	// enable until one came: ask again until both are on.
	var st devices.ExoState
	var on [2]bool
	for k, end := 1, time.Now().Add(10*time.Second); k <= 50 || !(on[0] && on[1]) && time.Now().Before(end); k++ {
		for i := range 2 {
			if c, ok := s.Exo[i].(devices.Clocked); ok {
				c.Advance(time.Duration(k) * time.Millisecond)
			}
			s.Exo[i].Read(&st)
			if on[i] = on[i] || st.Enabled; !st.Enabled {
				s.Exo[i].Enable(true)
			}
			s.Exo[i].Write(&devices.ExoCommand{Seq: uint32(k), Torque: [3]float64{0.01, 0, 0}})
		}
		time.Sleep(time.Millisecond)
	}
	for i := range 2 {
		s.Tactile[i].WriteFrame(&devices.TactileFrame{Seq: 1})
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	rs, err := replay.OpenSession(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Exo) != 2 || len(rs.Tactile) != 2 {
		t.Fatalf("recorded %d exoskeletons, %d tactile arrays", len(rs.Exo), len(rs.Tactile))
	}
	if sp := rs.Exo["thumb-exo"].Spec(); sp.Model != "haptex-emu-exo" || sp.DoF != 3 {
		t.Errorf("recorded spec %+v", sp)
	}
	want, _ := exo.New(twin.DefaultExoParams().Kinematics)
	if k := rs.Exo["index-exo"].Kinematics(); k == nil || k.Params() != want.Params() || rs.Exo["index-exo"].Base() != twin.DefaultBase(1) {
		t.Errorf("recorded kinematics %+v", k)
	}
	var dump strings.Builder
	if err := record.Dump(&dump, filepath.Join(record.Dir(dir), "thumb-exo.hxr")); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"-> HELLO", "<- CAPS_EXO", "-> COMMAND", "<- STATE", "WRITE", "READ", "SPEC"} {
		if !strings.Contains(dump.String(), want) {
			t.Errorf("recording lacks %q", want)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	e := emulator(t)
	missing := filepath.Join(t.TempDir(), "ttyNONE")
	file := func(s string) *setup.File {
		f, err := setup.Parse(strings.NewReader(s), "rig.toml")
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	_, err := setup.Open(file("[thumb.exoskeleton]\nkind = \"serial\"\nport = \""+missing+"\"\nkinematics = \"builtin\""), setup.Options{})
	var oe *setup.OpenError
	if !errors.As(err, &oe) || oe.Finger != "thumb" || oe.Role != "exoskeleton" || !strings.Contains(err.Error(), "not found") {
		t.Errorf("missing port: %v", err)
	}
	tac := e.Plug("index-tactile").Path()
	_, err = setup.Open(file("[index.exoskeleton]\nkind = \"serial\"\nport = \""+tac+"\"\nkinematics = \"builtin\""), setup.Options{Link: relaxed})
	var ke *link.KindError
	if !errors.As(err, &ke) || !strings.Contains(err.Error(), "is a tactile array (\"haptex-emu-tactile\"), not an exoskeleton") {
		t.Errorf("tactile array configured as exoskeleton: %v", err)
	}
	t.Log(err)
	// A kinematic model whose joint 2 ends before the device's does not
	// hold where the device can go: refused at the handshake, one line
	// naming the CAPS field.
	narrow := filepath.Join(t.TempDir(), "narrow.toml")
	p := twin.DefaultExoParams().Kinematics
	p.JointMax[1] = 0.5
	writeKinematics(t, narrow, p)
	thumb := e.Plug("thumb-exo").Path()
	_, err = setup.Open(file("[thumb.exoskeleton]\nkind = \"serial\"\nport = \""+thumb+"\"\nkinematics = \""+narrow+"\""), setup.Options{Link: relaxed})
	var he *link.HandshakeError
	if !errors.As(err, &he) || !strings.Contains(err.Error(), "CAPS joint_max_urad[1] = 800000: above the kinematic model's joint 2 limit") || strings.Contains(err.Error(), "\n") {
		t.Errorf("exoskeleton beyond its kinematics: %v", err)
	}
	notDevice := filepath.Join(t.TempDir(), "plain")
	os.WriteFile(notDevice, nil, 0o644)
	_, err = setup.Open(file("[index.tactile]\nkind = \"serial\"\nport = \""+notDevice+"\""), setup.Options{})
	if err == nil {
		t.Error("a plain file opened as a device")
	}
}

// relaxed are link options for the emulator's 10 s watchdogs (a loaded
// CI host has frozen it for 2.4 s): above the host's default limit.
var relaxed = link.Options{SilenceTimeout: 10 * time.Second, WriteLimit: 10 * time.Second,
	Limits: link.Limits{MaxExoWatchdog: 10 * time.Second, MaxTactileWatchdog: 10 * time.Second}}

func writeKinematics(t *testing.T, path string, p exo.Params) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "[kinematics]\ntool_m = %s\npad_normal = %s\njoint_min_rad = %s\njoint_max_rad = %s\nhome_rad = %s\n",
		arr(p.Tool), arr(p.PadNormal), arr(p.JointMin), arr(p.JointMax), arr(p.Home))
	for _, l := range p.Links {
		fmt.Fprintf(&b, "[[kinematics.link]]\na_m = %v\nalpha_rad = %v\nd_m = %v\noffset_rad = %v\n", l.A, l.Alpha, l.D, l.Offset)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func arr(v [3]float64) string { return fmt.Sprintf("[%v, %v, %v]", v[0], v[1], v[2]) }

// Probe finds what Open would refuse, device by device: the emulator's
// own file passes; the same devices with their roles swapped, or with
// the default limits (the emulator's watchdogs are 10 s here), do not.
func TestProbe(t *testing.T) {
	e := emulator(t)
	f, err := setup.Load(e.DevicesFile())
	if err != nil {
		t.Fatal(err)
	}
	checks := setup.Probe(f, relaxed)
	if len(checks) != 4 {
		t.Fatalf("%d devices probed, want 4: %+v", len(checks), checks)
	}
	for _, c := range checks {
		if c.Err != "" || c.Info == nil {
			t.Errorf("%s %s: %s", c.Finger, c.Role, c.Err)
		}
	}
	for _, c := range setup.Probe(f, link.Options{}) {
		if !strings.Contains(c.Err, "refused: CAPS watchdog_ms = 10000") {
			t.Errorf("%s %s with the default limits: %q", c.Finger, c.Role, c.Err)
		}
	}
	f.Fingers[0].Exoskeleton.Port, f.Fingers[0].Tactile.Port = f.Fingers[0].Tactile.Port, f.Fingers[0].Exoskeleton.Port
	checks = setup.Probe(f, relaxed)
	if !strings.Contains(checks[0].Err, "is a tactile array, not an exoskeleton") {
		t.Errorf("swapped: %+v", checks[0])
	}
}

func TestOpenAllSimulated(t *testing.T) {
	s, err := setup.Open(setup.Default(), setup.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, ok := s.Exo[0].(devices.Clocked); !ok {
		t.Error("simulated exoskeleton is not Clocked")
	}
}

// FuzzParse feeds arbitrary devices files to the parser: errors, never a
// panic, and anything accepted is a valid file.
func FuzzParse(f *testing.F) {
	f.Add("[thumb.exoskeleton]\nkind = \"serial\"\nport = \"/dev/ttyACM0\"\n")
	f.Add("[index.tactile]\nkind = \"hid\"\nvid = 0x1209\npid = 0x4858\nserial = \"x\"\n")
	f.Add("[thumb]\nexoskeleton = { kind = \"sim\" }\n")
	f.Add("[thumb.exoskeleton]\nkind = \"serial\"\nport = \"/dev/x\\\n\"\n")
	f.Fuzz(func(t *testing.T, in string) {
		file, err := setup.Parse(strings.NewReader(in), "fuzz.toml")
		if err != nil {
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("an error of more than one line: %q", err)
			}
			return
		}
		for _, fg := range file.Fingers {
			for _, d := range []setup.Device{fg.Exoskeleton, fg.Tactile} {
				switch d.Kind {
				case setup.KindSim, setup.KindSerial, setup.KindHID:
				default:
					t.Fatalf("accepted kind %q", d.Kind)
				}
				if d.Kind == setup.KindSerial && d.Port == "" || d.Kind == setup.KindHID && (d.VID < 1 || d.VID > 0xFFFF) {
					t.Fatalf("accepted %+v", d)
				}
			}
		}
	})
}

// docBlock returns the fenced block between <!-- name --> and
// <!-- /name --> in a Markdown file of the repository.
func docBlock(t *testing.T, file, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", file))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "<!-- "+name+" -->")
	j := strings.Index(s, "<!-- /"+name+" -->")
	if i < 0 || j < i {
		t.Fatalf("%s has no %s block", file, name)
	}
	block := s[i:j]
	block = block[strings.Index(block, "\n```")+1:]
	block = block[strings.Index(block, "\n")+1:]
	return block[:strings.LastIndex(block, "```")]
}

// The devices file and the kinematics file the documents show are files
// haptex takes: the kinematics one is haptex's own geometry.
func TestDocumentedFiles(t *testing.T) {
	dir := t.TempDir()
	kin := filepath.Join(dir, "thumb-exo.toml")
	if err := os.WriteFile(kin, []byte(docBlock(t, "docs/protocol.md", "kinematics-file")), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := setup.LoadKinematics(kin)
	if err != nil {
		t.Fatal(err)
	}
	if want := twin.DefaultExoParams().Kinematics; p != want {
		t.Errorf("documented kinematics %+v\nbuilt in %+v", p, want)
	}
	for _, file := range []string{"docs/protocol.md", "README.md"} {
		path := filepath.Join(dir, "devices.toml")
		if err := os.WriteFile(path, []byte(docBlock(t, file, "devices-file")), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := setup.Load(path)
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		if f.Fingers[0].Exoskeleton.Kind != setup.KindSerial || f.Fingers[0].Exoskeleton.Kinematics == "" {
			t.Errorf("%s: %+v", file, f.Fingers[0])
		}
	}
}

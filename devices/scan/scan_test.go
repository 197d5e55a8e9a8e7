package scan_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/haptex/haptex/devices/emu"
	"github.com/haptex/haptex/devices/scan"
)

func TestScanFindsEmulatedDevices(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e, err := emu.Run(ctx, emu.Config{})
	if err != nil {
		t.Skipf("emulator: %v", err)
	}
	defer e.Close()
	m, s, err := pty.Open() // a port where nobody answers
	if err != nil {
		t.Skip(err)
	}
	defer m.Close()
	defer s.Close()
	ports := []string{s.Name()}
	for _, p := range e.Ports() {
		ports = append(ports, p.Path)
	}
	r := scan.Scan(scan.Options{Ports: ports, Timeout: time.Second})
	speaking := 0
	for _, en := range r.Serial {
		switch {
		case en.Path == s.Name():
			if !en.Probed || en.Speaks || !strings.Contains(en.Error, "no answer to HELLO within 1s") {
				t.Errorf("silent port: %+v", en)
			}
		case en.Speaks:
			speaking++
			if en.Device.Exo == nil && en.Device.Tactile == nil {
				t.Errorf("%s: no capabilities", en.Path)
			}
		}
	}
	if speaking != 4 {
		t.Errorf("%d ports speak haptex, want 4", speaking)
	}
	var out strings.Builder
	r.WriteText(&out)
	for _, want := range []string{"haptex 1.1 exoskeleton \"haptex-emu-exo\"", "haptex 1.1 tactile array", "6x4 pins at 2 mm", "frame 25ms, measures its pins", "does not speak haptex"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("listing lacks %q:\n%s", want, out.String())
		}
	}
	t.Logf("\n%s", out.String())
}

// An emulator that announces itself is found without naming its ports,
// and says which emulator serves each; once it is closed its announcement
// is gone, and one left by a process that died is skipped and removed.
func TestScanFindsAnnouncedEmulator(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip(err)
	}
	if err := os.MkdirAll(emu.RunDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(emu.RunDir(), fmt.Sprintf("%d-1.json", dead.Process.Pid))
	if err := os.WriteFile(stale, []byte(fmt.Sprintf(`{"pid": %d, "ports": [{"name": "thumb-exo", "path": "/dev/null"}]}`, dead.Process.Pid)), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e, err := emu.Run(ctx, emu.Config{Announce: true, Devices: emu.DefaultDevices()[:2]})
	if err != nil {
		t.Skipf("emulator: %v", err)
	}
	r := scan.Scan(scan.Options{Timeout: time.Second})
	found := 0
	for _, en := range r.Serial {
		if en.Emulator == "" {
			continue
		}
		found++
		if !en.Speaks || en.Device.Exo == nil || !strings.Contains(en.Emulator, fmt.Sprintf("(pid %d)", os.Getpid())) {
			t.Errorf("%s: %+v", en.Path, en)
		}
		if en.Path == "/dev/null" {
			t.Errorf("the dead emulator's port was listed")
		}
	}
	if found != 2 {
		t.Errorf("%d emulated ports found, want 2: %+v", found, r.Serial)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the dead emulator's announcement is still there: %v", err)
	}
	var out strings.Builder
	r.WriteText(&out)
	if !strings.Contains(out.String(), "(haptex devices emulate (pid ") {
		t.Errorf("the listing does not name the emulator:\n%s", out.String())
	}
	e.Close()
	left, err := filepath.Glob(filepath.Join(emu.RunDir(), "*"))
	if err != nil || len(left) != 0 {
		t.Errorf("left in the run folder after Close: %v %v", left, err)
	}
}

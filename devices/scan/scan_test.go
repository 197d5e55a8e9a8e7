package scan_test

import (
	"context"
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
	for _, want := range []string{"haptex 1.0 exoskeleton \"haptex-emu-exo\"", "haptex 1.0 tactile array", "6x4 pins at 2 mm", "does not speak haptex"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("listing lacks %q:\n%s", want, out.String())
		}
	}
	t.Logf("\n%s", out.String())
}

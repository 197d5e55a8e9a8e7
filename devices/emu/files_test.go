package emu_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/haptex/haptex/devices/emu"
)

// haptex devices emulate -dir DIR replaces a symbolic link planted at
// DIR/devices.toml or at a port's name instead of writing through it (it
// overwrote the link's target, as root, before).
func TestEmulateDirDoesNotFollowLinks(t *testing.T) {
	dir := t.TempDir()
	victims := map[string]string{}
	for _, name := range []string{"devices.toml", "thumb-exo"} {
		v := filepath.Join(t.TempDir(), "victim")
		if err := os.WriteFile(v, []byte("precious"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(v, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		victims[name] = v
	}
	e := startEmu(t, emu.Config{Dir: dir, NewExo: emu.StandInExo, NewTactile: emu.StandInTactile, Devices: emu.DefaultDevices()[:1]})
	for name, v := range victims {
		if b, err := os.ReadFile(v); err != nil || string(b) != "precious" {
			t.Errorf("%s: the link's target was written: %q, %v", name, b, err)
		}
	}
	if st, err := os.Lstat(e.DevicesFile()); err != nil || !st.Mode().IsRegular() {
		t.Errorf("devices file: %v, %v", st.Mode(), err)
	}
	if tty, err := os.Readlink(e.Plug("thumb-exo").Path()); err != nil || !strings.HasPrefix(tty, "/dev/pts/") {
		t.Errorf("port link -> %q, %v", tty, err)
	}
}

package emu_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/haptex/haptex/devices/emu"
	"github.com/haptex/haptex/devices/emu/emutest"
	"github.com/haptex/haptex/internal/safefile/safefiletest"
)

// haptex devices emulate -dir DIR replaces a symbolic link planted at
// DIR/devices.toml or at a port's name instead of writing through it (it
// overwrote the link's target, as root, before).
func TestEmulateDirDoesNotFollowLinks(t *testing.T) {
	dir := t.TempDir()
	victims := map[string]string{}
	for _, name := range []string{"devices.toml", "thumb-exo"} {
		victims[name] = safefiletest.Plant(t, filepath.Join(dir, name), false)
	}
	e := startEmu(t, emu.Config{Dir: dir, NewExo: emutest.StandInExo, NewTactile: emutest.StandInTactile, Devices: emu.DefaultDevices()[:1]})
	safefiletest.Untouched(t, "port link", victims["thumb-exo"])
	safefiletest.Replaced(t, e.DevicesFile(), victims["devices.toml"])
	if tty, err := os.Readlink(e.Plug("thumb-exo").Path()); err != nil || !strings.HasPrefix(tty, "/dev/pts/") {
		t.Errorf("port link -> %q, %v", tty, err)
	}
}

//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A command that draws without a display starts its own Xvfb and, when it
// ends, leaves neither the server nor its lock file and socket behind: a
// killed server's lock would make every later command pick another
// display number.
func TestPrivateXvfbLeavesNothing(t *testing.T) {
	if _, err := exec.LookPath("Xvfb"); err != nil {
		t.Skip("no Xvfb")
	}
	t.Setenv("DISPLAY", "")
	stop, err := ensureDisplay()
	if err != nil {
		t.Fatal(err)
	}
	n := strings.TrimPrefix(os.Getenv("DISPLAY"), ":")
	lock, sock := "/tmp/.X"+n+"-lock", filepath.Join("/tmp/.X11-unix", "X"+n)
	if n == "" || !exists(lock) || !exists(sock) {
		stop()
		t.Fatalf("display %q: no lock %s or socket %s while it runs", n, lock, sock)
	}
	stop()
	for _, p := range []string{lock, sock} {
		if exists(p) {
			t.Errorf("%s is left behind", p)
		}
	}
	if os.Getenv("DISPLAY") != "" {
		t.Errorf("DISPLAY=%q after stop, want it as it was", os.Getenv("DISPLAY"))
	}
}

//go:build linux

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/haptex/haptex/render"
)

// errNoXvfb says why a command that draws could not get a display.
var errNoXvfb = errors.New("no display, and no Xvfb to start one (install the xvfb package, or run under scripts/with-display)")

// ensureDisplay makes sure the process can open an X display for
// offscreen rendering: the caller's, or a private Xvfb server it starts
// (and that stop ends). It must run before GLFW is first initialised,
// since GLFW reads DISPLAY then.
func ensureDisplay() (stop func(), err error) {
	if render.Probe() == nil {
		return func() {}, nil
	}
	xvfb, err := exec.LookPath("Xvfb")
	if err != nil {
		return nil, errNoXvfb
	}
	n := 99
	for ; n < 1000; n++ {
		if !exists(fmt.Sprintf("/tmp/.X%d-lock", n)) && !exists(filepath.Join("/tmp/.X11-unix", fmt.Sprintf("X%d", n))) {
			break
		}
	}
	cmd := exec.Command(xvfb, fmt.Sprintf(":%d", n), "-screen", "0", "1920x1080x24", "-nolisten", "tcp")
	// The server dies with haptex, however haptex ends.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting Xvfb: %w", err)
	}
	lock, sock := fmt.Sprintf("/tmp/.X%d-lock", n), filepath.Join("/tmp/.X11-unix", fmt.Sprintf("X%d", n))
	kill := func() { stopXvfb(cmd, lock, sock) }
	deadline := time.Now().Add(10 * time.Second)
	for !exists(sock) {
		if time.Now().After(deadline) {
			kill()
			return nil, fmt.Errorf("Xvfb :%d did not start within 10 s", n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	old, had := os.LookupEnv("DISPLAY")
	os.Setenv("DISPLAY", fmt.Sprintf(":%d", n))
	if err := render.Probe(); err != nil {
		kill()
		if had {
			os.Setenv("DISPLAY", old)
		} else {
			os.Unsetenv("DISPLAY")
		}
		return nil, fmt.Errorf("Xvfb :%d: %w", n, err)
	}
	return func() {
		kill()
		if had {
			os.Setenv("DISPLAY", old)
		} else {
			os.Unsetenv("DISPLAY")
		}
	}, nil
}

// stopXvfb ends a private Xvfb the way it cleans up after itself (SIGTERM:
// it removes its lock file and socket), and kills it when it has not
// ended within xvfbGrace; the lock and socket a killed server leaves are
// removed while the lock still names its process, so the next command
// does not find the display taken.
func stopXvfb(cmd *exec.Cmd, lock, sock string) {
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(xvfbGrace):
		cmd.Process.Kill()
		<-done
	}
	if b, err := os.ReadFile(lock); err == nil && strings.TrimSpace(string(b)) == strconv.Itoa(cmd.Process.Pid) {
		os.Remove(sock)
		os.Remove(lock)
	}
}

// xvfbGrace is how long a private Xvfb gets to end on SIGTERM.
const xvfbGrace = 2 * time.Second

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

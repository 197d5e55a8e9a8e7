package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/haptex/haptex/devices/emu"
)

// capture runs fn with os.Stdout going to a pipe and returns what fn
// printed. The package's tests run one at a time, so nothing else
// writes meanwhile.
func capture(t *testing.T, fn func() error) (string, error) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	var b strings.Builder
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		io.Copy(&b, r)
	}()
	err = fn()
	os.Stdout = old
	w.Close()
	wg.Wait()
	r.Close()
	return b.String(), err
}

// startEmulator runs haptex devices emulate (in this process, with the
// command's own code) until the test ends, announced in a run folder of
// the test's own, and returns it with its devices file. The devices'
// watchdogs and the links' silence limits are 10 s: this machine is
// shared, and the limits have tests of their own.
func startEmulator(t *testing.T, o emulateOptions, dir string) (*emu.Emulator, string) {
	t.Helper()
	if os.Getenv("XDG_RUNTIME_DIR") == "" || !strings.HasPrefix(os.Getenv("XDG_RUNTIME_DIR"), os.TempDir()) {
		t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	}
	old := devicesSlack
	devicesSlack = 10 * time.Second
	o.dir = dir
	if dir == "" {
		o.dir = t.TempDir()
	}
	if o.script == "" {
		o.script = "showcase"
	}
	ready := make(chan *emu.Emulator, 1)
	o.ready = func(e *emu.Emulator) { ready <- e }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- emulate(ctx, o) }()
	var e *emu.Emulator
	select {
	case e = <-ready:
	case err := <-done:
		cancel()
		devicesSlack = old
		t.Skipf("cannot start the emulator (no pseudo-terminals?): %v", err)
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("devices emulate: %v", err)
		}
		devicesSlack = old
	})
	return e, filepath.Join(o.dir, "devices.toml")
}

// readme returns the README's shell block between the markers
// <!-- NAME --> and <!-- /NAME -->: its command lines, comments cut.
func readme(t *testing.T, name string) [][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "<!-- "+name+" -->")
	j := strings.Index(s, "<!-- /"+name+" -->")
	if i < 0 || j < i {
		t.Fatalf("README.md has no %s block", name)
	}
	var cmds [][]string
	sc := bufio.NewScanner(strings.NewReader(s[i:j]))
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		f := strings.Fields(line)
		if len(f) > 0 && f[0] == "haptex" {
			cmds = append(cmds, f[1:])
		}
	}
	return cmds
}

var sessionLine = regexp.MustCompile(`replay them with: haptex replay (\S+)`)

// The README's devices workflow passes as written, against the emulator:
// devices list finds the emulated devices, run records a session through
// them, and replay reproduces every command of that real-time session bit
// for bit, saying first how it replays. A second run against the same
// emulator starts the hand's script again: both runs touch the cloth.
func TestREADMEDevicesWorkflow(t *testing.T) {
	cmds := readme(t, "devices-workflow")
	if len(cmds) != 4 || cmds[0][0] != "devices" || cmds[0][1] != "emulate" || cmds[1][1] != "list" || cmds[2][0] != "run" || cmds[3][0] != "replay" {
		t.Fatalf("the README's devices workflow is not emulate, list, run, replay: %q", cmds)
	}
	t.Chdir(t.TempDir())
	// devices emulate -dir emu, as the README's first line says.
	o := emulateOptions{exos: 2, tactiles: 2}
	fs := subFlags("devices", cmds[0][1:])
	script := fs.String("script", "showcase", "")
	dir := fs.String("dir", "", "")
	if err := parse(fs, cmds[0][2:], 0); err != nil {
		t.Fatal(err)
	}
	o.script = *script
	e, file := startEmulator(t, o, *dir)

	out, err := capture(t, func() error { _, err := execute(cmds[1]); return err })
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, "(haptex devices emulate (pid "); n != 4 || strings.Count(out, "    haptex 1.0 ") < 4 {
		t.Fatalf("devices list found %d emulated devices, want 4:\n%s", n, out)
	}

	runCmd := func() (string, string) {
		t.Helper()
		args := append([]string(nil), cmds[2]...)
		for i, a := range args {
			if strings.HasSuffix(a, "devices.toml") {
				args[i] = file // the emulator's, wherever -dir put it
			}
		}
		out, err := capture(t, func() error { _, err := execute(args); return err })
		if err != nil {
			t.Fatalf("haptex %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		m := sessionLine.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("run printed no session to replay:\n%s", out)
		}
		return m[1], out
	}
	session, _ := runCmd()
	var meta struct {
		Config struct {
			DevicesFile struct{ Path, Kind, SHA256 string } `json:"devices_file"`
		} `json:"config"`
		Summary struct {
			Mode string `json:"mode"`
		} `json:"summary"`
	}
	b, err := os.ReadFile(filepath.Join(session, "session.json"))
	if err == nil {
		err = json.Unmarshal(b, &meta)
	}
	if err != nil || meta.Summary.Mode != "realtime" || meta.Config.DevicesFile.Path != file || len(meta.Config.DevicesFile.SHA256) != 64 {
		t.Fatalf("session.json: %+v %v", meta, err)
	}

	args := append([]string(nil), cmds[3]...)
	for i, a := range args {
		if a == "SESSION" {
			args[i] = session
		}
	}
	out, err = capture(t, func() error { _, err := execute(args); return err })
	if err != nil {
		t.Fatalf("haptex %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	first, _, _ := strings.Cut(out, "\n")
	if !strings.HasPrefix(first, "replay of a real-time session: every tick replayed at its recorded time") ||
		!strings.Contains(out, "every recorded command and tactile frame reproduced bit for bit") {
		t.Fatalf("replay:\n%s", out)
	}
	t.Logf("%s", out)

	time.Sleep(emu.HandIdle + 100*time.Millisecond)
	session2, _ := runCmd()
	if e.Runs() != 2 {
		t.Errorf("the emulated hand started %d runs, want 2", e.Runs())
	}
	contact := func(dir string) float64 {
		var m struct {
			Summary struct {
				Fingers []struct {
					ContactS float64 `json:"contact_s"`
				} `json:"fingers"`
			} `json:"summary"`
		}
		b, err := os.ReadFile(filepath.Join(dir, "session.json"))
		if err == nil {
			err = json.Unmarshal(b, &m)
		}
		if err != nil || len(m.Summary.Fingers) != 2 {
			t.Fatalf("%s: %v", dir, err)
		}
		return m.Summary.Fingers[1].ContactS
	}
	c1, c2 := contact(session), contact(session2)
	t.Logf("index finger in contact %.2f s in the first run, %.2f s in the second", c1, c2)
	if raceEnabled {
		// The race detector slows the rig below 1 kHz: the fingers trip
		// for overruns, whatever the hand does.
		return
	}
	if c1 == 0 || c2 == 0 {
		t.Errorf("index contact %.2f s and %.2f s: each run should touch the cloth", c1, c2)
	}
}

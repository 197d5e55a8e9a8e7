package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/kes"
	"github.com/haptex/haptex/sim"
)

// The test binary runs as haptex itself when HAPTEX_TEST_MAIN is 1, so
// that a test can signal a real haptex process.
func TestMain(m *testing.M) {
	if os.Getenv("HAPTEX_TEST_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// A bench that ignores the context (the cloth's, the servo's) stops on
// SIGTERM or SIGINT all the same: haptex exits within the grace period
// with one line saying so, and its JSON names the bench interrupted;
// under bench all, the benches after it do not run and the JSON still
// comes, with the provenance.
func TestBenchStopsOnSignal(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		ready string // the stderr line after which the signal handler is in place
		sig   syscall.Signal
		cause string
	}{
		{[]string{"bench", "sim", "-json"}, "bench sim (", syscall.SIGTERM, "terminated"},
		{[]string{"bench", "all", "-json"}, "bench 1/8: control (", syscall.SIGINT, "interrupt"},
	} {
		t.Run(tc.args[1], func(t *testing.T) {
			cmd := exec.Command(os.Args[0], tc.args...)
			cmd.Env = append(os.Environ(), "HAPTEX_TEST_MAIN=1")
			var stdout bytes.Buffer
			cmd.Stdout = &stdout
			errPipe, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Kill it whatever happens; a generous limit on a loaded machine.
			timer := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
			defer timer.Stop()
			sc := bufio.NewScanner(errPipe)
			var stderr []string
			for sc.Scan() {
				stderr = append(stderr, sc.Text())
				if strings.HasPrefix(sc.Text(), tc.ready) {
					break
				}
			}
			sent := time.Now()
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			rest, _ := io.ReadAll(errPipe)
			err = cmd.Wait()
			took := time.Since(sent)
			stderr = append(stderr, strings.Split(strings.TrimSpace(string(rest)), "\n")...)
			last := stderr[len(stderr)-1]
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Fatalf("exit: %v after %v, want status 1 (stderr:\n%s)", err, took, strings.Join(stderr, "\n"))
			}
			if !strings.Contains(last, tc.cause) || !strings.Contains(last, "during "+map[string]string{"sim": "sim", "all": "control"}[tc.args[1]]) {
				t.Errorf("last line %q, want the signal and the bench it stopped", last)
			}
			t.Logf("exited %v after the signal: %s", took.Round(time.Millisecond), last)
			var out map[string]any
			if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
				t.Fatalf("stdout is not one JSON object: %v\n%s", err, stdout.Bytes())
			}
			for _, k := range []string{"interrupted", "software", "timestamp", "host"} {
				if out[k] == nil {
					t.Errorf("JSON lacks %q: %s", k, stdout.Bytes())
				}
			}
			if tc.args[1] == "all" {
				results, _ := out["results"].(map[string]any)
				control, _ := results["control"].(map[string]any)
				if len(results) != 1 || control["interrupted"] == nil {
					t.Errorf("results %v, want only control, interrupted", results)
				}
				if s, _ := out["interrupted"].(string); !strings.Contains(s, "not run: devices, lockstep, loop, render, sim, statebuf, tactile") {
					t.Errorf("interrupted %q does not name the benches left", s)
				}
			}
		})
	}
}

// A bench that watches the context returns what it measured, marked
// interrupted; one that does not is left after the grace period and
// reported by name; a bench that finishes before any signal is not
// marked.
func TestRunUntilSignal(t *testing.T) {
	partial := func(ctx context.Context, _ benchOpts) (any, error) {
		<-ctx.Done()
		return map[string]any{"ticks": 12}, nil
	}
	deaf := func(context.Context, benchOpts) (any, error) {
		time.Sleep(benchGrace + 5*time.Second)
		return map[string]any{"ticks": 99}, nil
	}
	quick := func(context.Context, benchOpts) (any, error) { return map[string]any{"ticks": 1}, nil }
	for name, fn := range map[string]func(context.Context, benchOpts) (any, error){"test-partial": partial, "test-deaf": deaf, "test-quick": quick} {
		benches[name] = fn
		t.Cleanup(func() { delete(benches, name) })
	}
	cause := errors.New("terminated signal received")

	obj, err := runUntilSignal(t.Context(), "test-quick", benchOpts{})
	if err != nil || obj["ticks"] != 1.0 || obj["interrupted"] != nil {
		t.Errorf("quick bench: %v, %v", obj, err)
	}

	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(cause)
	obj, err = runUntilSignal(ctx, "test-partial", benchOpts{})
	if err != nil || obj["ticks"] != 12.0 || obj["interrupted"] != cause.Error() {
		t.Errorf("partial bench: %v, %v", obj, err)
	}
	obj, err = runUntilSignal(ctx, "test-deaf", benchOpts{})
	if err != nil || obj["ticks"] != nil || obj["interrupted"] != cause.Error() || obj["bench"] != "test-deaf" || obj["software"] == nil {
		t.Errorf("deaf bench: %v, %v", obj, err)
	}
}

// bench all on a machine without a display, nor Xvfb to make one: the
// JSON still comes, whole: the provenance at the top, every bench's
// result with a goal_met for each of its README goals, and the render
// bench skipped with the reason. The other benches are stand-ins that
// report each figure their goals name (the benches themselves are tested
// in their packages; this is the assembly).
func TestBenchAllHeadless(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("PATH", t.TempDir())
	for name := range benches {
		if name == "render" {
			continue
		}
		old := benches[name]
		t.Cleanup(func() { benches[name] = old })
		obj := map[string]any{"scenes": []any{map[string]any{"side": 24, "dt_ms": 1, "script": "showcase", "self_collision": true,
			"penetrations": 0, "self_contacts": map[string]any{"max": 3}, "goal_percentile": "p999", "goal_ms": 1, "step_ms": map[string]any{"p999": 0.5}}}}
		for _, g := range benchGoals[name] {
			put(obj, g.figure, 1)
		}
		benches[name] = func(context.Context, benchOpts) (any, error) { return obj, nil }
	}
	out, err := capture(t, func() error { return runBench([]string{"all", "-json"}) })
	if err != nil {
		t.Fatalf("bench all: %v\n%s", err, out)
	}
	var all struct {
		Software  map[string]any            `json:"software"`
		Timestamp string                    `json:"timestamp"`
		Host      map[string]any            `json:"host"`
		Total     int                       `json:"goals_total"`
		Results   map[string]map[string]any `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &all); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out)
	}
	if all.Software["commit"] == nil || all.Timestamp == "" || all.Host["cpu_model"] == nil && all.Host["hostname"] == nil {
		t.Errorf("provenance: software %v, timestamp %q, host %v", all.Software, all.Timestamp, all.Host)
	}
	if len(all.Results) != len(benches) {
		t.Errorf("%d results for %d benches", len(all.Results), len(benches))
	}
	if s, _ := all.Results["render"]["skipped"].(string); !strings.Contains(s, "no display") {
		t.Errorf("render without a display: %v", all.Results["render"])
	}
	want := 0
	for name, r := range all.Results {
		goals, _ := r["goals"].([]any)
		if name != "render" && len(goals) == 0 {
			t.Errorf("%s: no goals", name)
		}
		for _, g := range goals {
			if m := g.(map[string]any); m["goal_met"] == nil || m["goal"] == nil {
				t.Errorf("%s: goal without goal or goal_met: %v", name, m)
			}
		}
		want += len(goals)
	}
	readme := 3 // the sim stand-in's scene: its penetrations, its self-contacts and its step time
	for name, g := range benchGoals {
		if name != "render" {
			readme += len(g)
		}
	}
	if all.Total != want || want != readme {
		t.Errorf("goals_total %d, the results hold %d, the README's goals %d", all.Total, want, readme)
	}
}

// put sets the number v at a dotted path of keys in m, making the maps on
// the way (list indices are not needed by the goals above sim's).
func put(m map[string]any, path string, v float64) {
	keys := strings.Split(path, ".")
	for _, k := range keys[:len(keys)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[keys[len(keys)-1]] = v
}

// bench sim -fabric runs the scenes on the fabric's material, internal
// friction included; without it on sim's default cloth; an unknown name
// is an error before any scene runs.
func TestBenchSimFabric(t *testing.T) {
	opt, err := simOptions(benchOpts{})
	if err != nil || opt.Edit != nil {
		t.Errorf("no fabric: edit %v, err %v; want sim's default cloth", opt.Edit != nil, err)
	}
	lib := kes.Library{Dir: t.TempDir()}
	if _, err := simOptions(benchOpts{fabric: "no-such-fabric", library: lib}); err == nil || !strings.Contains(err.Error(), "no-such-fabric") {
		t.Errorf("unknown fabric: %v, want an error naming it", err)
	}
	opt, err = simOptions(benchOpts{fabric: rig.DefaultFabric, library: lib})
	if err != nil || opt.Edit == nil {
		t.Fatalf("%s: edit %v, err %v", rig.DefaultFabric, opt.Edit != nil, err)
	}
	f, err := kes.Builtin(rig.DefaultFabric)
	if err != nil {
		t.Fatal(err)
	}
	want, err := f.Material()
	if err != nil {
		t.Fatal(err)
	}
	cfg := sim.DefaultConfig()
	opt.Edit(&cfg)
	if h := cfg.Material.Hysteresis; h != want.Hysteresis || h.BendWeft <= 0 || h.Weft <= 0 {
		t.Errorf("%s: hysteresis %+v, want the fabric's %+v, bending friction included", rig.DefaultFabric, h, want.Hysteresis)
	}
	if cfg.Material.Thickness != want.Thickness {
		t.Errorf("thickness %g, want the fabric's %g", cfg.Material.Thickness, want.Thickness)
	}
}

// spinForProfile keeps a core busy for d, under a name the profile's
// string table must hold.
//
//go:noinline
func spinForProfile(d time.Duration) float64 {
	s := 1.0
	for t0 := time.Now(); time.Since(t0) < d; {
		for i := range 1000 {
			s = s*1.0000001 + float64(i&1)
		}
	}
	return s
}

// -cpuprofile writes a CPU profile of the bench that ran (the format go
// tool pprof reads and cmd/haptex/default.pgo is made from); a path it
// cannot create is a one-line error before any bench runs.
func TestBenchCPUProfile(t *testing.T) {
	old := benches["statebuf"]
	t.Cleanup(func() { benches["statebuf"] = old })
	ran := 0
	benches["statebuf"] = func(context.Context, benchOpts) (any, error) {
		ran++
		return map[string]any{"sum": spinForProfile(300 * time.Millisecond)}, nil
	}
	path := t.TempDir() + "/cpu.pprof"
	if out, err := capture(t, func() error { return runBench([]string{"statebuf", "-json", "-cpuprofile", path}) }); err != nil {
		t.Fatalf("bench statebuf -cpuprofile: %v\n%s", err, out)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("the profile is not gzipped protobuf, as pprof writes: %v", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte(".spinForProfile")) {
		t.Errorf("the profile (%d bytes) has no sample of the bench's own work", len(raw))
	}

	err = runBench([]string{"statebuf", "-cpuprofile", t.TempDir() + "/no/such/dir/cpu.pprof"})
	if err == nil || !strings.Contains(err.Error(), "cpu profile") || strings.Contains(err.Error(), "\n") {
		t.Errorf("an unwritable profile path: %v", err)
	}
	if ran != 1 {
		t.Errorf("the bench ran %d times, want once (not after the profile's error)", ran)
	}

	// A link at the path is replaced; what it points to is not written.
	dir := t.TempDir()
	target, link := filepath.Join(dir, "precious.txt"), filepath.Join(dir, "cpu.pprof")
	os.WriteFile(target, []byte("keep"), 0o644)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if out, err := capture(t, func() error { return runBench([]string{"statebuf", "-json", "-cpuprofile", link}) }); err != nil {
		t.Fatalf("bench statebuf -cpuprofile LINK: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Errorf("the profile was written through the link: %d bytes", len(b))
	}
	if fi, err := os.Lstat(link); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("%s: %v; want the profile in a regular file", link, err)
	}
}

// A bench of no time, a negative baseline or no frames is a usage error
// before any bench runs (-duration 0 ran the loop bench until a signal).
func TestBenchRefusesNoTime(t *testing.T) {
	for _, args := range [][]string{
		{"loop", "-duration", "0"},
		{"loop", "-duration", "-1s"},
		{"loop", "-baseline", "-1s"},
		{"render", "-frames", "0"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			err := runBench(args)
			if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), args[1]) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%v, want one usage line naming %s", err, args[1])
			}
		})
	}
}

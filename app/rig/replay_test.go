package rig

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// recordSession runs a lockstep session of d with every device recorded
// and returns its folder.
func recordSession(t *testing.T, d time.Duration) string {
	t.Helper()
	r, err := New(coarse(Config{OutDir: t.TempDir(), Duration: d, RecordDevices: true}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.RunLockstep(); err != nil {
		t.Fatal(err)
	}
	return r.SessionDir()
}

// A recorded 10 s lockstep session (simulated devices, coarse cloth),
// replayed through the rig with its recorded devices, reproduces every
// command and tactile frame bit for bit; the same replay with a servo that
// differs in one parameter does not. Under the race detector (make test)
// the session is 3 s: 10 s take 75 s there.
func TestReplayIsBitExact(t *testing.T) {
	d := 10 * time.Second
	if testing.Short() || raceEnabled {
		d = 3 * time.Second
	}
	dir := recordSession(t, d)
	p, err := LoadReplay(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.Mode != "lockstep" || p.FabricName != DefaultFabric || p.Config.Duration != d {
		t.Fatalf("replay of %+v", p)
	}
	res, err := p.Run()
	if err != nil {
		t.Fatal(err)
	}
	if !res.BitExact || len(res.Devices) != 4 {
		t.Fatalf("%+v", res)
	}
	for _, v := range res.Devices {
		want := int(d / time.Millisecond) // one command per haptics tick
		if strings.HasSuffix(v.Name, "tactile") {
			want = int(d / (25 * time.Millisecond))
		}
		// The servo writes only while the finger is powered: allow the
		// start-up ramp, no more.
		if v.Matched < want*9/10 || v.Matched != v.Recorded || v.Skipped != 0 {
			t.Errorf("%s: %+v, want about %d commands matched", v.Name, v, want)
		}
		t.Logf("%s: %d commands and frames replayed bit for bit, %d reads", v.Name, v.Matched, v.Reads)
	}

	q, err := LoadReplay(dir)
	if err != nil {
		t.Fatal(err)
	}
	q.Config.Duration = 300 * time.Millisecond
	q.Config.Servo.Safety.EnableRamp = q.Config.Servo.Safety.EnableRamp * 9 / 10
	res, err = q.Run()
	if err == nil {
		t.Fatal("a replay with a different servo reproduced the recorded commands")
	}
	for _, v := range res.Devices {
		if strings.HasSuffix(v.Name, "exo") && v.Mismatched == 0 {
			t.Errorf("%s: a different enable ramp gave the recorded commands: %+v", v.Name, v)
		}
	}
	t.Logf("shorter enable ramp: %v", err)
}

// A real-time session, whose loops met in an order of the machine's
// making, replays bit for bit on its recorded schedule: every command and
// tactile frame the same. Its tables say which inputs each tick took.
func TestRealtimeReplayIsBitExact(t *testing.T) {
	r, err := New(coarse(Config{OutDir: t.TempDir(), Duration: 1500 * time.Millisecond, NormalPriority: true, RecordDevices: true}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	p, err := LoadReplay(r.SessionDir())
	if err != nil {
		t.Fatal(err)
	}
	if p.Mode != "realtime" || !strings.Contains(p.Method(), "real-time session: every tick replayed at its recorded time") {
		t.Fatalf("%s: %s", p.Mode, p.Method())
	}
	res, err := p.Run()
	if err != nil {
		t.Fatal(err)
	}
	if !res.BitExact || len(res.Devices) != 4 {
		t.Fatalf("%+v", res)
	}
	unpowered := 0
	for _, v := range res.Devices {
		if v.Matched != v.Recorded || v.Skipped != 0 {
			t.Errorf("%s: %+v", v.Name, v)
		}
		switch {
		case v.Recorded == 0 && strings.HasSuffix(v.Name, "exo"):
			// The servo writes only while the finger is powered.
			unpowered++
		case v.Matched == 0:
			t.Errorf("%s: nothing replayed: %+v", v.Name, v)
		}
		t.Logf("%s: %d commands and frames replayed bit for bit, %d reads", v.Name, v.Matched, v.Reads)
	}
	if unpowered == 2 && !t.Failed() {
		t.Skip("the loaded machine held the loops until the fingers tripped: no exoskeleton command to compare (the frames were)")
	}
}

// A real-time session whose tables were tampered with, cut short or
// written before they recorded the loops' inputs is refused, or replayed
// to a clear verdict, with one line and never a panic.
func TestRealtimeReplayHostileTables(t *testing.T) {
	r, err := New(coarse(Config{OutDir: t.TempDir(), Duration: 300 * time.Millisecond, NormalPriority: true, RecordDevices: true}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	dir := r.SessionDir()
	orig := map[string][]byte{}
	for _, n := range []string{"haptics.csv", "sim.csv", "tactile.csv", "session.json"} {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		orig[n] = b
		if n == "session.json" {
			continue
		}
		// The cases below edit rows up to the sixth: a machine that held
		// the loops for most of the run leaves fewer.
		if rows := strings.Count(string(b), "\n") - 1; rows < 6 {
			t.Skipf("the loaded machine ran the rig for %d rows of %s in 300 ms: too few to tamper with", rows, n)
		}
	}
	// edit rewrites one table: f gets its header and rows (as fields).
	edit := func(name string, f func(h []string, rows [][]string) ([]string, [][]string)) {
		lines := strings.Split(strings.TrimSuffix(string(orig[name]), "\n"), "\n")
		h := strings.Split(lines[0], ",")
		var rows [][]string
		for _, l := range lines[1:] {
			rows = append(rows, strings.Split(l, ","))
		}
		h, rows = f(h, rows)
		var b strings.Builder
		b.WriteString(strings.Join(h, ",") + "\n")
		for _, r := range rows {
			b.WriteString(strings.Join(r, ",") + "\n")
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	restore := func() {
		for n, b := range orig {
			os.WriteFile(filepath.Join(dir, n), b, 0o644)
		}
	}
	col := func(h []string, name string) int {
		for i, c := range h {
			if c == name {
				return i
			}
		}
		t.Fatalf("no column %s", name)
		return -1
	}
	for _, c := range []struct {
		name, want string
		do         func()
	}{
		{"no sequence column", "recorded before this version", func() {
			edit("haptics.csv", func(h []string, rows [][]string) ([]string, [][]string) {
				h[col(h, "sim_seq")] = "something_else"
				return h, rows
			})
		}},
		{"a step from the future", "inconsistent", func() {
			edit("haptics.csv", func(h []string, rows [][]string) ([]string, [][]string) {
				rows[5][col(h, "sim_seq")] = "100000"
				return h, rows
			})
		}},
		{"a finger state from the future", "inconsistent", func() {
			edit("sim.csv", func(h []string, rows [][]string) ([]string, [][]string) {
				rows[2][col(h, "fingers_seq")] = "99999999"
				return h, rows
			})
		}},
		{"time going back", "not after the row before", func() {
			edit("tactile.csv", func(h []string, rows [][]string) ([]string, [][]string) {
				rows[3][0] = rows[1][0]
				return h, rows
			})
		}},
		{"a row cut short", "a row cut short", func() {
			edit("sim.csv", func(h []string, rows [][]string) ([]string, [][]string) {
				rows[1] = rows[1][:3]
				return h, rows
			})
		}},
		{"not a number", "fingers_seq", func() {
			edit("tactile.csv", func(h []string, rows [][]string) ([]string, [][]string) {
				rows[0][col(h, "fingers_seq")] = "-1"
				return h, rows
			})
		}},
		{"a missing table", "no such file", func() { os.Remove(filepath.Join(dir, "tactile.csv")) }},
		{"rows lost to a full disk", "sim.csv lost its last 7 rows", func() {
			var meta map[string]any
			if err := json.Unmarshal(orig["session.json"], &meta); err != nil {
				t.Fatal(err)
			}
			for _, tb := range meta["summary"].(map[string]any)["tables"].([]any) {
				if tb := tb.(map[string]any); tb["file"] == "sim.csv" {
					tb["lost"], tb["error"] = 7, "record: sim.csv: write: no space left on device"
				}
			}
			b, err := json.Marshal(meta)
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, "session.json"), b, 0o644)
		}},
		{"a run that did not end", "the run did not end", func() {
			var meta map[string]any
			if err := json.Unmarshal(orig["session.json"], &meta); err != nil {
				t.Fatal(err)
			}
			meta["summary"] = nil
			b, err := json.Marshal(meta)
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, "session.json"), b, 0o644)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer restore()
			c.do()
			p, err := LoadReplay(dir)
			if err == nil {
				_, err = p.Run()
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%v, want one line with %q", err, c.want)
			}
		})
	}
}

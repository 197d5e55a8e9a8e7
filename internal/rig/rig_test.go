package rig

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// runLockstep runs a recorded lockstep session and returns its folder.
func runLockstep(t *testing.T, d time.Duration) (string, *Summary) {
	t.Helper()
	r, err := New(Config{OutDir: t.TempDir(), Duration: d})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := r.RunLockstep()
	if err != nil {
		t.Fatal(err)
	}
	return r.SessionDir(), sum
}

// Two lockstep runs of the same configuration write bit-identical records.
func TestLockstepIsDeterministic(t *testing.T) {
	d := 10 * time.Second
	if testing.Short() {
		d = 2 * time.Second
	}
	a, _ := runLockstep(t, d)
	b, _ := runLockstep(t, d)
	for _, name := range []string{"haptics.csv"} {
		x, err := os.ReadFile(filepath.Join(a, name))
		if err != nil {
			t.Fatal(err)
		}
		y, err := os.ReadFile(filepath.Join(b, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x, y) {
			t.Fatalf("%s differs between two lockstep runs (%d vs %d bytes)", name, len(x), len(y))
		}
	}
}

// A lockstep session has one haptics row per millisecond of virtual time,
// none dropped, and a session.json that reports it.
func TestLockstepSessionRecord(t *testing.T) {
	dir, sum := runLockstep(t, 2*time.Second)
	f, err := os.Open(filepath.Join(dir, "haptics.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2001 {
		t.Fatalf("%d rows (with header), want 2001", len(rows))
	}
	var meta struct {
		Summary Summary `json:"summary"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "session.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Summary.Tables[0].Rows != 2000 || meta.Summary.Tables[0].Dropped != 0 || sum.Mode != "lockstep" {
		t.Fatalf("session.json summary: %+v", meta.Summary.Tables)
	}
}

// The haptics tick allocates nothing.
func TestHapticsTickAllocs(t *testing.T) {
	r, err := New(Config{OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.session.Close()
	tick := time.Duration(0)
	if a := testing.AllocsPerRun(1000, func() {
		tick += time.Millisecond
		r.haptics.step(tick)
	}); a != 0 {
		t.Fatalf("haptics tick allocates %v times", a)
	}
}

// A short real-time run starts every loop, stops on time and records what
// it ran. Timing figures are not asserted (the machine is shared).
func TestRealtimeRun(t *testing.T) {
	r, err := New(Config{OutDir: t.TempDir(), Duration: 500 * time.Millisecond, Priority: -1})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	h := sum.Loops[0]
	if h.Ticks < 50 || sum.Tables[0].Rows != h.Ticks || sum.Tables[0].Dropped != 0 {
		t.Fatalf("haptics ran %d ticks, recorded %d rows, dropped %d", h.Ticks, sum.Tables[0].Rows, sum.Tables[0].Dropped)
	}
	if _, err := os.Stat(filepath.Join(r.SessionDir(), "session.json")); err != nil {
		t.Fatal(err)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []Config{
		{TactilePeriod: time.Millisecond},
		{HapticsPeriod: time.Second},
		{Duration: -time.Second},
	} {
		if _, err := New(c); err == nil {
			t.Errorf("config %+v: no error", c)
		}
	}
}

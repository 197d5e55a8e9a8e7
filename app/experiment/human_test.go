package experiment

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/haptex/haptex/app/rig"
)

// oneTrial is a single 2AFC trial of a 40 Hz tone with the fingers at
// rest: what the terminal test needs is a person's session, not handling.
const oneTrial = `
format = 1
name = "terminal-test"
side = 8
[stimulus]
kind = "tactile-tone"
frequency_hz = [40]
[timing]
interval_s = 0.3
gap_s = 0.3
iti_s = 0.3
[procedure]
kind = "constant"
[procedure.constant]
task = { kind = "afc", alternatives = 2 }
levels = [20, 30]
repeats = 1
seed = 1
`

// A person's session through a terminal: a start prompt waits for Enter,
// each trial is announced as "trial n of N", and a key pressed during
// interval 1 is not taken as the answer to the question that follows.
func TestTerminalDiscardsEarlyKeys(t *testing.T) {
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer master.Close()
	var (
		mu  sync.Mutex
		out strings.Builder
	)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	// waitFor waits until the terminal has shown s for the nth time.
	waitFor := func(s string, nth int) {
		t.Helper()
		deadline := time.Now().Add(3 * time.Minute)
		for time.Now().Before(deadline) {
			mu.Lock()
			n := strings.Count(out.String(), s)
			mu.Unlock()
			if n >= nth {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("the terminal never showed %q (%d times):\n%s", s, nth, out.String())
	}
	e, err := Parse([]byte(oneTrial), "terminal.toml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	done := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), Options{Experiment: e, Source: []byte(oneTrial), Subject: "p01", OutDir: dir,
			In: slave, Out: slave, SkipStimulusCheck: true, NoTraces: true,
			Rig: rig.Config{Scripted: true, NormalPriority: true}})
		done <- err
	}()
	write := func(s string) {
		if _, err := master.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	waitFor("Press Enter to start", 1)
	write("\n")
	for trial := 1; trial <= 2; trial++ {
		waitFor("trial "+string(rune('0'+trial))+" of 2", 1)
		waitFor("interval 1 ...", trial)
		write("1\n") // during interval 1: too early to be an answer
		waitFor("[1/2]", trial)
		write("2\n")
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Minute):
		// 8 s alone under -race; beside the other packages' tests on two
		// cores it once took over 2 minutes.
		t.Fatal("the run did not end")
	}
	rows := readCSV(t, filepath.Join(dir, "terminal-test", "p01", "trials.csv"))
	col := map[string]int{}
	for i, h := range csvHeader(2) {
		col[h] = i
	}
	for i, r := range rows {
		if r[col["chosen_interval"]] != "2" || r[col["observer"]] != "person" {
			t.Errorf("trial %d: chose %s, answered by %s; the key pressed during interval 1 was taken", i+1, r[col["chosen_interval"]], r[col["observer"]])
		}
	}
	if len(rows) != 2 {
		t.Fatalf("%d trials recorded, want 2", len(rows))
	}
}

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

// answerOnPrompt is a subject who answers the moment the prompt shows:
// its Write sends answer to the terminal before it returns, when it sees
// prompt.
type answerOnPrompt struct {
	t              *testing.T
	master         interface{ Write([]byte) (int, error) }
	prompt, answer string
}

func (a *answerOnPrompt) Write(p []byte) (int, error) {
	if strings.Contains(string(p), a.prompt) {
		if _, err := a.master.Write([]byte(a.answer)); err != nil {
			a.t.Error(err)
		}
	}
	return len(p), nil
}

// An answer typed as soon as the question shows counts: the terminal's
// unread input is flushed before the question is written, not after it,
// which lost such an answer and left the run waiting for one.
func TestTerminalTakesAnswerAsPromptShows(t *testing.T) {
	for _, c := range []struct {
		prompt, answer string
		ask            func(*terminal, context.Context) error
	}{
		{"Press Enter", "\n", func(term *terminal, ctx context.Context) error { return term.start(ctx) }},
		{"[1/2]", "2\n", func(term *terminal, ctx context.Context) error {
			_, chosen, _, err := term.ask(ctx, "Which interval?", 2, 1)
			if err == nil && chosen != 1 {
				t.Errorf("chosen %d, want 1 (the answer 2)", chosen)
			}
			return err
		}},
	} {
		// A terminal per question: each reads its terminal's lines
		// until the terminal closes.
		master, slave, err := pty.Open()
		if err != nil {
			t.Skipf("no pseudo-terminal: %v", err)
		}
		term := newTerminal(slave, &answerOnPrompt{t: t, master: master, prompt: c.prompt, answer: c.answer})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := c.ask(term, ctx); err != nil {
			t.Errorf("%q answered as it showed: %v", c.prompt, err)
		}
		cancel()
		slave.Close()
		master.Close()
	}
}

package main

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// haptex run killed (SIGKILL) at random moments leaves a session folder
// that says what it ran: session.json with the configuration, the fabric
// and a null summary; haptex report makes its page and says the run did
// not end (checked after the first kill); haptex replay refuses it in one
// line.
func TestRunKilled(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 1))
	t.Logf("seed %d", seed)
	bin, _ := program(t)
	for k := range 3 {
		out := t.TempDir()
		cmd := exec.Command(bin, "run", "-lockstep", "-duration", "60s", "-fabric", "denim", "-out", out)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Once the run records, a random moment in its first second and
		// a half of recording.
		var dir string
		for end := time.Now().Add(2 * time.Minute); dir == "" && time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			m, _ := filepath.Glob(filepath.Join(out, "session-*", "haptics.csv"))
			if len(m) == 1 {
				if st, err := os.Stat(m[0]); err == nil && st.Size() > 1000 {
					dir = filepath.Dir(m[0])
				}
			}
		}
		if dir == "" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("the run recorded nothing in 2 minutes")
		}
		after := time.Duration(rng.Int64N(int64(1500 * time.Millisecond)))
		time.Sleep(after)
		cmd.Process.Kill()
		cmd.Wait()

		var meta struct {
			Fabric string `json:"fabric"`
			Config struct {
				DurationNs int64 `json:"duration_ns"`
			} `json:"config"`
			Summary *json.RawMessage `json:"summary"`
		}
		b, err := os.ReadFile(filepath.Join(dir, "session.json"))
		if err == nil {
			err = json.Unmarshal(b, &meta)
		}
		if err != nil || meta.Fabric != "denim" || meta.Config.DurationNs != int64(60*time.Second) || meta.Summary != nil {
			t.Fatalf("kill %d (%v into the recording): session.json %+v (%v)", k, after, meta, err)
		}
		if k == 0 {
			// The page once: its figures take most of the test's time
			// under the race detector.
			if _, err := capture(t, func() error { _, err := execute([]string{"report", dir}); return err }); err != nil {
				t.Errorf("kill %d: haptex report: %v", k, err)
			}
			page, err := os.ReadFile(filepath.Join(dir, "report", "index.html"))
			if err != nil || !strings.Contains(string(page), "the run did not end") {
				t.Errorf("kill %d: the report page does not say the run did not end (%v)", k, err)
			}
		}
		_, err = execute([]string{"replay", dir})
		if err == nil || !strings.Contains(err.Error(), "the run did not end") || strings.Contains(err.Error(), "\n") {
			t.Errorf("kill %d: haptex replay: %v, want one line saying the run did not end", k, err)
		}
	}
}

package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/haptex/haptex/app/experiment"
	"github.com/haptex/haptex/app/experiment/bids"
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

// haptex experiment run, killed (SIGKILL) at random moments in its
// trials and run again with the same command until it ends, keeps every
// trial once and whole: trials.csv numbers them 1..n, each has its
// intervals' traces as complete gzip streams, the BIDS table and the
// analysis cover them, and no file a killed write leaves behind remains. A
// second run of the same subject, started while one runs, is refused in
// one line. Each run is first killed in its stimulus check, before any
// trial. Two experiments, shortened: a set experiment (a magnitude
// estimation) and a discrimination (a staircase, two intervals a trial).
func TestExperimentRunKilled(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	for _, c := range []struct {
		name, file, observer, analysis string
		shorten                        [][2]string
		trials, intervals, first       int // first: the trial column's first number
	}{
		{"set", "evaluation/magnitude-friction.toml", "magnitude:exponent=0.7,sigma=0.3,seed=", "magnitude.json",
			[][2]string{{"side = 16", "side = 8"}, {"levels = [-50, 0, 50, 100, 200]", "levels = [0, 100, 200]"}, {"repeats = 6", "repeats = 2"}}, 6, 1, 1},
		{"staircase", "force-2afc.toml", "sim:form=weibull,threshold=12,beta=3,lambda=0.01,seed=", "fit.json",
			[][2]string{{"side = 16", "side = 8"}, {"max_trials = 300", "max_trials = 5"}}, 5, 2, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, uint64(len(c.name))))
			bin, _ := program(t)
			dir := t.TempDir()
			src, err := os.ReadFile(filepath.Join("..", "..", "examples", c.file))
			if err != nil {
				t.Fatal(err)
			}
			short := string(src)
			for _, r := range c.shorten {
				if !strings.Contains(short, r[0]) {
					t.Fatalf("examples/%s: no %q to shorten", c.file, r[0])
				}
				short = strings.Replace(short, r[0], r[1], 1)
			}
			file := filepath.Join(dir, "short.toml")
			if err := os.WriteFile(file, []byte(short), 0o644); err != nil {
				t.Fatal(err)
			}
			e, _, err := experiment.Load(file)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out")
			subject := filepath.Join(out, e.Name, "sim01")
			run := func(seed string) *exec.Cmd {
				return exec.Command(bin, "experiment", "run", file, "-subject", "sim01", "-bids", "-out", out, "-observer", c.observer+seed)
			}
			rows := func() int {
				b, err := os.ReadFile(filepath.Join(subject, "trials.csv"))
				if err != nil {
					return 0
				}
				return max(bytes.Count(b, []byte("\n"))-1, 0)
			}
			// Killed first in its stimulus check, before any trial: a
			// run that follows checks again, or takes up a check written
			// whole.
			cmd := run("7")
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			announced := false
			for sc := bufio.NewScanner(stdout); !announced && sc.Scan(); {
				announced = strings.HasPrefix(sc.Text(), "stimulus check:")
			}
			time.Sleep(time.Duration(rng.Int64N(int64(300 * time.Millisecond))))
			cmd.Process.Kill()
			cmd.Wait()
			if !announced {
				t.Fatalf("the run announced no stimulus check: %s", stderr.String())
			}
			t.Logf("killed in its stimulus check with %d trials on disk", rows())
			kills, refused := 0, false
			for attempt := 0; ; attempt++ {
				if attempt == 20 {
					t.Fatalf("not done after %d runs (%d trials on disk)", attempt, rows())
				}
				cmd := run("7")
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				done := make(chan error, 1)
				go func() { done <- cmd.Wait() }()
				// A random moment after a trial lands, until 3 kills have
				// (the last run is let finish).
				before := rows()
				var exited error
				finished := false
				for end := time.Now().Add(2 * time.Minute); !finished; {
					select {
					case exited = <-done:
						finished = true
					case <-time.After(20 * time.Millisecond):
					}
					if time.Now().After(end) {
						cmd.Process.Kill()
						<-done
						t.Fatalf("run %d: no trial landed in 2 minutes", attempt)
					}
					if !finished && rows() > before {
						break
					}
				}
				if !refused && !finished {
					// While this run holds the folder, a second is refused.
					b, err := run("8").CombinedOutput()
					msg := strings.TrimSpace(string(b))
					if err == nil || !strings.Contains(msg, "is in use by another run") || strings.Contains(msg, "\n") {
						t.Errorf("a second run while one runs: %v, %q; want it refused in one line", err, msg)
					}
					refused = true
				}
				if !finished && kills < 3 {
					time.Sleep(time.Duration(rng.Int64N(int64(600 * time.Millisecond))))
					cmd.Process.Kill()
					<-done
					kills++
					t.Logf("run %d killed with %d trials on disk", attempt, rows())
					if kills == 1 {
						// What a kill between a write and its rename
						// leaves (a moment too short to hit at random).
						for _, f := range []string{".state.json.0123456789ab.tmp", "traces/.0001-i1-haptics.csv.gz.a0a0a0a0a0a0.tmp"} {
							if err := os.WriteFile(filepath.Join(subject, f), []byte("half"), 0o644); err != nil {
								t.Fatal(err)
							}
						}
					}
					continue
				}
				if !finished {
					exited = <-done
				}
				if exited != nil {
					t.Fatalf("run %d: %v\n%s", attempt, exited, stderr.String())
				}
				break
			}
			if kills < 3 || !refused {
				t.Fatalf("%d kills, second run tried %v", kills, refused)
			}

			b, err := os.ReadFile(filepath.Join(subject, "trials.csv"))
			if err != nil {
				t.Fatal(err)
			}
			recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
			if err != nil || len(recs) != c.trials+1 {
				t.Fatalf("trials.csv: %d records (%v), want %d trials", len(recs), err, c.trials)
			}
			for i, r := range recs[1:] {
				if r[0] != strconv.Itoa(i+c.first) {
					t.Errorf("trials.csv row %d: %v", i+1, r)
				}
				// Traces are numbered from 1 in both.
				for k := 1; k <= c.intervals; k++ {
					for _, kind := range []string{"haptics", "tactile"} {
						name := filepath.Join(subject, "traces", fmt.Sprintf("%04d-i%d-%s.csv.gz", i+1, k, kind))
						if err := gunzipAll(name); err != nil {
							t.Errorf("trial %d: %v", i+1, err)
						}
					}
				}
			}
			tsv, _, err := bids.Path("sim01", e.Name)
			if err != nil {
				t.Fatal(err)
			}
			if b, err := os.ReadFile(filepath.Join(subject, tsv)); err != nil || bytes.Count(b, []byte("\n")) != c.trials+1 {
				t.Errorf("the BIDS table: %d lines (%v), want %d trials", bytes.Count(b, []byte("\n")), err, c.trials)
			}
			var a map[string]any
			if b, err := os.ReadFile(filepath.Join(subject, c.analysis)); err != nil || json.Unmarshal(b, &a) != nil || len(a) == 0 {
				t.Errorf("%s: %v", c.analysis, err)
			}
			var check struct {
				Valid      bool   `json:"valid"`
				Experiment string `json:"experiment_sha256"`
			}
			sum := sha256.Sum256([]byte(short))
			if b, err := os.ReadFile(filepath.Join(subject, "stimulus-check.json")); err != nil || json.Unmarshal(b, &check) != nil || !check.Valid || check.Experiment != hex.EncodeToString(sum[:]) {
				t.Errorf("stimulus-check.json: %+v (%v), want a valid check of the file", check, err)
			}
			filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
				if err == nil && strings.HasSuffix(d.Name(), ".tmp") {
					t.Errorf("left behind: %s", path)
				}
				return err
			})
		})
	}
}

// gunzipAll reads the gzip file name to its end.
func gunzipAll(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if n, err := io.Copy(io.Discard, z); err != nil || n == 0 {
		return fmt.Errorf("%s: %d bytes (%v)", name, n, err)
	}
	return nil
}

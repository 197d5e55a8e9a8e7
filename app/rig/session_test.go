package rig

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/haptex/haptex/sim"
)

// sameHash reports whether hash is the SHA-256 of the file at path.
func sameHash(t *testing.T, path, hash string) bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]) == hash
}

// unitSuffix matches a key that ends in its unit.
var unitSuffix = regexp.MustCompile(`_(ns|us|ms|s|m|m2|n|hz|pct|j|deg|db|um|mps|nm|nms|kg|kgm2|rps|rad|rad_s|npm|nspm|n_per_s|n_per_m|mps_per_n|mps2_per_n|mm)$`)

// session.json: every key snake_case, every number's unit in its key or
// in "units", "scripted" true for the scripted showcase, the software's
// commit field present; and a replay reads the file back.
func TestSessionJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a session")
	}
	dir := t.TempDir()
	r, err := New(Config{OutDir: dir, Duration: 100 * time.Millisecond, Sim: sim.Config{NodesU: 12, NodesV: 12}})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := r.RunLockstep()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(sum.SessionDir, "session.json"))
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]any
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatal(err)
	}
	if meta["scripted"] != true {
		t.Errorf("scripted = %v for the showcase script", meta["scripted"])
	}
	if sw, _ := meta["software"].(map[string]any); sw["commit"] == nil || sw["haptex"] == nil {
		t.Errorf("software %v lacks the version or commit", sw)
	}
	units, _ := meta["units"].(map[string]any)
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if path == "units" || path == "software" {
					continue
				}
				if strings.ContainsFunc(k, unicode.IsUpper) {
					t.Errorf("%s.%s: not snake_case", path, k)
				}
				walk(strings.TrimPrefix(path+"."+k, "."), e)
			}
		case []any:
			numbers := len(x) > 0
			for _, e := range x {
				_, isNum := e.(float64)
				numbers = numbers && isNum
			}
			if numbers {
				walk(path, x[0])
				return
			}
			for _, e := range x {
				walk(path+"[]", e)
			}
		case float64:
			key := path[strings.LastIndex(path, ".")+1:]
			if !unitSuffix.MatchString(key) && units[path] == nil {
				t.Errorf("%s: a number with no unit in its key and none in units (app/rig/units.go)", path)
			}
		}
	}
	walk("", meta)
}

// session.json is in the folder from the moment the rig is built, with
// the configuration and a null summary, so that a run killed before its
// end still says what it ran; the end of the run adds the summary.
func TestSessionJSONBeforeTheRunEnds(t *testing.T) {
	r, err := New(coarse(Config{OutDir: t.TempDir(), Duration: 50 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	read := func() (meta struct {
		Software map[string]string `json:"software"`
		Fabric   string            `json:"fabric"`
		Config   struct {
			DurationNs int64 `json:"duration_ns"`
		} `json:"config"`
		Summary *Summary `json:"summary"`
	}) {
		b, err := os.ReadFile(filepath.Join(r.SessionDir(), "session.json"))
		if err == nil {
			err = json.Unmarshal(b, &meta)
		}
		if err != nil {
			t.Fatal(err)
		}
		return meta
	}
	if m := read(); m.Summary != nil || m.Fabric != r.Config().Fabric.Name || m.Config.DurationNs != int64(50*time.Millisecond) || m.Software["haptex"] == "" {
		t.Errorf("before the run: session.json %+v, want the configuration of %s and no summary", m, r.Config().Fabric.Name)
	}
	if _, err := r.RunLockstep(); err != nil {
		t.Fatal(err)
	}
	if m := read(); m.Summary == nil || m.Summary.Mode != "lockstep" || m.Summary.Tables[0].Rows != 50 {
		t.Errorf("after the run: summary %+v", m.Summary)
	}
}

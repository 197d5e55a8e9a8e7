package experiment

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/haptex/haptex/calib/kes"
	"github.com/haptex/haptex/internal/safefile"
)

// setCheckTOML is an identification of two fabrics by roughness alone,
// shortened as the evaluation protocols' short versions are.
const setCheckTOML = `format = 1
name = "set-check"
title = "Which fabric is it?"
side = 8

[set]
kind = "identify"
fabrics = [%q, %q]
properties = ["roughness"]
repeats = 1

[timing]
gap_s = 0.3
iti_s = 0.3
`

// A set run checks its stimulus before its first trial as a
// discrimination does: it records the check in stimulus-check.json with
// the experiment file's and the fabrics' SHA-256, refuses a set whose
// fabrics deliver no discriminable contrast unless forced (the forced run
// takes up the record and warns), checks again for an edited experiment
// file or fabric definition, and a resumed run takes up the record of its
// check without checking again.
func TestSetRunStimulusCheck(t *testing.T) {
	lib := kes.Library{Dir: t.TempDir()}
	denim, err := kes.BuiltinSource("denim")
	if err != nil {
		t.Fatal(err)
	}
	// Two fabrics of one definition: whatever the rig delivers, their
	// cues are the same.
	for _, name := range []string{"twin-a", "twin-b"} {
		src := strings.Replace(string(denim), `name = "denim"`, fmt.Sprintf("name = %q", name), 1)
		if err := os.WriteFile(filepath.Join(lib.Dir, name+".toml"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	obs, err := ParseSetObserver("match:lambda=0.02,seed=7")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	run := func(t *testing.T, src, subject string, force bool, after func(int) error) (*Result, string, error) {
		t.Helper()
		path := filepath.Join(t.TempDir(), "set-check.toml")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		e, b, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		var printed strings.Builder
		res, err := Run(context.Background(), Options{Experiment: e, Source: b, Path: path, Subject: subject, OutDir: out, Out: &printed,
			Library: lib, SetObserver: obs, NoTraces: true, Force: force, AfterTrial: after})
		return res, printed.String(), err
	}
	record := func(t *testing.T, subject string) SetReport {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(out, "set-check", subject, "stimulus-check.json"))
		if err != nil {
			t.Fatal(err)
		}
		var rep SetReport
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatal(err)
		}
		return rep
	}
	sha := func(s string) string {
		h := sha256.Sum256([]byte(s))
		return hex.EncodeToString(h[:])
	}
	fabricsSHA := func(names ...string) string {
		var s strings.Builder
		for _, n := range names {
			b, err := lib.Source(n)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&s, sha(string(b)))
		}
		return sha(s.String())
	}
	const announced = "in virtual time ..."

	t.Run("refused, then forced", func(t *testing.T) {
		src := fmt.Sprintf(setCheckTOML, "twin-a", "twin-b")
		_, printed, err := run(t, src, "sim01", false, nil)
		if err == nil || !strings.Contains(err.Error(), "no property delivers a contrast") || !strings.Contains(err.Error(), "-force runs it anyway") {
			t.Fatalf("a set of one definition twice: %v, want it refused", err)
		}
		if !strings.Contains(printed, announced) {
			t.Errorf("the refused run did not announce its check: %q", printed)
		}
		if _, err := os.Stat(filepath.Join(out, "set-check", "sim01", "trials.csv")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the refused run left trials.csv (%v)", err)
		}
		rep := record(t, "sim01")
		if rep.Valid || rep.Kind != Identify || len(rep.Properties) != 1 || len(rep.Properties[0].Fabrics) != 2 {
			t.Fatalf("record: valid %v, kind %s, %d properties, want an invalid identification's check of roughness on both fabrics", rep.Valid, rep.Kind, len(rep.Properties))
		}
		if w := rep.Properties[0].ExtremeWebers; !(w > -0.01 && w < 0.01) {
			t.Errorf("the extremes of one definition twice are %v Weber fractions apart, want 0", w)
		}
		if rep.ExperimentSHA256 != sha(src) || rep.FabricSHA256 != fabricsSHA("twin-a", "twin-b") {
			t.Errorf("record of %s, %s; want the file's %s and the fabrics' %s", rep.ExperimentSHA256, rep.FabricSHA256, sha(src), fabricsSHA("twin-a", "twin-b"))
		}
		res, printed, err := run(t, src, "sim01", true, nil)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(printed, announced) || !strings.Contains(printed, "running anyway (-force)") {
			t.Errorf("the forced run: %q, want the record taken up with a warning", printed)
		}
		if res.Trials != 2 {
			t.Errorf("the forced run: %d trials, want 2", res.Trials)
		}
		// Equal cues have no rank correlation: null, not a NaN that no
		// JSON can hold.
		if b, err := os.ReadFile(res.Analysis); err != nil || !strings.Contains(string(b), `"spearman": null`) {
			t.Errorf("%s: want the delivered cues' rank correlation null (%v)", res.Analysis, err)
		}
	})

	t.Run("edited file", func(t *testing.T) {
		src := fmt.Sprintf(setCheckTOML, "twin-a", "twin-b")
		if _, _, err := run(t, src, "sim02", false, nil); err == nil {
			t.Fatal("a set of one definition twice ran")
		}
		edited := "# edited after its check\n" + src
		_, printed, err := run(t, edited, "sim02", false, nil)
		if err == nil || !strings.Contains(printed, announced) {
			t.Fatalf("the edited file: %v, %q; want it checked again and refused", err, printed)
		}
		if rep := record(t, "sim02"); rep.ExperimentSHA256 != sha(edited) {
			t.Errorf("the record is of %s, want the edited file's %s", rep.ExperimentSHA256, sha(edited))
		}
	})

	t.Run("passed, resumed", func(t *testing.T) {
		// denim under a name of the library's, to be edited.
		if err := os.WriteFile(filepath.Join(lib.Dir, "my-denim.toml"), []byte(strings.Replace(string(denim), `name = "denim"`, `name = "my-denim"`, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		src := strings.Replace(fmt.Sprintf(setCheckTOML, "silk-habutae", "my-denim"), "repeats = 1", "repeats = 2", 1)
		stopAfter := func(k int) func(int) error {
			return func(n int) error {
				if n == k {
					return fmt.Errorf("stopped after trial %d", k)
				}
				return nil
			}
		}
		_, printed, err := run(t, src, "sim03", false, stopAfter(1))
		if err == nil || !strings.Contains(err.Error(), "stopped after trial 1") {
			t.Fatalf("the first sitting: %v", err)
		}
		if !strings.Contains(printed, "stimulus check: ok; between the set's extremes of KES value the delivered cue differs by (in Weber fractions) roughness") {
			t.Errorf("the first sitting printed %q, want the check's verdict", printed)
		}
		rep := record(t, "sim03")
		if !rep.Valid || len(rep.Properties) != 1 || !(rep.Properties[0].ExtremeWebers >= 2) {
			t.Fatalf("record: valid %v (%s), want roughness's extremes 2 Weber fractions apart or more", rep.Valid, rep.Reason)
		}
		if rep.ExperimentSHA256 != sha(src) || rep.FabricSHA256 != fabricsSHA("silk-habutae", "my-denim") {
			t.Errorf("record of %s, %s; want the file's and the fabrics'", rep.ExperimentSHA256, rep.FabricSHA256)
		}
		_, printed, err = run(t, src, "sim03", false, stopAfter(2))
		if err == nil || !strings.Contains(err.Error(), "stopped after trial 2") || strings.Contains(printed, announced) {
			t.Errorf("the second sitting: %v, printed %q; want the record taken up", err, printed)
		}
		// A fabric's definition edited between sittings: checked again.
		b, err := os.ReadFile(filepath.Join(lib.Dir, "my-denim.toml"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(lib.Dir, "my-denim.toml"), append([]byte("# edited between sittings\n"), b...), 0o644); err != nil {
			t.Fatal(err)
		}
		res, printed, err := run(t, src, "sim03", false, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Resumed || res.Trials != 4 || !strings.Contains(printed, announced) {
			t.Errorf("the third sitting: resumed %v, %d trials, printed %q; want the edited set checked again and every trial", res.Resumed, res.Trials, printed)
		}
		if rep := record(t, "sim03"); rep.FabricSHA256 != fabricsSHA("silk-habutae", "my-denim") || !rep.Valid {
			t.Errorf("the record is of the fabrics %s (valid %v), want the edited set's %s", rep.FabricSHA256, rep.Valid, fabricsSHA("silk-habutae", "my-denim"))
		}
	})
}

// A check whose report holds a number JSON cannot (a NaN) is still
// recorded, with null there, and a run takes the record up again.
func TestCheckRecordHoldsNaN(t *testing.T) {
	root, err := safefile.MkdirAll(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	run := &runner{o: Options{Out: io.Discard}, e: &Experiment{}, root: root, sha: "e1"}
	checks := 0
	check := func(context.Context) (checkRecord, error) {
		checks++
		return &StimulusReport{Valid: true, Efficiency: math.NaN(), Weber: 0.2}, nil
	}
	for range 2 {
		rec, err := run.checkBeforeTrials(context.Background(), "f1", "a cue", &StimulusReport{}, check)
		if err != nil {
			t.Fatal(err)
		}
		if rep := rec.(*StimulusReport); !rep.Valid || rep.Weber != 0.2 || rep.ExperimentSHA256 != "e1" || rep.FabricSHA256 != "f1" {
			t.Errorf("record %+v", rep)
		}
	}
	b, err := root.ReadFile("stimulus-check.json", 1<<20)
	if err != nil || !strings.Contains(string(b), `"efficiency": null`) {
		t.Errorf("stimulus-check.json: %s (%v), want the NaN as null", b, err)
	}
	if checks != 1 {
		t.Errorf("checked %d times, want once and the record taken up", checks)
	}
}

// A record that is not of this run's check is not taken up, and the run
// says why it checks again: a file that cannot be read (cut short by hand
// or by a copy; the run itself replaces it whole), a record of another
// version of the experiment file or of other fabric definitions, or a
// refusal.
func TestCheckRecordNotTakenUp(t *testing.T) {
	root, err := safefile.MkdirAll(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	var printed strings.Builder
	run := &runner{o: Options{Out: &printed}, e: &Experiment{}, root: root, sha: "e1"}
	valid := true
	checks := 0
	check := func(context.Context) (checkRecord, error) {
		checks++
		return &StimulusReport{Valid: valid, Reason: "no contrast", Weber: 0.2}, nil
	}
	for _, tc := range []struct {
		name, sha, fabric, want string
		before                  func()
		checked                 bool
	}{
		{"first", "e1", "f1", "", nil, true},
		{"taken up", "e1", "f1", "", nil, false},
		{"cut short", "e1", "f1", "stimulus-check.json could not be read (unexpected end of JSON input)", func() {
			b, err := root.ReadFile("stimulus-check.json", 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			if err := root.WriteFile("stimulus-check.json", b[:len(b)/2]); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"edited file", "e2", "f1", "stimulus-check.json is of another version of the experiment file", nil, true},
		{"edited fabric", "e2", "f2", "stimulus-check.json is of other definitions of the fabrics", func() { valid = false }, true},
		{"refused", "e2", "f2", "stimulus-check.json refused the experiment", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.before != nil {
				tc.before()
			}
			printed.Reset()
			run.sha = tc.sha
			n := checks
			_, err := run.checkBeforeTrials(context.Background(), tc.fabric, "a cue", &StimulusReport{}, check)
			if valid != (err == nil) {
				t.Errorf("err %v with a check that is valid: %v", err, valid)
			}
			if checked := checks > n; checked != tc.checked {
				t.Errorf("checked: %v, want %v (printed %q)", checked, tc.checked, printed.String())
			}
			again := "stimulus check: again: " + tc.want + "\n"
			if got := strings.Contains(printed.String(), "stimulus check: again"); got != (tc.want != "") || (got && !strings.Contains(printed.String(), again)) {
				t.Errorf("printed %q, want %q", printed.String(), again)
			}
		})
	}
}

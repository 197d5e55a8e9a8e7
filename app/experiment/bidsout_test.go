package experiment

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/haptex/haptex/app/experiment/bids"
)

// With BIDS on, a run writes its trials again as a BIDS behavioural table
// beside trials.csv: the same columns in the same order, the same values
// but n/a where trials.csv has none (an empty field or NaN), and a sidecar
// that names the task and describes every column, with its unit.
func TestBIDSBesideTrials(t *testing.T) {
	_, dir := wholeRun(t)
	e, err := Parse([]byte(small), "exp.toml")
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "level-test", wholeSubject)
	trials, err := csv.NewReader(strings.NewReader(readFile(t, filepath.Join(sub, "trials.csv")))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	beh := filepath.Join(sub, "sub-sim01", "beh", "sub-sim01_task-leveltest_beh")
	tsv := strings.Split(strings.TrimSuffix(readFile(t, beh+".tsv"), "\n"), "\n")
	if len(tsv) != len(trials) || len(trials) < 2 {
		t.Fatalf("%d TSV lines, trials.csv %d records", len(tsv), len(trials))
	}
	missing := 0
	for i, line := range tsv {
		got := strings.Split(line, "\t")
		want := trials[i]
		if i > 0 {
			for k, v := range want {
				if v == "" || v == "NaN" {
					want[k] = "n/a"
					missing++
				}
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("TSV line %d:\n%q\ntrials.csv:\n%q", i+1, got, want)
		}
	}
	if missing == 0 {
		t.Errorf("no value missing in trials.csv: the n/a rule went untested")
	}

	// The sidecar's keys, in order: the task, then trials.csv's columns.
	raw := readFile(t, beh+".json")
	dec := json.NewDecoder(strings.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("sidecar: %v %v", tok, err)
	}
	var keys []string
	cols := map[string]bids.Column{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		k := tok.(string)
		keys = append(keys, k)
		if k == "TaskName" {
			var name string
			if err := dec.Decode(&name); err != nil || name != "level-test" {
				t.Errorf("TaskName %q, %v", name, err)
			}
			continue
		}
		var c bids.Column
		if err := dec.Decode(&c); err != nil {
			t.Fatalf("column %s: %v", k, err)
		}
		if c.Description == "" {
			t.Errorf("column %s has no description", k)
		}
		cols[k] = c
	}
	if want := append([]string{"TaskName"}, trials[0]...); !slices.Equal(keys, want) {
		t.Fatalf("sidecar keys\n%q\nwant\n%q", keys, want)
	}
	for k, unit := range map[string]string{"x": e.Stimulus.Unit, "rt_s": "s", "i1_thumb_peak_force_n": "N",
		"i2_index_a320_delivered_um": "um", "i1_min_pad_gap_m": "m", "i2_cue": dimensions[e.Stimulus.Kind].cue.Unit} {
		if cols[k].Units != unit || unit == "" {
			t.Errorf("column %s in %q, want %q", k, cols[k].Units, unit)
		}
	}
	if l := cols["response"].Levels; l["0"] != "incorrect" || l["1"] != "correct" {
		t.Errorf("2AFC response levels %v", l)
	}
	if !bytes.HasSuffix([]byte(raw), []byte("}\n")) {
		t.Errorf("sidecar does not end in a line")
	}
}

package bids

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/haptex/haptex/internal/safefile"
)

func TestLabel(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"sim01", "sim01"}, {"sim-01", "sim01"}, {"level_test-2", "leveltest2"}, {"Ünïcode7", "ncode7"},
	} {
		if got, err := Label(tc.in); err != nil || got != tc.want {
			t.Errorf("Label(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "-_-", "ü"} {
		if got, err := Label(bad); err == nil {
			t.Errorf("Label(%q) = %q, want an error", bad, got)
		}
	}
}

// The table is written as BIDS's tabular files ask: tabs, one header
// line, n/a for a missing value, a value with a tab quoted; the sidecar
// keeps the header's order after the task's keys.
func TestWrite(t *testing.T) {
	root := t.TempDir()
	dir, err := safefile.OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	tab := Table{Subject: "s-1", Task: "roughness", TaskDescription: "Which was rougher?",
		Header: []string{"trial", "rt_s", "note"},
		Rows:   [][]string{{"0", "0.81", "a\tb"}, {"1", "NaN", ""}, {"2", "1.5", `say "x"`}},
		Columns: map[string]Column{
			"trial": {Description: "the trial's index"},
			"rt_s":  {Description: "response time", Units: "s"},
			"note":  {Description: "a note", Levels: map[string]string{"a": "A"}},
		}}
	rel, err := Write(dir, tab)
	if err != nil {
		t.Fatal(err)
	}
	if rel != "sub-s1/beh/sub-s1_task-roughness_beh.tsv" {
		t.Errorf("path %s", rel)
	}
	tsv, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	want := "trial\trt_s\tnote\n0\t0.81\t\"a\tb\"\n1\tn/a\tn/a\n2\t1.5\t\"say \"\"x\"\"\"\n"
	if string(tsv) != want {
		t.Errorf("TSV\n%q\nwant\n%q", tsv, want)
	}
	side, err := os.ReadFile(filepath.Join(root, strings.TrimSuffix(rel, ".tsv")+".json"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(side)
	order := []string{`"TaskName": "roughness"`, `"TaskDescription": "Which was rougher?"`, `"trial": {`, `"rt_s": {`, `"Units": "s"`, `"note": {`, `"Levels": {`}
	at := 0
	for _, k := range order {
		i := strings.Index(s[at:], k)
		if i < 0 {
			t.Fatalf("sidecar lacks %s after byte %d:\n%s", k, at, s)
		}
		at += i
	}

	// A column without a description, a row of the wrong length, a
	// subject with no letter: an error, and nothing written.
	for name, bad := range map[string]Table{
		"undescribed": {Subject: "s2", Task: "t", Header: []string{"trial", "x"}, Columns: tab.Columns},
		"short row":   {Subject: "s2", Task: "t", Header: tab.Header, Rows: [][]string{{"0"}}, Columns: tab.Columns},
		"no label":    {Subject: "--", Task: "t", Header: tab.Header, Columns: tab.Columns},
	} {
		if _, err := Write(dir, bad); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "sub-s2")); !os.IsNotExist(err) {
		t.Errorf("a refused table left sub-s2 behind: %v", err)
	}
}

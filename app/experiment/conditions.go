package experiment

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/haptex/haptex/calib/psych"
	"github.com/haptex/haptex/internal/safefile"
)

// Folder is an experiment's output folder read back for a joint analysis:
// the task, fit form and unit its sidecar records and one condition per
// stream of its trials.
type Folder struct {
	Dir        string
	Experiment string
	Task       psych.Task
	Form       psych.Form
	Unit       string
	// Conditions are named Dir for a single stream, Dir#S for stream S of
	// an interleaved run.
	Conditions []psych.Condition
}

// SubjectFolders returns dirs with each experiment's folder (OUT/NAME, as
// experiment run makes it: no sidecar.json of its own, subject folders
// that have one) replaced by its subject folders in name order; other
// paths are kept as given, for ReadFolder to judge.
func SubjectFolders(dirs []string) []string {
	var out []string
	for _, dir := range dirs {
		var subs []string
		if _, err := os.Stat(filepath.Join(dir, "sidecar.json")); errors.Is(err, fs.ErrNotExist) {
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				if _, err := os.Stat(filepath.Join(dir, e.Name(), "sidecar.json")); e.IsDir() && err == nil {
					subs = append(subs, filepath.Join(dir, e.Name()))
				}
			}
		}
		if len(subs) == 0 {
			subs = []string{dir}
		}
		out = append(out, subs...)
	}
	return out
}

// ReadFolder reads dir's sidecar.json and trials.csv (as experiment run
// writes them) into a Folder. A folder without a completed trial, or of a
// set experiment (no psychometric function), is an error.
func ReadFolder(dir string) (*Folder, error) {
	sb, err := safefile.ReadFile(filepath.Join(dir, "sidecar.json"), maxStateSize)
	if err != nil {
		return nil, fmt.Errorf("experiment: %s: not an experiment's output folder: %w", dir, err)
	}
	var sc sidecar
	if err := json.Unmarshal(sb, &sc); err != nil || sc.Experiment == nil {
		return nil, fmt.Errorf("experiment: %s: sidecar.json is not an experiment sidecar (%v)", dir, err)
	}
	e := sc.Experiment
	if e.Set != nil {
		return nil, fmt.Errorf("experiment: %s: a set experiment (%s) has no psychometric function to compare", dir, e.Set.Kind)
	}
	path := filepath.Join(dir, "trials.csv")
	tb, err := safefile.ReadFile(path, maxTrialsSize)
	if err != nil {
		return nil, fmt.Errorf("experiment: %s: %w", dir, err)
	}
	header, rows, _, err := parseTrials(path, tb)
	if err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("experiment: %s: no completed trials", dir)
	}
	col := map[string]int{}
	for i, c := range header {
		col[c] = i
	}
	for _, c := range []string{"stream", "x", "positive"} {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("experiment: %s: trials.csv has no %q column", dir, c)
		}
	}
	var recs [][]psych.Record
	for i, r := range rows {
		s, err1 := strconv.Atoi(r[col["stream"]])
		x, err2 := strconv.ParseFloat(r[col["x"]], 64)
		pos, err3 := strconv.ParseBool(r[col["positive"]])
		if err1 != nil || err2 != nil || err3 != nil || s < 0 || s >= 256 || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("experiment: %s: trials.csv row %d: bad stream, x or positive", dir, i+2)
		}
		// 256 streams are far more than a run interleaves, few enough that a
		// hostile index makes no huge slice.
		for len(recs) <= s {
			recs = append(recs, nil)
		}
		recs[s] = append(recs[s], psych.Record{Trial: psych.Trial{X: x}, Positive: pos})
	}
	f := &Folder{Dir: dir, Experiment: e.Name, Task: e.Task, Form: e.Fit.Form, Unit: e.Stimulus.Unit}
	for s, rs := range recs {
		if len(rs) == 0 {
			continue
		}
		name := dir
		if len(recs) > 1 {
			name = fmt.Sprintf("%s#%d", dir, s)
		}
		f.Conditions = append(f.Conditions, psych.Condition{Name: name, Data: psych.Tally(rs)})
	}
	return f, nil
}

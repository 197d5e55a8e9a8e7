// Package bids writes a behavioural table in the Brain Imaging Data
// Structure (BIDS; Gorgolewski et al., Sci. Data 3:160044, 2016): the
// specification's "Behavioral experiments (with no neural recordings)"
// section, sub-<label>/beh/sub-<label>_task-<label>_beh.tsv with its
// _beh.json sidecar, written as its "Tabular files" rules ask (tab
// separated, a header line, n/a for a missing value) and its sidecar
// describing every column (LongName, Description, Levels, Units; units in
// CMIXF-12 or the specification's Unicode symbols).
//
// It knows nothing of experiments: the caller gives the table and the
// description of each column. It writes files only under the folder it is
// given, never following a symbolic link there (internal/safefile).
package bids

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/haptex/haptex/internal/safefile"
)

// Column is one column's description in the sidecar, by the keys BIDS
// defines for tabular data.
type Column struct {
	LongName    string `json:"LongName,omitempty"`
	Description string `json:"Description"`
	// Levels names each value of a categorical column.
	Levels map[string]string `json:"Levels,omitempty"`
	// Units of a numeric column ("s", "N", "um"); empty for none.
	Units string `json:"Units,omitempty"`
}

// Table is one behavioural table of one subject and task.
type Table struct {
	// Subject and Task are the subject's identifier and the task's name
	// as the caller knows them; the file names carry their labels (Label).
	Subject, Task string
	// TaskDescription and Instructions are the sidecar's (optional).
	TaskDescription, Instructions string
	Header                        []string
	Rows                          [][]string
	// Columns describes every column of Header.
	Columns map[string]Column
}

// NA is BIDS's value for a missing value.
const NA = "n/a"

// Label returns s as a BIDS label (letters and digits only): the other
// characters dropped. It fails when none is left.
func Label(s string) (string, error) {
	l := strings.Map(func(r rune) rune {
		if r < 128 && (r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return -1
	}, s)
	if l == "" {
		return "", fmt.Errorf("bids: %q has no letter or digit to make a label of", s)
	}
	return l, nil
}

// Path returns the TSV's path relative to the dataset folder, and the
// sidecar's.
func Path(subject, task string) (tsv, sidecar string, err error) {
	sub, err := Label(subject)
	if err != nil {
		return "", "", err
	}
	tk, err := Label(task)
	if err != nil {
		return "", "", err
	}
	base := "sub-" + sub + "/beh/sub-" + sub + "_task-" + tk + "_beh"
	return base + ".tsv", base + ".json", nil
}

// Write writes t under dir (sub-<label>/beh/, made where missing), each
// file whole or not at all (safefile.Dir.WriteFile), and returns the TSV's
// path relative to dir. An empty value or NaN is written n/a; a value
// holding a tab, a line break or a double quote is quoted, as BIDS asks
// of a string with a tab.
func Write(dir *safefile.Dir, t Table) (string, error) {
	tsvPath, jsonPath, err := Path(t.Subject, t.Task)
	if err != nil {
		return "", err
	}
	tsv, err := encodeTSV(t.Header, t.Rows)
	if err != nil {
		return "", err
	}
	side, err := sidecar(t)
	if err != nil {
		return "", err
	}
	sub, err := dir.Sub(strings.Split(tsvPath, "/")[0], true)
	if err != nil {
		return "", fmt.Errorf("bids: %w", err)
	}
	defer sub.Close()
	beh, err := sub.Sub("beh", true)
	if err != nil {
		return "", fmt.Errorf("bids: %w", err)
	}
	defer beh.Close()
	for _, f := range []struct {
		path string
		data []byte
	}{{jsonPath, side}, {tsvPath, tsv}} {
		if err := beh.WriteFile(f.path[strings.LastIndexByte(f.path, '/')+1:], f.data); err != nil {
			return "", fmt.Errorf("bids: %w", err)
		}
	}
	return tsvPath, nil
}

func encodeTSV(header []string, rows [][]string) ([]byte, error) {
	if len(header) == 0 {
		return nil, errors.New("bids: a table without columns")
	}
	var b bytes.Buffer
	line := func(rec []string, missing string) {
		for i, v := range rec {
			if i > 0 {
				b.WriteByte('\t')
			}
			switch {
			case v == "" || v == "NaN":
				v = missing
			case strings.ContainsAny(v, "\t\n\r\""):
				v = `"` + strings.ReplaceAll(v, `"`, `""`) + `"`
			}
			b.WriteString(v)
		}
		b.WriteByte('\n')
	}
	line(header, "")
	for i, r := range rows {
		if len(r) != len(header) {
			return nil, fmt.Errorf("bids: row %d has %d values, the header %d", i+1, len(r), len(header))
		}
		line(r, NA)
	}
	return b.Bytes(), nil
}

// sidecar is the _beh.json: TaskName, TaskDescription and Instructions,
// then every column in the table's order.
func sidecar(t Table) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	add := func(key string, v any) error {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(key)
		val, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(val)
		return nil
	}
	add("TaskName", t.Task)
	if t.TaskDescription != "" {
		add("TaskDescription", t.TaskDescription)
	}
	if t.Instructions != "" {
		add("Instructions", t.Instructions)
	}
	seen := make(map[string]bool, len(t.Header))
	for _, h := range t.Header {
		c, ok := t.Columns[h]
		if !ok || c.Description == "" {
			return nil, fmt.Errorf("bids: column %q has no description", h)
		}
		if seen[h] || h == "TaskName" || h == "TaskDescription" || h == "Instructions" {
			return nil, fmt.Errorf("bids: column %q twice", h)
		}
		seen[h] = true
		if err := add(h, c); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

package report

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// maxRows caps the rows read from one table (a 1 kHz table holds 3.6 M
// rows an hour); the report says when it stopped there.
const maxRows = 8 << 20

// table is the columns of a CSV file that the report asked for, by name.
// A column the file lacks is absent; a cell that is not a number reads as
// NaN in a numeric column.
type table struct {
	file    string
	header  []string
	num     map[string][]float64
	str     map[string][]string
	rows    int
	badRows int  // rows with the wrong number of fields, skipped
	cut     bool // stopped at maxRows
}

// column kinds for readTable's want.
const (
	skip = iota
	numeric
	text
)

// readTable reads the CSV file at path, keeping the columns want selects
// by name. A file that is missing gives (nil, nil).
func readTable(path string, want func(col string) int) (*table, error) {
	rc, err := openFile(path)
	if err != nil {
		if isNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	defer rc.Close()
	r := csv.NewReader(rc)
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	header, err := r.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty", path)
		}
		return nil, fmt.Errorf("%s: header: %w", path, err)
	}
	t := &table{file: path, header: append([]string(nil), header...), num: map[string][]float64{}, str: map[string][]string{}}
	type col struct {
		i    int
		name string
		kind int
	}
	var cols []col
	for i, h := range t.header {
		h = strings.TrimSpace(h)
		t.header[i] = h
		if k := want(h); k != skip {
			cols = append(cols, col{i, h, k})
		}
	}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			t.badRows++
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(rec) != len(header) {
			// A row cut short by an interruption, or not this table's.
			t.badRows++
			continue
		}
		if t.rows == maxRows {
			t.cut = true
			break
		}
		for _, c := range cols {
			if c.kind == text {
				t.str[c.name] = append(t.str[c.name], rec[c.i])
				continue
			}
			v, err := strconv.ParseFloat(strings.TrimSpace(rec[c.i]), 64)
			if err != nil || !(math.Abs(v) <= maxReading) {
				// Not a reading: a plot's axis or colour scale over it
				// panicked (1e20) or never ended (NaN times).
				v = math.NaN()
			}
			t.num[c.name] = append(t.num[c.name], v)
		}
		t.rows++
	}
	return t, nil
}

// maxReading bounds what a recorded number can be in magnitude: beyond it
// a field is no reading (the largest the tables hold are tick counts and
// microseconds, far below it).
const maxReading = 1e12

// notes says what the report could not read in the table.
func (t *table) notes() []string {
	var n []string
	if t.badRows > 0 {
		n = append(n, fmt.Sprintf("%s: %d rows with the wrong number of fields were skipped", baseName(t.file), t.badRows))
	}
	if t.cut {
		n = append(n, fmt.Sprintf("%s: only the first %d rows were read", baseName(t.file), maxRows))
	}
	return n
}

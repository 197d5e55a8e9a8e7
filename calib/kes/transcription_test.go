package kes

import (
	"bufio"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// kumari2016Fields maps the rows of Kumari & Khurana 2016, Table 5, to the
// fields of a fabric file. Rows 10 (MIU), 11 (MMD) and 17 (Weight) are not
// transcribed: their printed values cannot be the KES quantities in the
// printed units (FORMAT.md, "The built-in library").
var kumari2016Fields = map[int]string{
	1: "tensile.mean.EMT", 2: "tensile.mean.LT", 3: "tensile.mean.WT", 4: "tensile.mean.RT",
	5: "bending.mean.B", 6: "bending.mean.2HB",
	7: "shear.mean.G", 8: "shear.mean.2HG", 9: "shear.mean.2HG5",
	12: "surface.mean.SMD",
	13: "compression.LC", 14: "compression.WC", 15: "compression.RC", 16: "compression.T0",
}

// readKumari2016 splits the rows of testdata/kumari2016-table5.txt, which
// keep the page text's run-together values, into the six samples A-F.
func readKumari2016(t *testing.T) map[int]map[string]float64 {
	t.Helper()
	fh, err := os.Open("testdata/kumari2016-table5.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	three := regexp.MustCompile(`\d+?\.\d{3}`)
	rows := map[int]map[string]float64{}
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "|")
		n, err := strconv.Atoi(parts[0])
		if err != nil || len(parts) != 4 {
			t.Fatalf("bad row %q", line)
		}
		if _, ok := kumari2016Fields[n]; !ok {
			continue
		}
		vals := three.FindAllString(parts[3], -1)
		if len(vals) != 6 || strings.Join(vals, "") != parts[3] {
			t.Fatalf("row %d: %q does not split into six three-decimal values: %q", n, parts[3], vals)
		}
		rows[n] = map[string]float64{}
		for i, v := range vals {
			rows[n][string(rune('A'+i))], _ = strconv.ParseFloat(v, 64)
		}
	}
	if len(rows) != len(kumari2016Fields) {
		t.Fatalf("%d rows read, want %d", len(rows), len(kumari2016Fields))
	}
	return rows
}

// TestKumari2016Transcription checks every built-in value measured from
// Kumari & Khurana 2016 against the table as read, and that each built-in
// sample carries every transcribed row as measured.
func TestKumari2016Transcription(t *testing.T) {
	rows := readKumari2016(t)
	samples := 0
	for _, name := range List() {
		f, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		measured := map[string]Entry{}
		sample := ""
		for _, e := range f.Entries() {
			if e.Status != "measured" || e.Source != "kumari2016" {
				continue
			}
			s, ok := strings.CutPrefix(e.Table, "Table 5, sample ")
			if !ok || len(s) != 1 || s < "A" || s > "F" || (sample != "" && s != sample) {
				t.Errorf("%s %s: table %q, want \"Table 5, sample X\" with one sample per fabric", name, e.Field, e.Table)
				continue
			}
			sample = s
			measured[e.Field] = e
		}
		if sample == "" {
			continue
		}
		samples++
		for n, field := range kumari2016Fields {
			e, ok := measured[field]
			if !ok {
				t.Errorf("%s: Table 5 row %d (%s) of sample %s is not in the file as measured", name, n, field, sample)
				continue
			}
			if want := rows[n][sample]; e.Value.Value != want {
				t.Errorf("%s %s = %v, Table 5 row %d sample %s reads %v", name, field, e.Value.Value, n, sample, want)
			}
		}
		if len(measured) != len(kumari2016Fields) {
			t.Errorf("%s: %d measured values, want %d", name, len(measured), len(kumari2016Fields))
		}
	}
	if samples == 0 {
		t.Error("no built-in fabric transcribes Kumari & Khurana 2016")
	}
}

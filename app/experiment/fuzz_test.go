package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/haptex/haptex/calib/psych"
)

// FuzzParse: no experiment file, however malformed, makes Parse panic or
// answer in more than one line; a file it accepts validates again as it
// is, and its procedure runs its first trials. The seeds are the
// examples.
func FuzzParse(f *testing.F) {
	for _, dir := range []string{"", "evaluation"} {
		files, err := filepath.Glob(filepath.Join("..", "..", "examples", dir, "*.toml"))
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := Parse(data, "fuzz.toml")
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "\n") {
				t.Fatalf("an error of more than one line: %q", msg)
			}
			return
		}
		again := *e
		if err := again.Validate(); err != nil {
			t.Fatalf("accepted, then refused on validating again: %v", err)
		}
		if e.Set != nil {
			return
		}
		p, err := psych.New(e.Procedure)
		if err != nil {
			t.Fatalf("accepted, but its procedure is refused: %v", err)
		}
		for i := range 20 {
			tr, err := p.Next()
			if err != nil {
				return // done
			}
			r := psych.Response(i % 2)
			if e.Task.Kind == psych.Rating {
				r = psych.Response(1 + i%e.Task.Levels)
			}
			if err := p.Update(tr, r); err != nil {
				t.Fatalf("trial %d: %v", i, err)
			}
		}
	})
}

// FuzzParseTrials: no trials.csv, however damaged, makes parseTrials
// panic; what it accepts is a header and rows of the header's width,
// and a torn last line it leaves out is all that follows the last line
// break (keep marks where).
func FuzzParseTrials(f *testing.F) {
	f.Add([]byte("trial,x,positive\n1,2.5,true\n2,3,false\n"))
	f.Add([]byte("trial,x,positive\n1,2.5,true\n2,3,fa"))
	f.Add([]byte("trial,x\n1,\"a\nb\"\n"))
	f.Add([]byte("trial,x\n1\n"))
	f.Add([]byte(""))
	f.Add([]byte("trial,x"))
	f.Fuzz(func(t *testing.T, data []byte) {
		header, rows, keep, err := parseTrials("trials.csv", data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("an error of more than one line: %q", err)
			}
			return
		}
		if keep >= 0 && (keep > int64(len(data)) || keep > 0 && data[keep-1] != '\n' || strings.Contains(string(data[keep:]), "\n")) {
			t.Fatalf("keep %d of %d bytes: not the end of the last complete line", keep, len(data))
		}
		for i, r := range rows {
			if len(r) != len(header) {
				t.Fatalf("row %d has %d fields, the header %d", i+1, len(r), len(header))
			}
		}
	})
}

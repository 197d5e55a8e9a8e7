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

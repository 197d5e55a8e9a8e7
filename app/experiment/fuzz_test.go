package experiment

import (
	"math"
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
	f.Add([]byte("stream,x,i1_role,i1_cue,i2_role,i2_cue\n0,20,test,1.3,reference,1\n0,40,reference,1,test,1.5\n0,10,test,NaN,reference,1\n0,30,test,1.2,reference,0.9\n"))
	f.Add([]byte("stream,x,i1_role,i1_cue,i2_role,i2_cue\n0,20,test,1e308,reference,0\n0,20,test,1e308,reference,0\n0,2,test,1e308,reference,0\n"))
	rep := &StimulusReport{Weber: 0.23, Curve: [2]float64{0.9, -0.05}}
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
		// What the rows delivered against a check: nothing, or a finite
		// factor within its interval.
		for _, c := range []struct {
			cue  *Cue
			gain gainFunc
		}{{cueLoadingStiffness, percentGain}, {cueVibrationDetection, nil}} {
			if d, _ := delivered(header, rows, 0, rep, c.cue, c.gain); d != nil && !(d.ScaleCI[0] <= d.Scale && d.Scale <= d.ScaleCI[1] && !math.IsInf(d.Scale, 0)) {
				t.Fatalf("%s: delivered %+v", c.cue.Name, d)
			}
		}
	})
}

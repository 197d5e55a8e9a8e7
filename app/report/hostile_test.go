package report

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func hasNote(notes []string, part string) bool {
	for _, n := range notes {
		if strings.Contains(n, part) {
			return true
		}
	}
	return false
}

// A session folder with a broken session.json, a row cut short, NaN and
// text in number columns, columns it does not know and tables missing
// still gives a page, and the page says what it could not show.
func TestSessionReportDamaged(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "session.json", `{"summary": {"mode": "realtime", "loops": [`)
	write(t, dir, "haptics.csv", "t_s,thumb_fdes_x_n,thumb_fdes_y_n,thumb_fdes_z_n,thumb_contact,thumb_state,thumb_reason,new_column,lateness_us\n"+
		"0,0,0,1,0,safe,startup,7,3\n0.001,0,NaN,1.5,1,active,,8,x\n0.002,0,0,2,1,active,,9,5\n0.003,0,0\n")
	write(t, dir, "sim.csv", "t_s,step\n0,0\n")
	res, err := Write(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"session.json is not valid JSON", "1 rows with the wrong number of fields", "no tactile.csv", "no index force columns", "no step_us column"} {
		if !hasNote(res.Notes, want) {
			t.Errorf("no note %q in %q", want, res.Notes)
		}
	}
	page, err := os.ReadFile(res.Page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "force-thumb.png") || !strings.Contains(string(page), "Safety states") {
		t.Errorf("the page lacks the thumb's force figure or the safety states")
	}
}

// A session killed before its end (session.json with its configuration
// and a null summary, haptics.csv ending mid-row) gives a page that says
// the run did not end.
func TestSessionReportUnended(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "session.json", `{"software": {"haptex": "v1"}, "fabric": "denim", "config": {"duration_ns": 12000000000}, "summary": null}`)
	write(t, dir, "haptics.csv", "t_s,thumb_fdes_x_n,thumb_fdes_y_n,thumb_fdes_z_n,thumb_contact\n0,0,0,1,0\n0.001,0,0,1.5,1\n0.002,0,0")
	res, err := Write(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !hasNote(res.Notes, "session.json has no summary: the run did not end") {
		t.Errorf("no note that the run did not end in %q", res.Notes)
	}
}

// An experiment folder whose run has not finished (no fit.json) and
// whose trials.csv lacks columns gives a page with what is there; a fit
// that does not read is a note, not a failure.
func TestExperimentReportPartial(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "trials.csv", "trial,stream,x,unit,test_interval,positive,i1_thumb_peak_force_n,i2_thumb_peak_force_n\n"+
		"0,0,40,%,1,1,1.2,0.4\n1,0,20,%,2,0,0.5,1.1\n2,0,-3,%,1,1,0.9\n")
	res, err := Write(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !hasNote(res.Notes, "no fit.json") || !hasNote(res.Notes, "1 rows with the wrong number") {
		t.Errorf("notes %q", res.Notes)
	}
	if len(res.Figures) != 4 { // tracks and delivered, PNG and SVG
		t.Errorf("figures %v", res.Figures)
	}
	write(t, dir, "fit.json", `{"streams": [{"stream": 0, "fit": {"pf": {"form": "nonsense"}, "threshold": 3}}]}`)
	res, err = Write(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !hasNote(res.Notes, "does not read") {
		t.Errorf("a fit that does not read: notes %q", res.Notes)
	}
}

func TestReportRefusesOtherFolders(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write(filepath.Join(dir, "nothing"), Options{}); err == nil {
		t.Error("a missing folder: no error")
	}
	if _, err := Write(dir, Options{}); err == nil || !strings.Contains(err.Error(), "neither a session folder") {
		t.Errorf("an empty folder: %v", err)
	}
	os.MkdirAll(filepath.Join(dir, "S01"), 0o755)
	write(t, filepath.Join(dir, "S01"), "trials.csv", "trial\n")
	if _, err := Write(dir, Options{}); err == nil || !strings.Contains(err.Error(), "S01") {
		t.Errorf("an experiment's folder of subjects: %v", err)
	}
}

// The drawn series keeps every bucket's extremes, so no peak is lost.
func TestEnvelopeKeepsPeaks(t *testing.T) {
	n := 100000
	ts, vs := make([]float64, n), make([]float64, n)
	for i := range ts {
		ts[i] = float64(i)
		vs[i] = math.Sin(float64(i) / 1000)
	}
	vs[54321] = 10
	vs[777] = -10
	vs[5] = math.NaN()
	pts := envelope(ts, vs, 1000)
	if len(pts) > 1002 {
		t.Errorf("%d points, want at most about 1000", len(pts))
	}
	var hi, lo float64
	for i, p := range pts {
		hi, lo = math.Max(hi, p.Y), math.Min(lo, p.Y)
		if i > 0 && p.X < pts[i-1].X {
			t.Fatalf("out of time order at %d", i)
		}
		if math.IsNaN(p.Y) {
			t.Fatal("a NaN point")
		}
	}
	if hi != 10 || lo != -10 {
		t.Errorf("extremes %g, %g, want 10, -10", hi, lo)
	}
}

func TestIntervals(t *testing.T) {
	ts := []float64{0, 1, 2, 3, 4, 5}
	on := []bool{false, true, true, false, true, true}
	got := intervals(ts, func(i int) bool { return on[i] })
	if len(got) != 2 || got[0] != [2]float64{1, 3} || got[1] != [2]float64{4, 5} {
		t.Errorf("intervals %v", got)
	}
}

// Numbers no recording holds are not readings: a tactile table whose pins
// read -1e20 panicked the colour map (its range at that size was one
// value), ±1e308 gave it NaN, and NaN times hung the tick labelling. Each
// still gives a page.
func TestSessionReportAbsurdNumbers(t *testing.T) {
	for _, c := range []struct{ name, rows string }{
		{"pins at -1e20", "0,1,-1e20,-1e20\n0.025,1,-1e20,-1e20\n"},
		{"pins at ±1e308", "0,1,1e308,-1e308\n0.025,1,-1e308,1e308\n"},
		{"NaN times", "NaN,1,3,4\nNaN,1,5,6\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "haptics.csv", "t_s,thumb_fdes_z_n\n0,1\n0.001,1\n")
			write(t, dir, "tactile.csv", "t_s,thumb_contact,thumb_a40_pin00_um,thumb_a40_pin01_um\n"+c.rows)
			done := make(chan error, 1)
			go func() {
				_, err := Write(dir, Options{})
				done <- err
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(time.Minute):
				t.Fatal("the report did not end within a minute")
			}
		})
	}
}

// The Fingers table puts the fingertip sensor's figures and the cloth's in
// their own columns; a session.json from before the summary had the
// sensor's figures holds the cloth's under peak_force_n, and they go to
// the cloth's columns.
func TestSessionFingersTable(t *testing.T) {
	for _, tc := range []struct {
		name, summary string
		want          [][]string
	}{
		{"sensor and cloth", `{"fingers":[{"finger":"thumb","contact_s":1.5,"peak_force_n":2.1,"mean_force_n":1.1,"peak_force_des_n":2,"mean_force_des_n":1}],"pinch_s":0.5,"peak_pinch_n":2.1,"peak_pinch_des_n":2}`,
			[][]string{{"thumb", "1.5", "2.1", "1.1", "2", "1"}, {"pinch (both)", "0.5", "2.1", "", "2", ""}}},
		{"the cloth's alone", `{"fingers":[{"finger":"thumb","contact_s":1.5,"peak_force_n":2,"mean_force_n":1}],"pinch_s":0.5,"peak_pinch_n":2}`,
			[][]string{{"thumb", "1.5", "", "", "2", "1"}, {"pinch (both)", "0.5", "", "", "2", ""}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var meta map[string]any
			if err := json.Unmarshal([]byte(`{"summary":`+tc.summary+`}`), &meta); err != nil {
				t.Fatal(err)
			}
			var pg page
			pg.sessionSummary(meta)
			if len(pg.Tables) != 1 || !slices.EqualFunc(pg.Tables[0].Rows, tc.want, slices.Equal) {
				t.Fatalf("tables %q, want the rows %q", pg.Tables, tc.want)
			}
		})
	}
}

// The tactile arrays' table says per finger what its array reported of
// the frames and, where it measures its pins, what they delivered against
// what was sent, and which did not move.
func TestSessionArraysTable(t *testing.T) {
	summary := `{"fingers":[
		{"finger":"thumb","contact_s":1,"tactile_not_written":0,"tactile_clipped":0,"tactile_silenced":0},
		{"finger":"index","contact_s":1,"tactile_not_written":3,"tactile_clipped":53,"tactile_silenced":2,
		 "tactile_delivered":{"frames":238,"unpaired":1,"driven_um":0.5,"sent_um":[200,0],"delivered_um":[58,0],"still_pins":[9,13]}}]}`
	var meta map[string]any
	if err := json.Unmarshal([]byte(`{"summary":`+summary+`}`), &meta); err != nil {
		t.Fatal(err)
	}
	var pg page
	pg.sessionSummary(meta)
	want := [][]string{
		{"thumb", "0", "0", "0", "not measured", "not measured", "", "", ""},
		{"index", "3", "53", "2", "0.290", "nothing sent", "0.5", "238", "9, 13"},
	}
	if len(pg.Tables) != 2 || !slices.EqualFunc(pg.Tables[1].Rows, want, slices.Equal) {
		t.Fatalf("tables %q, want the arrays' rows %q", pg.Tables, want)
	}
}

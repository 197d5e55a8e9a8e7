package experiment

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/kes"
	"github.com/haptex/haptex/calib/psych"
)

// deliveredRows simulates a run's trials.csv: n trials of stream 0 at
// levels between 10 and 60 %, the test interval first or second at
// random, each interval's cue scattering by sigma in its logarithm, the
// test delivering k times the curve's log contrast.
func deliveredRows(rng *rand.Rand, rep *StimulusReport, k, sigma float64, n int) (header []string, rows [][]string) {
	header = []string{"trial", "stream", "x", "i1_role", "i1_cue", "i2_role", "i2_cue"}
	for i := range n {
		x := 10 + 50*rng.Float64()
		u := math.Log1p(x / 100)
		ref := 100 * math.Exp(sigma*rng.NormFloat64())
		test := 100 * math.Exp(k*(rep.Curve[0]*u+rep.Curve[1]*u*u)+sigma*rng.NormFloat64())
		f := strconv.FormatFloat
		roles := []string{"reference", f(ref, 'g', -1, 64), "test", f(test, 'g', -1, 64)}
		if rng.IntN(2) == 0 {
			roles = []string{"test", f(test, 'g', -1, 64), "reference", f(ref, 'g', -1, 64)}
		}
		rows = append(rows, append([]string{strconv.Itoa(i), "0", f(x, 'g', -1, 64)}, roles...))
	}
	return header, rows
}

// delivered recovers how much of the checked contrast the trials
// delivered, with an interval whose ends each miss on about 2.5 % of
// runs; it warns when far less reached the finger than was checked, not
// when as much did; and rows it cannot use (another stream, a cue not
// measured, a torn row, text for a number) are left out.
func TestDelivered(t *testing.T) {
	rep := &StimulusReport{Weber: 0.23, Curve: [2]float64{0.9, -0.05}}
	t.Run("coverage", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 0xde))
		const runs = 400
		var below, above int
		for range runs {
			h, rows := deliveredRows(rng, rep, 0.8, 0.12, 60)
			d, _ := delivered(h, rows, 0, rep, cueLoadingStiffness, percentGain)
			switch {
			case d == nil:
				t.Fatal("no result from 60 trials")
			case 0.8 < d.ScaleCI[0]:
				below++
			case 0.8 > d.ScaleCI[1]:
				above++
			}
		}
		t.Logf("the true factor 0.8 lay below %d and above %d of %d intervals", below, above, runs)
		if below < 2 || below > 18 || above < 2 || above > 18 {
			t.Errorf("each end of the 95 %% interval missed in %d and %d of %d runs, want 2-18 (2.5 %% is 10)", below, above, runs)
		}
	})
	t.Run("warning", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(4, 0xde))
		for _, c := range []struct {
			k    float64
			warn bool
		}{{1, false}, {1.1, false}, {0.5, true}, {1.6, true}} {
			h, rows := deliveredRows(rng, rep, c.k, 0.12, 60)
			d, _ := delivered(h, rows, 0, rep, cueLoadingStiffness, percentGain)
			w := d.warning()
			t.Logf("k %.2g: %.3f [%.3f, %.3f]: %q", c.k, d.Scale, d.ScaleCI[0], d.ScaleCI[1], w)
			if (w != "") != c.warn {
				t.Errorf("k %.2g: scale %.3f [%.3f, %.3f], warning %q, want one: %v", c.k, d.Scale, d.ScaleCI[0], d.ScaleCI[1], w, c.warn)
			}
		}
	})
	t.Run("detection", func(t *testing.T) {
		// A tone: the reference delivers nothing, the test its level
		// times the curve's slope.
		tone := &StimulusReport{Weber: 0.19, Curve: [2]float64{0.26, 0}}
		h := []string{"stream", "x", "i1_role", "i1_cue", "i2_role", "i2_cue"}
		var rows [][]string
		for _, x := range []float64{4, 8, 16, 5, 6} {
			rows = append(rows, []string{"0", strconv.FormatFloat(x, 'g', -1, 64), "reference", "0", "test", strconv.FormatFloat(0.5*0.26*x, 'g', -1, 64)})
		}
		d, _ := delivered(h, rows, 0, tone, cueVibrationDetection, nil)
		if d == nil || math.Abs(d.Scale-0.5) > 1e-12 || d.warning() == "" {
			t.Errorf("a tone delivering half its checked level: %+v, warning %q", d, d.warning())
		}
	})
	t.Run("rows left out", func(t *testing.T) {
		h, rows := deliveredRows(rand.New(rand.NewPCG(5, 0xde)), rep, 1, 0.05, 4)
		hostile := [][]string{
			{"9", "1", "30", "test", "150", "reference", "100"},     // another stream
			{"9", "0", "30", "test", "NaN", "reference", "100"},     // the test not measured
			{"9", "0", "30", "test", "150"},                         // torn
			{"9", "0", "thirty", "test", "150", "reference", "100"}, // text for the level
			{"9", "0", "30", "test", "-5", "reference", "100"},      // a negative cue
			{"9", "0", "30", "test", "+Inf", "reference", "100"},    // an infinite cue
		}
		all := append(append([][]string{}, rows...), hostile...)
		d, unmeasured := delivered(h, all, 0, rep, cueLoadingStiffness, percentGain)
		if d == nil || d.Trials != 4 || unmeasured != 1 {
			t.Fatalf("%+v from 4 usable rows among hostile ones, %d not measured; want 4 trials, 1 not measured", d, unmeasured)
		}
		if d, _ := delivered(h, rows[:2], 0, rep, cueLoadingStiffness, percentGain); d != nil {
			t.Errorf("%+v from 2 trials, want none", d)
		}
		oneInterval := [][]string{{"0", "0", "30", "test", "150"}, {"1", "0", "20", "test", "120"}, {"2", "0", "40", "test", "160"}}
		if d, _ := delivered(h[:5], oneInterval, 0, rep, cueLoadingStiffness, percentGain); d != nil {
			t.Errorf("%+v from a ratio cue without a reference interval, want none", d)
		}
	})
}

// A run sets what its trials delivered against its stimulus check and
// says so in fit.json: a tone delivers what its check measured; a check
// recorded for the same experiment that claims twice the contrast (a run
// killed after it, then started again) gets a warning; one recorded for
// the file before an edit is not taken up, and the run checks again (not
// under the race detector: a full check of about a minute of virtual
// time).
func TestRunDeliveredAgainstCheck(t *testing.T) {
	e := loadExample(t, "tactile-tone-2afc.toml")
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "tactile-tone-2afc.toml"))
	if err != nil {
		t.Fatal(err)
	}
	// As TestDryRunMatchesCheck's short version: scripted fingertips at
	// rest, a cloth stepped every 20 ms, short intervals and pauses.
	e.Procedure.Staircase.MaxTrials = 12
	e.Timing.Interval, e.Timing.Gap, e.Timing.ITI = 300*time.Millisecond, 300*time.Millisecond, 300*time.Millisecond
	base := rig.Config{Scripted: true, SimPeriod: 20 * time.Millisecond}
	// The check a run of this file makes, cut short: a tone at rest
	// delivers the same every time, linear in its level, so three levels
	// of one trial each fit that line.
	rep, err := Check(context.Background(), CheckOptions{Experiment: e, Rig: base, Levels: 2, Pairs: 1, NoWarmup: true})
	if err != nil || !rep.Valid {
		t.Fatalf("check: %v %+v", err, rep)
	}
	fab, err := e.LoadFabric(kes.Library{})
	if err != nil {
		t.Fatal(err)
	}
	fabSrc, err := kes.Library{}.Source(fab.Name)
	if err != nil {
		t.Fatal(err)
	}
	sum, fsum := sha256.Sum256(src), sha256.Sum256(fabSrc)
	rep.ExperimentSHA256, rep.FabricSHA256 = hex.EncodeToString(sum[:]), hex.EncodeToString(fsum[:])
	out := t.TempDir()
	// plant records rep, its curve times k, as subject's check.
	plant := func(subject string, k float64) {
		t.Helper()
		r := *rep
		r.Curve = [2]float64{k * rep.Curve[0], k * rep.Curve[1]}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(out, e.Name, subject)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "stimulus-check.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(subject string, source []byte) (res *Result, d *Delivered, checked bool) {
		t.Helper()
		o, err := psych.ParseCueObserver("cue:weber=0.19,lambda=0.01,seed=2", e.Task)
		if err != nil {
			t.Fatal(err)
		}
		var log strings.Builder
		res, err = Run(context.Background(), Options{Experiment: e, Source: source, Subject: subject, OutDir: out, Out: &log,
			CueObservers: []*psych.CueObserver{o}, Rig: base, Library: kes.Library{}, NoTraces: true})
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(res.Dir, "fit.json"))
		if err != nil {
			t.Fatal(err)
		}
		var an analysis
		if err := json.Unmarshal(b, &an); err != nil {
			t.Fatal(err)
		}
		if len(an.Streams) != 1 || an.Streams[0].Delivered == nil {
			t.Fatalf("%s: fit.json's streams %+v, want one, with what it delivered", subject, an.Streams)
		}
		return res, an.Streams[0].Delivered, strings.Contains(log.String(), "stimulus check:")
	}
	warned := func(res *Result) bool {
		return strings.Contains(strings.Join(res.Warnings, " "), "differs from what was checked")
	}
	plant("a", 1)
	if res, d, checked := run("a", src); checked || !(math.Abs(d.Scale-1) < 0.02) || warned(res) {
		t.Errorf("as checked: %+v, warnings %q, checked again: %v", d, res.Warnings, checked)
	}
	plant("b", 2)
	if res, d, checked := run("b", src); checked || !(math.Abs(d.Scale-0.5) < 0.02) || !warned(res) {
		t.Errorf("against a check that claims twice the contrast: %+v, warnings %q, checked again: %v", d, res.Warnings, checked)
	}
	if raceEnabled && !*long {
		return
	}
	plant("c", 2)
	edited := append(append([]byte{}, src...), "\n# edited after the check\n"...)
	if res, d, checked := run("c", edited); !checked || !(math.Abs(d.Scale-1) < 0.02) || warned(res) {
		t.Errorf("a check recorded before the file's edit: %+v, warnings %q, checked again: %v", d, res.Warnings, checked)
	}
}

// An identification's trials say what each property delivered of each
// fabric: fabrics whose cues differ by several Weber fractions pass;
// fabrics the trials delivered alike are a warning; a fabric no trial
// measured is named, and text or NaN for a cue is left out.
func TestDeliveredFabrics(t *testing.T) {
	var fabs []*kes.Fabric
	for _, n := range []string{"silk-habutae", "cotton-shirting", "denim"} {
		f, err := kes.Library{}.Load(n)
		if err != nil {
			t.Fatal(err)
		}
		fabs = append(fabs, f)
	}
	run := &setRun{runner: &runner{}, props: []Kind{Roughness, Bending}, fabrics: fabs}
	cols := map[string]int{"stimulus": 0, "cue_roughness": 1, "cue_bending": 2}
	col := func(r []string, c string) string { return r[cols[c]] }
	for _, c := range []struct {
		name string
		rows [][]string
		warn bool
	}{
		{"apart", [][]string{
			{"silk-habutae", "3.0", "0.26"}, {"silk-habutae", "3.1", "0.27"},
			{"cotton-shirting", "4.4", "1.1"}, {"cotton-shirting", "NaN", "1.2"},
			{"denim", "6.5", "4.8"}, {"denim", "6.6", "five"},
		}, false},
		{"alike", [][]string{
			{"silk-habutae", "4.0", "1.0"}, {"cotton-shirting", "4.1", "1.05"}, {"denim", "4.2", "1.1"},
		}, true},
		{"denim not measured", [][]string{
			{"silk-habutae", "4.0", "1.0"}, {"cotton-shirting", "4.1", "1.05"}, {"denim", "NaN", "NaN"},
		}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			reps, warnings := run.deliveredFabrics(c.rows, col)
			if len(reps) != 2 || (len(warnings) > 0) != c.warn {
				t.Fatalf("%d reports, warnings %q, want 2 and a warning: %v", len(reps), warnings, c.warn)
			}
			for _, fr := range reps {
				t.Logf("%s: %+v, extremes %.3g W, unmeasured %+v", fr.Dimension, fr.Fabrics, fr.ExtremeWebers, fr.Unmeasured)
			}
			switch c.name {
			case "apart":
				r := reps[0]
				if len(r.Fabrics) != 3 || r.Fabrics[1].Cue != 4.4 || len(r.Fabrics[1].Cues) != 1 || !r.Monotone || !(r.ExtremeWebers > 5) {
					t.Errorf("roughness: %+v, extremes %.3g W, want cotton's one measured cue, monotone, over 5 W", r.Fabrics, r.ExtremeWebers)
				}
			case "denim not measured":
				if u := reps[0].Unmeasured; len(u) != 1 || u[0].Fabric != "denim" {
					t.Errorf("unmeasured %+v, want denim", u)
				}
			}
		})
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/haptex/haptex/calib/psych"
)

// writeRunFolder writes an experiment output folder as experiment run
// leaves it for the columns and sidecar fields compare reads: at each
// level 40 trials, round(40·p) of them positive, p from pfs[stream].
func writeRunFolder(t *testing.T, dir, task string, pfs ...psych.PF) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	side := fmt.Sprintf(`{"format": "haptex-experiment-sidecar", "experiment": {"format": 1, "name": "force-2afc",
		"task": %s, "stimulus": {"kind": "force-scale", "unit": "%%"}, "fit": {"form": "weibull"}}}`, task)
	if err := os.WriteFile(filepath.Join(dir, "sidecar.json"), []byte(side), 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("trial,stream,x,unit,positive\n")
	n := 0
	for s, pf := range pfs {
		for _, x := range []float64{4, 6, 8, 10, 12, 15, 20, 25, 30, 40} {
			k := int(math.Round(40 * pf.Prob(x)))
			for i := range 40 {
				fmt.Fprintf(&b, "%d,%d,%g,%%,%d\n", n, s, x, map[bool]int{true: 1}[i < k])
				n++
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "trials.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// experiment compare recovers each condition's threshold from the trials
// of its folder (or stream), keeps the lesser model when the lapse rates
// are equal, and summarises the thresholds across conditions.
func TestExperimentCompare(t *testing.T) {
	dir := t.TempDir()
	afc := `{"kind": "afc", "alternatives": 2}`
	pfA := psych.PF{Form: psych.Weibull, Alpha: 10, Beta: 3, Gamma: 0.5, Lambda: 0.02}
	pfB, pfC := pfA, pfA
	pfB.Alpha, pfC.Alpha = 20, 14
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	writeRunFolder(t, a, afc, pfA)
	writeRunFolder(t, b, afc, pfB, pfC) // an interleaved run: two conditions
	// A run killed while it wrote a row: its complete rows count.
	appendFile(t, filepath.Join(a, "trials.csv"), "400,0,4,%,")
	out, err := capture(t, func() error {
		_, err := execute([]string{"experiment", "compare", a, b, "-json"})
		return err
	})
	if err != nil {
		t.Fatalf("experiment compare: %v\n%s", err, out)
	}
	var got comparison
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("-json: %v\n%s", err, out)
	}
	m := got.Test
	want := map[string]psych.PF{a: pfA, b + "#0": pfB, b + "#1": pfC}
	if len(got.Thresholds) != len(want) || m.DF != 2 {
		t.Fatalf("conditions %v, %d df; want %d conditions, 2 df", got.Thresholds, m.DF, len(want))
	}
	var mean float64
	for name, pf := range want {
		th, ok := got.Thresholds[name]
		// The thresholds differ by 40 % and more; the rounded counts move
		// a threshold by far less than 2 %.
		if wt := pf.Threshold(m.Fuller.Criterion); !ok || math.Abs(th-wt) > 0.02*wt {
			t.Errorf("%s: threshold %g, want %g", name, th, wt)
		}
		mean += th / 3
	}
	if m.PreferFuller || !(m.P > 0.5) || m.AICPrefersFuller {
		t.Errorf("equal lapse rates: LR %g, p %g, AIC prefers fuller %v; want the lesser model", m.LR, m.P, m.AICPrefersFuller)
	}
	if g := got.Group; g.N != 3 || math.Abs(g.Mean-mean) > 1e-9*mean || !(g.Interval.Lo < g.Mean && g.Mean < g.Interval.Hi) {
		t.Errorf("group summary %+v, want the mean %g of 3", g, mean)
	}

	// The folder that holds both stands for them.
	out, err = capture(t, func() error {
		_, err := execute([]string{"experiment", "compare", dir, "-json"})
		return err
	})
	var all comparison
	if err != nil || json.Unmarshal([]byte(out), &all) != nil || !maps.Equal(all.Thresholds, got.Thresholds) {
		t.Errorf("compare of the folder holding a and b: %v, thresholds %v; want a's and b's %v", err, all.Thresholds, got.Thresholds)
	}

	// The text report names each condition and the test.
	out, err = capture(t, func() error { _, err := execute([]string{"experiment", "compare", a, b}); return err })
	if err != nil || !strings.Contains(out, "likelihood ratio") || !strings.Contains(out, b+"#1") || !strings.Contains(out, "group: mean threshold") {
		t.Errorf("text report: %v\n%s", err, out)
	}
}

func TestExperimentCompareErrors(t *testing.T) {
	dir := t.TempDir()
	pf := psych.PF{Form: psych.Weibull, Alpha: 10, Beta: 3, Gamma: 0.5, Lambda: 0.02}
	a, yn, empty := filepath.Join(dir, "a"), filepath.Join(dir, "yn"), filepath.Join(dir, "empty")
	writeRunFolder(t, a, `{"kind": "afc", "alternatives": 2}`, pf)
	writeRunFolder(t, yn, `{"kind": "yesno"}`, pf)
	writeRunFolder(t, empty, `{"kind": "afc", "alternatives": 2}`)
	ragged := filepath.Join(dir, "ragged")
	writeRunFolder(t, ragged, `{"kind": "afc", "alternatives": 2}`, pf)
	appendFile(t, filepath.Join(ragged, "trials.csv"), "400,0,4\n401,0,4,%,1\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{a}, "single condition"},
		{[]string{a, yn}, "differ in task"},
		{[]string{a, empty}, "no completed trials"},
		{[]string{a, ragged}, "ragged/trials.csv: not a trials table"},
		{[]string{a, t.TempDir()}, "not an experiment's output folder"},
		{[]string{dir}, "/empty: no completed trials"}, // the folder holding them all, in name order
		{[]string{"-share", "slope", a, a}, "-share"},
		{nil, "experiment compare DIR"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			_, err := capture(t, func() error {
				_, err := execute(append([]string{"experiment", "compare"}, tc.args...))
				return err
			})
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("compare %v: %v, want one line with %q", tc.args, err, tc.want)
			}
		})
	}
}

// appendFile appends text to the file at path.
func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

package experiment

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/haptex/haptex/calib/psych"
	"github.com/haptex/haptex/internal/safefile"
)

// MatchingAnalysis is an identification's matching.json. Delivered
// holds, per property the trials handled, the cue each fabric delivered
// over its trials against its KES value (as the stimulus check reports
// it, from the run's own trials); Warnings what the confusions cannot be
// read as.
type MatchingAnalysis struct {
	Experiment string                   `json:"experiment"`
	Subject    string                   `json:"subject"`
	Properties []Kind                   `json:"properties"`
	Confusion  *psych.ConfusionAnalysis `json:"confusion"`
	Delivered  []*FabricReport          `json:"delivered,omitempty"`
	Warnings   []string                 `json:"warnings,omitempty"`
}

// SemanticResult is a rating's semantic.json: every subject's ratings in
// the experiment's folder, both conditions, analysed together.
type SemanticResult struct {
	Experiment string                  `json:"experiment"`
	Points     int                     `json:"points"`
	Ratings    int                     `json:"ratings"`
	Analysis   *psych.SemanticAnalysis `json:"analysis,omitempty"`
	// Error says why there is no analysis, or no comparison of the
	// conditions, yet (one condition only, say): the analysis then holds
	// the profiles alone.
	Error string `json:"error,omitempty"`
	// Skipped names the subject folders whose trials.csv could not be
	// read or has other columns, and why: the analysis leaves them out.
	Skipped []string `json:"skipped,omitempty"`
	// Delivered holds, per property the trials handled, the cue each
	// fabric delivered over every subject's rendered (virtual) trials
	// against its KES value; Warnings what the ratings of the rendered
	// fabrics cannot be read as (see MatchingAnalysis).
	Delivered []*FabricReport `json:"delivered,omitempty"`
	Warnings  []string        `json:"warnings,omitempty"`
}

// MagnitudeAnalysis is a magnitude estimation's magnitude.json: Stevens'
// power law of the estimates against the level's KES value (the
// fabric's own quantity) and against the cue each trial delivered.
type MagnitudeAnalysis struct {
	Experiment string             `json:"experiment"`
	Subject    string             `json:"subject"`
	Property   Kind               `json:"property"`
	Quantity   string             `json:"quantity"`
	Unit       string             `json:"unit"`
	Cue        string             `json:"cue"`
	CueUnit    string             `json:"cue_unit"`
	KES        *psych.PowerLawFit `json:"kes,omitempty"`
	Delivered  *psych.PowerLawFit `json:"delivered,omitempty"`
	Errors     []string           `json:"errors,omitempty"`
}

// analyseSet reads the completed trials back from trials.csv and writes
// the set's analysis beside it.
func (run *setRun) analyseSet() (*Result, error) {
	e, s := run.e, run.set
	res := &Result{Dir: run.dir, Trials: run.done}
	_, rows, _, err := run.readRows()
	if err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	col := func(r []string, c string) string { return r[run.col[c]] }
	out := run.o.Out
	fmt.Fprintf(out, "%s, subject %s: %d trials\n", e.Name, run.o.Subject, len(rows))
	var name string
	var v any
	switch s.Kind {
	case Identify:
		c, err := psych.NewConfusion(s.Fabrics, s.Responses)
		if err != nil {
			return nil, fmt.Errorf("experiment: %w", err)
		}
		for _, r := range rows {
			if err := c.Add(col(r, "stimulus"), col(r, "response")); err != nil {
				return nil, fmt.Errorf("experiment: %w", err)
			}
		}
		a, err := c.Analyse(psych.ConfusionOptions{Seed: 1})
		if err != nil {
			return nil, fmt.Errorf("experiment: %w", err)
		}
		fmt.Fprintf(out, "  %.1f %% correct [%.1f, %.1f] (chance %.1f %%); information transmitted %.3g bits [%.3g, %.3g] of %.3g\n",
			a.PercentCorrect, a.PercentCorrectInterval.Lo, a.PercentCorrectInterval.Hi, a.ChancePercent,
			a.InformationBits, a.InformationInterval.Lo, a.InformationInterval.Hi, a.StimulusBits)
		if a.InformationWarning != "" {
			fmt.Fprintf(out, "  WARNING: %s\n", a.InformationWarning)
		}
		ma := MatchingAnalysis{Experiment: e.Name, Subject: run.o.Subject, Properties: run.props, Confusion: a}
		ma.Delivered, ma.Warnings = run.deliveredFabrics(rows, col)
		printDelivered(out, ma.Delivered, ma.Warnings)
		name, v = "matching.json", ma
	case Rate:
		sr, err := run.groupSemantic()
		if err != nil {
			return nil, err
		}
		for _, m := range sr.Skipped {
			fmt.Fprintf(out, "  WARNING: not in the group's analysis: %s\n", m)
		}
		if sr.Analysis != nil {
			for _, c := range sr.Analysis.Correlations {
				if c.Fabrics > 0 {
					fmt.Fprintf(out, "  %s: real-virtual r = %.3g [%.3g, %.3g] over %d fabrics\n", c.Scale, c.R, c.Interval.Lo, c.Interval.Hi, c.Fabrics)
				}
			}
			if sr.Error == "" {
				// With one condition they would only repeat the error.
				for _, w := range sr.Analysis.Warnings {
					fmt.Fprintf(out, "  WARNING: %s\n", w)
				}
			}
		}
		printDelivered(out, sr.Delivered, sr.Warnings)
		if sr.Error != "" {
			fmt.Fprintf(out, "  no real-versus-virtual analysis yet: %s\n", sr.Error)
		}
		name, v = "semantic.json", sr
	case Magnitude:
		dim := dimensions[e.Stimulus.Kind]
		ma := MagnitudeAnalysis{Experiment: e.Name, Subject: run.o.Subject, Property: e.Stimulus.Kind, Quantity: dim.kes.Name, Unit: dim.kes.Unit, Cue: dim.cue.Name, CueUnit: dim.cue.Unit}
		var byKES, byCue []psych.Magnitude
		for _, r := range rows {
			m, _ := strconv.ParseFloat(col(r, "estimate"), 64)
			k, _ := strconv.ParseFloat(col(r, "kes_"+dim.kes.Name), 64)
			c, _ := strconv.ParseFloat(col(r, "cue_"+string(e.Stimulus.Kind)), 64)
			byKES = append(byKES, psych.Magnitude{X: k, M: m})
			if c > 0 {
				byCue = append(byCue, psych.Magnitude{X: c, M: m})
			}
		}
		if ma.KES, err = psych.FitPowerLaw(byKES, 0); err != nil {
			ma.Errors = append(ma.Errors, "KES: "+err.Error())
		} else {
			fmt.Fprintf(out, "  against %s: exponent %.3g [%.3g, %.3g], R² %.3g\n", dim.kes.Name, ma.KES.Exponent, ma.KES.ExponentInterval.Lo, ma.KES.ExponentInterval.Hi, ma.KES.R2)
		}
		// The delivered cues vary from trial to trial: one point per
		// trial would not be a level, so they are grouped by level and
		// fitted at each level's mean cue.
		if ma.Delivered, err = psych.FitPowerLaw(meanCuePerLevel(byKES, byCue), 0); err != nil {
			ma.Errors = append(ma.Errors, "delivered: "+err.Error())
		} else {
			fmt.Fprintf(out, "  against the delivered %s: exponent %.3g [%.3g, %.3g], R² %.3g\n", dim.cue.Name, ma.Delivered.Exponent, ma.Delivered.ExponentInterval.Lo, ma.Delivered.ExponentInterval.Hi, ma.Delivered.R2)
		}
		for _, m := range ma.Errors {
			fmt.Fprintf(out, "  WARNING: no power law %s\n", m)
		}
		name, v = "magnitude.json", ma
	}
	b, err := marshalNaN(v)
	if err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	if err := run.root.WriteFile(name, b); err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	res.Analysis = run.root.Join(name)
	fmt.Fprintf(out, "  results in %s\n", run.dir)
	return res, nil
}

// printDelivered prints, per property, the range of the cue the fabrics
// delivered, and the warnings.
func printDelivered(out io.Writer, reps []*FabricReport, warnings []string) {
	for _, fr := range reps {
		if n := len(fr.Fabrics); n > 1 {
			lo, hi := fr.Fabrics[0], fr.Fabrics[n-1]
			unit := " " + fr.Unit
			if fr.Unit == "1" {
				unit = ""
			}
			fmt.Fprintf(out, "  delivered %s: %s %.4g (%s) to %.4g%s (%s), the extremes %.3g Weber fractions apart; rank correlation with %s %s\n",
				fr.Dimension, fr.Cue, lo.Cue, lo.Fabric, hi.Cue, unit, hi.Fabric, fr.ExtremeWebers, fr.Quantity, fr.SpearmanText())
		}
	}
	for _, w := range warnings {
		fmt.Fprintf(out, "  WARNING: %s\n", w)
	}
}

// deliveredFabrics sets, per property the trials handled, the cue each
// fabric of the set delivered over its trials (the cue_PROPERTY column;
// a trial whose cue was not measured is left out) against its KES value,
// and warns when no property's extremes differ by twice the cue's Weber
// fraction: the fabrics were then not told apart by what reached the
// finger, whatever the confusions say. A stimulus check before the run
// (haptex experiment check) measures the same on the simulated devices.
func (run *setRun) deliveredFabrics(rows [][]string, col func([]string, string) string) ([]*FabricReport, []string) {
	var reps []*FabricReport
	best, measured := 0.0, false
	for _, p := range run.props {
		dim := dimensions[p]
		q := dim.kes
		if q == nil {
			continue
		}
		fr := &FabricReport{Dimension: p, Motion: dim.motion, Cue: dim.cue.Name, Unit: dim.cue.Unit, Quantity: q.Name, QuantityUnit: q.Unit, Weber: dim.cue.Weber}
		for _, f := range run.fabrics {
			v, err := q.at(f, 1)
			if err != nil {
				fr.Unmeasured = append(fr.Unmeasured, FabricCue{Fabric: f.Name, Error: err.Error()})
				continue
			}
			var cues []float64
			for _, r := range rows {
				if col(r, "stimulus") != f.Name {
					continue
				}
				if c, err := strconv.ParseFloat(col(r, "cue_"+string(p)), 64); err == nil && !math.IsNaN(c) && !math.IsInf(c, 0) {
					cues = append(cues, c)
				}
			}
			if len(cues) == 0 {
				fr.Unmeasured = append(fr.Unmeasured, FabricCue{Fabric: f.Name, KES: v, Error: "no trial measured its cue"})
				continue
			}
			fr.Fabrics = append(fr.Fabrics, fabricCue(f.Name, v, cues))
		}
		fr.conclude(dim.cue, q.Inverse)
		if len(fr.Fabrics) > 1 {
			measured = true
			best = math.Max(best, math.Abs(fr.ExtremeWebers))
		}
		reps = append(reps, fr)
	}
	var warnings []string
	if measured && best < 2 {
		warnings = append(warnings, fmt.Sprintf("as delivered in this run's trials, no property's extremes differ by twice its cue's Weber fraction (at most %.2g times): the fabrics were hardly told apart by what reached the finger", best))
	}
	return reps, warnings
}

// meanCuePerLevel pairs each level's trials (byKES, in trial order, whose
// X is the level's KES value) with the mean of their delivered cues.
func meanCuePerLevel(byKES, byCue []psych.Magnitude) []psych.Magnitude {
	if len(byCue) != len(byKES) {
		return byCue // a trial lost its cue: fit what there is
	}
	sum := map[float64]float64{}
	n := map[float64]int{}
	for i, t := range byKES {
		sum[t.X] += byCue[i].X
		n[t.X]++
	}
	out := make([]psych.Magnitude, len(byCue))
	for i, t := range byKES {
		out[i] = psych.Magnitude{X: sum[t.X] / float64(n[t.X]), M: t.M}
	}
	return out
}

// semantic analyses the ratings of every subject and condition in the
// experiment's folder (each subject's trials.csv of this experiment).
func (run *setRun) semantic(exp *safefile.Dir) (*SemanticResult, error) {
	e, s := run.e, run.set
	ents, err := os.ReadDir(exp.Path())
	if err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	sr := &SemanticResult{Experiment: e.Name, Points: s.Points}
	var ratings []psych.SDRating
	var virtual [][]string
	for _, ent := range ents {
		if !ent.IsDir() {
			continue
		}
		header, rows, err := readSubjectTrials(exp, ent.Name())
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // not a subject's folder, or no trial yet
		case err != nil:
			sr.Skipped = append(sr.Skipped, err.Error())
			continue
		case header == nil:
			continue
		case !slices.Equal(header, run.header):
			sr.Skipped = append(sr.Skipped, fmt.Sprintf("%s: trials.csv has other columns than this experiment's (a run of an earlier version of its file?)", exp.Join(ent.Name())))
			continue
		}
		for _, r := range rows {
			if r[run.col["condition"]] == "virtual" {
				virtual = append(virtual, r)
			}
			for _, sc := range s.Scales {
				v, err := strconv.ParseFloat(r[run.col["rating_"+sc]], 64)
				if err != nil || math.IsNaN(v) {
					continue
				}
				// A subject's two conditions share the subject's name.
				subj := r[run.col["subject"]]
				if c := r[run.col["condition"]]; len(subj) > len(c)+1 && subj[len(subj)-len(c)-1:] == "-"+c {
					subj = subj[:len(subj)-len(c)-1]
				}
				ratings = append(ratings, psych.SDRating{Subject: subj, Fabric: r[run.col["stimulus"]], Condition: r[run.col["condition"]], Scale: sc, Value: v})
			}
		}
	}
	sr.Ratings = len(ratings)
	if len(virtual) > 0 {
		sr.Delivered, sr.Warnings = run.deliveredFabrics(virtual, func(r []string, c string) string { return r[run.col[c]] })
	}
	a, err := psych.AnalyseSemantic(ratings, psych.SemanticOptions{Seed: 1})
	if err != nil {
		sr.Error = err.Error()
		return sr, nil
	}
	sr.Analysis = a
	if !slices.ContainsFunc(a.Correlations, func(c psych.ScaleCorrelation) bool { return c.Fabrics > 0 }) {
		// The profiles stand; the comparison waits for the other condition.
		sr.Error = fmt.Sprintf("no fabric rated in both conditions in %s: the real swatches' ratings and the rendered fabrics' land there when their files share the experiment's name", exp.Path())
	}
	return sr, nil
}

// readSubjectTrials reads the complete rows of exp/name/trials.csv, the
// folder and the file reached without following a symbolic link; the
// error matches fs.ErrNotExist where there is no such file.
func readSubjectTrials(exp *safefile.Dir, name string) (header []string, rows [][]string, err error) {
	d, err := exp.Sub(name, false)
	if err != nil {
		return nil, nil, err
	}
	defer d.Close()
	data, err := d.ReadFile("trials.csv", maxTrialsSize)
	if err != nil {
		return nil, nil, err
	}
	header, rows, _, err = parseTrials(d.Join("trials.csv"), data)
	return header, rows, err
}

// groupLockWait bounds how long a run waits for another subject's run
// to finish writing the experiment's semantic.json: that takes a read of
// every subject's trials and one analysis, well under a second. A
// variable for the test of a holder that never lets go.
var groupLockWait = 30 * time.Second

// groupSemantic analyses every subject's ratings in the experiment's
// folder and writes the group's semantic.json there, holding the
// folder's lock from the first read to the write: two subjects' runs
// ending together would otherwise each analyse without the other's last
// trials, and the later write would lose them.
func (run *setRun) groupSemantic() (*SemanticResult, error) {
	out, err := safefile.OpenDir(run.o.OutDir)
	if err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	exp, err := out.Sub(run.e.Name, false)
	out.Close()
	if err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	defer exp.Close()
	switch err := exp.LockWithin(groupLockWait); {
	case errors.Is(err, safefile.ErrLocked):
		return nil, fmt.Errorf("experiment: %s is held by another run for over %v: this subject's trials are kept; run the same command again to write the group's semantic.json", exp.Path(), groupLockWait)
	case err != nil:
		fmt.Fprintf(run.o.Out, "warning: %v: another subject's run ending at the same moment could write the group's semantic.json without this subject's last trials\n", err)
	}
	sr, err := run.semantic(exp)
	if err != nil {
		return nil, err
	}
	b, err := marshalNaN(sr)
	if err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	if err := exp.WriteFile("semantic.json", b); err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	return sr, nil
}

// marshalNaN is json.MarshalIndent for analyses that hold NaN (an
// undefined correlation, a standard deviation of one subject): JSON has no
// NaN, so NaN and ±Inf are written as null.
func marshalNaN(v any) ([]byte, error) {
	t, err := nanToNil(reflect.ValueOf(v))
	if err != nil {
		return nil, err
	}
	return json.MarshalIndent(t, "", "  ")
}

// nanToNil converts v into the JSON tree encoding/json would write, with
// non-finite floats as nil.
func nanToNil(v reflect.Value) (any, error) {
	switch v.Kind() {
	case reflect.Invalid:
		return nil, nil
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil, nil
		}
		return nanToNil(v.Elem())
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, nil
		}
		return v.Interface(), nil
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return nil, nil
		}
		out := make([]any, v.Len())
		for i := range out {
			e, err := nanToNil(v.Index(i))
			if err != nil {
				return nil, err
			}
			out[i] = e
		}
		return out, nil
	case reflect.Struct:
		// Round-trip the struct's own encoding for its field names and
		// options, with its float fields replaced first.
		out := map[string]any{}
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			fv := v.Field(i)
			if strings.Contains(opts, "omitempty") && fv.IsZero() {
				continue
			}
			e, err := nanToNil(fv)
			if err != nil {
				return nil, err
			}
			out[name] = e
		}
		return out, nil
	}
	return v.Interface(), nil
}

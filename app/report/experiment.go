package report

import (
	"encoding/json"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/haptex/haptex/calib/psych"
)

// experimentReport builds the page of an experiment's subject folder.
func experimentReport(dir, out string) (*page, error) {
	pg := &page{Kind: "experiment", Dir: dir}
	var side, fit map[string]any
	if b, err := readFile(filepath.Join(dir, "sidecar.json")); err == nil {
		if err := json.Unmarshal(b, &side); err != nil {
			pg.note("sidecar.json is not valid JSON (%v)", err)
		}
	} else {
		pg.note("no sidecar.json (%v): the procedure's scale is taken as linear", err)
	}
	if kind := str(lookup(side, "experiment.set.kind")); kind != "" {
		return pg.setReport(dir, out, kind, side)
	}
	fitPath := filepath.Join(dir, "fit.json")
	var fitRaw []byte
	if b, err := readFile(fitPath); err == nil {
		fitRaw = b
		if err := json.Unmarshal(b, &fit); err != nil {
			pg.note("fit.json is not valid JSON (%v): no fit", err)
		}
	} else {
		pg.note("no fit.json (%v): the run has not finished, so there is no fit yet", err)
	}
	name := str(lookup(side, "experiment.name"))
	if name == "" {
		name = str(fit["experiment"])
	}
	subject := str(side["subject"])
	if subject == "" {
		subject = str(fit["subject"])
	}
	pg.Title = fmt.Sprintf("Experiment %s, subject %s", name, subject)
	unit := str(lookup(side, "experiment.stimulus.unit"))
	scale := procedureScale(lookup(side, "experiment.procedure"))
	pg.experimentProvenance(side, scale)

	trials, err := pg.read(dir, "trials.csv", "no staircase tracks and no delivered stimuli", func(c string) int {
		switch {
		case c == "unit" || strings.HasSuffix(c, "_role") || c == "wall_time":
			return text
		case c == "trial" || c == "stream" || c == "x" || c == "positive" || c == "test_interval" || c == "response":
			return numeric
		case deliveredColumn.MatchString(c) || strings.HasSuffix(c, "_value"):
			return numeric
		}
		return skip
	})
	if err != nil {
		return nil, err
	}
	pg.stimulusCheck(dir)
	if trials != nil {
		if unit == "" && len(trials.str["unit"]) > 0 {
			unit = trials.str["unit"][0]
		}
		if err := pg.trackFigure(trials, scale, unit, out); err != nil {
			return nil, err
		}
	}
	if fit != nil {
		if err := pg.fitFigures(fitRaw, side, scale, unit, out); err != nil {
			return nil, err
		}
	}
	if trials != nil {
		if err := pg.deliveredFigures(trials, unit, out); err != nil {
			return nil, err
		}
		pg.trialsTable(filepath.Join(dir, "trials.csv"))
	}
	if side != nil {
		if e, ok := side["experiment"]; ok {
			b, _ := json.MarshalIndent(e, "", "  ")
			pg.Config = string(b)
		}
	}
	return pg, nil
}

// stimulusCheck puts on the page the stimulus check the run made before
// its first trial (stimulus-check.json): per stream and level the cue the
// reference and the test intervals delivered, their contrast and its 95 %
// interval, and what the check concluded. A check that refused the
// experiment, which then ran with -force, is a warning: what reached the
// finger was not shown to be discriminable.
func (pg *page) stimulusCheck(dir string) {
	const name = "stimulus-check.json"
	b, err := readFile(filepath.Join(dir, name))
	if err != nil {
		if isNotExist(err) {
			pg.note("no %s: the run did not record a check that its stimulus reaches the finger", name)
		} else {
			pg.note("%s: %v", name, err)
		}
		return
	}
	var rep map[string]any
	if err := json.Unmarshal(b, &rep); err != nil {
		pg.note("%s is not valid JSON (%v): no stimulus check shown", name, err)
		return
	}
	if v, ok := rep["valid"].(bool); ok && !v {
		pg.Warnings = append(pg.Warnings, "the stimulus check refused this experiment, which ran anyway (-force): "+str(rep["reason"]))
	}
	if props, ok := rep["properties"].([]any); ok {
		// An identification's or a rating's check: per property, its cue
		// on the set's fabrics of extreme KES value.
		pg.Tables = append(pg.Tables, fabricCueTable("Stimulus check, before the first trial", props,
			"In virtual time on the simulated devices, each property's motion on the set's fabrics of smallest and largest KES value (the cue each interval delivered: mean, standard deviation and intervals), and the contrast of the extremes in Weber fractions of the cue; the set is refused when no property's reaches 2."))
		return
	}
	if l, ok := rep["levels"].(map[string]any); ok {
		// A magnitude estimation's check: its levels'.
		rep = l
	}
	reports := []any{rep}
	if s, ok := rep["streams"].([]any); ok {
		reports = append(reports, s...)
	}
	for _, r := range reports {
		pg.Tables = append(pg.Tables, levelCheckTable(r))
	}
}

// levelCheckTable tabulates one stream's check (a StimulusReport as JSON):
// per level the cues, their contrast and its interval, with a caption of
// what the check concluded.
func levelCheckTable(r any) tableData {
	xu := str(lookup(r, "x_unit"))
	td := tableData{
		Title: fmt.Sprintf("Stimulus check, stream %s: %s%s, before the first trial", fmtNum(lookup(r, "stream")), str(lookup(r, "cue")), bracketed(str(lookup(r, "unit")))),
		Head:  []string{"x" + bracketed(xu), "reference", "test", "ratio", "contrast", "95 % interval"},
	}
	levels, _ := lookup(r, "levels").([]any)
	var within []string
	for _, l := range levels {
		ci := "-"
		if c, ok := lookup(l, "contrast_ci").([]any); ok && len(c) == 2 {
			lo, okLo := c[0].(float64)
			hi, okHi := c[1].(float64)
			if okLo && okHi {
				ci = fmt.Sprintf("%.1f to %.1f %%", 100*lo, 100*hi)
				if lo <= 0 && hi >= 0 {
					within = append(within, fmtNum(lookup(l, "x")))
				}
			}
		}
		td.Rows = append(td.Rows, []string{fmtNum(lookup(l, "x")), fmtNum(lookup(l, "cue_reference")), fmtNum(lookup(l, "cue_test")),
			fmtNum(lookup(l, "ratio")), percent(lookup(l, "contrast")), ci})
	}
	caption := []string{fmt.Sprintf("In virtual time on the simulated devices, the experiment's motion at each level (the cue each interval delivered, averaged; contrast (test + f)/(reference + f) − 1). Weber fraction %s; one interval's cue varies by %s; efficiency %s.",
		fmtNum(lookup(r, "weber")), percent(expm1(lookup(r, "cue_sd"))), fmtNum(lookup(r, "efficiency")))}
	if x, ok := lookupNum(r, "detectable_from_x"); ok {
		s := fmt.Sprintf("The delivered contrast reaches the Weber fraction from %s %s (%s", fmtNum(x), xu, str(lookup(r, "prediction")))
		if ci, _ := lookup(r, "detectable_from_x_ci").([]any); len(ci) == 2 {
			end := func(v any) string {
				if f, ok := v.(float64); ok {
					return fmtNum(f) + " " + xu
				}
				return "beyond the checked levels"
			}
			s += fmt.Sprintf("; 95 %% interval %s to %s", end(ci[0]), end(ci[1]))
		}
		caption = append(caption, s+").")
	} else if len(levels) > 0 {
		caption = append(caption, "The delivered contrast reaches the Weber fraction at no checked level.")
	}
	if len(within) > 0 {
		caption = append(caption, fmt.Sprintf("At %s %s the interval holds 0: the contrast there is within what the cue varies by itself.", strings.Join(within, ", "), xu))
	}
	td.Caption = strings.Join(caption, " ")
	return td
}

// deliveredFabrics shows an identification's or a rating's delivered cues
// (matching.json's or semantic.json's "delivered": per property, each
// fabric's cue over its trials) as a table, and its warnings on the page.
func (pg *page) deliveredFabrics(analysis any) {
	if ws, ok := lookup(analysis, "warnings").([]any); ok {
		for _, w := range ws {
			pg.Warnings = append(pg.Warnings, str(w))
		}
	}
	props, _ := lookup(analysis, "delivered").([]any)
	if len(props) == 0 {
		return
	}
	pg.Tables = append(pg.Tables, fabricCueTable("What the trials delivered", props,
		"Per property, the cue each fabric delivered over its trials (mean and standard deviation), in increasing KES value, and the contrast of the extremes in Weber fractions of the cue."))
}

// fabricCueTable tabulates per property (props: FabricReports as JSON)
// the cue each fabric delivered, and its extremes' contrast.
func fabricCueTable(title string, props []any, caption string) tableData {
	td := tableData{Title: title, Head: []string{"property", "fabric", "KES value", "cue", "SD", "intervals"}, Caption: caption}
	for _, p := range props {
		prop := str(lookup(p, "dimension"))
		fabs, _ := lookup(p, "fabrics").([]any)
		for _, f := range fabs {
			cues, _ := lookup(f, "cues").([]any)
			td.Rows = append(td.Rows, []string{prop, str(lookup(f, "fabric")), fmtNum(lookup(f, "kes")) + " " + str(lookup(p, "quantity_unit")),
				fmtNum(lookup(f, "cue")) + " " + str(lookup(p, "unit")), fmtNum(lookup(f, "cue_sd")), strconv.Itoa(len(cues))})
		}
		if un, ok := lookup(p, "unmeasured").([]any); ok {
			for _, f := range un {
				td.Rows = append(td.Rows, []string{prop, str(lookup(f, "fabric")), fmtNum(lookup(f, "kes")), "not measured: " + str(lookup(f, "error")), "", "0"})
			}
		}
		td.Rows = append(td.Rows, []string{prop, "extremes", "", fmt.Sprintf("%s Weber fractions apart", fmtNum(lookup(p, "extreme_webers"))), "", ""})
	}
	return td
}

// percent formats a fraction as a percentage; "-" when it is no number.
func percent(v any) string {
	f, ok := v.(float64)
	if !ok || !finite(f) {
		return "-"
	}
	return fmt.Sprintf("%.1f %%", 100*f)
}

// expm1 is math.Expm1 of a decoded JSON number, nil when it is none.
func expm1(v any) any {
	if f, ok := v.(float64); ok {
		return math.Expm1(f)
	}
	return nil
}

// procedureScale finds the scale the procedure steps on (the first
// "scale" in its configuration, the tracks of an interleaved one
// included); "linear" when it names none.
func procedureScale(v any) string {
	switch x := v.(type) {
	case map[string]any:
		if s, ok := x["scale"].(string); ok {
			return s
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if s := procedureScale(x[k]); s != "linear" {
				return s
			}
		}
	case []any:
		for _, e := range x {
			if s := procedureScale(e); s != "linear" {
				return s
			}
		}
	}
	return "linear"
}

func (pg *page) experimentProvenance(side map[string]any, scale string) {
	add := func(k, v string) {
		if v != "" {
			pg.Provenance = append(pg.Provenance, [2]string{k, v})
		}
	}
	add("title", str(lookup(side, "experiment.title")))
	add("file", fmt.Sprintf("%s (sha256 %s)", str(side["file"]), str(side["file_sha256"])))
	add("stimulus", str(lookup(side, "experiment.stimulus.kind")))
	if k := str(lookup(side, "experiment.procedure.kind")); k != "" {
		add("procedure", fmt.Sprintf("%s, stepping on a %s scale", k, scale))
	}
	add("set", str(lookup(side, "experiment.set.kind")))
	// A set's fabrics each, or the one fabric.
	fabrics, _ := side["fabrics"].([]any)
	if len(fabrics) == 0 {
		fabrics = []any{side["fabric"]}
	}
	for _, f := range fabrics {
		if name := str(lookup(f, "name")); name != "" {
			add("fabric", fmt.Sprintf("%s (sha256 %s)", name, str(lookup(f, "sha256"))))
		}
	}
	if obs, ok := side["observers"].([]any); ok {
		// Who answered from which trial (a sidecar before that listed the
		// simulated observers' specifications alone).
		for _, o := range obs {
			spec, ok := o.(string)
			if !ok {
				spec = str(lookup(o, "spec"))
				if n, ok := lookupNum(o, "from_trial"); ok && n > 1 {
					spec += fmt.Sprintf(", from trial %s", fmtNum(n))
				}
			}
			add("answered by", spec)
		}
	}
	add("started", str(side["created"]))
	if sw, ok := side["software"].(map[string]any); ok {
		add("haptex", fmt.Sprintf("%v, commit %v, %v", sw["haptex"], sw["commit"], sw["go"]))
	}
}

// logAxis puts a logarithmic scale on an axis when the procedure stepped
// on one and every value is positive.
func logAxis(a *plot.Axis, scale string, values []float64) bool {
	if scale != "log10" && scale != "db" {
		return false
	}
	for _, v := range values {
		if finite(v) && v <= 0 {
			return false
		}
	}
	a.Scale = plot.LogScale{}
	a.Tick.Marker = logTicks{}
	return true
}

// trackFigure draws each stream's stimulus over its trials: filled marks
// for positive responses, open for negative.
func (pg *page) trackFigure(t *table, scale, unit, out string) error {
	trial, x, pos := t.num["trial"], t.num["x"], t.num["positive"]
	if x == nil || pos == nil {
		pg.note("trials.csv lacks x or positive: no staircase tracks")
		return nil
	}
	stream := t.num["stream"]
	p := plot.New()
	p.Title.Text = "Staircase tracks"
	p.X.Label.Text = "trial"
	p.Y.Label.Text = "stimulus [" + unit + "]"
	onLog := logAxis(&p.Y, scale, x)
	streams := map[int]plotter.XYs{}
	var ids []int
	for i := range x {
		s := 0
		if stream != nil && finite(stream[i]) {
			s = int(stream[i])
		}
		n := float64(i)
		if trial != nil && finite(trial[i]) {
			n = trial[i]
		}
		if !finite(x[i]) || onLog && x[i] <= 0 {
			continue
		}
		if _, ok := streams[s]; !ok {
			ids = append(ids, s)
		}
		streams[s] = append(streams[s], plotter.XY{X: n + 1, Y: x[i]})
	}
	if len(ids) == 0 {
		pg.note("trials.csv has no trial with a stimulus")
		return nil
	}
	sort.Ints(ids)
	colours := []color.RGBA{blue, orange, green, red}
	posGlyph := func(c color.RGBA) draw.GlyphStyle {
		return draw.GlyphStyle{Color: c, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
	}
	negGlyph := func(c color.RGBA) draw.GlyphStyle {
		return draw.GlyphStyle{Color: c, Radius: vg.Points(3), Shape: draw.RingGlyph{}}
	}
	for k, s := range ids {
		c := colours[k%len(colours)]
		pts := streams[s]
		line, err := plotter.NewLine(pts)
		if err != nil {
			continue
		}
		line.Color = c
		line.Width = vg.Points(0.8)
		p.Add(line)
		var yes, no plotter.XYs
		j := 0
		for i := range x {
			si := 0
			if stream != nil && finite(stream[i]) {
				si = int(stream[i])
			}
			if si != s || !finite(x[i]) || onLog && x[i] <= 0 {
				continue
			}
			if pos[i] == 1 {
				yes = append(yes, pts[j])
			} else {
				no = append(no, pts[j])
			}
			j++
		}
		label := "track"
		if len(ids) > 1 {
			label = fmt.Sprintf("stream %d", s)
		}
		if len(yes) > 0 {
			sc, _ := plotter.NewScatter(yes)
			sc.GlyphStyle = posGlyph(c)
			p.Add(sc)
			p.Legend.Add(label+": positive response", sc)
		}
		if len(no) > 0 {
			sc, _ := plotter.NewScatter(no)
			sc.GlyphStyle = negGlyph(c)
			p.Add(sc)
			p.Legend.Add(label+": negative response", sc)
		}
	}
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	fig, err := render(p, wideW, wideH, out, "tracks", "Staircase tracks",
		fmt.Sprintf("The stimulus of each trial in the order presented, on the %s axis the procedure stepped on; filled: positive response (correct, or yes), open: negative.", scale))
	if err != nil {
		return err
	}
	pg.Figures = append(pg.Figures, fig)
	return nil
}

// fitStream is one stream of fit.json, as far as the report reads it.
type fitStream struct {
	Stream   int            `json:"stream"`
	Estimate map[string]any `json:"estimate"`
	Fit      *struct {
		PF        json.RawMessage `json:"pf"`
		Threshold float64         `json:"threshold"`
		Criterion float64         `json:"criterion"`
		Warnings  []string        `json:"warnings"`
		AtBound   []string        `json:"at_bound"`
		Data      []struct {
			X float64 `json:"x"`
			K int     `json:"k"`
			N int     `json:"n"`
		} `json:"data"`
	} `json:"fit"`
	Bootstrap *struct {
		Level     float64 `json:"level"`
		Threshold struct {
			Lo float64 `json:"lo"`
			Hi float64 `json:"hi"`
		} `json:"threshold"`
		DevianceP *float64 `json:"deviance_p"`
	} `json:"bootstrap"`
	// Delivered is the trials' delivered contrast against the stimulus
	// check's (experiment.Delivered).
	Delivered *struct {
		Trials  int        `json:"trials"`
		Scale   float64    `json:"scale"`
		ScaleCI [2]float64 `json:"scale_ci"`
	} `json:"delivered"`
	// Unmeasured counts the trials whose delivered cue was not measured
	// (fit.json's unmeasured_trials).
	Unmeasured int      `json:"unmeasured_trials"`
	FitError   string   `json:"fit_error"`
	Warnings   []string `json:"warnings"`
}

// fitFigures draws each stream's psychometric fit: the data (marker area
// by trial count), the fitted function, the threshold and its bootstrap
// interval, on the procedure's axis; warnings go to the page.
func (pg *page) fitFigures(raw []byte, side map[string]any, scale, unit, out string) error {
	var an struct {
		Streams  []fitStream `json:"streams"`
		Warnings []string    `json:"warnings"`
	}
	if err := json.Unmarshal(raw, &an); err != nil {
		pg.note("fit.json: %v: no fit", err)
		return nil
	}
	pg.Warnings = append(pg.Warnings, an.Warnings...)
	freqs, _ := lookup(side, "experiment.stimulus.frequency_hz").([]any)
	for _, s := range an.Streams {
		label := fmt.Sprintf("stream %d", s.Stream)
		if s.Stream < len(freqs) {
			label = fmt.Sprintf("%g Hz", num(freqs[s.Stream]))
		}
		for _, w := range s.Warnings {
			pg.Warnings = append(pg.Warnings, label+": "+w)
		}
		if s.FitError != "" {
			pg.Warnings = append(pg.Warnings, fmt.Sprintf("%s: no fit: %s", label, s.FitError))
			continue
		}
		if s.Fit == nil {
			continue
		}
		for _, w := range s.Fit.Warnings {
			pg.Warnings = append(pg.Warnings, label+": "+w)
		}
		if len(s.Fit.AtBound) > 0 {
			pg.Warnings = append(pg.Warnings, fmt.Sprintf("%s: the fit's %s ended on a search bound: the data do not pin it down", label, strings.Join(s.Fit.AtBound, ", ")))
		}
		var pf psych.PF
		if err := json.Unmarshal(s.Fit.PF, &pf); err != nil || pf.Validate() != nil {
			pg.note("%s: fit.json's psychometric function does not read (%v): no curve", label, err)
			continue
		}
		p := plot.New()
		p.Title.Text = "Psychometric fit, " + label
		p.X.Label.Text = "stimulus [" + unit + "]"
		p.Y.Label.Text = "proportion positive"
		p.Y.Min, p.Y.Max = 0, 1
		xs := []float64{s.Fit.Threshold}
		for _, d := range s.Fit.Data {
			xs = append(xs, d.X)
		}
		if b := s.Bootstrap; b != nil {
			xs = append(xs, b.Threshold.Lo, b.Threshold.Hi)
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range xs {
			if finite(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
		if math.IsInf(lo, 0) {
			continue
		}
		onLog := logAxis(&p.X, scale, xs)
		if onLog {
			r := math.Pow(hi/lo, 0.06)
			if r <= 1 {
				r = 1.2
			}
			p.X.Min, p.X.Max = lo/r, hi*r
		} else {
			pad := 0.06 * (hi - lo)
			if pad == 0 {
				pad = 1
			}
			p.X.Min, p.X.Max = lo-pad, hi+pad
		}
		if b := s.Bootstrap; b != nil && finite(b.Threshold.Lo) && finite(b.Threshold.Hi) {
			if err := shade(p, [][2]float64{{b.Threshold.Lo, b.Threshold.Hi}}, 0, 1, rgba(214, 39, 40, 40),
				fmt.Sprintf("%.0f %% interval of the threshold [%.4g, %.4g]", 100*b.Level, b.Threshold.Lo, b.Threshold.Hi)); err != nil {
				return err
			}
		}
		curve := make(plotter.XYs, 400)
		for i := range curve {
			f := float64(i) / 399
			x := p.X.Min + f*(p.X.Max-p.X.Min)
			if onLog {
				x = p.X.Min * math.Pow(p.X.Max/p.X.Min, f)
			}
			curve[i] = plotter.XY{X: x, Y: pf.Prob(x)}
		}
		line, err := plotter.NewLine(curve)
		if err == nil {
			line.Color, line.Width = blue, vg.Points(1.5)
			p.Add(line)
			p.Legend.Add(pf.Form.String()+" fit", line)
		}
		maxN := 1
		for _, d := range s.Fit.Data {
			maxN = max(maxN, d.N)
		}
		var pts plotter.XYs
		var ns []int
		for _, d := range s.Fit.Data {
			if d.N > 0 && finite(d.X) && (!onLog || d.X > 0) {
				pts = append(pts, plotter.XY{X: d.X, Y: float64(d.K) / float64(d.N)})
				ns = append(ns, d.N)
			}
		}
		if len(pts) > 0 {
			sc, _ := plotter.NewScatter(pts)
			sc.GlyphStyleFunc = func(i int) draw.GlyphStyle {
				return draw.GlyphStyle{Color: grey, Radius: vg.Points(1.5 + 3.5*math.Sqrt(float64(ns[i])/float64(maxN))), Shape: draw.CircleGlyph{}}
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: grey, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
			p.Add(sc)
			p.Legend.Add(fmt.Sprintf("data (area: trials, up to %d)", maxN), sc)
		}
		if finite(s.Fit.Threshold) && (!onLog || s.Fit.Threshold > 0) {
			mark, err := plotter.NewLine(plotter.XYs{{X: s.Fit.Threshold, Y: 0}, {X: s.Fit.Threshold, Y: pf.Prob(s.Fit.Threshold)}})
			if err == nil {
				mark.Color = red
				mark.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
				p.Add(mark)
				p.Legend.Add(fmt.Sprintf("threshold %.4g %s", s.Fit.Threshold, unit), mark)
			}
		}
		p.Legend.Top = false
		p.Legend.Left = !(s.Fit.Threshold < (p.X.Min+p.X.Max)/2)
		p.Add(plotter.NewGrid())
		caption := fmt.Sprintf("Proportion of positive responses per stimulus, the maximum-likelihood fit, its threshold and its bootstrap interval, on the %s axis the procedure stepped on.", scale)
		if est, ok := s.Estimate["threshold"].(float64); ok {
			caption += fmt.Sprintf(" The procedure's own estimate: %.4g %s.", est, unit)
		}
		if d := s.Delivered; d != nil {
			caption += fmt.Sprintf(" The %d trials delivered %.2f [%.2f, %.2f] times the contrast the stimulus check measured at their levels (1: as checked).", d.Trials, d.Scale, d.ScaleCI[0], d.ScaleCI[1])
		}
		if n := s.Unmeasured; n > 0 {
			caption += fmt.Sprintf(" What %d trials delivered was not measured: an interval's cue could not be computed from its trace (on arrays that do not measure their pins, the traces hold each frame's acknowledgement instead).", n)
		}
		fig, err := render(p, panelW*1.5, panelH*1.2, out, fmt.Sprintf("fit-%d", s.Stream), "Psychometric fit, "+label, caption)
		if err != nil {
			return err
		}
		pg.Figures = append(pg.Figures, fig)
	}
	return nil
}

// deliveredColumn matches an interval's measure of what reached the
// finger: peak forces, delivered amplitudes, and any column named
// "delivered".
var deliveredColumn = regexp.MustCompile(`^i(\d+)_(.*(delivered|peak_force).*)$`)

// deliveredFigures draws, for every measure of what reached the finger
// that trials.csv records per interval, its value in the test interval
// (filled) and the reference (open) against the trial's nominal stimulus.
func (pg *page) deliveredFigures(t *table, unit, out string) error {
	x, test := t.num["x"], t.num["test_interval"]
	if x == nil || test == nil {
		pg.note("trials.csv lacks x or test_interval: no delivered-against-nominal figures")
		return nil
	}
	var measures []string
	seen := map[string]bool{}
	for _, h := range t.header {
		if m := deliveredColumn.FindStringSubmatch(h); m != nil && !seen[m[2]] {
			seen[m[2]] = true
			measures = append(measures, m[2])
		}
	}
	var panels []*plot.Plot
	for _, m := range measures {
		var tst, ref plotter.XYs
		for i := range x {
			k := int(test[i])
			for iv := 1; iv <= 4; iv++ {
				col := t.num[fmt.Sprintf("i%d_%s", iv, m)]
				if col == nil || !finite(col[i]) || !finite(x[i]) {
					continue
				}
				if iv == k {
					tst = append(tst, plotter.XY{X: x[i], Y: col[i]})
				} else {
					ref = append(ref, plotter.XY{X: x[i], Y: col[i]})
				}
			}
		}
		if len(tst) == 0 {
			continue
		}
		p := plot.New()
		p.Title.Text = measureTitle(m)
		p.X.Label.Text = "nominal stimulus [" + unit + "]"
		p.Y.Label.Text = measureUnit(m)
		sc, _ := plotter.NewScatter(tst)
		sc.GlyphStyle = draw.GlyphStyle{Color: blue, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
		p.Add(sc)
		p.Legend.Add("test interval", sc)
		if len(ref) > 0 {
			rs, _ := plotter.NewScatter(ref)
			rs.GlyphStyle = draw.GlyphStyle{Color: grey, Radius: vg.Points(2.5), Shape: draw.RingGlyph{}}
			p.Add(rs)
			p.Legend.Add("reference", rs)
		}
		p.Legend.Top = true
		p.Add(plotter.NewGrid())
		panels = append(panels, p)
	}
	if len(panels) == 0 {
		pg.note("trials.csv records no delivered measure per interval")
		return nil
	}
	return pg.addGrid(panels, 3, 7*vg.Centimeter, out, "delivered",
		"Delivered against nominal",
		"Each trial's nominal stimulus against what reached the fingers in its intervals, as recorded: filled, the test interval; open, the reference.")
}

func emptyPlot() *plot.Plot {
	p := plot.New()
	p.HideAxes()
	return p
}

// measureTitle is a measure's column name as words, without its unit.
func measureTitle(m string) string {
	for _, suf := range []string{"_um", "_n", "_s", "_m", "_db", "_pct"} {
		if strings.HasSuffix(m, suf) {
			m = strings.TrimSuffix(m, suf)
			break
		}
	}
	return strings.ReplaceAll(m, "_", " ")
}

// measureUnit reads a measure's unit from its column name's suffix.
func measureUnit(m string) string {
	for suf, u := range map[string]string{"_um": "µm", "_n": "N", "_s": "s", "_m": "m", "_db": "dB", "_pct": "%"} {
		if strings.HasSuffix(m, suf) {
			return u
		}
	}
	return "value"
}

// trialsTable puts every trial's first columns on the page, as recorded.
func (pg *page) trialsTable(path string) {
	pg.tableOfTrials(path, func(c string) bool {
		switch c {
		case "trial", "stream", "x", "unit", "test_interval", "response", "positive", "rt_s", "estimate":
			return true
		}
		return false
	})
}

// setAnalysis names the analysis file of each kind of set experiment.
var setAnalysis = map[string]string{"identify": "matching.json", "rate": "semantic.json", "magnitude": "magnitude.json"}

// setReport builds the page of a set experiment's subject folder
// (identification, rating, magnitude estimation): its provenance, its
// analysis as it is with the kind's own figure or table, and its trials;
// no staircase track or fit, which a set does not have.
func (pg *page) setReport(dir, out, kind string, side map[string]any) (*page, error) {
	pg.Title = fmt.Sprintf("Experiment %s, subject %s", str(lookup(side, "experiment.name")), str(side["subject"]))
	pg.experimentProvenance(side, "linear")
	name, ok := setAnalysis[kind]
	if !ok {
		return nil, fmt.Errorf("report: %s: set experiment of kind %q, want identify, rate or magnitude", filepath.Join(dir, "sidecar.json"), kind)
	}
	if str(lookup(side, "experiment.set.condition")) != "real" {
		// Real swatches reach the finger without a rig: nothing to check.
		pg.stimulusCheck(dir)
	}
	if b, err := readFile(filepath.Join(dir, name)); err != nil {
		pg.note("no %s (%v): the run has not finished, so there is no analysis yet", name, err)
	} else {
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			pg.note("%s is not valid JSON (%v)", name, err)
		} else {
			text, _ := json.MarshalIndent(v, "", "  ")
			pg.Analysis, pg.AnalysisFile = string(text), name
			switch kind {
			case "magnitude":
				if err := pg.powerLawFigure(v, out); err != nil {
					return nil, err
				}
			case "identify":
				pg.confusionTable(v, side)
				pg.deliveredFabrics(v)
				pg.note("figures: none is drawn of an identification; its confusion matrix is the table above")
			case "rate":
				if err := pg.ratingsFigure(v, side, out); err != nil {
					return nil, err
				}
				pg.deliveredFabrics(v)
			}
		}
	}
	pg.tableOfTrials(filepath.Join(dir, "trials.csv"), func(c string) bool {
		switch c {
		case "subject", "observer", "run_time_s", "wall_time":
			return false
		}
		return true
	})
	if e, ok := side["experiment"]; ok {
		b, _ := json.MarshalIndent(e, "", "  ")
		pg.Config = string(b)
	}
	return pg, nil
}

// bracketed is " [unit]", or nothing for a file that names no unit (one
// written before magnitude.json named the cue's).
func bracketed(unit string) string {
	if unit == "" {
		return ""
	}
	return " [" + unit + "]"
}

// powerLawFigure draws a magnitude estimation's Stevens power laws
// (magnitude.json's "kes" and "delivered"): each level's geometric mean
// estimate against the KES quantity, and against the cue delivered, on
// logarithmic axes, with the fitted M = scale·x^exponent.
func (pg *page) powerLawFigure(analysis any, out string) error {
	var panels []*plot.Plot
	for _, part := range []struct{ key, axis string }{
		{"kes", "KES " + str(lookup(analysis, "quantity")) + bracketed(str(lookup(analysis, "unit")))},
		{"delivered", "delivered " + str(lookup(analysis, "cue")) + bracketed(str(lookup(analysis, "cue_unit")))},
	} {
		pts, _ := lookup(analysis, part.key+".points").([]any)
		var xy plotter.XYs
		for _, p := range pts {
			x, okx := lookupNum(p, "x")
			m, okm := lookupNum(p, "geomean")
			if okx && okm && x > 0 && m > 0 {
				xy = append(xy, plotter.XY{X: x, Y: m})
			}
		}
		if !twoLevels(xy) {
			pg.note("magnitude.json's %s has fewer than two levels to draw", part.key)
			continue
		}
		p := plot.New()
		p.Title.Text = "against the " + part.axis
		p.X.Label.Text, p.Y.Label.Text = part.axis, "magnitude estimate (geometric mean)"
		xs, ys := make([]float64, len(xy)), make([]float64, len(xy))
		for i, q := range xy {
			xs[i], ys[i] = q.X, q.Y
		}
		logAxis(&p.X, "log10", xs)
		logAxis(&p.Y, "log10", ys)
		sc, _ := plotter.NewScatter(xy)
		sc.GlyphStyle = draw.GlyphStyle{Color: blue, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
		p.Add(sc)
		p.Legend.Add("levels", sc)
		k, okk := lookupNum(analysis, part.key+".scale")
		b, okb := lookupNum(analysis, part.key+".exponent")
		if okk && okb && k > 0 {
			lo, hi := xy[0].X, xy[0].X
			for _, q := range xy {
				lo, hi = min(lo, q.X), max(hi, q.X)
			}
			// Only the line's points a logarithmic axis can show (a
			// hostile fit overflows or vanishes).
			var line plotter.XYs
			for i := range 50 {
				x := lo * math.Pow(hi/lo, float64(i)/49)
				if y := k * math.Pow(x, b); y > 0 && finite(x) && finite(y) {
					line = append(line, plotter.XY{X: x, Y: y})
				}
			}
			if len(line) >= 2 {
				l, _ := plotter.NewLine(line)
				l.Color = red
				p.Add(l)
				p.Legend.Add(fmt.Sprintf("M = %.3g·x^%.3g", k, b), l)
			}
		}
		p.Legend.Top = true
		p.Add(plotter.NewGrid())
		panels = append(panels, p)
	}
	if len(panels) == 0 {
		return nil
	}
	return pg.addGrid(panels, 2, 9*vg.Centimeter, out, "power-law",
		"Stevens' power law",
		"Each level's geometric mean magnitude estimate against the fabric's KES quantity (left) and against the cue delivered to the fingers (right), both axes logarithmic, with the power law fitted in magnitude.json.")
}

// confusionTable shows an identification's confusion matrix
// (matching.json's "confusion": counts, presented fabric by row, name
// given by column) as a table, with the information transmitted in its
// title; the labels are the sidecar's set.fabrics and set.responses.
func (pg *page) confusionTable(analysis, side any) {
	rows, _ := lookup(analysis, "confusion.counts").([]any)
	if len(rows) == 0 {
		pg.note("matching.json has no confusion counts")
		return
	}
	labels := func(path string) []string {
		var out []string
		l, _ := lookup(side, path).([]any)
		for _, x := range l {
			out = append(out, str(x))
		}
		return out
	}
	presented, named := labels("experiment.set.fabrics"), labels("experiment.set.responses")
	if len(named) == 0 {
		named = presented
	}
	title := "Confusion matrix: trials by fabric presented (rows) and name given (columns)"
	if bits, ok := lookupNum(analysis, "confusion.information_bits"); ok {
		lo, _ := lookupNum(analysis, "confusion.information_interval.lo")
		hi, _ := lookupNum(analysis, "confusion.information_interval.hi")
		title += fmt.Sprintf("; information transmitted %.3g bits (%.3g to %.3g)", bits, lo, hi)
	}
	if w := str(lookup(analysis, "confusion.information_warning")); w != "" {
		pg.Warnings = append(pg.Warnings, w)
	}
	td := tableData{Title: title, Head: []string{"presented \\ named"}}
	first, _ := rows[0].([]any)
	for j := range first {
		td.Head = append(td.Head, labelAt(named, j))
	}
	for i, r := range rows {
		cells, _ := r.([]any)
		row := []string{labelAt(presented, i)}
		for _, c := range cells {
			row = append(row, strconv.FormatFloat(num(c), 'g', -1, 64))
		}
		td.Rows = append(td.Rows, row)
	}
	pg.Tables = append(pg.Tables, td)
}

// ratingsFigure draws a rating's real-against-virtual comparison from
// semantic.json's analysis: per scale, each fabric's mean rating of the
// rendered fabric against that of the real swatch, the diagonal where
// they agree, and the correlation over the fabrics in the title. It
// needs both conditions' profiles; with one it says so.
func (pg *page) ratingsFigure(analysis, side any, out string) error {
	scales, _ := lookup(analysis, "analysis.scales").([]any)
	profiles, _ := lookup(analysis, "analysis.profiles").([]any)
	corr, _ := lookup(analysis, "analysis.correlations").([]any)
	points, ok := lookupNum(side, "experiment.set.points")
	if !ok || !(points >= 2) || points > 100 {
		points = 7
	}
	skipped, _ := lookup(analysis, "skipped").([]any)
	for _, s := range skipped {
		pg.note("semantic.json leaves out %s", str(s))
	}
	// A fabric's mean ratings per scale in each condition (nil where the
	// condition has none).
	type pair struct{ real, virtual []any }
	byFabric := map[string]*pair{}
	var order []string
	for _, p := range profiles {
		f := str(lookup(p, "fabric"))
		if byFabric[f] == nil {
			byFabric[f] = &pair{}
			order = append(order, f)
		}
		m, _ := lookup(p, "mean").([]any)
		switch str(lookup(p, "condition")) {
		case "real":
			byFabric[f].real = m
		case "virtual":
			byFabric[f].virtual = m
		}
	}
	var panels []*plot.Plot
	for k, sc := range scales {
		var xy plotter.XYs
		var names []string
		for _, f := range order {
			p := byFabric[f]
			if k >= len(p.real) || k >= len(p.virtual) {
				continue
			}
			x, y := num(p.real[k]), num(p.virtual[k])
			if finite(x) && finite(y) {
				xy = append(xy, plotter.XY{X: x, Y: y})
				names = append(names, f)
			}
		}
		if len(xy) == 0 {
			continue
		}
		pl := plot.New()
		pl.Title.Text = str(sc)
		for _, c := range corr {
			if r, ok := lookupNum(c, "r"); ok && str(lookup(c, "scale")) == str(sc) {
				pl.Title.Text += fmt.Sprintf(", r = %.2f", r)
			}
		}
		pl.X.Label.Text, pl.Y.Label.Text = "real swatch (mean rating)", "rendered fabric (mean rating)"
		pl.X.Min, pl.X.Max, pl.Y.Min, pl.Y.Max = 1, points, 1, points
		diag, _ := plotter.NewLine(plotter.XYs{{X: 1, Y: 1}, {X: points, Y: points}})
		diag.Color, diag.Dashes = grey, []vg.Length{vg.Points(3), vg.Points(3)}
		pl.Add(diag)
		dots, _ := plotter.NewScatter(xy)
		dots.GlyphStyle = draw.GlyphStyle{Color: blue, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
		pl.Add(dots)
		if labels, err := plotter.NewLabels(plotter.XYLabels{XYs: xy, Labels: names}); err == nil {
			pl.Add(labels)
		}
		pl.Add(plotter.NewGrid())
		panels = append(panels, pl)
	}
	if len(panels) == 0 {
		pg.note("figures: semantic.json holds no scale rated in both conditions; the comparison needs the real swatches' ratings and the rendered fabrics' of the same experiment")
		return nil
	}
	return pg.addGrid(panels, 3, 8*vg.Centimeter, out, "ratings",
		"Rendered against real",
		"Per scale, each fabric's mean rating when rendered against its mean rating as a real swatch, with the diagonal where they agree and the correlation over the fabrics (semantic.json).")
}

// labelAt is l[i], or its number from 1 where l has none.
func labelAt(l []string, i int) string {
	if i < len(l) && l[i] != "" {
		return l[i]
	}
	return strconv.Itoa(i + 1)
}

// twoLevels reports whether pts hold at least two values of x: a power
// law's line and a logarithmic axis need a range.
func twoLevels(pts plotter.XYs) bool {
	for _, q := range pts {
		if q.X != pts[0].X {
			return true
		}
	}
	return false
}

// tableOfTrials shows the columns of trials.csv that keep says to.
func (pg *page) tableOfTrials(path string, keep func(string) bool) {
	t, err := readTable(path, func(c string) int {
		if keep(c) {
			return text
		}
		return skip
	})
	if err != nil || t == nil {
		return
	}
	td := &tableData{Title: "Trials"}
	var cols []string
	for _, h := range t.header {
		if t.str[h] != nil {
			cols = append(cols, h)
		}
	}
	td.Head = cols
	for i := range t.rows {
		row := make([]string, len(cols))
		for j, c := range cols {
			row[j] = t.str[c][i]
			if v, err := strconv.ParseFloat(row[j], 64); err == nil && c != "trial" && c != "stream" {
				row[j] = strconv.FormatFloat(v, 'g', 5, 64)
			}
		}
		td.Rows = append(td.Rows, row)
	}
	pg.TrialsTable = td
}

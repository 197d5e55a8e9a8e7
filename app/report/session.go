package report

import (
	"encoding/json"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

var fingers = []string{"thumb", "index"}

// sessionReport builds the page of a session folder.
func sessionReport(dir, out string) (*page, error) {
	pg := &page{Kind: "session", Dir: dir}
	var meta map[string]any
	if b, err := readFile(filepath.Join(dir, "session.json")); err == nil {
		if err := json.Unmarshal(b, &meta); err != nil {
			pg.note("session.json is not valid JSON (%v): the configuration and summary are missing", err)
		}
	} else {
		pg.note("no session.json (%v): the run did not finish, or the folder was copied without it", err)
	}
	if s, ok := meta["summary"]; ok && s == nil {
		pg.note("session.json has no summary: the run did not end (the process was killed, or the disk was full at its end); the tables hold what it recorded")
	}
	pg.Title = "Session " + baseName(dir)
	pg.provenance(meta)
	pg.sessionSummary(meta)

	haptics, err := pg.read(dir, "haptics.csv", "no force figures", func(c string) int {
		switch {
		case c == "t_s" || c == "lateness_us":
			return numeric
		case strings.HasSuffix(c, "_state") || strings.HasSuffix(c, "_reason"):
			return text
		}
		for _, f := range fingers {
			if strings.HasPrefix(c, f+"_f") || c == f+"_contact" {
				return numeric
			}
		}
		return skip
	})
	if err != nil {
		return nil, err
	}
	if haptics != nil {
		for _, f := range fingers {
			if err := pg.forceFigure(haptics, f, out); err != nil {
				return nil, err
			}
		}
		pg.safetyStates(haptics)
	}

	tactile, err := pg.read(dir, "tactile.csv", "no pin figures", func(c string) int {
		if c == "t_s" || c == "lateness_us" || pinColumn.MatchString(c) {
			return numeric
		}
		return skip
	})
	if err != nil {
		return nil, err
	}
	if tactile != nil {
		if err := pg.pinFigures(tactile, out); err != nil {
			return nil, err
		}
	}

	simT, err := pg.read(dir, "sim.csv", "no step times", func(c string) int {
		switch c {
		case "t_s", "lateness_us", "step_us", "cg_iters":
			return numeric
		}
		return skip
	})
	if err != nil {
		return nil, err
	}
	if simT != nil {
		period := 0.0
		if ns, ok := lookupNum(meta, "config.sim_period_ns"); ok {
			period = ns / 1e3
		}
		if err := pg.stepFigure(simT, period, out); err != nil {
			return nil, err
		}
	}
	if err := pg.latenessFigure(map[string]*table{"haptics": haptics, "sim": simT, "tactile": tactile}, meta, out); err != nil {
		return nil, err
	}
	if meta != nil {
		if cfg, ok := meta["config"]; ok {
			b, _ := json.MarshalIndent(cfg, "", "  ")
			pg.Config = string(b)
		}
	}
	return pg, nil
}

// provenance lists what made the run: software, fabric, mode, whether a
// script led the fingers, the devices file and the calibration files with
// their hashes, the clock.
func (pg *page) provenance(meta map[string]any) {
	add := func(k, v string) {
		if v != "" {
			pg.Provenance = append(pg.Provenance, [2]string{k, v})
		}
	}
	sw, _ := meta["software"].(map[string]any)
	if sw != nil {
		add("haptex", fmt.Sprintf("%v, commit %v", sw["haptex"], sw["commit"]))
		add("go", fmt.Sprintf("%v %v/%v", sw["go"], sw["os"], sw["arch"]))
	}
	add("fabric", str(lookup(meta, "summary.fabric")))
	add("mode", str(lookup(meta, "summary.mode")))
	if v, ok := lookupNum(meta, "summary.run_s"); ok {
		add("run time", fmt.Sprintf("%.3f s (wall %.3f s)", v, num(lookup(meta, "summary.wall_s"))))
	}
	if s, ok := meta["scripted"].(bool); ok {
		add("motion", map[bool]string{true: "a handling script", false: "live (mouse or person)"}[s])
	}
	if c := lookup(meta, "summary.clock.utc"); c != nil {
		add("clock zero (UTC)", str(c))
	}
	if d, ok := lookup(meta, "config.devices_file").(map[string]any); ok {
		add("devices file", fmt.Sprintf("%v, sha256 %v", d["path"], d["sha256"]))
	}
	if cals, ok := lookup(meta, "config.calibrations").([]any); ok {
		for _, c := range cals {
			m, _ := c.(map[string]any)
			add("calibration", fmt.Sprintf("%v (%v), sha256 %v", m["path"], m["kind"], m["sha256"]))
		}
	}
	if v, ok := lookupNum(meta, "summary.host_steal_pct"); ok && v > 0 {
		add("host steal", fmt.Sprintf("%.1f %%", v))
	}
}

// sessionSummary copies the run summary's tables.
func (pg *page) sessionSummary(meta map[string]any) {
	loops, _ := lookup(meta, "summary.loops").([]any)
	if len(loops) > 0 {
		t := tableData{Title: "Loops (lateness and compute time in µs)", Head: []string{"loop", "period ms", "ticks", "rate Hz", "late p50", "p99", "p99.9", "max", "compute p99", "overruns", ">1 ms"}}
		for _, l := range loops {
			m, _ := l.(map[string]any)
			t.Rows = append(t.Rows, []string{str(m["name"]), fmtNum(m["period_ms"]), fmtNum(m["ticks"]), fmtNum(m["rate_hz"]),
				fmtNum(lookup(m, "lateness_us.p50")), fmtNum(lookup(m, "lateness_us.p99")), fmtNum(lookup(m, "lateness_us.p999")),
				fmtNum(lookup(m, "lateness_us.max")), fmtNum(lookup(m, "compute_us.p99")), fmtNum(m["overruns"]), fmtNum(m["late_over_1ms"])})
		}
		pg.Tables = append(pg.Tables, t)
	}
	fs, _ := lookup(meta, "summary.fingers").([]any)
	if len(fs) > 0 {
		// A session.json written before the summary had the sensor's
		// figures (no "peak_force_des_n") put the cloth's under
		// "peak_force_n": they go to the cloth's columns.
		first, _ := fs[0].(map[string]any)
		_, sensor := first["peak_force_des_n"]
		row := func(name string, contact any, m map[string]any, peak, mean, peakDes, meanDes string) []string {
			if !sensor {
				return []string{name, fmtNum(contact), "", "", fmtNum(m[peak]), fmtNum(m[mean])}
			}
			return []string{name, fmtNum(contact), fmtNum(m[peak]), fmtNum(m[mean]), fmtNum(m[peakDes]), fmtNum(m[meanDes])}
		}
		t := tableData{Title: "Fingers (the force the fingertip sensor measured; asked: the force the cloth asked the device to render)",
			Head: []string{"finger", "contact s", "peak force N", "mean force N", "asked peak N", "asked mean N"}}
		for _, f := range fs {
			m, _ := f.(map[string]any)
			t.Rows = append(t.Rows, row(str(m["finger"]), m["contact_s"], m, "peak_force_n", "mean_force_n", "peak_force_des_n", "mean_force_des_n"))
		}
		if s, _ := lookup(meta, "summary").(map[string]any); s["pinch_s"] != nil {
			t.Rows = append(t.Rows, row("pinch (both)", s["pinch_s"], s, "peak_pinch_n", "", "peak_pinch_des_n", ""))
		}
		pg.Tables = append(pg.Tables, t)
		pg.arraysTable(fs)
	}
}

// arraysTable says per finger what its tactile array did with the frames:
// not written, clipped or silenced by its own account, and what its pins
// delivered against what was sent where it measures them. A session.json
// from before these figures has no table.
func (pg *page) arraysTable(fs []any) {
	t := tableData{Title: "Tactile arrays (frames as each array reported them; delivered: what it measured its pins delivering over what was sent, summed over the pins sent at least the driven amplitude)",
		Head: []string{"finger", "not written", "clipped", "silenced", "delivered 40 Hz", "delivered 320 Hz", "driven µm", "frames measured", "pins that did not move"}}
	reported := false
	for _, f := range fs {
		m, _ := f.(map[string]any)
		if _, ok := m["tactile_clipped"]; !ok {
			continue
		}
		reported = true
		r := []string{str(m["finger"]), fmtNum(m["tactile_not_written"]), fmtNum(m["tactile_clipped"]), fmtNum(m["tactile_silenced"]), "not measured", "not measured", "", "", ""}
		if d, ok := m["tactile_delivered"].(map[string]any); ok {
			sent, _ := d["sent_um"].([]any)
			del, _ := d["delivered_um"].([]any)
			for b := range 2 {
				r[4+b] = "nothing sent"
				if b < len(sent) && b < len(del) {
					if s, ok := sent[b].(float64); ok && s > 0 {
						if x, ok := del[b].(float64); ok {
							r[4+b] = strconv.FormatFloat(x/s, 'f', 3, 64)
						}
					}
				}
			}
			r[6], r[7] = fmtNum(d["driven_um"]), fmtNum(d["frames"])
			if still, ok := d["still_pins"].([]any); ok {
				var ps []string
				for _, p := range still {
					ps = append(ps, fmtNum(p))
				}
				r[8] = strings.Join(ps, ", ")
			}
		}
		t.Rows = append(t.Rows, r)
	}
	if reported {
		pg.Tables = append(pg.Tables, t)
	}
}

// forceFigure draws one finger's desired and measured force magnitude
// over time, with its contact phases and the pinch (both fingers in
// contact) shaded.
func (pg *page) forceFigure(t *table, f, out string) error {
	ts := t.num["t_s"]
	mag := func(prefix string) []float64 {
		x, y, z := t.num[f+"_"+prefix+"_x_n"], t.num[f+"_"+prefix+"_y_n"], t.num[f+"_"+prefix+"_z_n"]
		if x == nil || y == nil || z == nil {
			return nil
		}
		m := make([]float64, len(x))
		for i := range x {
			m[i] = math.Sqrt(x[i]*x[i] + y[i]*y[i] + z[i]*z[i])
		}
		return m
	}
	des, meas := mag("fdes"), mag("fmeas")
	if ts == nil || des == nil && meas == nil {
		pg.note("haptics.csv has no %s force columns", f)
		return nil
	}
	p := plot.New()
	p.Title.Text = f + ": force on the finger"
	p.X.Label.Text = "time [s]"
	p.Y.Label.Text = "|F| [N]"
	top := 0.0
	for _, s := range [][]float64{des, meas} {
		for _, v := range s {
			if finite(v) {
				top = max(top, v)
			}
		}
	}
	top = max(top*1.1, 0.05)
	p.Y.Min, p.Y.Max = 0, top
	contact := t.num[f+"_contact"]
	var other []float64
	for _, g := range fingers {
		if g != f {
			other = t.num[g+"_contact"]
		}
	}
	if contact != nil {
		if err := shade(p, intervals(ts, func(i int) bool { return contact[i] == 1 }), 0, top, rgba(44, 160, 44, 45), "contact"); err != nil {
			return err
		}
		if other != nil {
			both := intervals(ts, func(i int) bool { return contact[i] == 1 && other[i] == 1 })
			if err := shade(p, both, 0, top, rgba(148, 103, 189, 70), "pinch (both fingers)"); err != nil {
				return err
			}
		}
	}
	for _, s := range []struct {
		v     []float64
		label string
		c     color.RGBA
		w     vg.Length
	}{{des, "desired (the cloth's force)", blue, 1.4}, {meas, "measured (fingertip sensor)", orange, 1}} {
		if s.v == nil {
			continue
		}
		l, err := plotter.NewLine(envelope(ts, s.v, 3000))
		if err != nil {
			continue
		}
		l.Color, l.Width = s.c, vg.Points(float64(s.w))
		p.Add(l)
		p.Legend.Add(s.label, l)
	}
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	fig, err := render(p, wideW, wideH, out, "force-"+f, f+": desired and measured force",
		"Magnitude of the force the cloth asks the device to render (desired) and of what the fingertip sensor measured; green: the finger touches the cloth, purple: both fingers hold it (the pinch).")
	if err != nil {
		return err
	}
	pg.Figures = append(pg.Figures, fig)
	return nil
}

// safetyStates lists each finger's safety-state changes.
func (pg *page) safetyStates(t *table) {
	ts := t.num["t_s"]
	td := tableData{Title: "Safety states (changes)", Head: []string{"t s", "finger", "state", "reason"}}
	for _, f := range fingers {
		st, re := t.str[f+"_state"], t.str[f+"_reason"]
		if st == nil || ts == nil {
			continue
		}
		prev := ""
		for i, s := range st {
			r := ""
			if re != nil {
				r = re[i]
			}
			if cur := s + "|" + r; cur != prev {
				if len(td.Rows) < 200 {
					td.Rows = append(td.Rows, []string{strconv.FormatFloat(ts[i], 'f', 3, 64), f, s, r})
				}
				prev = cur
			}
		}
	}
	if len(td.Rows) > 0 {
		sort.SliceStable(td.Rows, func(i, j int) bool {
			a, _ := strconv.ParseFloat(td.Rows[i][0], 64)
			b, _ := strconv.ParseFloat(td.Rows[j][0], 64)
			return a < b
		})
		pg.Tables = append(pg.Tables, td)
	}
}

// pinColumn matches a per-pin column: finger, what, pin number, unit.
var pinColumn = regexp.MustCompile(`^(thumb|index)_(.+)_pin(\d+)_([a-z]+)$`)

// pinFigures draws a heat map (time x pin) for every family of per-pin
// columns tactile.csv has: the amplitudes sent at 40 and 320 Hz, and
// whatever else is recorded per pin (delivered amplitudes, say).
func (pg *page) pinFigures(t *table, out string) error {
	ts := t.num["t_s"]
	if ts == nil {
		pg.note("tactile.csv has no t_s column")
		return nil
	}
	type family struct {
		finger, what, unit string
		pins               map[int]string
	}
	fams := map[string]*family{}
	var keys []string
	for _, h := range t.header {
		m := pinColumn.FindStringSubmatch(h)
		if m == nil {
			continue
		}
		k := m[1] + "_" + m[2] + "_" + m[4]
		if fams[k] == nil {
			fams[k] = &family{finger: m[1], what: m[2], unit: m[4], pins: map[int]string{}}
			keys = append(keys, k)
		}
		n, _ := strconv.Atoi(m[3])
		fams[k].pins[n] = h
	}
	for _, k := range keys {
		fm := fams[k]
		rows := 0
		for n := range fm.pins {
			rows = max(rows, n+1)
		}
		g := binGrid(ts, rows, func(r int) []float64 { return t.num[fm.pins[r]] }, 400)
		if g == nil {
			continue
		}
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%s: %s per pin [%s]", fm.finger, fm.what, unitLabel(fm.unit))
		p.X.Label.Text = "time [s]"
		p.Y.Label.Text = "pin (row·4 + column, row 0 distal)"
		cm := moreland.ExtendedBlackBody()
		hi := g.hi
		if hi <= g.lo {
			hi = g.lo + 1
		}
		cm.SetMin(g.lo)
		cm.SetMax(hi)
		p.Add(&cells{g: g, pal: cm.Palette(256).Colors(), lo: g.lo, hi: hi})
		p.Y.Min, p.Y.Max = -0.5, float64(rows)-0.5
		bar := plot.New()
		bar.Title.Text = unitLabel(fm.unit)
		cb := &plotter.ColorBar{ColorMap: cm, Vertical: true}
		bar.Add(cb)
		// An x axis without ticks, so that the bar spans the heat map's
		// height exactly.
		bar.X.Label.Text = " "
		bar.X.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0.5, Label: " "}})
		bar.X.LineStyle.Width = 0
		bar.X.Tick.LineStyle.Width = 0
		bar.Y.Padding = 0
		bar.X.Padding = 0
		fig, err := renderWithBar(p, bar, out, "pins-"+k, p.Title.Text,
			fmt.Sprintf("Each row is one pin of the %s array, each column one 25 ms frame (the largest value where frames are merged); the colour bar gives the amplitude.", fm.finger))
		if err != nil {
			return err
		}
		pg.Figures = append(pg.Figures, fig)
	}
	if len(keys) == 0 {
		pg.note("tactile.csv has no per-pin columns")
	}
	return nil
}

func unitLabel(u string) string {
	switch u {
	case "um":
		return "µm"
	case "db":
		return "dB"
	}
	return u
}

// binGrid builds a heat-map grid of rows series over time, merging
// columns by their largest value down to at most maxCols.
func binGrid(ts []float64, rows int, series func(r int) []float64, maxCols int) *grid {
	n := len(ts)
	if n == 0 || rows == 0 {
		return nil
	}
	per := max(1, (n+maxCols-1)/maxCols)
	cols := (n + per - 1) / per
	g := &grid{rows: rows, t: make([]float64, cols), z: make([][]float64, rows), lo: math.Inf(1), hi: math.Inf(-1)}
	for c := range cols {
		if g.t[c] = ts[c*per]; !finite(g.t[c]) {
			return nil // no time axis to draw it on
		}
	}
	for r := range rows {
		s := series(r)
		g.z[r] = make([]float64, cols)
		for c := range cols {
			v := math.NaN()
			for i := c * per; i < min(n, (c+1)*per); i++ {
				if s != nil && i < len(s) && finite(s[i]) && (math.IsNaN(v) || s[i] > v) {
					v = s[i]
				}
			}
			g.z[r][c] = v
			if finite(v) {
				g.lo, g.hi = math.Min(g.lo, v), math.Max(g.hi, v)
			}
		}
	}
	if math.IsInf(g.lo, 1) {
		g.lo, g.hi = 0, 1
	}
	g.lo = math.Min(g.lo, 0)
	return g
}

// renderWithBar draws a heat map beside its colour bar.
func renderWithBar(p, bar *plot.Plot, out, name, title, caption string) (figure, error) {
	return renderTiles([][]*plot.Plot{{p, bar}}, []float64{0.9, 0.1}, wideW, wideH, out, name, title, caption)
}

// stepFigure draws the cloth's step times over the run, against the
// step period.
func (pg *page) stepFigure(t *table, periodUs float64, out string) error {
	ts, st := t.num["t_s"], t.num["step_us"]
	if ts == nil || st == nil {
		pg.note("sim.csv has no step_us column (recorded since this version): no step times")
		return nil
	}
	if !slices.ContainsFunc(st, func(v float64) bool { return v > 0 }) {
		pg.note("no step times: a lockstep run records none, so that two runs' records are the same byte for byte")
		return nil
	}
	p := plot.New()
	p.Title.Text = "cloth step: wall time of each step"
	p.X.Label.Text = "time [s]"
	p.Y.Label.Text = "step [ms]"
	ms := make([]float64, len(st))
	for i, v := range st {
		ms[i] = v / 1e3
	}
	l, err := plotter.NewLine(envelope(ts, ms, 3000))
	if err != nil {
		return nil
	}
	l.Color = blue
	p.Add(l)
	p.Legend.Add("step", l)
	if periodUs > 0 && len(ts) > 1 {
		ref, _ := plotter.NewLine(plotter.XYs{{X: ts[0], Y: periodUs / 1e3}, {X: ts[len(ts)-1], Y: periodUs / 1e3}})
		ref.Color = red
		ref.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(ref)
		p.Legend.Add("step period", ref)
	}
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	caption := "Wall time of each cloth step; above the dashed line a real-time run falls behind."
	if q, ok := quantiles(ms); ok {
		caption += fmt.Sprintf(" Median %.3g ms, p99 %.3g ms, max %.3g ms over %d steps.", q[0], q[1], q[2], len(ms))
	}
	fig, err := render(p, wideW, wideH, out, "sim-steps", "Cloth step times", caption)
	if err != nil {
		return err
	}
	pg.Figures = append(pg.Figures, fig)
	return nil
}

// latenessFigure draws one histogram per loop of how late its ticks woke.
func (pg *page) latenessFigure(tables map[string]*table, meta map[string]any, out string) error {
	if str(lookup(meta, "summary.mode")) == "lockstep" {
		pg.note("a lockstep run: the loops ran in virtual time, so no tick was late and there are no lateness histograms")
		return nil
	}
	var row []*plot.Plot
	for _, name := range []string{"haptics", "sim", "tactile"} {
		t := tables[name]
		if t == nil || t.num["lateness_us"] == nil {
			continue
		}
		var vs plotter.Values
		for _, v := range t.num["lateness_us"] {
			if finite(v) {
				vs = append(vs, v)
			}
		}
		if len(vs) == 0 {
			continue
		}
		h, err := plotter.NewHist(vs, 40)
		if err != nil {
			continue
		}
		h.FillColor = blue
		p := plot.New()
		p.Title.Text = name
		p.X.Label.Text = "lateness [µs]"
		p.Y.Label.Text = "ticks"
		p.Y.Scale = countScale{}
		p.Y.Tick.Marker = countTicks{}
		p.Y.Min = 0
		p.Add(h)
		row = append(row, p)
	}
	if len(row) == 0 {
		pg.note("no lateness column in the tables: no lateness histograms")
		return nil
	}
	widths := make([]float64, len(row))
	for i := range widths {
		widths[i] = 1 / float64(len(row))
	}
	fig, err := renderTiles([][]*plot.Plot{row}, widths, wideW, wideH, out, "lateness", "Loop lateness",
		"How long after its deadline each tick of each loop woke (ticks on a logarithmic count axis, so that the rare late ticks show).")
	if err != nil {
		return err
	}
	pg.Figures = append(pg.Figures, fig)
	return nil
}

// quantiles returns the median, p99 (nearest rank) and maximum of the
// finite values.
func quantiles(v []float64) ([3]float64, bool) {
	var s []float64
	for _, x := range v {
		if finite(x) {
			s = append(s, x)
		}
	}
	if len(s) == 0 {
		return [3]float64{}, false
	}
	sort.Float64s(s)
	at := func(q float64) float64 { return s[max(0, int(math.Ceil(q*float64(len(s))))-1)] }
	return [3]float64{at(0.5), at(0.99), s[len(s)-1]}, true
}

// countScale is a logarithmic axis for counts that include zero:
// log10(1 + n).
type countScale struct{}

func (countScale) Normalize(lo, hi, x float64) float64 {
	a, b := math.Log10(1+math.Max(lo, 0)), math.Log10(1+math.Max(hi, 0))
	if b <= a {
		return 0
	}
	return (math.Log10(1+math.Max(x, 0)) - a) / (b - a)
}

// countTicks marks 0, 1, 10, 100, ... up to the axis's maximum.
type countTicks struct{}

func (countTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := []plot.Tick{{Value: 0, Label: "0"}}
	for v := 1.0; v <= hi*1.0001; v *= 10 {
		if v >= lo {
			ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)})
		}
	}
	return ticks
}

// Package report turns what a run left on disk into one self-contained
// HTML page that opens in any browser without a server: a session folder
// (haptex run, view) or an experiment's subject folder (haptex experiment
// run, calib threshold). The page's figures are drawn with gonum/plot and
// embedded in it; each is also written beside it as PNG and SVG.
//
// For a session: the desired and measured force on each finger over time
// with the contact and pinch phases shaded, a heat map of every per-pin
// column of the tactile record, the loops' lateness histograms, the
// cloth's step times, and the run's configuration and provenance. For an
// experiment: the staircase tracks, the psychometric fit with its
// interval and warnings on the axis the procedure stepped on, and per
// trial what was delivered against the nominal stimulus.
//
// It reads the records defensively, by column and key NAME: a column or
// key it does not know is ignored, one it needs and does not find is
// skipped with a note on the page, a row cut short is skipped and
// counted. It never changes the folder it reads; it writes only its
// output folder (Options.Out), through writeFile.
package report

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/haptex/haptex/internal/buildinfo"
)

// Options configure Write.
type Options struct {
	// Out is the folder the page (index.html) and its figures go to;
	// empty: DIR/report.
	Out string
}

// Result says what Write made.
type Result struct {
	Kind    string   // "session" or "experiment"
	Page    string   // the HTML file
	Figures []string // the PNG and SVG files beside it
	Notes   []string // what the report could not show, and why
}

// Write builds the report of the session or experiment folder dir.
func Write(dir string, opt Options) (*Result, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("report: %s is not a folder (give a session folder or an experiment's subject folder)", dir)
	}
	out := opt.Out
	if out == "" {
		out = filepath.Join(dir, "report")
	}
	var pg *page
	switch {
	case exists(filepath.Join(dir, "trials.csv")) || exists(filepath.Join(dir, "fit.json")):
		pg, err = experimentReport(dir, out)
	case exists(filepath.Join(dir, "session.json")) || exists(filepath.Join(dir, "haptics.csv")):
		pg, err = sessionReport(dir, out)
	default:
		if subs := subjectFolders(dir); len(subs) > 0 {
			return nil, fmt.Errorf("report: %s holds the subject folders %s: give one of them", dir, strings.Join(subs, ", "))
		}
		return nil, fmt.Errorf("report: %s is neither a session folder (session.json, haptics.csv) nor an experiment's subject folder (trials.csv, fit.json)", dir)
	}
	if err != nil {
		return nil, err
	}
	in := buildinfo.Read()
	pg.Generated = fmt.Sprintf("haptex report, haptex %s commit %s, %s", in.Version, in.Short(), time.Now().UTC().Format(time.RFC3339))
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, pg); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	path := filepath.Join(out, "index.html")
	if err := writeFile(path, b.Bytes()); err != nil {
		return nil, err
	}
	res := &Result{Kind: pg.Kind, Page: path, Notes: pg.Notes}
	for _, f := range pg.Figures {
		res.Figures = append(res.Figures, filepath.Join(out, f.PNGFile), filepath.Join(out, f.SVGFile))
	}
	return res, nil
}

// page is what the template shows.
type page struct {
	Kind, Title, Dir, Generated string
	Provenance                  [][2]string
	Tables                      []tableData
	Figures                     []figure
	Notes                       []string
	Warnings                    []string
	Config                      string
	TrialsTable                 *tableData
	// Analysis is a set experiment's analysis file (AnalysisFile), as
	// indented JSON.
	Analysis, AnalysisFile string
}

type tableData struct {
	Title string
	Head  []string
	Rows  [][]string
	// Caption, when set, says under the table how to read it.
	Caption string
}

func (pg *page) note(format string, a ...any) { pg.Notes = append(pg.Notes, fmt.Sprintf(format, a...)) }

// read reads a table of the folder for the page: what it could not read
// goes to the notes, and a missing file gives nil and the note "no NAME:
// missing".
func (pg *page) read(dir, name, missing string, want func(col string) int) (*table, error) {
	t, err := readTable(filepath.Join(dir, name), want)
	if err != nil {
		return nil, err
	}
	if t == nil {
		pg.note("no %s: %s", name, missing)
		return nil, nil
	}
	pg.Notes = append(pg.Notes, t.notes()...)
	return t, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

func baseName(p string) string { return filepath.Base(filepath.Clean(p)) }

// subjectFolders lists the folders under dir that hold a trials.csv.
func subjectFolders(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() && exists(filepath.Join(dir, e.Name(), "trials.csv")) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// lookup follows a dotted path of object keys in decoded JSON.
func lookup(v any, path string) any {
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func lookupNum(v any, path string) (float64, bool) {
	f, ok := lookup(v, path).(float64)
	return f, ok
}

func num(v any) float64 {
	f, ok := v.(float64)
	if !ok {
		return math.NaN()
	}
	return f
}

func str(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'g', 6, 64)
	}
	return fmt.Sprint(v)
}

func fmtNum(v any) string {
	f, ok := v.(float64)
	if !ok {
		return str(v)
	}
	return strconv.FormatFloat(f, 'g', 4, 64)
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 70em; padding: 0 1em; color: #222; background: #fff; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.15em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; }
th { background: #f2f2f2; }
td:first-child, th:first-child { text-align: left; }
table.kv td { text-align: left; }
figure { margin: 1.2em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption, p.caption { font-size: 0.9em; color: #444; }
.notes li { color: #7a5200; }
.warnings li { color: #b00020; font-weight: 600; }
pre { background: #f7f7f7; padding: 0.8em; overflow: auto; font-size: 0.8em; max-height: 30em; }
.meta { color: #666; font-size: 0.85em; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="meta">{{.Kind}} folder <code>{{.Dir}}</code> · {{.Generated}}</p>
{{if .Warnings}}<h2>Warnings</h2><ul class="warnings">{{range .Warnings}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .Provenance}}<h2>Provenance</h2>
<table class="kv">{{range .Provenance}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td></tr>{{end}}</table>{{end}}
{{range .Tables}}<h2>{{.Title}}</h2>
<table><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>{{if .Caption}}<p class="caption">{{.Caption}}</p>{{end}}{{end}}
{{range .Figures}}<h2>{{.Title}}</h2>
<figure><img src="{{.PNG}}" alt="{{.Title}}">
<figcaption>{{.Caption}} Files: <a href="{{.PNGFile}}">PNG</a>, <a href="{{.SVGFile}}">SVG</a>.</figcaption></figure>
{{end}}
{{if .Analysis}}<h2>Analysis</h2><details open><summary>{{.AnalysisFile}}</summary><pre>{{.Analysis}}</pre></details>{{end}}
{{with .TrialsTable}}<h2>{{.Title}}</h2><details><summary>{{len .Rows}} trials</summary>
<table><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table></details>{{end}}
{{if .Notes}}<h2>Not shown</h2><ul class="notes">{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .Config}}<h2>Configuration</h2><details><summary>the run's configuration (session.json)</summary><pre>{{.Config}}</pre></details>{{end}}
</body>
</html>
`))

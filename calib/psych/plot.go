package psych

import (
	"fmt"
	"image/color"
	"io"
	"math"

	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PlotOptions configures Fit.Plot and Posterior.Plot.
type PlotOptions struct {
	Title  string
	XLabel string // default "stimulus"
	// Bootstrap, when set, draws the threshold's confidence interval
	// (Fit.Plot).
	Bootstrap *Bootstrap
	// LogX draws the stimulus axis logarithmically (stimuli must be
	// positive).
	LogX bool
	// Warnings are drawn in red at the top of the plot, after the fit's
	// own.
	Warnings []string
}

// Plot draws the data (proportion positive, marker area proportional to
// the trial count), the fitted function, the threshold, when given its
// bootstrap interval, and the fit's warnings.
func (f *Fit) Plot(opt PlotOptions) (*plot.Plot, error) {
	var ci *Interval
	level := 0.0
	if b := opt.Bootstrap; b != nil {
		ci, level = &b.Threshold, b.Level
	}
	var w []string
	for _, b := range f.AtBound {
		w = append(w, fmt.Sprintf("%s on its search bound", b))
	}
	w = append(append(w, f.Warnings...), opt.Warnings...)
	opt.Warnings = w
	return plotPF(f.Data, f.PF, f.Threshold, f.Criterion, ci, level, "CI", opt)
}

// Plot draws the data, the function at the posterior's medians, the
// threshold with its credible interval, and the warnings.
func (p *Posterior) Plot(opt PlotOptions) (*plot.Plot, error) {
	opt.Warnings = append(slices.Clone(p.Warnings), opt.Warnings...)
	ci := &Interval{Lo: p.Threshold.Lo, Hi: p.Threshold.Hi}
	return plotPF(p.Data, p.PF, p.Threshold.Median, p.Options.Criterion, ci, p.Options.Level, "credible interval", opt)
}

// plotPF draws data, a function, its threshold at criterion c and, when
// ci is set, the threshold's interval of probability level.
func plotPF(data []Point, pf PF, threshold, c float64, ci *Interval, level float64, ciName string, opt PlotOptions) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = opt.Title
	p.X.Label.Text = opt.XLabel
	if p.X.Label.Text == "" {
		p.X.Label.Text = "stimulus"
	}
	p.Y.Label.Text = "proportion positive"
	p.Y.Min, p.Y.Max = 0, 1

	lo, hi := math.Inf(1), math.Inf(-1)
	maxN := 0
	pts := make(plotter.XYs, len(data))
	for i, d := range data {
		pts[i] = plotter.XY{X: d.X, Y: float64(d.K) / float64(d.N)}
		lo, hi = math.Min(lo, d.X), math.Max(hi, d.X)
		maxN = max(maxN, d.N)
	}
	if ci != nil {
		lo, hi = math.Min(lo, ci.Lo), math.Max(hi, ci.Hi)
	}
	if opt.LogX {
		if lo <= 0 {
			return nil, fmt.Errorf("psych: plot: log axis with stimulus %g", lo)
		}
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		r := math.Pow(hi/lo, 0.05)
		p.X.Min, p.X.Max = lo/r, hi*r
	} else {
		pad := 0.05 * (hi - lo)
		p.X.Min, p.X.Max = lo-pad, hi+pad
	}

	curve := plotter.NewFunction(pf.Prob)
	curve.Samples = 400
	curve.Color = color.RGBA{R: 31, G: 119, B: 180, A: 255}
	curve.Width = vg.Points(1.5)
	if opt.LogX {
		// Sample evenly in log x so the curve is smooth on a log axis.
		xs := make(plotter.XYs, 400)
		for i := range xs {
			x := p.X.Min * math.Pow(p.X.Max/p.X.Min, float64(i)/399)
			xs[i] = plotter.XY{X: x, Y: pf.Prob(x)}
		}
		line, err := plotter.NewLine(xs)
		if err != nil {
			return nil, fmt.Errorf("psych: plot: %w", err)
		}
		line.LineStyle = curve.LineStyle
		p.Add(line)
		p.Legend.Add(fmt.Sprintf("%s fit", pf.Form), line)
	} else {
		p.Add(curve)
		p.Legend.Add(fmt.Sprintf("%s fit", pf.Form), curve)
	}

	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, fmt.Errorf("psych: plot: %w", err)
	}
	sc.GlyphStyleFunc = func(i int) draw.GlyphStyle {
		r := vg.Points(1.5 + 3*math.Sqrt(float64(data[i].N)/float64(maxN)))
		return draw.GlyphStyle{Color: color.Black, Radius: r, Shape: draw.CircleGlyph{}}
	}
	p.Add(sc)
	p.Legend.Add("data", sc)

	yt := pf.Prob(threshold)
	mark, err := plotter.NewLine(plotter.XYs{{X: threshold, Y: 0}, {X: threshold, Y: yt}})
	if err != nil {
		return nil, fmt.Errorf("psych: plot: %w", err)
	}
	mark.Color = color.RGBA{R: 214, G: 39, B: 40, A: 255}
	mark.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(mark)
	p.Legend.Add(fmt.Sprintf("threshold %.4g (F=%.2g)", threshold, c), mark)
	if ci != nil {
		bar, err := plotter.NewXErrorBars(ciBar{x: threshold, y: yt, lo: threshold - ci.Lo, hi: ci.Hi - threshold})
		if err != nil {
			return nil, fmt.Errorf("psych: plot: %w", err)
		}
		bar.Color = mark.Color
		bar.Width = vg.Points(1.5)
		p.Add(bar)
		p.Legend.Add(fmt.Sprintf("%.0f%% %s [%.4g, %.4g]", 100*level, ciName, ci.Lo, ci.Hi), legendLine{bar.LineStyle})
	}
	if len(opt.Warnings) > 0 {
		p.Add(warningText(opt.Warnings))
	}
	p.Legend.Top = false
	p.Legend.Left = false
	p.Legend.XOffs = -vg.Points(5)
	p.Legend.YOffs = vg.Points(5)
	p.Add(plotter.NewGrid())
	return p, nil
}

// warningText draws warnings in red at the top left of the plot's data
// area, wrapped to its width; it takes no room from the data.
type warningText []string

func (w warningText) Plot(c draw.Canvas, _ *plot.Plot) {
	sty := draw.TextStyle{Color: color.RGBA{R: 200, A: 255}, Font: plot.DefaultFont, Handler: plot.DefaultTextHandler,
		XAlign: draw.XLeft, YAlign: draw.YTop}
	sty.Font.Size = vg.Points(7)
	y := c.Max.Y - vg.Points(4)
	width := c.Max.X - c.Min.X - vg.Points(8)
	for _, msg := range w {
		for _, line := range wrapText("WARNING: "+msg, sty, width) {
			c.FillText(sty, vg.Point{X: c.Min.X + vg.Points(4), Y: y}, line)
			y -= sty.Height(line) * 1.15
		}
	}
}

// wrapText breaks s into lines no wider than width in style sty.
func wrapText(s string, sty draw.TextStyle, width vg.Length) []string {
	var lines []string
	cur := ""
	for _, word := range strings.Fields(s) {
		next := word
		if cur != "" {
			next = cur + " " + word
		}
		if cur != "" && sty.Width(next) > width {
			lines = append(lines, cur)
			next = word
		}
		cur = next
	}
	return append(lines, cur)
}

// legendLine draws a legend entry for a plotter without a thumbnail.
type legendLine struct{ draw.LineStyle }

func (l legendLine) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(l.LineStyle, c.Min.X, y, c.Max.X, y)
}

// ciBar is one horizontal error bar.
type ciBar struct{ x, y, lo, hi float64 }

func (c ciBar) Len() int                       { return 1 }
func (c ciBar) XY(int) (float64, float64)      { return c.x, c.y }
func (c ciBar) XError(int) (low, high float64) { return c.lo, c.hi }

// Plot size used by WritePlot.
const (
	PlotWidth  = 12 * vg.Centimeter
	PlotHeight = 9 * vg.Centimeter
)

// WritePlot writes p to w as "png" or "svg".
func WritePlot(w io.Writer, p *plot.Plot, format string) error {
	if format != "png" && format != "svg" {
		return fmt.Errorf("psych: plot format %q: want png or svg", format)
	}
	wt, err := p.WriterTo(PlotWidth, PlotHeight, format)
	if err != nil {
		return fmt.Errorf("psych: plot: %w", err)
	}
	if _, err := wt.WriteTo(w); err != nil {
		return fmt.Errorf("psych: plot: %w", err)
	}
	return nil
}

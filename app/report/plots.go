package report

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"image"
	"image/color"
	"math"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// figure is one figure of the page: its PNG inline (the page needs no
// other file), and the names of the PNG and SVG files written beside it.
type figure struct {
	Title   string
	Caption string
	PNG     template.URL
	PNGFile string
	SVGFile string
}

// render draws p at w x h into name.png and name.svg in dir and returns
// the figure.
func render(p *plot.Plot, w, h vg.Length, dir, name, title, caption string) (figure, error) {
	return renderTiles([][]*plot.Plot{{p}}, []float64{1}, w, h, dir, name, title, caption)
}

// renderTiles draws plots side by side in rows, each column taking its
// share of the width, into name.png and name.svg.
func renderTiles(rows [][]*plot.Plot, widths []float64, w, h vg.Length, dir, name, title, caption string) (figure, error) {
	f := figure{Title: title, Caption: caption, PNGFile: name + ".png", SVGFile: name + ".svg"}
	for _, format := range []string{"png", "svg"} {
		c, err := draw.NewFormattedCanvas(w, h, format)
		if err != nil {
			return f, fmt.Errorf("report: %s: %w", name, err)
		}
		dc := draw.New(c)
		rowH := h / vg.Length(len(rows))
		for i, row := range rows {
			x := vg.Length(0)
			for j, p := range row {
				cw := vg.Length(widths[j]) * w
				top := h - vg.Length(i)*rowH
				p.Draw(draw.Crop(dc, x, x+cw-w, top-rowH, top-h))
				x += cw
			}
		}
		var b bytes.Buffer
		if _, err := c.WriteTo(&b); err != nil {
			return f, fmt.Errorf("report: %s: %w", name, err)
		}
		if err := writeFile(filepath.Join(dir, name+"."+format), b.Bytes()); err != nil {
			return f, err
		}
		if format == "png" {
			f.PNG = template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes()))
		}
	}
	return f, nil
}

// addGrid lays panels out perRow to a row (the last row filled with
// empty panels), each row rowH high, renders them as renderTiles does
// and adds the figure to the page.
func (pg *page) addGrid(panels []*plot.Plot, perRow int, rowH vg.Length, dir, name, title, caption string) error {
	var rows [][]*plot.Plot
	for i := 0; i < len(panels); i += perRow {
		row := panels[i:min(len(panels), i+perRow)]
		for len(row) < perRow {
			row = append(row, emptyPlot())
		}
		rows = append(rows, row)
	}
	widths := make([]float64, perRow)
	for i := range widths {
		widths[i] = 1 / float64(perRow)
	}
	fig, err := renderTiles(rows, widths, wideW, vg.Length(len(rows))*rowH, dir, name, title, caption)
	if err != nil {
		return err
	}
	pg.Figures = append(pg.Figures, fig)
	return nil
}

// rgba is a translucent colour (not premultiplied).
func rgba(r, g, b, a uint8) color.NRGBA { return color.NRGBA{R: r, G: g, B: b, A: a} }

// logTicks marks a logarithmic axis at 1, 2 and 5 times each power of
// ten, labelled where they do not crowd (plot.LogTicks labels only the
// powers of ten, often a single one over a staircase's range).
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) {
		return nil
	}
	var ticks []plot.Tick
	decades := math.Log10(hi / lo)
	for e := math.Floor(math.Log10(lo)); math.Pow(10, e) <= hi; e++ {
		for _, m := range []float64{1, 2, 3, 4, 5, 6, 7, 8, 9} {
			v := m * math.Pow(10, e)
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || decades < 2 && (m == 2 || m == 5) || decades < 0.7 {
				t.Label = strconv.FormatFloat(v, 'g', 3, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// Figure sizes: a full-width time series and a small panel.
const (
	wideW  = 24 * vg.Centimeter
	wideH  = 8 * vg.Centimeter
	panelW = 12 * vg.Centimeter
	panelH = 9 * vg.Centimeter
)

var (
	blue   = color.RGBA{R: 31, G: 119, B: 180, A: 255}
	orange = color.RGBA{R: 255, G: 127, B: 14, A: 255}
	red    = color.RGBA{R: 214, G: 39, B: 40, A: 255}
	grey   = color.RGBA{R: 120, G: 120, B: 120, A: 255}
	green  = color.RGBA{R: 44, G: 160, B: 44, A: 255}
)

// envelope reduces a time series to at most about maxPts points for
// drawing, keeping each bucket's smallest and largest value in time
// order, so that no peak disappears. NaN points are dropped.
func envelope(t, v []float64, maxPts int) plotter.XYs {
	n := min(len(t), len(v))
	out := make(plotter.XYs, 0, min(n, maxPts+2))
	if n <= maxPts {
		for i := range n {
			if finite(t[i]) && finite(v[i]) {
				out = append(out, plotter.XY{X: t[i], Y: v[i]})
			}
		}
		return out
	}
	per := int(math.Ceil(float64(n) / float64(maxPts/2)))
	for s := 0; s < n; s += per {
		lo, hi := -1, -1
		for i := s; i < min(n, s+per); i++ {
			if !finite(t[i]) || !finite(v[i]) {
				continue
			}
			if lo < 0 || v[i] < v[lo] {
				lo = i
			}
			if hi < 0 || v[i] > v[hi] {
				hi = i
			}
		}
		if lo < 0 {
			continue
		}
		a, b := min(lo, hi), max(lo, hi)
		out = append(out, plotter.XY{X: t[a], Y: v[a]})
		if b != a {
			out = append(out, plotter.XY{X: t[b], Y: v[b]})
		}
	}
	return out
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// intervals returns the [start, end) times over which on holds, from a
// sampled flag (t[i], on[i]); a run ends at the next sample's time.
func intervals(t []float64, on func(i int) bool) [][2]float64 {
	var out [][2]float64
	start := math.NaN()
	for i := range t {
		if on(i) {
			if math.IsNaN(start) {
				start = t[i]
			}
			continue
		}
		if !math.IsNaN(start) {
			out = append(out, [2]float64{start, t[i]})
			start = math.NaN()
		}
	}
	if !math.IsNaN(start) && len(t) > 0 {
		out = append(out, [2]float64{start, t[len(t)-1]})
	}
	return out
}

// shade adds translucent bands over [a, b) from y0 to y1 in colour c, and
// a legend entry when label is set and there is a band.
func shade(p *plot.Plot, bands [][2]float64, y0, y1 float64, c color.Color, label string) error {
	for i, b := range bands {
		poly, err := plotter.NewPolygon(plotter.XYs{{X: b[0], Y: y0}, {X: b[1], Y: y0}, {X: b[1], Y: y1}, {X: b[0], Y: y1}})
		if err != nil {
			return err
		}
		poly.Color = c
		poly.LineStyle.Width = 0
		p.Add(poly)
		if i == 0 && label != "" {
			p.Legend.Add(label, poly)
		}
	}
	return nil
}

// grid is a heat map's values: columns are time, rows are pins.
type grid struct {
	t    []float64
	z    [][]float64 // z[row][col]
	lo   float64
	hi   float64
	rows int
}

func (g *grid) Dims() (c, r int)   { return len(g.t), g.rows }
func (g *grid) Z(c, r int) float64 { return g.z[r][c] }
func (g *grid) X(c int) float64    { return g.t[c] }
func (g *grid) Y(r int) float64    { return float64(r) }
func (g *grid) Min() float64       { return g.lo }
func (g *grid) Max() float64       { return g.hi }

// cells draws a grid as a heat map of sharp cells: an image with each
// cell replicated to several pixels, so that the drawing's scaling blurs
// only the cells' edges (gonum's rasterised heat map blurs whole cells,
// its vector one shows seams between them).
type cells struct {
	g   *grid
	pal []color.Color
	lo  float64
	hi  float64
}

func (h *cells) Plot(c draw.Canvas, plt *plot.Plot) {
	cols, rows := h.g.Dims()
	if cols == 0 || rows == 0 {
		return
	}
	kx, ky := max(1, 800/cols), max(1, 320/rows)
	img := image.NewRGBA(image.Rect(0, 0, cols*kx, rows*ky))
	nan := color.RGBA{R: 128, G: 128, B: 128, A: 255}
	for r := range rows {
		for col := range cols {
			v := h.g.Z(col, r)
			clr := nan
			if finite(v) {
				f := (v - h.lo) / (h.hi - h.lo)
				i := int(math.Round(math.Max(0, math.Min(1, f)) * float64(len(h.pal)-1)))
				clr = color.RGBAModel.Convert(h.pal[i]).(color.RGBA)
			}
			// Row 0 at the bottom, as the axis counts.
			for y := (rows - 1 - r) * ky; y < (rows-r)*ky; y++ {
				row := img.Pix[y*img.Stride+col*kx*4 : y*img.Stride+(col+1)*kx*4]
				for x := 0; x < len(row); x += 4 {
					row[x], row[x+1], row[x+2], row[x+3] = clr.R, clr.G, clr.B, clr.A
				}
			}
		}
	}
	x0, x1, y0, y1 := h.DataRange()
	trX, trY := plt.Transforms(&c)
	rect := vg.Rectangle{Min: vg.Point{X: trX(x0), Y: trY(y0)}, Max: vg.Point{X: trX(x1), Y: trY(y1)}}
	c.DrawImage(rect, img)
}

// DataRange spans the cells: half a step beyond the first and last
// column's time, and rows -0.5 to rows-0.5.
func (h *cells) DataRange() (xmin, xmax, ymin, ymax float64) {
	cols, rows := h.g.Dims()
	t := h.g.t
	step := 0.0
	if cols > 1 {
		step = (t[cols-1] - t[0]) / float64(cols-1)
	}
	return t[0] - step/2, t[cols-1] + step/2, -0.5, float64(rows) - 0.5
}

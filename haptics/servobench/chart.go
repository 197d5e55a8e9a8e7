package servobench

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// AskedRange is a stiffness range something asks the device to render,
// drawn over the Z-width chart.
type AskedRange struct {
	Label  string
	MaxNpm float64
}

// ZWidthChart draws the Z-width (wall damping B across, stiffness K up, on
// a log scale): the largest stable K per B as the boundary, and the
// stiffest K each of asked asks for as a horizontal line. It writes path
// with its extension (.png or .svg) and the other format beside it.
func ZWidthChart(z ZWidthResult, asked []AskedRange, path string) error {
	p := plot.New()
	p.Title.Text = "Z-width: stable walls of the device and controller at 1 kHz"
	p.X.Label.Text = "wall damping B [N·s/m]"
	p.Y.Label.Text = "wall stiffness K [N/m]"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Add(plotter.NewGrid())
	var pts plotter.XYs
	bMax := 0.0
	for _, pt := range z.Points {
		bMax = math.Max(bMax, pt.BNspm)
		if pt.KMax > 0 {
			pts = append(pts, plotter.XY{X: pt.BNspm, Y: pt.KMax})
		}
	}
	if len(pts) == 0 {
		return fmt.Errorf("servobench: no stable wall to draw")
	}
	line, err := plotter.NewLine(pts)
	if err != nil {
		return err
	}
	line.Width = vg.Points(2)
	line.Color = color.RGBA{B: 200, A: 255}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	sc.Color = line.Color
	p.Add(line, sc)
	p.Legend.Add("stable boundary (largest stable K)", line)
	colors := []color.RGBA{{R: 200, A: 255}, {G: 140, A: 255}, {R: 160, G: 100, A: 255}}
	for i, a := range asked {
		if !(a.MaxNpm > 0) {
			continue
		}
		l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: a.MaxNpm}, {X: bMax, Y: a.MaxNpm}})
		if err != nil {
			return err
		}
		l.Color = colors[i%len(colors)]
		l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("%s: up to %.0f N/m", a.Label, a.MaxNpm), l)
	}
	top := 0.0
	for _, pt := range pts {
		top = math.Max(top, pt.Y)
	}
	for _, a := range asked {
		top = math.Max(top, a.MaxNpm)
	}
	p.Y.Min, p.Y.Max = 50, 4*top
	p.X.Min = 0
	p.Legend.Top = true
	ext := strings.ToLower(filepath.Ext(path))
	base := strings.TrimSuffix(path, filepath.Ext(path))
	if ext != ".png" && ext != ".svg" {
		return fmt.Errorf("servobench: chart %s: want .png or .svg", path)
	}
	for _, e := range []string{".png", ".svg"} {
		if err := p.Save(7*vg.Inch, 4.5*vg.Inch, base+e); err != nil {
			return fmt.Errorf("servobench: chart: %w", err)
		}
	}
	return nil
}

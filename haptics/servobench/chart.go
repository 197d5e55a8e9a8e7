package servobench

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strings"

	"github.com/haptex/haptex/internal/safefile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// AskedRange is the stiffness something asks the device to render, drawn
// over the Z-width chart.
type AskedRange struct {
	Label  string  `json:"label"`
	MaxNpm float64 `json:"max_npm"` // the stiffest asked for [N/m]
}

//go:embed random_pinch_stiffness.json
var randomPinchJSON []byte

// RandomPinchStiffness is the stiffest local model each of the 1,000
// randomised pinch-and-pull trajectories of package sim's tests asks for
// (the pads moved kinematically, pressing up to 5 mm past the fabric at
// up to 1 m/s), as `go test ./sim -run RandomTrajectories
// -sim.trajectories=1000 -sim.stiffness=FILE` writes it.
type RandomPinchStiffness struct {
	Trajectories int       `json:"trajectories"`
	Side         int       `json:"side"`
	DtMs         float64   `json:"dt_ms"`
	MaxNpm       []float64 `json:"max_npm"`
	P50Npm       float64   `json:"p50_npm"`
	P99Npm       float64   `json:"p99_npm"`
	LargestNpm   float64   `json:"largest_npm"`
	Commit       string    `json:"commit"` // the commit the survey ran on
}

// RandomPinches returns the stiffness the random pinch trajectories ask
// for (random_pinch_stiffness.json, embedded).
func RandomPinches() (RandomPinchStiffness, error) {
	var r RandomPinchStiffness
	if err := json.Unmarshal(randomPinchJSON, &r); err != nil {
		return r, fmt.Errorf("servobench: random_pinch_stiffness.json: %w", err)
	}
	if r.Trajectories == 0 || len(r.MaxNpm) != r.Trajectories {
		return r, fmt.Errorf("servobench: random_pinch_stiffness.json: %d trajectories, %d values", r.Trajectories, len(r.MaxNpm))
	}
	return r, nil
}

// ZWidthChart draws the Z-width (wall damping B across, stiffness K up, on
// a log scale): the largest stable K per B as the boundary, the servo's
// stiffness limit, and the stiffest K each of z.Asked asks for as a
// horizontal line. It writes path with its extension (.png or .svg) and
// the other format beside it.
func ZWidthChart(z ZWidthResult, path string) error {
	asked := z.Asked
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
	if z.LimitNpm > 0 {
		l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: z.LimitNpm}, {X: bMax, Y: z.LimitNpm}})
		if err != nil {
			return err
		}
		l.Width = vg.Points(1.5)
		l.Color = color.RGBA{R: 90, G: 90, B: 90, A: 255}
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("rendering limit (model.max_stiffness_npm): %.0f N/m", z.LimitNpm), l)
	}
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
	// Both files are replaced whole, never written through a link
	// (safefile.WriteFile).
	for _, e := range []string{".png", ".svg"} {
		w, err := p.WriterTo(7*vg.Inch, 4.5*vg.Inch, e[1:])
		if err != nil {
			return fmt.Errorf("servobench: chart: %w", err)
		}
		var b bytes.Buffer
		if _, err := w.WriteTo(&b); err != nil {
			return fmt.Errorf("servobench: chart: %w", err)
		}
		if err := safefile.WriteFile(base+e, b.Bytes()); err != nil {
			return fmt.Errorf("servobench: chart: %w", err)
		}
	}
	return nil
}

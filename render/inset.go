package render

import (
	"image"
	"math"

	"github.com/haptex/haptex/sim"
)

// The tactile insets: per finger, two 6 x 4 grids (A40 left, A320 right)
// in the bottom-right corner, pin row 0 (distal) at the top, column 0 on
// the left, as if looking at the pulp of the finger through the array;
// above them a title and one colour bar per band, with its amplitudes.

const numBands = 2 // A40, A320

var bandNames = [numBands]string{"40 Hz", "320 Hz"}

// uiScale is the integer pixel scale of text and insets: 1 below 1200 px
// of framebuffer height, 2 below 1920, and so on.
func uiScale(height int) int { return max(1, (height+240)/720) }

// insetLayout places the inset grids for a width x height framebuffer.
type insetLayout struct {
	ui, cell int
	grids    [sim.NumFingers][numBands]image.Rectangle
	panel    image.Rectangle // background behind all grids and labels
	title    image.Point     // top-left of the title line
	scales   [numBands]image.Point
	barW     int // width of a colour bar [px]
}

func layoutInsets(width, height int) insetLayout {
	ui := uiScale(height)
	cell := 13 * ui
	gw, gh := PinCols*cell, PinRows*cell
	gap, groupGap, margin := 8*ui, 18*ui, 12*ui
	lineH := 15 * ui
	groupW := numBands*gw + gap
	totalW := sim.NumFingers*groupW + (sim.NumFingers-1)*groupGap
	x0 := width - margin - totalW
	gridTop := height - margin - lineH - gh // band labels below the grids
	var l insetLayout
	l.ui, l.cell = ui, cell
	for f := 0; f < sim.NumFingers; f++ {
		for b := 0; b < numBands; b++ {
			x := x0 + f*(groupW+groupGap) + b*(gw+gap)
			l.grids[f][b] = image.Rect(x, gridTop, x+gw, gridTop+gh)
		}
	}
	pad := 6 * ui
	l.title = image.Pt(x0, gridTop-4*lineH)
	for b := range numBands {
		l.scales[b] = image.Pt(x0, gridTop-(3-b)*lineH)
	}
	l.barW = gw + gw/2
	l.panel = image.Rect(x0-pad, gridTop-4*lineH-pad, x0+totalW+pad, height-margin+pad)
	return l
}

// pinRect is the pixel rectangle of pin (row, col) in grid (finger, band),
// less a one-pixel-per-ui border between cells.
func (l *insetLayout) pinRect(finger, band, row, col int) image.Rectangle {
	g := l.grids[finger][band]
	x, y := g.Min.X+col*l.cell, g.Min.Y+row*l.cell
	return image.Rect(x+l.ui, y+l.ui, x+l.cell-l.ui, y+l.cell-l.ui)
}

// pinColour maps an amplitude a [µm] to the inset colour (sRGB): dark grey
// for zero, a dark-to-bright ramp over rangeDB up to full scale, magenta
// for a value that is not a number (so a fault upstream shows).
func pinColour(a, fullScale, rangeDB float64) [3]float32 {
	switch {
	case math.IsNaN(a):
		return [3]float32{1, 0, 1}
	case a <= 0:
		return [3]float32{0.05, 0.05, 0.06}
	}
	t := 1 + 20*math.Log10(a/fullScale)/rangeDB
	return ramp(math.Max(0, math.Min(1, t)))
}

// rampStops is a perceptually ordered dark-purple → orange → pale-yellow
// ramp whose luminance rises monotonically, so brighter always means more.
var rampStops = [...][3]float32{
	{0.13, 0.06, 0.28},
	{0.42, 0.08, 0.46},
	{0.80, 0.20, 0.35},
	{0.98, 0.55, 0.10},
	{0.99, 0.95, 0.45},
}

func ramp(t float64) [3]float32 {
	x := t * float64(len(rampStops)-1)
	i := min(int(x), len(rampStops)-2)
	f := float32(x - float64(i))
	a, b := rampStops[i], rampStops[i+1]
	return [3]float32{a[0] + f*(b[0]-a[0]), a[1] + f*(b[1]-a[1]), a[2] + f*(b[2]-a[2])}
}

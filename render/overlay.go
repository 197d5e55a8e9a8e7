package render

import (
	"image"
	"math"

	"github.com/haptex/haptex/sim"
)

// Lines of renderer.lines kept for the insets and the help; the status
// text uses the ones before lineLabel.
const (
	lineLabel  = 13
	lineHeader = 14
	lineHelp   = 15
)

// overlay prints the status text in the top-left corner: fabric, loop
// rates and lateness, the view's own frame rate, forces, the mouse pair,
// and why the cloth is not shown when a snapshot was refused.
func (r *renderer) overlay(f *Frame, width, height int) {
	ui := uiScale(height)
	n := 0
	next := func() *line {
		l := &r.lines[n]
		*l = (*l)[:0]
		n++
		return l
	}
	l := next()
	*l = l.str("haptex  ")
	if f.Overlay.Fabric != "" {
		*l = l.str(f.Overlay.Fabric)
	} else {
		*l = l.str("(no fabric)")
	}
	for i := range f.Overlay.Loops {
		s := &f.Overlay.Loops[i]
		if s.Name == "" {
			continue
		}
		l := next()
		*l = l.str(s.Name)
		*l = l.fill(8).str(" ").num(s.RateHz, 0, 6).str(" Hz  p99 late ").dur(s.LatenessP99)
	}
	if r.fps > 0 {
		l := next()
		*l = l.str("render  ").num(r.fps, 0, 7).str(" fps")
	}
	for i := 0; i < sim.NumFingers; i++ {
		fi := &f.Fingers.Fingers[i]
		l := next()
		*l = l.str(sim.FingerName(i))
		*l = l.fill(6).str("  ")
		if !fi.Valid {
			*l = l.str("--")
			continue
		}
		*l = l.str("|F| ").num(norm(fi.Force), 3, 6).str(" N")
		if c := &f.Sim.Contact[i]; c.InContact {
			*l = l.str("  contact ").num(c.NormalForce, 2, 5).str(" N")
		}
	}
	r.pinchLine(next(), f)
	if p := r.pinch; p != nil {
		l := next()
		*l = l.str("mouse pair ")
		if p.Closed {
			*l = l.str("closed")
		} else {
			*l = l.str("open  ")
		}
		*l = l.str("  depth ").num(1000*p.Point[2], 1, 6).str(" mm")
	}
	warn := -1
	if r.cloth.err != "" {
		warn = n
		l := next()
		*l = l.str(r.cloth.err)
	}

	margin, lineH := 10*ui, 15*ui
	w := 0
	for i := 0; i < n; i++ {
		w = max(w, textWidth(len(r.lines[i]), ui))
	}
	r.batch.rect(image.Rect(margin-4*ui, margin-4*ui, margin+w+4*ui, margin+n*lineH+2*ui), panelColour)
	for i := 0; i < n; i++ {
		c := textColour
		if i == warn {
			c = warnColour
		}
		r.batch.text(margin, margin+i*lineH, ui, r.lines[i], c)
	}
	if r.help {
		help := "left-drag: move pinch   wheel or [ ]: depth   space: close/open   right-drag or arrows: orbit   ctrl+wheel or + -: zoom   F: stand/hand   G: grid   R: reset"
		if r.pinch == nil {
			help = "right-drag or arrows: orbit   wheel or + -: zoom   F: stand/hand   G: grid   R: reset"
		}
		l := &r.lines[lineHelp]
		*l = (*l)[:0].str(help)
		y := height - margin - lineH
		r.batch.rect(image.Rect(margin-4*ui, y-4*ui, margin+textWidth(len(help), ui)+4*ui, y+lineH), panelColour)
		r.batch.text(margin, y, ui, *l, textColour)
	}
}

// scaleDecimals is how many decimals a colour-bar label needs.
func scaleDecimals(v float64) int {
	switch {
	case v >= 10:
		return 0
	case v >= 1:
		return 1
	}
	return 2
}

// pinchLine says what the drawn fingers do: whether both hold the cloth
// (both in contact), with how much force the weaker squeezes it, and
// how far apart the pad surfaces are. It reads the frame, so it is true
// whatever moves the fingers: the mouse, a script or devices.
func (r *renderer) pinchLine(l *line, f *Frame) {
	*l = l.str("pinch ")
	t, i := &f.Fingers.Fingers[sim.Thumb], &f.Fingers.Fingers[sim.IndexFinger]
	if !t.Valid || !i.Valid || !finite3(t.Pos) || !finite3(i.Pos) {
		*l = l.str("--")
		return
	}
	ct, ci := &f.Sim.Contact[sim.Thumb], &f.Sim.Contact[sim.IndexFinger]
	if ct.InContact && ci.InContact {
		*l = l.str("held    squeeze ").num(math.Min(ct.NormalForce, ci.NormalForce), 2, 5).str(" N")
	} else {
		*l = l.str("open  ")
	}
	*l = l.str("  pad gap ").num(1000*(norm(sub(t.Pos, i.Pos))-2*r.cfg.PadRadius), 1, 5).str(" mm")
}

// insets draws the two fingers' pin arrays: A40 and A320 of every pin as
// colour on the ramp of pinColour, with a header naming the scale.
func (r *renderer) insets(f *Frame, width, height int) {
	lay := layoutInsets(width, height)
	ui := lay.ui
	lineH := 15 * ui
	r.batch.rect(lay.panel, panelColour)
	hdr := &r.lines[lineHeader]
	*hdr = (*hdr)[:0].str("pins: amplitude, um peak, log scale")
	r.batch.text(lay.title.X, lay.title.Y, ui, *hdr, textColour)
	// One colour bar per band, from InsetRangeDB below full scale (the
	// arrays' maximum) to full scale; zero is the darker grey.
	for b := 0; b < numBands; b++ {
		full := r.cfg.A40FullScaleUm
		if b == 1 {
			full = r.cfg.A320FullScaleUm
		}
		low := full * math.Pow(10, -r.cfg.InsetRangeDB/20)
		at := lay.scales[b]
		l := &r.lines[lineHeader]
		*l = (*l)[:0].str(bandNames[b]).fill(7)
		x := r.batch.text(at.X, at.Y, ui, *l, textColour)
		const steps = 24
		h := 11 * ui
		for s := 0; s < steps; s++ {
			c := ramp(float64(s) / (steps - 1))
			x0 := x + s*lay.barW/steps
			r.batch.rect(image.Rect(x0, at.Y+ui, x+(s+1)*lay.barW/steps, at.Y+ui+h), [4]float32{c[0], c[1], c[2], 1})
		}
		*l = (*l)[:0].str(" ").num(low, scaleDecimals(low), 0).str(" to ").num(full, scaleDecimals(full), 0).str(" um")
		r.batch.text(x+lay.barW, at.Y, ui, *l, textColour)
	}
	for fi := 0; fi < sim.NumFingers; fi++ {
		name := &r.lines[lineLabel]
		*name = (*name)[:0].str(sim.FingerName(fi))
		g := lay.grids[fi][0]
		r.batch.text(g.Min.X, g.Min.Y-lineH, ui, *name, textColour)
		for b := 0; b < numBands; b++ {
			amps, full := &f.A40[fi], r.cfg.A40FullScaleUm
			if b == 1 {
				amps, full = &f.A320[fi], r.cfg.A320FullScaleUm
			}
			grid := lay.grids[fi][b]
			r.batch.rect(grid, [4]float32{0.25, 0.25, 0.28, 1})
			for pin := 0; pin < PinsPerArray; pin++ {
				c := pinColour(amps[pin], full, r.cfg.InsetRangeDB)
				r.batch.rect(lay.pinRect(fi, b, pin/PinCols, pin%PinCols), [4]float32{c[0], c[1], c[2], 1})
			}
			band := &r.lines[lineLabel]
			*band = (*band)[:0].str(bandNames[b])
			r.batch.text(grid.Min.X, grid.Max.Y+3*ui, ui, *band, textColour)
		}
	}
}

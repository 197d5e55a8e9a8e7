package render

import (
	"fmt"
	"image/color"
	"math"
	"strings"
)

// Config sets up a Window or an Offscreen. Its zero value is the showcase
// at 1280 x 720; every zero field takes the default named in its comment.
type Config struct {
	Width, Height int     // framebuffer size [px]; 0 → 1280 x 720
	Title         string  // window title; "" → "haptex"
	Samples       int     // multisample anti-aliasing samples per pixel; 1 → off; 0 → 4 on a GPU, 1 on a software rasteriser (there 4x costs ~3x the frame time)
	MaxFPS        float64 // the window's frame-rate cap [1/s], whether or not vsync paces it; 0 → 60
	Camera        Camera  // the initial camera; zero → DefaultCamera(), the finger pair
	Weave         Weave   // the woven look of the cloth
	PadRadius     float64 // fingertip pad sphere radius [m]; 0 → 0.008 (the showcase scene, sim.DefaultConfig)
	RodRadius     float64 // stand rod radius [m]; 0 → 0.005 (sim.DefaultConfig)
	RodY          float64 // height of the rod axis [m]; 0 → 0.30 (sim.DefaultConfig)
	ForceScale    float64 // force arrow length per newton [m/N]; 0 → 0.03

	// NoFollow keeps the camera where it is put. By default windows and
	// snapshots aim it at the finger pair wherever the pads are (the view
	// sets NoFollow when the mouse moves them: a camera that followed the
	// dragged pair would drag it further).
	NoFollow bool
	// Grid is the spacing of the marking grid drawn on the cloth's rest
	// coordinates [m] (0 → 10 mm): its lines bend and spread with the
	// cloth, so a fold or a stretch shows. NoGrid hides it (G toggles it
	// in the window).
	Grid   float64
	NoGrid bool
	// NoMouse says that the mouse does not move the fingers (a script or
	// devices do): the HUD then shows no mouse pair, and dragging does
	// nothing to it.
	NoMouse bool

	// NormalPriority renders at the process's normal CPU priority. By
	// default the render thread runs at nice +10 on Linux, and so do the
	// rasteriser threads a software GL (llvmpipe) starts with the process's
	// first context, so the view yields the CPU to the haptics, simulation
	// and tactile loops.
	NormalPriority bool

	// The tactile insets colour each pin on a logarithmic scale, drawn
	// with its colour bar: full colour at the full-scale amplitude (the
	// arrays' maximum: devices.TactileSpec), dark at InsetRangeDB below it.
	A40FullScaleUm  float64 // [µm peak]; 0 → 200, the simulated array's
	A320FullScaleUm float64 // [µm peak]; 0 → 30, the simulated array's
	InsetRangeDB    float64 // [dB]; 0 → 40
}

// Weave describes the fabric's construction for the procedural woven
// look. Warp yarns run along v (the cloth's height), weft yarns along u.
// A fabric's Appearance (calib/kes) supplies its colours, spacings and
// pattern name (ParsePattern); the zero value is an undyed plain weave with
// 0.5 mm yarn spacing.
type Weave struct {
	Warp, Weft  color.NRGBA // yarn colours (sRGB); a zero alpha takes the default
	WarpSpacing float64     // distance between neighbouring warp yarns, along u [m]; 0 → 0.5 mm
	WeftSpacing float64     // distance between neighbouring weft yarns, along v [m]; 0 → 0.5 mm
	Pattern     Pattern
	// Magnify draws the yarns Magnify times coarser than they are; 0 or 1
	// draws them true to scale (they blend into their mean colour as they
	// shrink below a pixel, without moiré).
	Magnify float64
}

// Pattern is a weave's interlacing: which yarn lies on top at each crossing.
type Pattern int

const (
	Plain Pattern = iota // 1/1: warp and weft alternate at every crossing
	Twill                // 2/2: the crossings shift by one each pick, a diagonal rib
	Satin                // 5-end warp-faced satin: warp floats over four picks
)

var patternNames = [...]string{Plain: "plain", Twill: "twill", Satin: "satin"}

// ParsePattern returns the Pattern named s ("plain", "twill", "satin";
// case does not matter).
func ParsePattern(s string) (Pattern, error) {
	for p, name := range patternNames {
		if strings.EqualFold(s, name) {
			return Pattern(p), nil
		}
	}
	return 0, fmt.Errorf("render: unknown weave pattern %q (want plain, twill or satin)", s)
}

var (
	defaultWarp = color.NRGBA{R: 214, G: 204, B: 182, A: 255}
	defaultWeft = color.NRGBA{R: 190, G: 178, B: 154, A: 255}
)

func pos(v, def float64) float64 {
	if v > 0 && !math.IsInf(v, 0) {
		return v
	}
	return def
}

// withDefaults returns c with every zero (or invalid) field at its default.
func (c Config) withDefaults() Config {
	if c.Width <= 0 || c.Height <= 0 {
		c.Width, c.Height = 1280, 720
	}
	if c.Title == "" {
		c.Title = "haptex"
	}
	c.Samples = max(0, c.Samples)
	c.MaxFPS = pos(c.MaxFPS, 60)
	if c.Camera == (Camera{}) {
		c.Camera = DefaultCamera()
	}
	c.Camera = c.Camera.sane()
	w := &c.Weave
	if w.Warp.A == 0 {
		w.Warp = defaultWarp
	}
	if w.Weft.A == 0 {
		w.Weft = defaultWeft
	}
	w.WarpSpacing = pos(w.WarpSpacing, 0.5e-3)
	w.WeftSpacing = pos(w.WeftSpacing, 0.5e-3)
	if w.Pattern < Plain || w.Pattern > Satin {
		w.Pattern = Plain
	}
	w.Magnify = pos(w.Magnify, 1)
	c.PadRadius = pos(c.PadRadius, 0.008)
	c.RodRadius = pos(c.RodRadius, 0.005)
	c.RodY = pos(c.RodY, 0.30)
	c.ForceScale = pos(c.ForceScale, 0.03)
	c.Grid = pos(c.Grid, 0.01)
	c.A40FullScaleUm = pos(c.A40FullScaleUm, 200)
	c.A320FullScaleUm = pos(c.A320FullScaleUm, 30)
	c.InsetRangeDB = pos(c.InsetRangeDB, 40)
	return c
}

// linear returns a colour's linear-light components under the gamma-2
// encoding the shaders write (encode in shaders.go), so a flat, fully lit
// colour comes back as itself.
func linear(c color.NRGBA) [3]float32 {
	f := func(v uint8) float32 {
		x := float32(v) / 255
		return x * x
	}
	return [3]float32{f(c.R), f(c.G), f(c.B)}
}

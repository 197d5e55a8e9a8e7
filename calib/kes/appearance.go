package kes

import "image/color"

// Appearance is how a fabric looks, for a view of the cloth. It holds plain
// values so that kes needs no graphics package and the view none of the
// fabric file's vocabulary.
type Appearance struct {
	// Warp and Weft are the yarn colours (sRGB, opaque) of the file's
	// render.warp_colour and render.weft_colour.
	Warp, Weft color.NRGBA
	// WarpSpacing and WeftSpacing are the distances between neighbouring
	// warp yarns and between neighbouring weft yarns [m] (ThreadSpacing).
	WarpSpacing, WeftSpacing float64
	// Pattern is the interlacing to draw: "twill" or "satin" for those
	// weaves, "plain" for every other construction (plain and crepe
	// weaves, knits, pile and the rest show as a plain weave).
	Pattern string
}

// Appearance returns how the fabric looks.
func (f *Fabric) Appearance() Appearance {
	a := Appearance{Warp: srgb(f.Render.WarpColour), Weft: srgb(f.Render.WeftColour), Pattern: "plain"}
	a.WarpSpacing, a.WeftSpacing = f.ThreadSpacing()
	switch f.Weave.Type {
	case "twill", "satin":
		a.Pattern = f.Weave.Type
	}
	return a
}

// srgb returns a "#rrggbb" colour, opaque; validation guarantees the format.
func srgb(hex string) color.NRGBA {
	c := color.NRGBA{A: 255}
	if len(hex) != 7 {
		return c
	}
	for i, dst := range []*uint8{&c.R, &c.G, &c.B} {
		var v uint8
		for _, ch := range hex[1+2*i : 3+2*i] {
			v *= 16
			switch {
			case ch >= '0' && ch <= '9':
				v += uint8(ch - '0')
			case ch >= 'a' && ch <= 'f':
				v += uint8(ch-'a') + 10
			case ch >= 'A' && ch <= 'F':
				v += uint8(ch-'A') + 10
			}
		}
		*dst = v
	}
	return c
}

package render

import (
	"image"
	"strconv"
	"time"

	"golang.org/x/image/font/basicfont"
)

// The 2D layer (background, text, insets) is one batch of textured,
// coloured quads in pixel coordinates, drawn with one call. Text uses the
// 7x13 fixed font of golang.org/x/image/font/basicfont, copied once into a
// small atlas texture, so no font file is needed.

const (
	glyphW, glyphH, glyphAdvance = 6, 13, 7
	atlasW                       = 8  // glyph width padded
	atlasGlyphs                  = 97 // 95 printable ASCII, the replacement glyph, one solid cell
	solidGlyph                   = 96
	floatsPerVertex2D            = 8 // x, y, u, v, r, g, b, a
	maxQuads2D                   = 6000
)

// fontAtlas returns the atlas image: glyph g occupies rows [g*13, g*13+13)
// and columns [0, 6); the last cell is solid so flat quads can sample it.
func fontAtlas() *image.Alpha {
	face := basicfont.Face7x13
	a := image.NewAlpha(image.Rect(0, 0, atlasW, atlasGlyphs*glyphH))
	mask := face.Mask
	for g := 0; g < atlasGlyphs-1; g++ {
		for y := 0; y < glyphH; y++ {
			for x := 0; x < glyphW; x++ {
				_, _, _, al := mask.At(x, g*glyphH+y).RGBA()
				a.Pix[(g*glyphH+y)*a.Stride+x] = uint8(al >> 8)
			}
		}
	}
	for y := 0; y < glyphH; y++ {
		for x := 0; x < atlasW; x++ {
			a.Pix[(solidGlyph*glyphH+y)*a.Stride+x] = 0xff
		}
	}
	return a
}

func glyphIndex(c byte) int {
	if c >= 0x20 && c < 0x7f {
		return int(c - 0x20)
	}
	return 95 // U+FFFD
}

// batch2D collects the 2D quads of one frame in preallocated storage.
type batch2D struct {
	v []float32
}

func newBatch2D() batch2D {
	return batch2D{v: make([]float32, 0, maxQuads2D*6*floatsPerVertex2D)}
}

func (b *batch2D) reset() { b.v = b.v[:0] }

func (b *batch2D) quads() int { return len(b.v) / (6 * floatsPerVertex2D) }

// quad adds the rectangle (x0, y0)-(x1, y1) with atlas texture rectangle
// (u0, v0)-(u1, v1) and a colour per corner (top-left, top-right,
// bottom-right, bottom-left). Quads past the capacity are dropped.
func (b *batch2D) quad(x0, y0, x1, y1, u0, v0, u1, v1 float32, c [4][4]float32) {
	if len(b.v)+6*floatsPerVertex2D > cap(b.v) {
		return
	}
	vert := func(x, y, u, v float32, c [4]float32) {
		b.v = append(b.v, x, y, u, v, c[0], c[1], c[2], c[3])
	}
	vert(x0, y0, u0, v0, c[0])
	vert(x1, y0, u1, v0, c[1])
	vert(x1, y1, u1, v1, c[2])
	vert(x0, y0, u0, v0, c[0])
	vert(x1, y1, u1, v1, c[2])
	vert(x0, y1, u0, v1, c[3])
}

func (b *batch2D) rect(r image.Rectangle, c [4]float32) {
	u0, v0, u1, v1 := glyphUV(solidGlyph)
	b.quad(float32(r.Min.X), float32(r.Min.Y), float32(r.Max.X), float32(r.Max.Y), u0, v0, u1, v1, [4][4]float32{c, c, c, c})
}

func glyphUV(g int) (u0, v0, u1, v1 float32) {
	const h = float32(atlasGlyphs * glyphH)
	return 0, float32(g*glyphH) / h, float32(glyphW) / atlasW, float32(g*glyphH+glyphH) / h
}

// text draws s with its top-left corner at (x, y), glyphs scaled by ui,
// and returns the x after the last glyph.
func (b *batch2D) text(x, y int, ui int, s []byte, c [4]float32) int {
	for _, ch := range s {
		if ch != ' ' {
			u0, v0, u1, v1 := glyphUV(glyphIndex(ch))
			b.quad(float32(x), float32(y), float32(x+glyphW*ui), float32(y+glyphH*ui), u0, v0, u1, v1, [4][4]float32{c, c, c, c})
		}
		x += glyphAdvance * ui
	}
	return x
}

func textWidth(n, ui int) int { return n * glyphAdvance * ui }

// line builds one line of overlay text without allocating.
type line []byte

func (l line) str(s string) line { return append(l, s...) }

// num appends v with prec decimals, right-aligned in width columns;
// a value that is not finite prints as "-".
func (l line) num(v float64, prec, width int) line {
	start := len(l)
	if v != v || v > 1e300 || v < -1e300 {
		l = append(l, '-')
	} else {
		l = strconv.AppendFloat(l, v, 'f', prec, 64)
	}
	return l.pad(start, width)
}

// fill appends spaces until the line is width bytes long.
func (l line) fill(width int) line {
	for len(l) < width {
		l = append(l, ' ')
	}
	return l
}

// pad right-aligns the bytes from start in width columns.
func (l line) pad(start, width int) line {
	n := len(l) - start
	if n >= width {
		return l
	}
	for range width - n {
		l = append(l, ' ')
	}
	copy(l[start+width-n:], l[start:start+n])
	for i := start; i < start+width-n; i++ {
		l[i] = ' '
	}
	return l
}

// dur appends d as microseconds below 1 ms and as milliseconds above.
func (l line) dur(d time.Duration) line {
	if d < time.Millisecond {
		return l.num(float64(d)/float64(time.Microsecond), 0, 4).str(" us")
	}
	return l.num(float64(d)/float64(time.Millisecond), 2, 4).str(" ms")
}

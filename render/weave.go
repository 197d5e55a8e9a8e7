package render

import (
	"math"
	"sync"
)

// warpOnTop tells whether warp end i lies over weft pick j.
func warpOnTop(p Pattern, i, j int) bool {
	i, j = i+1000, j+1000 // as the shader: 1000 is a multiple of 4 and 5
	switch p {
	case Twill:
		return (i+j)&3 < 2
	case Satin:
		return (j+2*i)%5 != 0
	}
	return (i+j)&1 == 0
}

// weaveCell is one crossing cell, (fx, fy) from its centre in [-0.5, 0.5).
func weaveCell(top bool, warp, weft, mean [3]float64, fx, fy float64) ([3]float64, yarn) {
	const w = 0.42 // yarn half width, in yarn spacings
	aw, af := fx/w, fy/w
	scaled := func(c [3]float64, h float64) [3]float64 {
		s := math.Sqrt(0.3 + 0.7*h)
		return [3]float64{c[0] * s, c[1] * s, c[2] * s}
	}
	if math.Abs(aw) < 1 && (top || math.Abs(af) >= 1) {
		h := 0.7
		if top {
			h = 0.55 + 0.45*math.Cos(fy*math.Pi)
		}
		return scaled(warp, math.Sqrt(1-aw*aw)*h), warpYarn
	}
	if math.Abs(af) < 1 {
		h := 0.7
		if !top {
			h = 0.55 + 0.45*math.Cos(fx*math.Pi)
		}
		return scaled(weft, math.Sqrt(1-af*af)*h), weftYarn
	}
	return [3]float64{0.45 * mean[0], 0.45 * mean[1], 0.45 * mean[2]}, gap
}

type yarn int

const (
	gap yarn = iota
	warpYarn
	weftYarn
)

// encoded returns the colour's gamma-2 encoded components, in [0, 1].
func encoded(c [3]float32) [3]float64 {
	return [3]float64{math.Sqrt(float64(c[0])), math.Sqrt(float64(c[1])), math.Sqrt(float64(c[2]))}
}

// meanEncoded is the colour a far-away patch of the weave shows: the
// encoded mean, in linear light, of the weave (weaveCell) over the
// pattern. A cell looks the same wherever it is, given which yarn is on
// top, so the mean mixes the two kinds of cell by how often the warp is on
// top over a 20 x 20 repeat (a multiple of every pattern's period). The
// gaps take the 0.45 x mean they are drawn with, so the mean is solved as a
// fixed point.
func (w *Weave) meanEncoded() [3]float64 {
	warp, weft := encoded(linear(w.Warp)), encoded(linear(w.Weft))
	const repeat, per = 20, 50 // per: samples across a cell, resolving the yarn edges at ±0.42
	tops := 0
	for i := 0; i < repeat; i++ {
		for j := 0; j < repeat; j++ {
			if warpOnTop(w.Pattern, i, j) {
				tops++
			}
		}
	}
	cover := float64(tops) / (repeat * repeat)
	var yarnSum [3]float64
	var gapArea float64
	for _, c := range []struct {
		top    bool
		weight float64
	}{{true, cover}, {false, 1 - cover}} {
		for i := 0; i < per; i++ {
			for j := 0; j < per; j++ {
				col, kind := weaveCell(c.top, warp, weft, [3]float64{}, (float64(i)+0.5)/per-0.5, (float64(j)+0.5)/per-0.5)
				if kind == gap {
					gapArea += c.weight
					continue
				}
				for k := range col {
					yarnSum[k] += c.weight * col[k] * col[k]
				}
			}
		}
	}
	// mean² = (yarnSum + gapArea·(0.45·mean)²)/n  ⇒  mean² = yarnSum/(n − 0.2025·gapArea)
	n := float64(per * per)
	var m [3]float64
	for k := range m {
		m[k] = math.Sqrt(yarnSum[k] / (n - 0.45*0.45*gapArea))
	}
	return m
}

// The weave texture: weaveRepeat x weaveRepeat crossing cells (a multiple
// of every pattern's period, so it tiles), weaveTexels texels a cell at
// its finest level, with a full mipmap chain the GPU samples trilinearly:
// each coarser level averages, in linear light, the finest texels it
// covers, so the yarns blend into their mean colour as they shrink below
// a pixel and never alias into moiré, in the window and in snapshots
// alike. Texels are gamma-2 encoded, as the shaders expect.
const (
	weaveRepeat  = 20
	weaveTexels  = 16
	weaveSamples = 4 // per texel and axis at the finest level
)

// weaveLevel is one level of the texture: side x side RGBA texels.
type weaveLevel struct {
	side int
	rgba []byte
}

// textureLevels returns the texture's levels, finest first, and the
// encoded mean colour (the 1 x 1 level), built once per weave.
func (w *Weave) textureLevels() ([]weaveLevel, [3]float64) {
	if t, ok := weaveTextures.Load(*w); ok {
		c := t.(weaveTexture)
		return c.levels, c.mean
	}
	levels, mean := w.buildLevels()
	weaveTextures.Store(*w, weaveTexture{levels, mean})
	return levels, mean
}

// weaveTextures caches the texture of each weave drawn (renderers only
// read a cached texture's levels).
var weaveTextures sync.Map

type weaveTexture struct {
	levels []weaveLevel
	mean   [3]float64
}

// buildLevels builds the texture's levels, finest first, and returns the
// encoded mean colour (the 1 x 1 level). A coarser level is the
// finest one low-passed with a Gaussian of 0.6 of its texel (repeating,
// as the texture does) and sampled at its texels' centres: a box filter
// would leave a third of the weave's crossing-cell checker in the level
// where a texel is one cell, and that checker aliases into moiré.
func (w *Weave) buildLevels() ([]weaveLevel, [3]float64) {
	warp, weft := encoded(linear(w.Warp)), encoded(linear(w.Weft))
	mean := w.meanEncoded()
	// The two kinds of crossing cell (warp or weft on top), each
	// weaveTexels a side, every texel the mean of weaveSamples² samples;
	// the finest level lays them out as the pattern says.
	var tiles [2][weaveTexels * weaveTexels][3]float64
	for kind, top := range []bool{false, true} {
		for ty := range weaveTexels {
			for tx := range weaveTexels {
				var acc [3]float64
				for sy := range weaveSamples {
					for sx := range weaveSamples {
						fx := (float64(tx)+(float64(sx)+0.5)/weaveSamples)/weaveTexels - 0.5
						fy := (float64(ty)+(float64(sy)+0.5)/weaveSamples)/weaveTexels - 0.5
						c, _ := weaveCell(top, warp, weft, mean, fx, fy)
						for k := range acc {
							acc[k] += c[k] * c[k] / (weaveSamples * weaveSamples)
						}
					}
				}
				tiles[kind][ty*weaveTexels+tx] = acc
			}
		}
	}
	side := weaveRepeat * weaveTexels
	lin := make([][3]float64, side*side) // linear light of the finest level
	for j := range weaveRepeat {
		for i := range weaveRepeat {
			tile := &tiles[0]
			if warpOnTop(w.Pattern, i, j) {
				tile = &tiles[1]
			}
			for ty := range weaveTexels {
				copy(lin[(j*weaveTexels+ty)*side+i*weaveTexels:], tile[ty*weaveTexels:(ty+1)*weaveTexels])
			}
		}
	}
	var levels []weaveLevel
	var last [3]float64
	for s := side; ; s = max(1, s/2) {
		lv := weaveLevel{side: s, rgba: make([]byte, 4*s*s)}
		for i, c := range prefilter(lin, side, s) {
			for k := range c {
				last[k] = math.Sqrt(c[k])
				lv.rgba[4*i+k] = uint8(math.Round(255 * math.Min(1, last[k])))
			}
			lv.rgba[4*i+3] = 255
		}
		levels = append(levels, lv)
		if s == 1 {
			break
		}
	}
	return levels, last
}

// prefilter low-passes the side x side linear-light image lin (it tiles)
// with a Gaussian of one texel of an s-texel level and samples it at that
// level's texel centres, separably: rows, then columns.
func prefilter(lin [][3]float64, side, s int) [][3]float64 {
	if s == side {
		return lin
	}
	scale := float64(side) / float64(s) // finest texels per texel
	sigma := scale
	reach := int(math.Ceil(2.5 * sigma))
	// The weights of texel k's taps: finest index first + j, weight w[j].
	type taps struct {
		first int
		w     []float64
	}
	kernel := make([]taps, s)
	for k := range kernel {
		c := (float64(k) + 0.5) * scale
		i0 := int(math.Floor(c)) - reach
		w := make([]float64, 2*reach+1)
		var sum float64
		for j := range w {
			x := float64(i0+j) + 0.5 - c
			w[j] = math.Exp(-x * x / (2 * sigma * sigma))
			sum += w[j]
		}
		for j := range w {
			w[j] /= sum
		}
		kernel[k] = taps{i0, w}
	}
	wrap := func(i int) int { return ((i % side) + side) % side }
	rows := make([][3]float64, side*s) // every finest row, s columns
	for y := range side {
		for x, k := range kernel {
			var acc [3]float64
			for j, wt := range k.w {
				v := lin[y*side+wrap(k.first+j)]
				acc[0], acc[1], acc[2] = acc[0]+wt*v[0], acc[1]+wt*v[1], acc[2]+wt*v[2]
			}
			rows[y*s+x] = acc
		}
	}
	out := make([][3]float64, s*s)
	for y, k := range kernel {
		for x := range s {
			var acc [3]float64
			for j, wt := range k.w {
				v := rows[wrap(k.first+j)*s+x]
				acc[0], acc[1], acc[2] = acc[0]+wt*v[0], acc[1]+wt*v[1], acc[2]+wt*v[2]
			}
			out[y*s+x] = acc
		}
	}
	return out
}

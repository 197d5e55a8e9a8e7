package render

import "math"

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

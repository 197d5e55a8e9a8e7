package tactile

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/dsp/fourier"
)

// WeaveType is the construction of a fabric. It decides the periodic part
// of the pseudo-topology. The zero value is invalid so that an unset weave
// is caught.
type WeaveType int

const (
	Plain    WeaveType = iota + 1 // 1/1 interlacing, repeat 2 x 2
	Twill                         // Float/(Repeat-Float) twill, diagonal lines
	Satin                         // warp-faced satin, one interlacing per end per repeat
	Knit                          // weft-knitted single jersey face, V-shaped wales
	Pile                          // cut pile or raised surface (velvet, fleece): random fibres over a plain ground
	NonWoven                      // random fibre web, no periodic structure
)

var weaveNames = [...]string{Plain: "plain", Twill: "twill", Satin: "satin", Knit: "knit", Pile: "pile", NonWoven: "nonwoven"}

// String returns the weave's lower-case name.
func (w WeaveType) String() string {
	if w >= Plain && w <= NonWoven {
		return weaveNames[w]
	}
	return fmt.Sprintf("WeaveType(%d)", int(w))
}

// defaultWeaveFraction is the share of the height variance in the periodic
// structure when SurfaceParams.WeaveFraction is 0. These are haptex model
// defaults, not measurements: fit them from a measured height map when
// one exists.
func (w WeaveType) defaultWeaveFraction() float64 {
	switch w {
	case Plain, Twill:
		return 0.7
	case Satin:
		return 0.5 // long floats: a smoother face
	case Knit:
		return 0.6
	case Pile:
		return 0.15 // the ground weave shows faintly through the pile
	}
	return 0
}

// samplesPerYarn is the resolution of the repeat pattern. 16 samples per
// yarn pitch resolve the harmonics up to 8/spacing, beyond the 25/mm grid
// limit for every spacing >= 0.32 mm and far below the pattern's energy
// for finer yarns.
const samplesPerYarn = 16

// weavePeak is one harmonic of the repeat: power (fraction of the pattern's
// variance) at wave vector (ku, kv) [cycles/m].
type weavePeak struct {
	ku, kv, power float64
}

// weavePeaks returns the harmonics of the fabric's repeat pattern, both k
// and -k, excluding DC: the strongest ones, holding 99.9 % of its variance.
func weavePeaks(p *SurfaceParams) []weavePeak {
	nu, nv, z := repeatPattern(p)
	if z == nil {
		return nil
	}
	su, sv := nu*samplesPerYarn, nv*samplesPerYarn
	grid := make([]complex128, su*sv)
	var mean float64
	for j := range sv {
		for i := range su {
			h := z(float64(i)/samplesPerYarn, float64(j)/samplesPerYarn)
			grid[j*su+i] = complex(h, 0)
			mean += h
		}
	}
	mean /= float64(su * sv)
	for i := range grid {
		grid[i] -= complex(mean, 0)
	}
	fft2(grid, su, sv)
	norm := 1 / float64(su*sv)
	var peaks []weavePeak
	for j := range sv {
		for i := range su {
			c := grid[j*su+i] * complex(norm, 0)
			pw := real(c)*real(c) + imag(c)*imag(c)
			if pw == 0 {
				continue
			}
			pi, qj := i, j
			if pi >= su/2 {
				pi -= su
			}
			if qj >= sv/2 {
				qj -= sv
			}
			peaks = append(peaks, weavePeak{
				ku:    float64(pi) / (float64(nu) * p.WarpSpacing),
				kv:    float64(qj) / (float64(nv) * p.WeftSpacing),
				power: pw,
			})
		}
	}
	// Keep the strongest harmonics holding 99.9 % of the pattern's
	// variance; the thousands of weaker ones cost time and change nothing
	// the channels can feel.
	slices.SortFunc(peaks, func(a, b weavePeak) int { return cmp.Compare(b.power, a.power) })
	var total, acc float64
	for _, pk := range peaks {
		total += pk.power
	}
	kept := peaks[:0]
	for _, pk := range peaks {
		if acc >= 0.999*total && pk.power < kept[len(kept)-1].power {
			break
		}
		acc += pk.power
		kept = append(kept, pk)
	}
	return kept
}

// repeatPattern returns the size of the weave's repeat in yarns (ends along
// u, picks along v; wales and courses for a knit) and its height pattern
// z(x, y) in [0, 1], x and y in yarn pitches. The geometry is a sketch: yarns
// of cos² cross-section, crowns that rise over floats and dip at
// interlacings, the higher yarn showing. It puts the weave's peaks where
// the construction puts them and gives twills and satins their diagonal and
// scattered harmonics.
func repeatPattern(p *SurfaceParams) (nu, nv int, z func(x, y float64) float64) {
	var up func(i, j int) bool // warp over weft at end i, pick j
	switch p.Weave {
	case Plain, Pile:
		nu, nv = 2, 2
		up = func(i, j int) bool { return (i+j)%2 == 0 }
	case Twill:
		r, f := p.Repeat, p.Float
		nu, nv = r, r
		up = func(i, j int) bool { return mod(i+j, r) < f }
	case Satin:
		r, mv := p.Repeat, p.Move
		nu, nv = r, r
		up = func(i, j int) bool { return mod(j-mv*i, r) != 0 }
	case Knit:
		return 1, 1, jersey
	default:
		return 0, 0, nil
	}
	state := func(b bool) float64 {
		if b {
			return 1
		}
		return -1
	}
	z = func(x, y float64) float64 {
		ie, je := int(math.Floor(x+0.5)), int(math.Floor(y+0.5)) // nearest end and pick
		dx, dy := x-float64(ie), y-float64(je)
		// Warp yarn ie runs along v: its crown follows the interlacing
		// states of the picks on either side of y.
		j0 := int(math.Floor(y))
		t := smooth(y - float64(j0))
		hw := state(up(mod(ie, nu), mod(j0, nv)))*(1-t) + state(up(mod(ie, nu), mod(j0+1, nv)))*t
		// Weft yarn je runs along u and is up where the warp is down.
		i0 := int(math.Floor(x))
		s := smooth(x - float64(i0))
		hf := -state(up(mod(i0, nu), mod(je, nv)))*(1-s) - state(up(mod(i0+1, nu), mod(je, nv)))*s
		cw := math.Cos(math.Pi * dx)
		cf := math.Cos(math.Pi * dy)
		return math.Max(cw*cw*(1+hw)/2, cf*cf*(1+hf)/2)
	}
	return nu, nv, z
}

// jersey is the face of a single jersey knit in one wale (x) by one course
// (y): two loop legs forming a V, tilted about 11° from the wale axis, with
// the loop crown highest mid-course.
func jersey(x, y float64) float64 {
	x -= math.Floor(x)
	y -= math.Floor(y)
	const halfWidth = 0.2
	leg := func(xc float64) float64 {
		d := math.Abs(x - xc)
		if d >= halfWidth {
			return 0
		}
		c := math.Cos(math.Pi / 2 * d / halfWidth)
		return c * c
	}
	off := 0.12 + 0.2*y
	crown := 0.5 + 0.5*math.Sin(math.Pi*y)
	return crown * math.Max(leg(0.5-off), leg(0.5+off))
}

// smooth is the cosine step from 0 to 1 on [0, 1].
func smooth(t float64) float64 { return (1 - math.Cos(math.Pi*t)) / 2 }

func mod(a, n int) int {
	r := a % n
	if r < 0 {
		r += n
	}
	return r
}

// fft2 transforms grid (row-major, nx columns, ny rows) in place.
func fft2(grid []complex128, nx, ny int) {
	rows := fourier.NewCmplxFFT(nx)
	for j := range ny {
		r := grid[j*nx : (j+1)*nx]
		rows.Coefficients(r, r)
	}
	cols := fourier.NewCmplxFFT(ny)
	col := make([]complex128, ny)
	for i := range nx {
		for j := range ny {
			col[j] = grid[j*nx+i]
		}
		cols.Coefficients(col, col)
		for j := range ny {
			grid[j*nx+i] = col[j]
		}
	}
}

package tactile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// HeightMap is a measured surface height field (profilometer, laser
// scanner, micro-CT), Z[j*Nu+i] at (u, v) = (i, j)·Dx.
type HeightMap struct {
	Nu, Nv int
	Dx     float64   // sample spacing [m]
	Z      []float64 // heights [m]
}

// Limits of a height map.
const (
	minHeightMapSide = 16
	maxHeightMapSide = 4096
	// welchTile is the largest Welch segment: 512 samples of 20 µm span
	// 10 mm, a 0.1 cycles/mm (8 Hz at 80 mm/s) spectral resolution.
	welchTile = 512
)

func (h *HeightMap) validate() error {
	if h.Nu < minHeightMapSide || h.Nv < minHeightMapSide || h.Nu > maxHeightMapSide || h.Nv > maxHeightMapSide {
		return fmt.Errorf("tactile: height map %d x %d must have [%d, %d] samples per axis", h.Nu, h.Nv, minHeightMapSide, maxHeightMapSide)
	}
	if !(h.Dx > 0) || h.Dx > 1e-3 {
		return fmt.Errorf("tactile: height map spacing %g m must be in (0, 1 mm]", h.Dx)
	}
	if len(h.Z) != h.Nu*h.Nv {
		return fmt.Errorf("tactile: height map has %d samples for %d x %d", len(h.Z), h.Nu, h.Nv)
	}
	for i, z := range h.Z {
		if math.IsNaN(z) || math.IsInf(z, 0) || math.Abs(z) > 0.01 {
			return fmt.Errorf("tactile: height map sample %d (u %d, v %d) is %g m, not a finite height under 1 cm", i, i%h.Nu, i/h.Nu, z)
		}
	}
	return nil
}

// NewSurfaceFromHeightMap builds a surface from a measured height field.
// The spectrum is Welch's estimate: the map's best-fit plane removed,
// segments of up to 512 x 512 samples overlapping by half, each with a 2D
// Hann window, periodograms averaged and scaled so that they sum to the
// height variance. Of p only the friction and large-scale fields are used
// (see NewSurfaceFromSpectrum). The map's spacing sets the spectrum's reach:
// 25 µm or finer reaches 400 Hz at 20 mm/s.
func NewSurfaceFromHeightMap(hm HeightMap, p SurfaceParams, seed uint64) (*Surface, error) {
	sp, err := WelchSpectrum(hm)
	if err != nil {
		return nil, err
	}
	return NewSurfaceFromSpectrum(sp, p, seed)
}

// WelchSpectrum returns the height spectrum of hm as NewSurfaceFromHeightMap
// estimates it.
func WelchSpectrum(hm HeightMap) (Spectrum, error) {
	if err := hm.validate(); err != nil {
		return Spectrum{}, err
	}
	z := detrend(hm)
	tu, tv := min(hm.Nu, welchTile)&^1, min(hm.Nv, welchTile)&^1
	wu, wv := hann(tu), hann(tv)
	var w2 float64
	for _, a := range wu {
		for _, b := range wv {
			w2 += a * a * b * b
		}
	}
	sp := Spectrum{Nu: tu, Nv: tv, Dku: 1 / (float64(tu) * hm.Dx), Dkv: 1 / (float64(tv) * hm.Dx), P: make([]float64, tu*tv)}
	seg := make([]complex128, tu*tv)
	starts := func(n, t int) []int {
		if n <= t {
			return []int{0}
		}
		var s []int
		for o := 0; o+t < n; o += t / 2 {
			s = append(s, o)
		}
		return append(s, n-t)
	}
	var segments int
	for _, oj := range starts(hm.Nv, tv) {
		for _, oi := range starts(hm.Nu, tu) {
			var mean float64
			for j := range tv {
				for i := range tu {
					mean += z[(oj+j)*hm.Nu+oi+i]
				}
			}
			mean /= float64(tu * tv)
			for j := range tv {
				for i := range tu {
					seg[j*tu+i] = complex((z[(oj+j)*hm.Nu+oi+i]-mean)*wu[i]*wv[j], 0)
				}
			}
			fft2(seg, tu, tv)
			// Raw index r holds frequency r (r < n/2) or r - n; the centred
			// index is (r + n/2) mod n.
			for j := range tv {
				cj := (j + tv/2) % tv
				for i := range tu {
					c := seg[j*tu+i]
					sp.P[cj*tu+(i+tu/2)%tu] += real(c)*real(c) + imag(c)*imag(c)
				}
			}
			segments++
		}
	}
	// Parseval: Σ|Z|² = N Σ (z w)², and Σ (z w)² ≈ σ² Σ w².
	scale := 1 / (float64(segments) * float64(tu*tv) * w2)
	for i := range sp.P {
		sp.P[i] *= scale
	}
	return sp, nil
}

// detrend returns hm's heights minus their least-squares plane.
func detrend(hm HeightMap) []float64 {
	n := float64(hm.Nu * hm.Nv)
	cu, cv := float64(hm.Nu-1)/2, float64(hm.Nv-1)/2
	var mz, suz, svz, suu, svv float64
	for j := range hm.Nv {
		for i := range hm.Nu {
			z := hm.Z[j*hm.Nu+i]
			u, v := float64(i)-cu, float64(j)-cv
			mz += z
			suz += u * z
			svz += v * z
			suu += u * u
			svv += v * v
		}
	}
	mz /= n
	// On a full grid centred at (cu, cv), u and v are orthogonal to 1 and
	// to each other, so the plane's coefficients separate.
	a, b := suz/suu, svz/svv
	out := make([]float64, len(hm.Z))
	for j := range hm.Nv {
		for i := range hm.Nu {
			out[j*hm.Nu+i] = hm.Z[j*hm.Nu+i] - mz - a*(float64(i)-cu) - b*(float64(j)-cv)
		}
	}
	return out
}

// hann returns the periodic Hann window of length n.
func hann(n int) []float64 {
	w := make([]float64, n)
	for i := range w {
		s := math.Sin(math.Pi * float64(i) / float64(n))
		w[i] = s * s
	}
	return w
}

// The height-map text format, as ReadHeightMap reads and WriteHeightMap
// writes it:
//
//	# haptex height map            (lines starting with # are comments)
//	dx_um 20                       (sample spacing in µm, before the data)
//	0.12 -0.30 0.05 ...            (one line per row of constant v, heights
//	...                             in µm, separated by spaces, tabs or commas)
//
// Blank lines are ignored. Every row has the same number of samples; a map
// has 16 to 4096 samples per axis.

// ReadHeightMap reads a height map in the text format above.
func ReadHeightMap(r io.Reader) (HeightMap, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	var hm HeightMap
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == '\t' || r == ',' })
		if hm.Dx == 0 {
			if len(fields) != 2 || fields[0] != "dx_um" {
				return HeightMap{}, fmt.Errorf("tactile: height map line %d: want \"dx_um <spacing>\" before the data, have %q", line, truncate(text))
			}
			dx, err := strconv.ParseFloat(fields[1], 64)
			if err != nil || !(dx > 0) || dx > 1000 {
				return HeightMap{}, fmt.Errorf("tactile: height map line %d: spacing %q µm must be a number in (0, 1000]", line, fields[1])
			}
			hm.Dx = dx * 1e-6
			continue
		}
		if hm.Nv == 0 {
			hm.Nu = len(fields)
			if hm.Nu < minHeightMapSide || hm.Nu > maxHeightMapSide {
				return HeightMap{}, fmt.Errorf("tactile: height map line %d: %d samples per row, want %d to %d", line, hm.Nu, minHeightMapSide, maxHeightMapSide)
			}
		} else if len(fields) != hm.Nu {
			return HeightMap{}, fmt.Errorf("tactile: height map line %d: %d samples, the first row had %d", line, len(fields), hm.Nu)
		}
		if hm.Nv == maxHeightMapSide {
			return HeightMap{}, fmt.Errorf("tactile: height map line %d: more than %d rows", line, maxHeightMapSide)
		}
		for k, f := range fields {
			z, err := strconv.ParseFloat(f, 64)
			if err != nil {
				return HeightMap{}, fmt.Errorf("tactile: height map line %d, sample %d: %w", line, k+1, err)
			}
			if math.IsNaN(z) || math.IsInf(z, 0) || math.Abs(z) > 1e4 {
				return HeightMap{}, fmt.Errorf("tactile: height map line %d, sample %d: %g µm is not a finite height under 1 cm", line, k+1, z)
			}
			hm.Z = append(hm.Z, z*1e-6)
		}
		hm.Nv++
	}
	if err := sc.Err(); err != nil {
		return HeightMap{}, fmt.Errorf("tactile: height map line %d: %w", line+1, err)
	}
	if hm.Dx == 0 {
		return HeightMap{}, errors.New("tactile: height map: no \"dx_um\" line")
	}
	if hm.Nv < minHeightMapSide {
		return HeightMap{}, fmt.Errorf("tactile: height map: %d rows, want at least %d", hm.Nv, minHeightMapSide)
	}
	return hm, nil
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// WriteHeightMap writes hm in the text format above. Heights are written
// in µm with enough digits to read back the same float64.
func WriteHeightMap(w io.Writer, hm HeightMap) error {
	if err := hm.validate(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# haptex height map, %d x %d samples, heights in µm\n", hm.Nu, hm.Nv)
	fmt.Fprintf(bw, "dx_um %s\n", strconv.FormatFloat(hm.Dx*1e6, 'g', -1, 64))
	var buf []byte
	for j := range hm.Nv {
		buf = buf[:0]
		for i := range hm.Nu {
			if i > 0 {
				buf = append(buf, ' ')
			}
			buf = strconv.AppendFloat(buf, hm.Z[j*hm.Nu+i]*1e6, 'g', -1, 64)
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return fmt.Errorf("tactile: writing height map: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("tactile: writing height map: %w", err)
	}
	return nil
}

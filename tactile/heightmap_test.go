package tactile

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// A height-map route to a Surface, for the tests: a grating's surface
// is built the way a measured height field would be, through Welch's
// spectral estimate.

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

func (sp *Spectrum) validate() error {
	if sp.Nu%2 != 0 || sp.Nv%2 != 0 || sp.Nu < 8 || sp.Nv < 8 || sp.Nu > 4096 || sp.Nv > 4096 {
		return fmt.Errorf("tactile: spectrum grid %d x %d must be even and in [8, 4096] per axis", sp.Nu, sp.Nv)
	}
	if !(sp.Dku > 0) || !(sp.Dkv > 0) || math.IsInf(sp.Dku, 0) || math.IsInf(sp.Dkv, 0) {
		return fmt.Errorf("tactile: spectrum bin sizes %g, %g cycles/m must be positive", sp.Dku, sp.Dkv)
	}
	if len(sp.P) != sp.Nu*sp.Nv {
		return fmt.Errorf("tactile: spectrum has %d values for a %d x %d grid", len(sp.P), sp.Nu, sp.Nv)
	}
	var sum float64
	for i, v := range sp.P {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("tactile: spectrum value %g at %d is not a non-negative number", v, i)
		}
		if i != sp.Nv/2*sp.Nu+sp.Nu/2 {
			sum += v
		}
	}
	if !(sum > 0) || math.IsInf(sum, 0) {
		return errors.New("tactile: spectrum holds no variance outside DC")
	}
	return nil
}

// NewSurfaceFromSpectrum builds a surface from an explicit height spectrum
// (its variance replaces SMD). Of p only the friction (MIU, MMD, FingerMu)
// and large-scale map fields are used. The spectrum
// should resolve 25 µm or finer to reach 400 Hz at 20 mm/s; a coarser one is
// accepted and simply holds nothing above its Nyquist frequency.
func NewSurfaceFromSpectrum(sp Spectrum, p SurfaceParams, seed uint64) (*Surface, error) {
	if err := sp.validate(); err != nil {
		return nil, err
	}
	p = p.withDefaults()
	if err := p.validateCommon(); err != nil {
		return nil, err
	}
	shape := Spectrum{Nu: sp.Nu, Nv: sp.Nv, Dku: sp.Dku, Dkv: sp.Dkv, P: append([]float64(nil), sp.P...)}
	variance := normalise(&shape)
	if !(variance > 0) {
		return nil, errors.New("tactile: spectrum holds no variance inside |k| <= k_Nyquist")
	}
	return newSurface(shape, math.Sqrt(variance), p, seed)
}

func randomHeightMap(nu, nv int, dx, sigma float64, seed uint64) HeightMap {
	rng := rand.New(rand.NewPCG(seed, 2))
	hm := HeightMap{Nu: nu, Nv: nv, Dx: dx, Z: make([]float64, nu*nv)}
	for i := range hm.Z {
		hm.Z[i] = sigma * rng.NormFloat64()
	}
	return hm
}

// Welch's estimate sums to the height variance, and a white map has a
// flat spectrum.
func TestWelchSpectrum(t *testing.T) {
	hm := randomHeightMap(700, 300, 20e-6, 4e-6, 9)
	// A tilt the detrend must remove.
	for j := range hm.Nv {
		for i := range hm.Nu {
			hm.Z[j*hm.Nu+i] += 1e-6*float64(i) - 2e-6*float64(j)
		}
	}
	sp, err := WelchSpectrum(hm)
	if err != nil {
		t.Fatal(err)
	}
	if sp.Nu != 512 || sp.Nv != 300 {
		t.Errorf("Welch tile %d x %d, want 512 x 300", sp.Nu, sp.Nv)
	}
	var sum, inner, outer float64
	for j := range sp.Nv {
		for i := range sp.Nu {
			p := sp.P[j*sp.Nu+i]
			sum += p
			if abs(i-sp.Nu/2) < sp.Nu/4 && abs(j-sp.Nv/2) < sp.Nv/4 {
				inner += p
			} else {
				outer += p
			}
		}
	}
	if math.Abs(sum/16e-12-1) > 0.05 {
		t.Errorf("spectrum sums to %.4g m², want the variance 1.6e-11 ± 5 %%", sum)
	}
	if r := inner / sum; math.Abs(r-0.25) > 0.02 {
		t.Errorf("white noise: inner quarter of k-space holds %.3f of the variance, want 0.25", r)
	}
	small := randomHeightMap(128, 96, 20e-6, 4e-6, 10)
	s, err := NewSurfaceFromHeightMap(small, SurfaceParams{UniformMap: true}, 1)
	if err != nil {
		t.Fatal(err)
	}
	// The band limit to the inscribed circle keeps π/4 of a white
	// spectrum (both axes have the same Nyquist frequency).
	if got, want := s.HeightStd(), 4e-6*math.Sqrt(math.Pi/4); math.Abs(got/want-1) > 0.05 {
		t.Errorf("surface σ %.4g m, want %.4g m", got, want)
	}
	bad := hm
	bad.Z = append([]float64(nil), hm.Z...)
	bad.Z[5] = math.Inf(1)
	if _, err := WelchSpectrum(bad); err == nil || !strings.Contains(err.Error(), "sample 5") {
		t.Errorf("infinite sample: %v", err)
	}
}

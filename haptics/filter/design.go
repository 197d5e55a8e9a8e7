package filter

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"sort"
)

// Band selects the response shape of a design.
type Band int

const (
	LowPass Band = iota
	HighPass
	BandPass
)

func (b Band) String() string {
	switch b {
	case LowPass:
		return "low-pass"
	case HighPass:
		return "high-pass"
	case BandPass:
		return "band-pass"
	}
	return fmt.Sprintf("Band(%d)", int(b))
}

// MaxOrder is the highest prototype order Butterworth and ChebyshevI accept.
const MaxOrder = 8

// The sentinels are always returned wrapped, after a "filter: " message
// that carries the offending values; branch on them with errors.Is.
var (
	// ErrParameter is wrapped by every error Butterworth and ChebyshevI
	// return: a parameter outside its domain (order, ripple, band,
	// sampling rate, corners), or legal parameters so extreme that the
	// design cannot be represented in float64 (then with ErrUnstable too).
	ErrParameter = errors.New("invalid design parameter")
	// ErrUnstable is wrapped when a cascade has a non-finite coefficient or
	// a pole on or outside the unit circle.
	ErrUnstable = errors.New("unstable or non-finite sections")
)

// Butterworth designs a digital Butterworth filter of the given prototype
// order (1 to MaxOrder) as SciPy's butter(order, corners, band,
// output='sos', fs=sampleHz) does. Low- and high-pass take one corner (the
// -3 dB frequency), band-pass takes two (low, high) and has order 2*order.
func Butterworth(order int, band Band, sampleHz float64, cornersHz ...float64) (SOS, error) {
	if err := checkOrder(order); err != nil {
		return nil, err
	}
	p := make([]complex128, order)
	for i := range p {
		m := float64(2*i - order + 1)
		p[i] = -cmplx.Exp(complex(0, math.Pi*m/float64(2*order)))
	}
	return design(p, 1, band, sampleHz, cornersHz)
}

// ChebyshevI designs a digital Chebyshev type I filter of the given
// prototype order (1 to MaxOrder) with rippleDB (> 0) of pass-band ripple,
// as SciPy's cheby1(order, rippleDB, corners, band, output='sos',
// fs=sampleHz) does. Each corner is where the gain first leaves the ripple
// band (-rippleDB). Even orders have a DC gain of -rippleDB for low-pass.
func ChebyshevI(order int, rippleDB float64, band Band, sampleHz float64, cornersHz ...float64) (SOS, error) {
	if err := checkOrder(order); err != nil {
		return nil, err
	}
	if !(rippleDB > 0) || math.IsInf(rippleDB, 1) {
		return nil, fmt.Errorf("filter: ripple %g dB must be finite and > 0: %w", rippleDB, ErrParameter)
	}
	eps := math.Sqrt(math.Pow(10, 0.1*rippleDB) - 1)
	mu := 1 / float64(order) * math.Asinh(1/eps)
	p := make([]complex128, order)
	prod := complex(1, 0)
	for i := range p {
		m := float64(2*i - order + 1)
		p[i] = -cmplx.Sinh(complex(mu, math.Pi*m/float64(2*order)))
		prod *= -p[i]
	}
	k := real(prod)
	if order%2 == 0 {
		k /= math.Sqrt(1 + eps*eps)
	}
	return design(p, k, band, sampleHz, cornersHz)
}

func checkOrder(order int) error {
	if order < 1 || order > MaxOrder {
		return fmt.Errorf("filter: order %d not in [1, %d]: %w", order, MaxOrder, ErrParameter)
	}
	return nil
}

// design maps the analog low-pass prototype with poles p (cut-off 1 rad/s,
// no finite zeros) and gain k to the requested band, pre-warps the corners,
// applies the bilinear transform and pairs the result into sections. Each
// step follows SciPy's iirfilter, lp2lp_zpk, lp2hp_zpk, lp2bp_zpk and
// bilinear_zpk so that coefficients agree to rounding.
func design(p []complex128, k float64, band Band, sampleHz float64, cornersHz []float64) (SOS, error) {
	warped, err := prewarp(band, sampleHz, cornersHz)
	if err != nil {
		return nil, err
	}
	n := len(p)
	var zeros []float64 // digital zeros; always real for these prototypes
	switch band {
	case LowPass:
		wo := warped[0]
		for i := range p {
			p[i] *= complex(wo, 0)
		}
		k *= math.Pow(wo, float64(n))
	case HighPass:
		wo := warped[0]
		prod := complex(1, 0)
		for i := range p {
			prod *= -p[i]
			p[i] = complex(wo, 0) / p[i]
		}
		k *= real(1 / prod)
	case BandPass:
		bw := warped[1] - warped[0]
		wo := math.Sqrt(warped[0] * warped[1])
		bp := make([]complex128, 2*n)
		for i, pi := range p {
			pl := pi * complex(bw, 0) / 2
			s := cmplx.Sqrt(pl*pl - complex(wo*wo, 0))
			bp[i] = pl + s
			bp[n+i] = pl - s
		}
		p = bp
		k *= math.Pow(bw, float64(n))
	}
	// Bilinear transform with fs = 2 on SciPy's normalised frequencies: the
	// analog zeros at the origin (high-, band-pass) go to z = 1, the zeros
	// at infinity to z = -1.
	const fs2 = 4.0
	den := complex(1, 0)
	for i := range p {
		den *= complex(fs2, 0) - p[i]
		p[i] = (complex(fs2, 0) + p[i]) / (complex(fs2, 0) - p[i])
	}
	num := 1.0
	switch band {
	case LowPass:
		zeros = repeat(-1, n)
	case HighPass:
		zeros = repeat(1, n)
		num = math.Pow(fs2, float64(n))
	case BandPass:
		zeros = append(repeat(1, n), repeat(-1, n)...)
		num = math.Pow(fs2, float64(n))
	}
	k *= real(complex(num, 0) / den)
	if !finite(k) {
		return nil, fmt.Errorf("filter: %v order %d at %g Hz sampling, corners %v Hz: gain %g: %w: %w", band, n, sampleHz, cornersHz, k, ErrParameter, ErrUnstable)
	}
	if k == 0 {
		return nil, fmt.Errorf("filter: %v order %d at %g Hz sampling, corners %v Hz: gain underflows to 0: %w", band, n, sampleHz, cornersHz, ErrParameter)
	}
	for _, v := range p {
		if !finite(real(v)) || !finite(imag(v)) {
			return nil, fmt.Errorf("filter: %v order %d at %g Hz sampling, corners %v Hz: pole %v: %w: %w", band, n, sampleHz, cornersHz, v, ErrParameter, ErrUnstable)
		}
	}

	s, err := pairSections(zeros, p, k)
	if err != nil {
		return nil, err
	}
	if i, why := s.check(); why != "" {
		return nil, fmt.Errorf("filter: %v order %d at %g Hz sampling, corners %v Hz: section %d %s: %w: %w", band, n, sampleHz, cornersHz, i, why, ErrParameter, ErrUnstable)
	}
	return s, nil
}

// prewarp checks the band and corners and returns the corners mapped to the
// analog frequency axis, Ω = 4 tan(π f/fs) (bilinear transform with fs = 2
// on frequencies normalised to Nyquist, as SciPy does).
func prewarp(band Band, sampleHz float64, cornersHz []float64) ([]float64, error) {
	want := 1
	switch band {
	case LowPass, HighPass:
	case BandPass:
		want = 2
	default:
		return nil, fmt.Errorf("filter: unknown band %v: %w", band, ErrParameter)
	}
	if !(sampleHz > 0) || math.IsInf(sampleHz, 1) {
		return nil, fmt.Errorf("filter: sampling rate %g Hz must be finite and > 0: %w", sampleHz, ErrParameter)
	}
	if len(cornersHz) != want {
		return nil, fmt.Errorf("filter: %v needs %d corner frequencies, got %d (%v): %w", band, want, len(cornersHz), cornersHz, ErrParameter)
	}
	nyq := sampleHz / 2
	warped := make([]float64, want)
	for i, f := range cornersHz {
		if !(f > 0 && f < nyq) {
			return nil, fmt.Errorf("filter: corner %g Hz outside (0, %g) Hz, the Nyquist range at %g Hz sampling: %w", f, nyq, sampleHz, ErrParameter)
		}
		wn := 2 * f / sampleHz
		warped[i] = 4 * math.Tan(math.Pi*wn/2)
	}
	if want == 2 && !(cornersHz[0] < cornersHz[1]) {
		return nil, fmt.Errorf("filter: band-pass corners (%g, %g) Hz must be increasing: %w", cornersHz[0], cornersHz[1], ErrParameter)
	}
	return warped, nil
}

func repeat(v float64, n int) []float64 {
	r := make([]float64, n)
	for i := range r {
		r[i] = v
	}
	return r
}

// pairSections is SciPy's zpk2sos with pairing='nearest' (its default for
// digital filters since 1.2), specialised to real zeros, which is all that
// Butterworth and Chebyshev I produce. With equal numbers of poles and
// zeros (odd counts padded with one at the origin) SciPy's branches for a
// lone real pole and for complex zeros never apply. Poles closest to the
// unit circle go to the last section; each pole (pair) takes the nearest
// zeros. The gain k is folded into the first section.
func pairSections(zeros []float64, poles []complex128, k float64) (SOS, error) {
	nsec := (len(poles) + 1) / 2
	if len(poles)%2 == 1 {
		poles = append(poles, 0)
		zeros = append(zeros, 0)
	}
	sort.Float64s(zeros)
	pc, pr, err := cplxreal(poles)
	if err != nil {
		return nil, err
	}
	p := pc
	for _, r := range pr {
		p = append(p, complex(r, 0))
	}

	s := make(SOS, nsec)
	for si := nsec - 1; si >= 0; si-- {
		i := worst(p, false)
		p1 := p[i]
		p = append(p[:i], p[i+1:]...)
		p2 := cmplx.Conj(p1)
		if imag(p1) == 0 {
			j := worst(p, true)
			p2 = p[j]
			p = append(p[:j], p[j+1:]...)
		}
		j := nearest(zeros, p1)
		z1 := zeros[j]
		zeros = append(zeros[:j], zeros[j+1:]...)
		j = nearest(zeros, p1)
		z2 := zeros[j]
		zeros = append(zeros[:j], zeros[j+1:]...)

		// numpy.poly([r1, r2]) = [1, -r2 - r1, (-r1)(-r2)], real part.
		az := complex(-z1, 0) * complex(-z2, 0)
		ap := -p1 * -p2
		s[si] = Section{
			B0: 1, B1: -z2 - z1, B2: real(az),
			A1: real(-p2 - p1), A2: real(ap),
		}
	}
	s[0].B0 *= k
	s[0].B1 *= k
	s[0].B2 *= k
	return s, nil
}

// worst returns the index of the first pole closest to the unit circle,
// among the real poles only if realOnly.
func worst(p []complex128, realOnly bool) int {
	best, bestD := -1, math.Inf(1)
	for i, v := range p {
		if realOnly && imag(v) != 0 {
			continue
		}
		if d := math.Abs(1 - cmplx.Abs(v)); best < 0 || d < bestD {
			best, bestD = i, d
		}
	}
	return best
}

// nearest returns the index of the first zero closest to p.
func nearest(zeros []float64, p complex128) int {
	best, bestD := 0, math.Inf(1)
	for i, z := range zeros {
		if d := cmplx.Abs(complex(z, 0) - p); d < bestD {
			best, bestD = i, d
		}
	}
	return best
}

// cplxreal is SciPy's _cplxreal: it splits roots into one representative
// (positive imaginary part, averaged with its conjugate) per complex pair
// and the real roots, both sorted by real part.
func cplxreal(z []complex128) ([]complex128, []float64, error) {
	const tol = 100 * 2.220446049250313e-16
	z = append([]complex128(nil), z...)
	sort.SliceStable(z, func(i, j int) bool {
		if real(z[i]) != real(z[j]) {
			return real(z[i]) < real(z[j])
		}
		return math.Abs(imag(z[i])) < math.Abs(imag(z[j]))
	})
	var zr []float64
	var zp, zn []complex128
	for _, v := range z {
		switch {
		case math.Abs(imag(v)) <= tol*cmplx.Abs(v):
			zr = append(zr, real(v))
		case imag(v) > 0:
			zp = append(zp, v)
		default:
			zn = append(zn, v)
		}
	}
	if len(zp) != len(zn) {
		return nil, nil, fmt.Errorf("filter: %d poles above and %d below the real axis: %w: %w", len(zp), len(zn), ErrParameter, ErrUnstable)
	}
	// Within runs of (nearly) equal real part, order by |imag|.
	for start := 0; start < len(zp); {
		stop := start + 1
		for stop < len(zp) && real(zp[stop])-real(zp[stop-1]) <= tol*cmplx.Abs(zp[stop-1]) {
			stop++
		}
		for _, run := range [][]complex128{zp[start:stop], zn[start:stop]} {
			sort.SliceStable(run, func(i, j int) bool { return math.Abs(imag(run[i])) < math.Abs(imag(run[j])) })
		}
		start = stop
	}
	zc := make([]complex128, len(zp))
	for i := range zp {
		c := cmplx.Conj(zn[i])
		if cmplx.Abs(zp[i]-c) > tol*cmplx.Abs(zn[i]) {
			return nil, nil, fmt.Errorf("filter: pole %v has no conjugate partner: %w: %w", zp[i], ErrParameter, ErrUnstable)
		}
		zc[i] = (zp[i] + c) / 2
	}
	return zc, zr, nil
}

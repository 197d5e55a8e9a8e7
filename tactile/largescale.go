package tactile

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Map is a large-scale description of a fabric: non-negative
// pseudo-amplitudes on a regular grid over the fabric (HAPTEX: 1 mm over
// several tens of cm²) that weight each pin's amplitude at its position.
// Value (i, j) sits at (u, v) = (i, j)·Spacing. A Map is immutable.
type Map struct {
	nu, nv  int
	spacing float64
	val     []float64
}

// NewMap returns a map of nu x nv values (values[j*nu+i] at (i, j)·spacing,
// copied), all finite and >= 0.
func NewMap(nu, nv int, spacing float64, values []float64) (*Map, error) {
	if nu < 2 || nv < 2 || nu > 1<<14 || nv > 1<<14 {
		return nil, fmt.Errorf("tactile: map size %d x %d must be in [2, 16384] per axis", nu, nv)
	}
	if !(spacing > 0) || math.IsInf(spacing, 0) {
		return nil, fmt.Errorf("tactile: map spacing %g m must be positive", spacing)
	}
	if len(values) != nu*nv {
		return nil, fmt.Errorf("tactile: map has %d values for %d x %d", len(values), nu, nv)
	}
	for i, v := range values {
		if !(v >= 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("tactile: map value %g at %d is not a non-negative number", v, i)
		}
	}
	return &Map{nu: nu, nv: nv, spacing: spacing, val: append([]float64(nil), values...)}, nil
}

// UniformMap returns a map of ones covering width x height [m].
func UniformMap(width, height, spacing float64) (*Map, error) {
	nu, nv := mapSize(width, spacing), mapSize(height, spacing)
	v := make([]float64, nu*nv)
	for i := range v {
		v[i] = 1
	}
	return NewMap(nu, nv, spacing, v)
}

// RandomMap returns a lognormal random map of mean 1 and coefficient of
// variation cv, with Gaussian correlation of length corrLen [m], covering
// width x height [m] at spacing [m], drawn from seed.
func RandomMap(width, height, spacing, cv, corrLen float64, seed uint64) (*Map, error) {
	if !(spacing > 0) || !(width >= spacing) || !(height >= spacing) || !(cv >= 0) || !(corrLen > 0) {
		return nil, fmt.Errorf("tactile: random map %g x %g m at %g m, cv %g, length %g m: invalid", width, height, spacing, cv, corrLen)
	}
	nu, nv := mapSize(width, spacing), mapSize(height, spacing)
	if nu > 1<<14 || nv > 1<<14 {
		return nil, fmt.Errorf("tactile: map size %d x %d must be in [2, 16384] per axis", nu, nv)
	}
	rng := rand.New(rand.NewPCG(seed, 0x6861707465782d6d)) // "haptex-m"
	g := make([]float64, nu*nv)
	for i := range g {
		g[i] = rng.NormFloat64()
	}
	// Separable Gaussian smoothing, reflecting at the edges.
	s := corrLen / spacing
	r := int(math.Ceil(3 * s))
	ker := make([]float64, 2*r+1)
	for i := range ker {
		x := float64(i - r)
		ker[i] = math.Exp(-x * x / (2 * s * s))
	}
	tmp := make([]float64, nu*nv)
	reflect := func(i, n int) int {
		for i < 0 || i >= n {
			if i < 0 {
				i = -i - 1
			}
			if i >= n {
				i = 2*n - i - 1
			}
		}
		return i
	}
	for j := range nv {
		for i := range nu {
			var a float64
			for k, w := range ker {
				a += w * g[j*nu+reflect(i+k-r, nu)]
			}
			tmp[j*nu+i] = a
		}
	}
	for j := range nv {
		for i := range nu {
			var a float64
			for k, w := range ker {
				a += w * tmp[reflect(j+k-r, nv)*nu+i]
			}
			g[j*nu+i] = a
		}
	}
	var mean, m2 float64
	for _, v := range g {
		mean += v
	}
	mean /= float64(len(g))
	for _, v := range g {
		m2 += (v - mean) * (v - mean)
	}
	std := math.Sqrt(m2 / float64(len(g)))
	sl := math.Sqrt(math.Log1p(cv * cv)) // lognormal σ for the wanted cv
	var sum float64
	for i, v := range g {
		z := 0.0
		if std > 0 {
			z = (v - mean) / std
		}
		g[i] = math.Exp(sl*z - sl*sl/2)
		sum += g[i]
	}
	for i := range g {
		g[i] *= float64(len(g)) / sum // mean exactly 1
	}
	return NewMap(nu, nv, spacing, g)
}

func mapSize(length, spacing float64) int {
	return max(2, int(math.Round(length/spacing))+1)
}

// Size returns the grid size and spacing [m].
func (m *Map) Size() (nu, nv int, spacing float64) { return m.nu, m.nv, m.spacing }

// Value returns the value at grid point (i, j).
func (m *Map) Value(i, j int) float64 { return m.val[j*m.nu+i] }

// At returns the map at (u, v) [m], bilinear between grid points and held
// at the edge value outside the map.
func (m *Map) At(u, v float64) float64 {
	x := clamp(u/m.spacing, 0, float64(m.nu-1))
	y := clamp(v/m.spacing, 0, float64(m.nv-1))
	i, j := min(int(x), m.nu-2), min(int(y), m.nv-2)
	tx, ty := x-float64(i), y-float64(j)
	a := m.val[j*m.nu+i]
	b := m.val[j*m.nu+i+1]
	c := m.val[(j+1)*m.nu+i]
	d := m.val[(j+1)*m.nu+i+1]
	return (1-ty)*((1-tx)*a+tx*b) + ty*((1-tx)*c+tx*d)
}

// clamp limits x to [lo, hi]; NaN becomes lo.
func clamp(x, lo, hi float64) float64 {
	if !(x > lo) {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

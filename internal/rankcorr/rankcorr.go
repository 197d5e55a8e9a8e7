// Package rankcorr computes Spearman's rank correlation, with tied values
// ranked at the mean of the ranks they span, as scipy.stats.spearmanr
// does. It owns no state and allocates only the ranks it returns.
package rankcorr

import (
	"cmp"
	"math"
	"slices"
)

// Spearman returns the rank correlation of x and y, which have the same
// length: Pearson's correlation of their ranks. It is NaN for fewer than
// two values or when either has a single rank.
func Spearman(x, y []float64) float64 {
	if len(x) != len(y) || len(x) < 2 {
		return math.NaN()
	}
	rx, ry := Ranks(x), Ranks(y)
	n := float64(len(x))
	var mx, my float64
	for i := range rx {
		mx += rx[i] / n
		my += ry[i] / n
	}
	var sxy, sxx, syy float64
	for i := range rx {
		sxy += (rx[i] - mx) * (ry[i] - my)
		sxx += (rx[i] - mx) * (rx[i] - mx)
		syy += (ry[i] - my) * (ry[i] - my)
	}
	return sxy / math.Sqrt(sxx*syy)
}

// Ranks returns the ranks of v, from 1, tied values at the mean of the
// ranks they span.
func Ranks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(v[a], v[b]) })
	r := make([]float64, len(v))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && v[idx[j+1]] == v[idx[i]] {
			j++
		}
		for k := i; k <= j; k++ {
			r[idx[k]] = float64(i+j)/2 + 1
		}
		i = j + 1
	}
	return r
}

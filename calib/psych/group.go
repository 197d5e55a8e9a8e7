package psych

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// GroupSummary summarises a per-subject quantity (a threshold, an
// exponent, a percent correct) across subjects.
type GroupSummary struct {
	N    int     `json:"n"`
	Mean float64 `json:"mean"`
	// SD is the sample standard deviation across subjects and SEM the
	// standard error of the mean, SD/√N.
	SD  float64 `json:"sd"`
	SEM float64 `json:"sem"`
	// Interval is the t interval of the mean with N − 1 degrees of
	// freedom at coverage Level.
	Interval Interval `json:"interval"`
	Level    float64  `json:"level"`
}

// Summarise returns the mean, SD, SEM and the t interval of the mean of
// per-subject values at coverage level (0 means 0.95). It needs two
// values or more, all finite: a missing subject is left out by the
// caller, not passed as NaN.
func Summarise(values []float64, level float64) (GroupSummary, error) {
	if level == 0 {
		level = 0.95
	}
	if !(level > 0 && level < 1) {
		return GroupSummary{}, fmt.Errorf("psych: group summary: level %g outside (0, 1)", level)
	}
	if len(values) < 2 {
		return GroupSummary{}, fmt.Errorf("psych: group summary of %d values, need at least 2", len(values))
	}
	for i, v := range values {
		if !finite(v) {
			return GroupSummary{}, fmt.Errorf("psych: group summary: value %d is %g", i, v)
		}
	}
	s := GroupSummary{N: len(values), Level: level}
	s.Mean, s.SD = meanSD(values)
	s.SEM = s.SD / math.Sqrt(float64(s.N))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(s.N - 1)}.Quantile(0.5 + level/2)
	s.Interval = Interval{Lo: s.Mean - t*s.SEM, Hi: s.Mean + t*s.SEM}
	return s, nil
}

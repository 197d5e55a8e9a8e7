package psych

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Magnitude is one magnitude-estimation trial: the subject gave the
// number M to the stimulus X (the nominal value, or the cue delivered).
type Magnitude struct {
	X float64 `json:"x"`
	M float64 `json:"m"`
}

// MagnitudePoint is the geometric mean of the positive answers at one
// stimulus.
type MagnitudePoint struct {
	X       float64 `json:"x"`
	GeoMean float64 `json:"geomean"`
	N       int     `json:"n"`
}

// PowerLawFit is Stevens' power law m = Scale·x^Exponent fitted to one
// subject's magnitude estimates.
type PowerLawFit struct {
	Exponent float64 `json:"exponent"`
	// ExponentInterval is the t interval of the regression slope, with
	// Levels − 2 degrees of freedom, at coverage Level.
	ExponentInterval Interval `json:"exponent_interval"`
	ExponentSE       float64  `json:"exponent_se"`
	Scale            float64  `json:"scale"`
	// R2 is the fraction of the variance of ln(geometric mean) the line
	// explains.
	R2     float64          `json:"r2"`
	Level  float64          `json:"level"`
	Points []MagnitudePoint `json:"points"`
	// Excluded counts answers of 0 or less (nothing felt), which have no
	// logarithm and are left out of the geometric means.
	Excluded int `json:"excluded,omitempty"`
}

// FitPowerLaw fits Stevens' power law to magnitude estimates by least
// squares of ln(geometric mean answer) on ln(stimulus), one point per
// stimulus level (Stevens 1957; Gescheider 1997 ch. 13): the geometric
// mean is the estimate that the free modulus of magnitude estimation
// (each subject's own number scale) leaves unbiased, and it makes the
// fit a straight line whose slope is the exponent. level is the
// interval's coverage; 0 means 0.95. It needs at least 3 levels with a
// positive stimulus and at least one positive answer.
func FitPowerLaw(trials []Magnitude, level float64) (*PowerLawFit, error) {
	if level == 0 {
		level = 0.95
	}
	if !(level > 0 && level < 1) {
		return nil, fmt.Errorf("psych: power law: level %g outside (0, 1)", level)
	}
	fit := &PowerLawFit{Level: level}
	sums := map[float64]*MagnitudePoint{}
	for i, t := range trials {
		if !(t.X > 0) || math.IsInf(t.X, 0) {
			return nil, fmt.Errorf("psych: power law: trial %d stimulus %g not positive and finite", i, t.X)
		}
		if math.IsNaN(t.M) || math.IsInf(t.M, 0) {
			return nil, fmt.Errorf("psych: power law: trial %d answer %g not a number", i, t.M)
		}
		if t.M <= 0 {
			fit.Excluded++
			continue
		}
		p := sums[t.X]
		if p == nil {
			p = &MagnitudePoint{X: t.X}
			sums[t.X] = p
		}
		p.GeoMean += math.Log(t.M)
		p.N++
	}
	for _, p := range sums {
		p.GeoMean = math.Exp(p.GeoMean / float64(p.N))
		fit.Points = append(fit.Points, *p)
	}
	slices.SortFunc(fit.Points, func(a, b MagnitudePoint) int {
		return cmp.Compare(a.X, b.X)
	})
	l := len(fit.Points)
	if l < 3 {
		return nil, fmt.Errorf("psych: power law: %d stimulus levels with a positive answer, need at least 3", l)
	}
	var mx, my float64
	for _, p := range fit.Points {
		mx += math.Log(p.X)
		my += math.Log(p.GeoMean)
	}
	mx /= float64(l)
	my /= float64(l)
	var sxx, sxy, syy float64
	for _, p := range fit.Points {
		dx, dy := math.Log(p.X)-mx, math.Log(p.GeoMean)-my
		sxx += dx * dx
		sxy += dx * dy
		syy += dy * dy
	}
	b := sxy / sxx
	fit.Exponent = b
	fit.Scale = math.Exp(my - b*mx)
	rss := math.Max(syy-b*sxy, 0)
	if syy > 0 {
		fit.R2 = 1 - rss/syy
	}
	df := float64(l - 2)
	fit.ExponentSE = math.Sqrt(rss / df / sxx)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.5 + level/2)
	fit.ExponentInterval = Interval{Lo: b - t*fit.ExponentSE, Hi: b + t*fit.ExponentSE}
	return fit, nil
}

// MagnitudeObserver is a simulated subject of a magnitude-estimation
// experiment who follows Stevens' power law: it answers stimulus x with
// Scale·x^Exponent·exp(Sigma·ε), ε standard normal, so that ln(answer) is
// linear in ln(x) with normal noise of SD Sigma. Fed the cue a device
// delivered instead of the nominal stimulus, it perceives what reached
// the finger.
type MagnitudeObserver struct {
	Exponent float64 `json:"exponent"`
	Scale    float64 `json:"scale"`
	Sigma    float64 `json:"sigma"`
	Seed     uint64  `json:"seed"`
	RNG      rng     `json:"rng"`
}

// NewMagnitudeObserver returns a seeded magnitude-estimation observer.
func NewMagnitudeObserver(exponent, scale, sigma float64, seed uint64) (*MagnitudeObserver, error) {
	o := &MagnitudeObserver{Exponent: exponent, Scale: scale, Sigma: sigma, Seed: seed, RNG: newRNG(seed, 0x5e75)}
	return o, o.validate()
}

func (o *MagnitudeObserver) validate() error {
	if !(o.Exponent > 0 && o.Exponent < 10) {
		return fmt.Errorf("psych: magnitude observer exponent %g outside (0, 10)", o.Exponent)
	}
	if !(o.Scale > 0) || math.IsInf(o.Scale, 0) {
		return fmt.Errorf("psych: magnitude observer scale %g must be positive", o.Scale)
	}
	if !(o.Sigma >= 0 && o.Sigma < 5) {
		return fmt.Errorf("psych: magnitude observer noise %g outside [0, 5)", o.Sigma)
	}
	if o.RNG.pcg == nil {
		return fmt.Errorf("psych: magnitude observer has no random state")
	}
	return nil
}

// Respond returns the magnitude the observer gives stimulus x > 0; for
// x <= 0 or NaN (nothing felt) it returns 0.
func (o *MagnitudeObserver) Respond(x float64) float64 {
	z := o.RNG.normal()
	if !(x > 0) || math.IsInf(x, 0) {
		return 0
	}
	return o.Scale * math.Pow(x, o.Exponent) * math.Exp(o.Sigma*z)
}

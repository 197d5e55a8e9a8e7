package psych

import (
	"math"
	"slices"
	"testing"
)

// TestStaircaseRules drives staircases with fixed response sequences and
// checks the presented levels and reversals against hand-worked values.
func TestStaircaseRules(t *testing.T) {
	base := StaircaseConfig{Task: TwoAFC, Scale: Linear, Start: 10, Min: 0, Max: 20, Up: 1, Down: 2, Steps: []float64{1}, MaxTrials: 100}
	for _, tc := range []struct {
		name      string
		mod       func(*StaircaseConfig)
		responses string
		levels    []float64
		reversals []float64
		estimate  float64
	}{
		{"1u2d", nil, "++++-++-", []float64{10, 10, 9, 9, 8, 9, 9, 8}, []float64{8, 9, 8}, 8.5},
		{"weighted 1u1d r=3", func(c *StaircaseConfig) { c.Down, c.UpRatio = 1, 3 }, "+-+", []float64{10, 9, 12}, []float64{9, 12}, 10.5},
		{"steps change at reversals", func(c *StaircaseConfig) { c.Task, c.Down, c.Steps = Task{Kind: YesNo}, 1, []float64{2, 1} }, "++--+",
			[]float64{10, 8, 6, 7, 8}, []float64{6, 8}, 7},
		{"fast start then 1u3d", func(c *StaircaseConfig) { c.Down, c.FastStart = 3, true }, "++-+++", []float64{10, 9, 8, 9, 9, 9}, []float64{8, 9}, 8.5},
		{"2u1d", func(c *StaircaseConfig) { c.Task, c.Up, c.Down = Task{Kind: YesNo}, 2, 1 }, "--+-+", []float64{10, 10, 11, 10, 10}, []float64{11}, 11},
		{"clamped at max", func(c *StaircaseConfig) { c.Task, c.Start, c.Down = Task{Kind: YesNo}, 20, 1 }, "--+", []float64{20, 20, 20}, []float64{20}, 20},
		{"discard", func(c *StaircaseConfig) { c.Discard = 2 }, "++++-++-++", []float64{10, 10, 9, 9, 8, 9, 9, 8, 9, 9}, []float64{8, 9, 8, 9}, 8.5},
		{"db scale", func(c *StaircaseConfig) {
			c.Task, c.Scale, c.Start, c.Min, c.Steps, c.Down = Task{Kind: YesNo}, DB, 10, 0.01, []float64{20}, 1
		}, "+-",
			[]float64{10, 1}, []float64{0}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := base
			c.Steps = slices.Clone(base.Steps)
			if tc.mod != nil {
				tc.mod(&c)
			}
			p, err := NewStaircase(c)
			if err != nil {
				t.Fatal(err)
			}
			var levels []float64
			for _, r := range tc.responses {
				tr, err := p.Next()
				if err != nil {
					t.Fatal(err)
				}
				levels = append(levels, tr.X)
				resp := Response(0)
				if r == '+' {
					resp = 1
				}
				if err := p.Update(tr, resp); err != nil {
					t.Fatal(err)
				}
			}
			if !approxSlice(levels, tc.levels, 1e-12) {
				t.Errorf("levels %v, want %v", levels, tc.levels)
			}
			if !approxSlice(p.Reversals(), tc.reversals, 1e-12) {
				t.Errorf("reversals %v, want %v", p.Reversals(), tc.reversals)
			}
			if got := p.Estimate().Threshold; math.Abs(got-tc.estimate) > 1e-12 {
				t.Errorf("estimate %g, want %g", got, tc.estimate)
			}
		})
	}
}

func approxSlice(a, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol*math.Max(1, math.Abs(b[i])) {
			return false
		}
	}
	return true
}

func TestStaircaseTargetP(t *testing.T) {
	for _, tc := range []struct {
		up, down int
		ratio    float64
		want     float64
	}{
		{1, 1, 0, 0.5},
		{1, 2, 0, math.Sqrt(0.5)},       // Levitt 1971: 70.7%
		{1, 3, 0, math.Pow(0.5, 1.0/3)}, // 79.4%
		{2, 1, 0, 1 - math.Sqrt(0.5)},   // 29.3%
		{1, 1, 3, 0.75},                 // Kaernbach 1991
		{1, 1, kaernbachRatio(0.8, 1), 0.8},
		{1, 2, kaernbachRatio(0.85, 2), 0.85},
	} {
		c := StaircaseConfig{Up: tc.up, Down: tc.down, UpRatio: tc.ratio}
		if got := c.TargetP(); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%d-up/%d-down ratio %g: target %g, want %g", tc.up, tc.down, tc.ratio, got, tc.want)
		}
	}
	if !math.IsNaN(kaernbachRatio(1, 1)) {
		t.Error("kaernbachRatio(1, 1) is not NaN")
	}
}

// TestStaircaseConverges: with small steps and a long run, the mean level
// of a staircase sits at its target on an observer without lapses. A
// deterministic observer (the ideal limit) must reverse around the target
// exactly; a noisy one must average near it.
func TestStaircaseConverges(t *testing.T) {
	pf := must(NewPF(Logistic, 5, 0.5, 2, 0, 0))
	for _, c := range []StaircaseConfig{
		{Up: 1, Down: 1}, {Up: 1, Down: 2}, {Up: 1, Down: 3}, {Up: 1, Down: 1, UpRatio: 3}, {Up: 2, Down: 1},
	} {
		c.Task, c.Scale, c.Start, c.Min, c.Max, c.Steps, c.MaxTrials, c.Discard = Task{Kind: YesNo}, Linear, 8, 0, 10, []float64{0.05}, 20000, 10
		p, err := NewStaircase(c)
		if err != nil {
			t.Fatal(err)
		}
		o, _ := NewObserver(pf, Task{Kind: YesNo}, 1)
		run(t, p, o, math.MaxInt, false)
		want, _ := pf.Inverse(c.TargetP())
		if got := p.Estimate().Threshold; math.Abs(got-want) > 0.05 {
			t.Errorf("%d-up/%d-down r=%g: estimate %.3f, target x %.3f (p=%.3f)", c.Up, c.Down, c.ratio(), got, want, c.TargetP())
		}
	}
}

func TestStaircaseStopsOnReversals(t *testing.T) {
	p, err := NewStaircase(StaircaseConfig{Task: TwoAFC, Scale: Linear, Start: 5, Min: 0, Max: 10, Up: 1, Down: 1, UpRatio: 3,
		Steps: []float64{1}, MaxReversals: 4, MaxTrials: 1000})
	if err != nil {
		t.Fatal(err)
	}
	o, _ := NewObserver(must(NewPF(Logistic, 5, 0.5, 2, 0.5, 0)), TwoAFC, 1)
	run(t, p, o, math.MaxInt, false)
	if len(p.Reversals()) != 4 || len(p.Records()) >= 1000 {
		t.Errorf("stopped with %d reversals after %d trials", len(p.Reversals()), len(p.Records()))
	}
}

// kaernbachRatio returns the UpRatio with which a 1-up/down-down staircase
// converges on probability p, or NaN when p^down is not in (0, 1).
func kaernbachRatio(p float64, down int) float64 {
	q := math.Pow(p, float64(down))
	if !(q > 0 && q < 1) {
		return nan
	}
	return q / (1 - q)
}

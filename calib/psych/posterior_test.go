package psych

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// A log-scale staircase comes back to the same levels again and again:
// each level it presents is one value to the last bit (its grid's), the
// start is the configured stimulus itself, and a fit's data hold one point
// per level presented.
func TestStaircaseLevelsOnGrid(t *testing.T) {
	c := StaircaseConfig{Task: TwoAFC, Scale: Log10, Start: 40, Min: 2.5, Max: 160, Up: 1, Down: 2, Steps: []float64{0.2, 0.1}, MaxTrials: 200}
	p, err := NewStaircase(c)
	if err != nil {
		t.Fatal(err)
	}
	o := coverageObserver(3)
	levels := map[int]float64{}
	for !p.Done() {
		tr, err := p.Next()
		if err != nil {
			t.Fatal(err)
		}
		k := p.s.K
		if x, ok := levels[k]; ok && x != tr.X {
			t.Fatalf("grid level %d presented as %v and %v", k, x, tr.X)
		}
		levels[k] = tr.X
		if err := p.Update(tr, o.Respond(tr.X)); err != nil {
			t.Fatal(err)
		}
	}
	if p.Records()[0].X != 40 {
		t.Errorf("first stimulus %v, want exactly 40", p.Records()[0].X)
	}
	pts := Tally(p.Records())
	if len(pts) != len(levels) {
		t.Errorf("%d points for %d levels presented", len(pts), len(levels))
	}
	revisited := 0
	for i, pt := range pts {
		if i > 0 && !(pt.X > pts[i-1].X) {
			t.Errorf("points %d and %d share x = %v", i-1, i, pt.X)
		}
		if pt.N > 1 {
			revisited++
		}
		// Each level is Start·10^(0.1 k) to 12 significant digits.
		k := math.Round(10 * math.Log10(pt.X/40))
		if want := 40 * math.Pow(10, k/10); math.Abs(pt.X-want) > 1e-10*want {
			t.Errorf("level %v is not on the grid (nearest %v)", pt.X, want)
		}
	}
	if revisited < 3 {
		t.Errorf("only %d levels revisited: the test needs a staircase that comes back", revisited)
	}
}

// A step (chance below a level, always correct above) has no finite
// slope: the fit says so, in its warnings and on its plot, and its
// interval is not narrow.
func TestPosteriorWarnsOfAStep(t *testing.T) {
	var data []Point
	for i, x := range []float64{2, 3, 4, 5, 6, 8, 10, 13} {
		k := 2 // chance, 2 of 4
		if i >= 4 {
			k = 4
		}
		data = append(data, Point{X: x, K: k, N: 4})
	}
	post, err := FitPosterior(data, PosteriorOptions{Form: Weibull, Gamma: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if len(post.Warnings) == 0 || !strings.Contains(strings.Join(post.Warnings, ";"), "slope") {
		t.Fatalf("no slope warning for a step: %v", post.Warnings)
	}
	ml, err := FitPF(data, FitOptions{Form: Weibull, Gamma: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if len(ml.Warnings) == 0 && len(ml.AtBound) == 0 {
		t.Errorf("the maximum-likelihood fit of a step carries no warning: %+v", ml)
	}
	p, err := post.Plot(PlotOptions{Title: "step"})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WritePlot(&b, p, "svg"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "WARNING") || !strings.Contains(b.String(), "slope") {
		t.Error("the plot does not show the warning")
	}
}

// The posterior recovers a known function from plenty of data, its
// interval holds the truth, and a target probability's threshold is the
// function's inverse there.
func TestPosteriorRecovers(t *testing.T) {
	truth := must(NewPF(Weibull, 12, 0.5, 3, 0.5, 0.01))
	var data []Point
	for _, x := range []float64{4, 6, 8, 10, 12, 14, 17, 20, 25} {
		n := 400
		data = append(data, Point{X: x, N: n, K: int(math.Round(float64(n) * truth.Prob(x)))})
	}
	post, err := FitPosterior(data, PosteriorOptions{Form: Weibull, Gamma: 0.5, Targets: []float64{0.707}})
	if err != nil {
		t.Fatal(err)
	}
	th := post.Threshold
	if math.Abs(th.Median/12-1) > 0.02 || !(th.Lo < 12 && 12 < th.Hi) || th.Hi/th.Lo > 1.15 {
		t.Errorf("threshold %+v, truth 12", th)
	}
	want, _ := truth.Inverse(0.707)
	if at := post.AtTargets[0].Threshold; math.Abs(at.Median/want-1) > 0.03 {
		t.Errorf("70.7 %% point %+v, truth %.4g", at, want)
	}
	if math.Abs(post.PF.Threshold(0.5)-th.Median) > 1e-9*th.Median {
		t.Errorf("the plotted function's threshold %v is not the median %v", post.PF.Threshold(0.5), th.Median)
	}
}

// Twelve QUEST trials say little about the slope: the default priors keep
// the interval honest (it holds the true threshold as often as it claims,
// within the binomial spread of 40 runs) instead of reporting a step with
// a narrow interval.
func TestPosteriorTwelveQuestTrials(t *testing.T) {
	d := coverageDesign{name: "quest-12", cfg: Config{Kind: KindQuest, Quest: &QuestConfig{
		Task: TwoAFC, Form: Weibull, Beta: 3, Lambda: 0.01, Scale: Log10, Min: 2.5, Max: 160, PriorThreshold: 20, PriorSD: 0.5, MaxTrials: 12}},
		rng: [2]float64{2.5, 160}}
	covered, _ := runCoverage(t, d, 40)
	t.Logf("12-trial QUEST: %d of 40 intervals hold the threshold", covered)
	if binomialCDF(covered, 40, 0.90) < 0.005 {
		t.Errorf("12-trial QUEST: %d of 40 intervals hold the threshold", covered)
	}
}

func TestMaxTrials(t *testing.T) {
	for _, c := range []struct {
		cfg   Config
		n     int
		exact bool
	}{
		{Config{Kind: KindStaircase, Staircase: &StaircaseConfig{MaxTrials: 60}}, 60, true},
		{Config{Kind: KindStaircase, Staircase: &StaircaseConfig{MaxTrials: 60, MaxReversals: 12}}, 60, false},
		{Config{Kind: KindStaircase, Staircase: &StaircaseConfig{MaxReversals: 12}}, 0, false},
		{Config{Kind: KindConstant, Constant: &ConstantConfig{Levels: []float64{1, 2, 3}, Repeats: 5}}, 15, true},
		{Config{Kind: KindInterleaved, Interleaved: &InterleavedConfig{Tracks: []Config{
			{Kind: KindQuest, Quest: &QuestConfig{MaxTrials: 40}}, {Kind: KindQuest, Quest: &QuestConfig{MaxTrials: 40, StopSD: 1}}}}}, 80, false},
	} {
		if n, exact := MaxTrials(c.cfg); n != c.n || exact != c.exact {
			t.Errorf("%s: %d, %v; want %d, %v", c.cfg.Kind, n, exact, c.n, c.exact)
		}
	}
}

package psych

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
)

var (
	studyN   = flag.Int("psych.study", 0, "run the full simulated-observer study with this many observers per condition (1000 for the issue's figures)")
	studyOut = flag.String("psych.studyout", "", "write the full study's results as JSON to this file")
)

// condition is an observer whose threshold and slope are known.
type condition struct {
	name  string
	task  Task
	truth PF
	scale Scale
	// stimulus range, staircase start (high and low) and step sizes on
	// the scale
	min, max, hiStart, loStart float64
	steps, weightedSteps       []float64
	// what QUEST and Psi assume
	beta, betaMin, betaMax, prior, priorSD float64
}

func studyConditions() []condition {
	return []condition{
		{name: "2afc-weibull-b3.5", task: TwoAFC, truth: must(NewPF(Weibull, 10, 0.5, 3.5, 0.5, 0.01)), scale: DB,
			min: 0.5, max: 100, hiStart: 30, loStart: 5, steps: []float64{4, 2, 1}, weightedSteps: []float64{2, 1},
			beta: 3.5, betaMin: 1, betaMax: 8, prior: 20, priorSD: 10},
		{name: "2afc-weibull-b1.5", task: TwoAFC, truth: must(NewPF(Weibull, 10, 0.5, 1.5, 0.5, 0.01)), scale: DB,
			min: 0.5, max: 100, hiStart: 30, loStart: 5, steps: []float64{4, 2, 1}, weightedSteps: []float64{2, 1},
			beta: 1.5, betaMin: 0.5, betaMax: 8, prior: 20, priorSD: 10},
		{name: "yesno-logistic-curvature", task: Task{Kind: YesNo}, truth: must(NewPF(Logistic, 2.35, 0.5, 3, 0.02, 0.02)), scale: Linear,
			min: 0, max: 10, hiStart: 6.67, loStart: 0.5, steps: []float64{1, 0.5, 0.25}, weightedSteps: []float64{0.4, 0.2, 0.1},
			beta: 3, betaMin: 0.5, betaMax: 20, prior: 4, priorSD: 2},
	}
}

// procedure is one procedure configuration run on every condition.
type procedure struct {
	name string
	make func(c condition) Config
	// rmse60 names the conditions on which the procedure is held to the
	// issue's 10% threshold RMSE by 60 trials. The shallow 2AFC condition
	// is never: its Cramér–Rao bound at 60 trials is 16.9% with the slope
	// known. Psi with a flat slope prior is not held to it on the steep
	// 2AFC condition: with the slope unknown no procedure can beat 9.5%
	// there (PF.ThresholdSDBoundFreeSlope), and 1,000 observers measured
	// 9.7% ± 0.2 (variance objective), 9.9% ± 0.2 (threshold entropy) and
	// 11.5% ± 0.25 (joint), too close to 10% to claim. Told the slope
	// QUEST is told, as a log-normal prior of SD 0.35 in ln β (±42%)
	// instead of exactly, Psi is held to it (9.0% ± 0.2).
	rmse60 []string
	// suite names the conditions on which TestStudy runs the procedure;
	// nil means all. Psi's entropy objectives are slow under the race
	// detector, so the suite runs them where the claims are tested
	// and leaves the rest to the full study.
	suite []string
}

func studyProcedures() []procedure {
	stair := func(c condition, up, down int, ratio float64, steps []float64, start float64, trials, reversals int) *StaircaseConfig {
		s := &StaircaseConfig{Task: c.task, Scale: c.scale, Start: start, Min: c.min, Max: c.max, Up: up, Down: down, UpRatio: ratio,
			Steps: steps, MaxTrials: trials, MaxReversals: reversals, Discard: 3}
		if reversals > 0 {
			// Stopping on reversals: average the last 10 (with 12 and 3
			// discarded the shallow 2AFC observer gave +5.3% ± 0.7).
			s.Discard = 4
		}
		return s
	}
	psi := func(c condition, obj Objective) Config {
		return Config{Kind: KindPsi, Psi: &PsiConfig{Task: c.task, Form: c.truth.Form, Gamma: gammaOf(c), Lambda: c.truth.Lambda, Scale: c.scale,
			Min: c.min, Max: c.max, BetaMin: c.betaMin, BetaMax: c.betaMax, PriorThreshold: c.prior, PriorSD: c.priorSD,
			MaxTrials: 100, Objective: obj}}
	}
	psiSlopePrior := func(c condition) Config {
		cfg := psi(c, ObjectiveVariance)
		cfg.Psi.PriorBeta, cfg.Psi.PriorBetaSD = c.beta, 0.35
		return cfg
	}
	return []procedure{
		{name: "staircase-1u2d", make: func(c condition) Config {
			return Config{Kind: KindStaircase, Staircase: stair(c, 1, 2, 0, c.steps, c.hiStart, 100, 0)}
		}},
		{name: "staircase-1u3d", make: func(c condition) Config {
			return Config{Kind: KindStaircase, Staircase: stair(c, 1, 3, 0, c.steps, c.hiStart, 100, 0)}
		}},
		{name: "staircase-1u3d-14rev", make: func(c condition) Config {
			return Config{Kind: KindStaircase, Staircase: stair(c, 1, 3, 0, c.steps, c.hiStart, 150, 14)}
		}},
		{name: "weighted-75", make: func(c condition) Config {
			return Config{Kind: KindStaircase, Staircase: stair(c, 1, 1, 3, c.weightedSteps, c.hiStart, 100, 0)}
		}},
		{name: "interleaved-2x1u3d", make: func(c condition) Config {
			return Config{Kind: KindInterleaved, Interleaved: &InterleavedConfig{Tracks: []Config{
				{Kind: KindStaircase, Staircase: stair(c, 1, 3, 0, c.steps, c.hiStart, 50, 0)},
				{Kind: KindStaircase, Staircase: stair(c, 1, 3, 0, c.steps, c.loStart, 50, 0)},
			}}}
		}},
		{name: "quest", rmse60: []string{"2afc-weibull-b3.5", "yesno-logistic-curvature"}, make: func(c condition) Config {
			return Config{Kind: KindQuest, Quest: &QuestConfig{Task: c.task, Form: c.truth.Form, Beta: c.beta, Gamma: gammaOf(c),
				Lambda: c.truth.Lambda, Scale: c.scale, Min: c.min, Max: c.max, PriorThreshold: c.prior, PriorSD: c.priorSD, MaxTrials: 100}}
		}},
		{name: "psi-threshold", rmse60: []string{"yesno-logistic-curvature"}, make: func(c condition) Config { return psi(c, ObjectiveThreshold) },
			suite: []string{"2afc-weibull-b3.5", "yesno-logistic-curvature"}},
		{name: "psi-joint", rmse60: []string{"yesno-logistic-curvature"}, make: func(c condition) Config { return psi(c, ObjectiveJoint) },
			suite: []string{"yesno-logistic-curvature"}},
		{name: "psi-variance", rmse60: []string{"yesno-logistic-curvature"}, make: func(c condition) Config { return psi(c, ObjectiveVariance) }},
		{name: "psi-variance+slope-prior", rmse60: []string{"2afc-weibull-b3.5", "yesno-logistic-curvature"}, make: psiSlopePrior,
			suite: []string{"2afc-weibull-b3.5", "yesno-logistic-curvature"}},
	}
}

func gammaOf(c condition) float64 {
	if c.task.Kind == AFC {
		return 0
	}
	return c.truth.Gamma
}

var checkpoints = []int{10, 20, 30, 40, 60, 80, 100}

func runStudy(t *testing.T, c condition, p procedure, n int) *StudyResult {
	t.Helper()
	r, err := RunStudy(StudySpec{Name: c.name + "/" + p.name, Procedure: p.make(c), Truth: c.truth, Task: c.task,
		Observers: n, Seed: 2026, Checkpoints: checkpoints, Workers: runtime.GOMAXPROCS(0)})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func statAt(r *StudyResult, trials int) StudyStat {
	for _, s := range r.Checkpoints {
		if s.Trials == trials {
			return s
		}
	}
	return StudyStat{Bias: nan, BiasSE: nan, RMSE: nan, RMSESE: nan}
}

func rmseAt(r *StudyResult, trials int) float64 { return statAt(r, trials).RMSE }

// TestStudy validates every adaptive procedure on simulated observers of
// known threshold and slope, on a sample small enough for the test suite
// (the full 1,000-observer study runs with -psych.study=1000): final
// threshold bias within 5%, and threshold RMSE within 10% by 60 trials
// where procedure.rmse60 claims it.
func TestStudy(t *testing.T) {
	if *studyN > 0 {
		t.Skip("the full study runs in TestStudyFull")
	}
	for _, c := range studyConditions() {
		th := c.truth.Threshold(0.5)
		known, free := c.truth.ThresholdSDBound(0.5, 60)/th, c.truth.ThresholdSDBoundFreeSlope(0.5, 60)/th
		for _, p := range studyProcedures() {
			if p.suite != nil && !slices.Contains(p.suite, c.name) {
				continue
			}
			// Enough observers that the RMSE's standard error (logged) is
			// small against its margin to 10% where it is claimed: 400
			// for Psi on the steep 2AFC condition (margin under 1
			// percentage point), 100 for QUEST there (1.5) and for both
			// on yes/no (about 5). Where RMSE is not claimed, 30 model-based runs
			// test the bias (SE about 1%); the staircases are cheap. Psi's
			// marginal-entropy objective takes a logarithm per stimulus
			// and threshold, the slowest choice, so it has 30 throughout.
			claimed := slices.Contains(p.rmse60, c.name)
			n := 200
			switch {
			case p.name == "psi-threshold" || (p.make(c).Kind != KindStaircase && p.make(c).Kind != KindInterleaved && !claimed):
				n = 30
			case strings.HasPrefix(p.name, "psi") && c.name == "2afc-weibull-b3.5":
				n = 400
			case p.make(c).Kind != KindStaircase && p.make(c).Kind != KindInterleaved:
				n = 100
			}
			t.Run(c.name+"/"+p.name, func(t *testing.T) {
				r := runStudy(t, c, p, n)
				s60 := statAt(r, 60)
				t.Logf("n=%d truth %.4g: final bias %+.3f ± %.3f, RMSE %.3f; RMSE@60 %.4f ± %.4f (Cramér–Rao %.3f slope known, %.3f unknown); %.1f trials",
					n, r.Truth, r.Final.Bias, r.Final.BiasSE, r.Final.RMSE, s60.RMSE, s60.RMSESE, known, free, r.MeanTrials)
				if r.Final.N != n || abs(r.Final.Bias) > 0.05 {
					t.Errorf("final threshold bias %+.3f (%d finite estimates)", r.Final.Bias, r.Final.N)
				}
				if slices.Contains(p.rmse60, c.name) && rmseAt(r, 60) > 0.10 {
					t.Errorf("threshold RMSE at 60 trials %.3f > 10%%", rmseAt(r, 60))
				}
			})
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// misplacedSlopePrior is Psi with a slope prior that does not come from
// the condition: centred on β = 3 (the slope TactileThreshold's QUEST
// assumes for tactile detection), 15% below the steep 2AFC observer's and
// twice the shallow one's. TestStudyFull runs it on the 2AFC conditions
// to show what a wrong slope prior costs; its rows are not held to the
// bias criterion.
func misplacedSlopePrior() procedure {
	return procedure{name: "psi-variance+slope-prior(3,0.35)", make: func(c condition) Config {
		return Config{Kind: KindPsi, Psi: &PsiConfig{Task: c.task, Form: c.truth.Form, Gamma: gammaOf(c), Lambda: c.truth.Lambda,
			Scale: c.scale, Min: c.min, Max: c.max, BetaMin: c.betaMin, BetaMax: c.betaMax, PriorBeta: 3, PriorBetaSD: 0.35,
			PriorThreshold: c.prior, PriorSD: c.priorSD, MaxTrials: 100, Objective: ObjectiveVariance}}
	}}
}

// TestStudyFull is the full study: -psych.study=1000 observers per
// condition and procedure. It prints a table and, with -psych.studyout,
// writes the results as JSON. The misplaced-slope-prior rows follow the
// procedures' rows.
func TestStudyFull(t *testing.T) {
	if *studyN == 0 {
		t.Skip("run with -psych.study=1000")
	}
	var all []*StudyResult
	var sb strings.Builder
	fmt.Fprintf(&sb, "\n| condition | procedure | truth | mean trials | bias | RMSE@20 | @40 | @60 ± SE (bias) | @80 | @100 (final) | CR bound@60 slope known / unknown |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	row := func(c condition, p procedure) *StudyResult {
		r := runStudy(t, c, p, *studyN)
		all = append(all, r)
		s60 := statAt(r, 60)
		th := c.truth.Threshold(0.5)
		fmt.Fprintf(&sb, "| %s | %s | %.4g | %.1f | %+.1f%% ± %.1f | %.1f%% | %.1f%% | %.2f%% ± %.2f (%+.1f%%) | %.1f%% | %.1f%% | %.1f%% / %.1f%% |\n",
			c.name, p.name, r.Truth, r.MeanTrials, 100*r.Final.Bias, 100*r.Final.BiasSE,
			100*rmseAt(r, 20), 100*rmseAt(r, 40), 100*s60.RMSE, 100*s60.RMSESE, 100*s60.Bias, 100*rmseAt(r, 80), 100*r.Final.RMSE,
			100*c.truth.ThresholdSDBound(0.5, 60)/th, 100*c.truth.ThresholdSDBoundFreeSlope(0.5, 60)/th)
		return r
	}
	for _, c := range studyConditions() {
		for _, p := range studyProcedures() {
			r := row(c, p)
			if abs(r.Final.Bias) > 0.05 {
				t.Errorf("%s: final bias %+.3f", r.Name, r.Final.Bias)
			}
			if slices.Contains(p.rmse60, c.name) && rmseAt(r, 60) > 0.10 {
				t.Errorf("%s: threshold RMSE at 60 trials %.4f > 10%%", r.Name, rmseAt(r, 60))
			}
		}
	}
	for _, c := range studyConditions() {
		if c.task.Kind != AFC {
			continue
		}
		row(c, misplacedSlopePrior())
	}
	t.Log(sb.String())
	if *studyOut != "" {
		b, err := json.MarshalIndent(all, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(*studyOut, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestStudyWorkers: results do not depend on the number of workers.
func TestStudyWorkers(t *testing.T) {
	c, p := studyConditions()[0], studyProcedures()[4]
	spec := StudySpec{Procedure: p.make(c), Truth: c.truth, Task: c.task, Observers: 30, Seed: 1, Checkpoints: []int{10, 50}, Workers: 1}
	a, err := RunStudy(spec)
	if err != nil {
		t.Fatal(err)
	}
	spec.Workers = 3
	b, err := RunStudy(spec)
	if err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Errorf("1 worker %s\n3 workers %s", ja, jb)
	}
}

// TestScore checks the study statistics against hand computation:
// relative errors −0.1, 0, +0.2, +0.3 (and one NaN estimate, ignored).
func TestScore(t *testing.T) {
	s := score([]float64{9, 10, 12, 13, nan}, 10)
	d := []float64{-0.1, 0, 0.2, 0.3}
	mse := (0.01 + 0 + 0.04 + 0.09) / 4
	var v4 float64
	for _, x := range d {
		v4 += (x*x - mse) * (x*x - mse)
	}
	bias := 0.4 / 4
	var vb float64
	for _, x := range d {
		vb += (x - bias) * (x - bias)
	}
	want := StudyStat{N: 4, Bias: bias, BiasSE: math.Sqrt(vb / 3 / 4), RMSE: math.Sqrt(mse),
		RMSESE: math.Sqrt(v4/3/4) / (2 * math.Sqrt(mse))}
	if s.N != want.N || math.Abs(s.Bias-want.Bias) > 1e-12 || math.Abs(s.BiasSE-want.BiasSE) > 1e-12 ||
		math.Abs(s.RMSE-want.RMSE) > 1e-12 || math.Abs(s.RMSESE-want.RMSESE) > 1e-12 {
		t.Errorf("score %+v, want %+v", s, want)
	}
}

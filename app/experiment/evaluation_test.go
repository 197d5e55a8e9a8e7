package experiment

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/haptex/haptex/calib/psych"
	"github.com/haptex/haptex/internal/safefile"
)

// evaluationObserver is the simulated subject that answers an
// evaluation protocol in its dry run.
func evaluationObserver(t *testing.T, e *Experiment) Options {
	t.Helper()
	if e.Set == nil {
		return Options{CueObservers: []*psych.CueObserver{cueObserver(t, "cue:lambda=0.01,seed=7")}}
	}
	spec := map[SetKind]string{Identify: "match:lambda=0.02,seed=7", Rate: "rate:seed=7", Magnitude: "magnitude:exponent=0.7,sigma=0.3,seed=7"}[e.Set.Kind]
	o, err := ParseSetObserver(spec)
	if err != nil {
		t.Fatal(err)
	}
	return Options{SetObserver: o}
}

// Every protocol under examples/evaluation runs to completion with
// simulated observers and writes its analysis: the discrimination
// staircases' fit.json, the matching's confusion matrix, the ratings'
// real-versus-virtual analysis, the magnitude estimations' power laws.
// The short version runs each on an 8² cloth with a few trials (under
// the race detector: one of each kind, roughness only); -long runs the
// files as they are.
func TestEvaluationProtocols(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "examples", "evaluation", "*.toml"))
	if err != nil || len(files) < 8 {
		t.Fatalf("%d protocols (%v)", len(files), err)
	}
	out := t.TempDir()
	// The real ratings first, so that the virtual ones' analysis has
	// both conditions.
	files = append([]string{filepath.Join("..", "..", "examples", "evaluation", "semantic-real.toml")}, files...)
	ran := map[string]bool{}
	for _, path := range files {
		name := filepath.Base(path)
		if ran[name] {
			continue
		}
		ran[name] = true
		if raceEnabled && !*long && !strings.HasPrefix(name, "roughness") && !strings.HasPrefix(name, "semantic") &&
			!strings.HasPrefix(name, "matching") && !strings.HasPrefix(name, "magnitude-roughness") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			e, src, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			o := evaluationObserver(t, e)
			if !*long {
				e.Side = 8
				if e.Set == nil {
					e.Procedure.Staircase.MaxTrials = 6
					o.SkipStimulusCheck = true
				} else {
					shorten(e.Set)
				}
			}
			o.Experiment, o.Source, o.Path, o.Subject, o.OutDir = e, src, path, "sim01", out
			o.NoTraces, o.Force = !*long, true
			res, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			analysis := filepath.Join(res.Dir, "fit.json")
			if e.Set != nil {
				analysis = res.Analysis
			}
			b, err := safefile.ReadFile(analysis, 1<<24)
			if err != nil {
				t.Fatal(err)
			}
			var v map[string]any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatalf("%s: %v", analysis, err)
			}
			t.Logf("%s: %d trials, %s", name, res.Trials, analysis)
			if e.Set != nil && e.Set.Kind == Rate && e.Set.Condition == "virtual" && v["analysis"] == nil {
				t.Errorf("no real-versus-virtual analysis: %v", v["error"])
			}
			if e.Set != nil && e.Set.Kind == Identify && v["confusion"] == nil {
				t.Error("no confusion matrix")
			}
			if _, err := os.Stat(filepath.Join(res.Dir, "trials.csv")); err != nil {
				t.Error(err)
			}
		})
	}
}

// shorten cuts a set experiment down for the short test: two fabrics or
// three levels, one repeat, and under the race detector roughness only.
func shorten(s *Set) {
	s.Repeats = 1
	if len(s.Fabrics) > 2 {
		s.Fabrics = []string{s.Fabrics[0], s.Fabrics[len(s.Fabrics)-1]}
		if len(s.Responses) > 0 {
			s.Responses = s.Fabrics
		}
	}
	if len(s.Levels) > 3 {
		s.Levels = []float64{0, 100, 200}
	}
	if raceEnabled && s.Kind != Magnitude {
		s.Properties = []Kind{Roughness}
	}
}

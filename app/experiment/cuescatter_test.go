package experiment

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/psych"
	"github.com/haptex/haptex/devices/twin"
)

// Where the stiffness example's delivered cue at +40 % scatters from:
// the stimulus check's +40 % level alone, 20 pairs of trials, on rigs
// that differ only in the fingertip sensors' noise (its seed, or none at
// all). The runs are deterministic for a seed, so what changes from one
// seed to the next is how the noise perturbs the trajectory, not the
// noise averaged in the cue (6 mN per axis, white, averaged over 300
// ticks: 0.35 mN against about 0.17 N of loading). Each rig's mean ratio
// and its pairs' scatter (CueSD·√2, the SD of a pair's log ratio) are
// logged, and the rigs' means' scatter against what 20 pairs alone
// would give; figures in docs/experiments.md. With -long only: about 250
// intervals of the cloth.
func TestStiffnessCueScatter(t *testing.T) {
	if !*long {
		t.Skip("plays the stretch 246 times; run with -long")
	}
	const pairs = 20
	var pairSS float64
	var logs []float64
	for _, s := range sensorRigs {
		e := loadExample(t, "stiffness-2afc.toml")
		e.Procedure = psych.Config{Kind: psych.KindConstant, Constant: &psych.ConstantConfig{Task: psych.TwoAFC, Levels: []float64{40}, Repeats: 1}}
		rep, err := Check(context.Background(), CheckOptions{Experiment: e, Rig: s.rig(), Pairs: pairs})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Levels) != 1 || rep.Levels[0].Ratio == nil {
			t.Fatalf("%s: %s", s.name, rep.Reason)
		}
		l := rep.Levels[0]
		r := *l.Ratio
		t.Logf("sensor %s: +40 %% delivered %.3f (reference %.4g N/m), a pair's log ratio scatters by %.3f", s.name, r, l.CueReference, rep.CueSD*math.Sqrt2)
		logs = append(logs, math.Log(r))
		pairSS += 2 * rep.CueSD * rep.CueSD
	}
	var m, ss float64
	for _, l := range logs {
		m += l / float64(len(logs))
	}
	for _, l := range logs {
		ss += (l - m) * (l - m)
	}
	sd := math.Sqrt(ss / float64(len(logs)-1))
	t.Logf("over the %d rigs: +40 %% delivers %.3f, the rigs' log ratios scatter by %.3f (%d pairs alone: %.3f)", len(logs), math.Exp(m), sd, pairs, math.Sqrt(pairSS/float64(len(logs))/pairs))
	// The stimulus reaches the finger: about 1.3, and no rig at 1.
	if math.Exp(m) < 1.2 || sd > 0.15 {
		t.Errorf("+40 %% delivers %.3f on average, the rigs scatter by %.3f: want at least 1.2 and at most 0.15", math.Exp(m), sd)
	}
}

// sensorRig is a rig that differs from the default only in its fingertip
// sensors' noise: its seed, or none at all.
type sensorRig struct {
	name  string
	seed  uint64
	noise bool
}

func (s sensorRig) rig() rig.Config {
	p := twin.DefaultExoParams()
	p.Seed = s.seed
	if !s.noise {
		p.Sensor.NoiseRMS = 0
	}
	return rig.Config{ExoParams: p}
}

// sensorRigs are the rigs the stiffness example's cue is measured on.
var sensorRigs = []sensorRig{{"seed 1 (the default)", 1, true}, {"seed 1, no noise", 1, false}, {"seed 3", 3, true}, {"seed 7", 7, true}, {"seed 11", 11, true}, {"seed 13", 13, true}}

// The stiffness example's full stimulus check, as haptex experiment check
// runs it, on the rigs of TestStiffnessCueScatter: valid on each, with
// the stimulus reaching the finger at +40 % (the level the example's
// staircase starts at: above 1.2, where a stimulus lost on the way
// reads about 1). Builds that differ only by rounding play the stretches
// along other trajectories as another seed does, so this is the check's
// reading from one build to the next; each rig's +40 % reading, the
// curve's value there, the cue's spread and the predicted threshold
// (W 0.15) are logged, figures in docs/experiments.md. It does not hold
// the reading to 1.3: the example delivers about 1.325 there, and four
// pairs scatter by about 0.05 in log, so some builds read below. With
// -long only: six full checks.
func TestStiffnessCheckAcrossRigs(t *testing.T) {
	if !*long {
		t.Skip("runs the stiffness example's full check on six rigs; run with -long")
	}
	for _, s := range sensorRigs {
		e := loadExample(t, "stiffness-2afc.toml")
		rep, err := Check(context.Background(), CheckOptions{Experiment: e, Rig: s.rig()})
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(rep.Levels, func(l LevelCue) bool { return l.X == 40 })
		if i < 0 || rep.Levels[i].Ratio == nil {
			t.Fatalf("%s: +40 %% not checked: %+v, %s", s.name, rep.Levels, rep.Reason)
		}
		r := *rep.Levels[i].Ratio
		u := math.Log(rep.gain(40))
		t.Logf("sensor %s: +40 %% reads %.3f (the curve %.3f), cue_sd %.3f, predicted threshold for W 0.15 %.3g %%, valid %v",
			s.name, r, math.Exp(rep.Curve[0]*u+rep.Curve[1]*u*u), rep.CueSD, rep.Predict(0.15), rep.Valid)
		if !rep.Valid || r < 1.2 {
			t.Errorf("sensor %s: +40 %% reads %.3f, want above 1.2 (valid %v: %s)", s.name, r, rep.Valid, rep.Reason)
		}
	}
}

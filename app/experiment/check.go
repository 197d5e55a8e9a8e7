package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/kes"
	"github.com/haptex/haptex/calib/psych"
	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/sim"
	"gonum.org/v1/gonum/stat/distuv"
)

// StimulusReport is what the stimulus check found: per level, the cue the
// reference and the test interval delivered (see Cue), and whether the
// experiment's largest level delivers a contrast a person can discriminate.
type StimulusReport struct {
	Experiment string     `json:"experiment"`
	Dimension  Kind       `json:"dimension"`
	Motion     string     `json:"motion"`
	Cue        string     `json:"cue"`
	Unit       string     `json:"unit"`
	XUnit      string     `json:"x_unit"`
	Stream     int        `json:"stream"`
	Levels     []LevelCue `json:"levels"`
	// Weber is the cue's discrimination threshold used for the verdict.
	Weber float64 `json:"weber"`
	// Efficiency is how much of the stimulus reaches the cue: the
	// exponent a of the power law the contrasts are fitted with,
	// (c_test + f)/(c_reference + f) = gain(x)^a, where gain(x) is the
	// factor the stimulus scales its physical quantity by (1 + x/100 for
	// stiffness and force, 10^(x/20) for a level in dB); 1 is all of it.
	// For a detection cue it is the slope of the test cue against x
	// (the cue unit per x unit).
	Efficiency float64 `json:"efficiency"`
	// CueSD is the standard deviation of ln(cue + f) from one interval to
	// the next at the same level, from the check's trials about their
	// level's mean: how much what is delivered varies by itself.
	CueSD float64 `json:"cue_sd"`
	// DetectableFromX is the smallest level whose delivered contrast a
	// person of Weber fraction Weber discriminates (see Predict); null
	// when it lies beyond the largest level.
	DetectableFromX *float64 `json:"detectable_from_x"`
	// Prediction says how DetectableFromX was found: "curve" from Curve,
	// or "power law" (Efficiency) when the curve does not reach the
	// contrast within the largest checked level but the power law does;
	// empty when DetectableFromX is null.
	Prediction string `json:"prediction,omitempty"`
	// Curve is the delivered contrast as a curve that may bend, fitted
	// over every trial: ln(1 + c) = a·u + b·u², u = ln gain(x), so that
	// the efficiency near the threshold is the one delivered there, a +
	// 2b·u, rather than one fitted over the whole range (b = 0 is the
	// power law); for a detection cue the test cue against x,
	// c_test = a·x + b·x².
	Curve [2]float64 `json:"curve"`
	// DetectableFromXCI is a 95 % interval of DetectableFromX: the 2.5th
	// and 97.5th percentiles of the level predicted from the check's
	// trials resampled within each level (see detectableCI). An end is
	// null when more than 2.5 % of the resamples reach the contrast at no
	// checked level (the upper end first); both are null with fewer than
	// two levels.
	DetectableFromXCI [2]*float64 `json:"detectable_from_x_ci"`
	// DetectableFromXPowerLaw is the level the power law alone predicts
	// (see PredictPowerLaw), for comparison; null beyond the largest level.
	DetectableFromXPowerLaw *float64 `json:"detectable_from_x_power_law"`
	Valid                   bool     `json:"valid"`
	Reason                  string   `json:"reason,omitempty"`
	// KES names the KES quantity the dimension scales and the reference
	// fabric's value of it (absent for the dimensions that scale none);
	// each level's KES is the test fabric's value.
	KES *KESLevel `json:"kes,omitempty"`
	// Streams holds the reports of an interleaved experiment's other
	// streams (its first stream's is this one).
	Streams []*StimulusReport `json:"streams,omitempty"`
	// ExperimentSHA256 and FabricSHA256 identify what a run's check
	// checked: the experiment file and the fabric's definition. A run
	// takes up a recorded check only for the same two.
	ExperimentSHA256 string `json:"experiment_sha256,omitempty"`
	FabricSHA256     string `json:"fabric_sha256,omitempty"`

	cue   *Cue
	scale psych.Scale
	gain  gainFunc
	// cueDoF is CueSD's degrees of freedom: the trials less one per level.
	cueDoF int
}

// LevelCue is one checked level. Ratio is CueTest / CueReference (null
// when the reference delivered nothing); Contrast is the cue's contrast
// (Cue.Contrast) at Weber.
type LevelCue struct {
	X            float64  `json:"x"`
	CueReference float64  `json:"cue_reference"`
	CueTest      float64  `json:"cue_test"`
	Ratio        *float64 `json:"ratio"`
	Contrast     float64  `json:"contrast"`
	// ContrastCI is a 95 % interval of Contrast from the delivered cue's
	// own variation (see levelIntervals); null when the check has no
	// spread to bound it with (one trial per level) or the level's cue is
	// not positive.
	ContrastCI *[2]float64 `json:"contrast_ci"`
	// KES is the test fabric's value of the dimension's KES quantity.
	KES *float64 `json:"kes,omitempty"`
}

// CheckOptions configure Check.
type CheckOptions struct {
	Experiment *Experiment
	Library    kes.Library
	// Rig is the base configuration; the check runs on its simulated
	// twins in virtual time whatever devices it names.
	Rig rig.Config
	// Weber replaces the cue's discrimination threshold (0: the cue's).
	Weber float64
	// Levels is how many levels spread over each stream's range (0: 6),
	// besides a staircase's start; 1 checks the largest level alone (a
	// verdict without a threshold prediction).
	Levels int
	// Pairs is how many trials the check runs per level, the test
	// interval second and first in turn (0: 4).
	Pairs int
	// NoWarmup leaves out the reference interval the check plays first,
	// unmeasured (see Check), for a test that checks something its first
	// interval does not bias and runs the check for its time.
	NoWarmup bool
	// Extremes: an identification or rating set's check (CheckFabrics)
	// handles, per property, only the fabrics of the smallest and the
	// largest KES value, the two its verdict compares.
	Extremes bool
}

// Check runs the stimulus check: the experiment's motion, in virtual time
// on the simulated devices, once at the reference unmeasured, then at the
// reference and at a spread of levels over each stream's range (and a
// staircase's start): per level checkPairs trials with the experiment's
// timing, the test interval second and first in turn, and the cues of
// each role averaged. It measures the cue each interval delivered and judges the
// experiment: valid when its largest level delivers a contrast of at least
// twice the cue's Weber fraction (the contrast at the largest level from a
// power law fitted over every checked level, see Efficiency). An error means the check could not run;
// an invalid experiment is a report with Valid false and a Reason.
func Check(ctx context.Context, o CheckOptions) (*StimulusReport, error) {
	e := o.Experiment
	if e == nil {
		return nil, fmt.Errorf("experiment: check: no experiment")
	}
	n := o.Levels
	if n == 0 {
		n = 6
	}
	spans := psych.SpanOf(e.Procedure)
	if len(spans) == 0 {
		return nil, fmt.Errorf("experiment: check: procedure %q has no stimulus range", e.Procedure.Kind)
	}
	base := o.Rig
	base.Exos, base.Tactile, base.OpenDevices = [sim.NumFingers]devices.Exoskeleton{}, [sim.NumFingers]devices.TactileArray{}, nil
	base.OutDir, base.RecordDevices, base.Logf = "", false, nil
	f, err := e.LoadFabric(o.Library)
	if err != nil {
		return nil, err
	}
	cfg, err := rigConfig(e, base, f)
	if err != nil {
		return nil, err
	}
	var reports []*StimulusReport
	for stream, sp := range spans {
		if stream > 0 && e.Stimulus.Kind != TactileTone {
			// The other tracks present the same stimulus: one check holds
			// for all.
			break
		}
		pairs := o.Pairs
		if pairs == 0 {
			pairs = checkPairs
		}
		rep, err := checkStream(ctx, e, cfg, stream, sp, n, pairs, !o.NoWarmup, o.Weber)
		if err != nil {
			return nil, err
		}
		reports = append(reports, rep)
	}
	top := reports[0]
	if len(reports) > 1 {
		top.Streams = reports[1:]
		for _, r := range reports[1:] {
			if !r.Valid && top.Valid {
				top.Valid, top.Reason = false, r.Reason
			}
		}
	}
	return top, nil
}

// checkLevels spreads n levels over a span on its scale, adds the start,
// and for constant stimuli takes the design's own levels (at most n+2);
// n = 1 is the span's largest level alone, the one the verdict is on.
func checkLevels(sp psych.Span, n int) []float64 {
	if n == 1 {
		return []float64{sp.Max}
	}
	var xs []float64
	if len(sp.Levels) > 0 && len(sp.Levels) <= n+2 {
		return slices.Clone(sp.Levels)
	}
	lo, hi := sp.Scale.Level(sp.Min), sp.Scale.Level(sp.Max)
	if sp.Scale != psych.Linear && sp.Min <= 0 {
		lo = sp.Scale.Level(sp.Max / 100)
	}
	for i := range n {
		x := sp.Scale.Stimulus(lo + (hi-lo)*float64(i)/float64(n-1))
		switch i {
		case 0:
			x = math.Max(sp.Min, x)
		case n - 1:
			x = sp.Max
		}
		xs = append(xs, roundLevel(x))
	}
	if !math.IsNaN(sp.Start) {
		xs = append(xs, sp.Start)
	}
	slices.Sort(xs)
	return slices.Compact(xs)
}

// roundLevel rounds a checked level to 4 significant digits.
func roundLevel(x float64) float64 {
	if x == 0 {
		return 0
	}
	p := math.Pow(10, 3-math.Floor(math.Log10(math.Abs(x))))
	return math.Round(x*p) / p
}

// lockstepRig builds a rig of configuration cfg playing the experiment's
// motion in virtual time, holds the fingers at the motion's start and
// settles the grip as a run does, so that the first interval played on it
// starts as every other one. The caller owns the lockstep and finishes it.
func lockstepRig(ctx context.Context, e *Experiment, cfg rig.Config) (*rig.Rig, *rig.Stepper, *twin.Script, error) {
	script := motions[e.Timing.Motion].script(cfg.Scene)
	cfg.Script = script
	r, err := rig.New(cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	s, err := r.Lockstep()
	if err != nil {
		return nil, nil, nil, err
	}
	if err := e.withinLimits(r); err != nil {
		s.Finish()
		return nil, nil, nil, err
	}
	if err := r.HoldMotion(script); err != nil {
		s.Finish()
		return nil, nil, nil, err
	}
	if err := settleRig(ctx, r, &lockstepDriver{s: s}, script, e.Timing.Interval, func() {}); err != nil {
		s.Finish()
		return nil, nil, nil, err
	}
	return r, s, script, nil
}

func checkStream(ctx context.Context, e *Experiment, cfg rig.Config, stream int, sp psych.Span, n, pairs int, warmup bool, weber float64) (*StimulusReport, error) {
	dim := dimensions[e.Stimulus.Kind]
	cue := dim.cue
	if weber == 0 {
		weber = cue.Weber
	}
	rep := &StimulusReport{Experiment: e.Name, Dimension: e.Stimulus.Kind, Motion: e.Timing.Motion, Cue: cue.Name, Unit: cue.Unit,
		XUnit: e.Stimulus.Unit, Stream: stream, Weber: weber, cue: cue, scale: sp.Scale, gain: dim.gain}
	r, s, script, err := lockstepRig(ctx, e, cfg)
	if err != nil {
		return nil, fmt.Errorf("experiment: check: %w", err)
	}
	defer s.Finish()
	stim := newStimulus(e, r, cfg.Fabric)
	tr := r.NewIntervalTrace(e.Timing.Interval)
	interval := func(x float64) (float64, error) {
		if err := stim.set(r, x, stream); err != nil {
			return 0, err
		}
		s.Advance(e.Timing.Gap)
		if err := r.BeginTracedInterval(tr); err != nil {
			return 0, err
		}
		s.Advance(e.Timing.Interval)
		ch, err := r.EndInterval()
		if err != nil {
			return 0, err
		}
		s.Advance(50 * time.Millisecond)
		if why := undelivered([]rig.IntervalStats{<-ch}, func(int) string { return "the interval" }, e.needs()); why != "" {
			return 0, fmt.Errorf("%w on the simulated devices (%s)", ErrNotDelivered, why)
		}
		return measureCue(cue, tr, script)
	}
	// refuse says why the check stops at level at ("the reference" or a
	// level with its unit), whose interval failed with err.
	refuse := func(at string, err error) *StimulusReport {
		if errors.Is(err, ErrNotDelivered) {
			rep.Reason = fmt.Sprintf("stimulus check: at %s: %v", at, err)
		} else {
			rep.Reason = fmt.Sprintf("stimulus check: %s cannot be measured at %s with motion %q: %v (%s)", cue.Name, at, e.Timing.Motion, err, unmeasurable(e, dim, script, err))
		}
		return rep
	}
	var trials []checkTrial
	s.Advance(e.Timing.ITI)
	// One reference interval first, unmeasured: the first interval after
	// the grip settles delivers a cue of its own (the fabric's first
	// stretch from rest: on magnitude-tensile 339 N/m where the later
	// ones measured 1,172-1,311), which would otherwise land in the first
	// level's first trial and in the spread of the cue (CueSD).
	if warmup {
		if _, err := interval(0); err != nil {
			return refuse("the reference", err), nil
		}
		s.Advance(e.Timing.ITI)
	}
	for _, x := range checkLevels(sp, n) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// Trials per level alternate the test second and first, so that
		// what comes first in a trial weighs on both; the cues averaged.
		var cr, ct float64
		cues := make([][2]float64, pairs)
		for pair := range pairs {
			for k := range 2 {
				isTest := k == pair%2
				lx := 0.0
				if isTest {
					lx = x
				}
				c, err := interval(lx)
				if err != nil {
					return refuse(fmt.Sprintf("%g %s", lx, e.Stimulus.Unit), err), nil
				}
				if isTest {
					ct += c / float64(pairs)
					cues[pair][1] = c
				} else {
					cr += c / float64(pairs)
					cues[pair][0] = c
				}
			}
			s.Advance(e.Timing.ITI)
		}
		for _, p := range cues {
			trials = append(trials, checkTrial{x: x, ref: p[0], test: p[1]})
		}
		lc := LevelCue{X: x, CueReference: cr, CueTest: ct, Contrast: cue.Contrast(ct, cr, weber)}
		if cr > 0 {
			ratio := ct / cr
			lc.Ratio = &ratio
		}
		if l, ok, err := KESLevelOf(e, stim.fab, x); err != nil {
			return nil, err
		} else if ok {
			lc.KES = &l.Test
			if rep.KES == nil {
				ref := l
				ref.X, ref.Test, ref.Weber = 0, l.Reference, 0
				rep.KES = &ref
			}
		}
		rep.Levels = append(rep.Levels, lc)
	}
	rep.fit(trials, weber)
	rep.levelIntervals(trials, weber)
	if d, how := rep.predict(weber); !math.IsNaN(d) {
		rep.DetectableFromX, rep.Prediction = &d, how
	}
	rep.DetectableFromXCI = rep.detectableCI(trials, weber)
	if d := rep.PredictPowerLaw(weber); !math.IsNaN(d) {
		rep.DetectableFromXPowerLaw = &d
	}
	last := rep.Levels[len(rep.Levels)-1]
	top := rep.modelContrast(last.X, weber)
	if top >= 2*weber {
		rep.Valid = true
		return rep, nil
	}
	rep.Reason = fmt.Sprintf("stimulus check: at the largest level (%g %s) the delivered %s is %.3g %s against %.3g %s, a contrast of %.1f %% (fitted over all levels), below twice its Weber fraction of %.0f %%: %s",
		last.X, e.Stimulus.Unit, cue.Name, last.CueTest, cue.Unit, last.CueReference, cue.Unit, 100*top, 100*weber, remedy(e, dim))
	return rep, nil
}

// checkPairs is how many trials the check runs per level by default.
const checkPairs = 4

// remedy says what would make the stimulus reach the finger.
func remedy(e *Experiment, dim dimension) string {
	var s []string
	if e.Timing.Motion != dim.motion {
		s = append(s, fmt.Sprintf("use motion = %q, which delivers %s", dim.motion, e.Stimulus.Kind))
	}
	s = append(s, "raise the procedure's maximum")
	if e.Stimulus.Kind == Stiffness || e.Stimulus.Kind == TactileLevel {
		s = append(s, "or choose a fabric whose difference the motion conveys")
	}
	return strings.Join(s, ", ")
}

// unmeasurable says what would let the cue be measured after err.
func unmeasurable(e *Experiment, dim dimension, script *twin.Script, err error) string {
	if d, ok := dim.cue.Needs(script); ok && errors.Is(err, errIntervalShort) {
		return fmt.Sprintf("set timing.interval_s to at least %.3g s, or leave it out for the motion's %.3g s", d.Seconds(), script.Duration().Seconds())
	}
	if e.Timing.Motion != dim.motion {
		return fmt.Sprintf("use motion = %q", dim.motion)
	}
	return fmt.Sprintf("motion %q is the one that delivers %s: the rig's scene or the fabric does not let it", dim.motion, e.Stimulus.Kind)
}

// checkTrial is one of the check's trials: its level and the cues of its
// reference and test intervals.
type checkTrial struct{ x, ref, test float64 }

// fit sets Efficiency, Curve and CueSD from the check's trials (see their
// docs): the power law by least squares through the origin on the logarithms,
// pooling every trial of every level, and the spread of the trials about
// their level's mean.
func (r *StimulusReport) fit(trials []checkTrial, w float64) {
	f := r.cue.Floor(w)
	var sxx, sxy float64
	for _, t := range trials {
		if r.cue.Absolute > 0 {
			sxx, sxy = sxx+t.x*t.x, sxy+t.x*t.test
			continue
		}
		g := math.Log(r.gain(t.x))
		if !(t.ref+f > 0) || !(t.test+f > 0) {
			continue
		}
		sxx, sxy = sxx+g*g, sxy+g*math.Log((t.test+f)/(t.ref+f))
	}
	if sxx > 0 {
		r.Efficiency = sxy / sxx
	}
	r.fitCurve(trials, f)
	// The spread: of the pairs' log ratios about their level's mean (both
	// roles vary, and a pair's log ratio holds two intervals' variation),
	// or for a detection cue, whose reference delivers nothing, of the
	// test cues' logarithms. About the level's mean rather than the power
	// law, so that a law that fits some levels worse than others does not
	// count as variation the observer sees.
	byLevel := map[float64][]float64{}
	for _, t := range trials {
		switch {
		case r.cue.Absolute > 0 && t.test > 0:
			byLevel[t.x] = append(byLevel[t.x], math.Log(t.test))
		case r.cue.Absolute == 0 && t.ref+f > 0 && t.test+f > 0:
			byLevel[t.x] = append(byLevel[t.x], math.Log((t.test+f)/(t.ref+f))/math.Sqrt2)
		}
	}
	var ss float64
	dof := 0
	for _, es := range byLevel {
		var m float64
		for _, e := range es {
			m += e / float64(len(es))
		}
		for _, e := range es {
			ss += (e - m) * (e - m)
		}
		dof += len(es) - 1
	}
	if dof > 0 {
		r.CueSD = math.Sqrt(ss / float64(dof))
	}
	r.cueDoF = dof
}

// levelIntervals sets each level's ContrastCI: ln(1 + c) ± t·s/√n, n the
// level's trials, s the spread of one trial's log contrast (√2·CueSD, a
// ratio of two intervals), t Student's 97.5 % quantile on CueSD's degrees
// of freedom, pooled over every level so that four trials a level still
// bound their mean. For a detection cue the test cue's mean is scaled by
// exp(±t·CueSD/√n) and the contrast taken of that. A level whose interval
// holds zero delivered no contrast the check can tell from the cue's own
// variation, whatever its mean says.
func (r *StimulusReport) levelIntervals(trials []checkTrial, w float64) {
	if r.cueDoF < 1 {
		return
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(r.cueDoF)}.Quantile(0.975)
	for i := range r.Levels {
		l := &r.Levels[i]
		n := 0
		for _, tr := range trials {
			if tr.x == l.X {
				n++
			}
		}
		if n == 0 {
			continue
		}
		h := t * r.CueSD / math.Sqrt(float64(n))
		switch {
		case r.cue.Absolute > 0 && l.CueTest > 0:
			l.ContrastCI = &[2]float64{r.cue.Contrast(l.CueTest*math.Exp(-h), l.CueReference, w), r.cue.Contrast(l.CueTest*math.Exp(h), l.CueReference, w)}
		case r.cue.Absolute == 0 && l.Contrast > -1:
			v := math.Log1p(l.Contrast)
			h *= math.Sqrt2
			l.ContrastCI = &[2]float64{math.Expm1(v - h), math.Expm1(v + h)}
		}
	}
}

// DetectableFrom says, for a person, from which level the delivered
// contrast is discriminated (DetectableFromX, how it was found, and its
// interval), levels in unit.
func (r *StimulusReport) DetectableFrom(unit string) string {
	at := func(x *float64) string {
		if x == nil {
			return "beyond the checked levels"
		}
		return fmt.Sprintf("%.3g %s", *x, unit)
	}
	s := "no checked level"
	if r.DetectableFromX != nil {
		s = fmt.Sprintf("%s (%s", at(r.DetectableFromX), r.Prediction)
		if ci := r.DetectableFromXCI; ci[0] != nil {
			s += fmt.Sprintf("; 95 %% interval %s to %s", at(ci[0]), at(ci[1]))
		}
		s += ")"
	}
	return s
}

// ciResamples is how many resamples detectableCI draws.
const ciResamples = 400

// detectableCI returns a bootstrap 95 % interval of the predicted level
// (Predict): the check's trials resampled with replacement within each
// level, as many per level as it ran, each resample fitted and predicted
// afresh, its CueSD included, and the 2.5th and 97.5th percentiles taken.
// A resample that reaches the contrast at no checked level counts as
// beyond the largest; an end beyond it is nil. A resample of n trials
// spreads by √((n − 1)/n) of the trials' own spread, which with the
// check's four trials a level made the interval cover the true level in
// 87 % of simulated checks (TestDetectableCICovers): each resampled trial
// keeps its level's mean and has its deviation from it scaled by
// √(n/(n − 1)), in the logarithm of what the fit reads (the log contrast
// of a discrimination cue, the log test cue of a detection cue). The
// generator's seed is fixed, so a check's report is reproducible.
func (r *StimulusReport) detectableCI(trials []checkTrial, w float64) (ci [2]*float64) {
	if len(r.Levels) < 2 {
		return ci
	}
	f := r.cue.Floor(w)
	// logOf is what the fit reads of a trial, as a logarithm, and trial
	// builds a trial at level x that reads l.
	logOf := func(t checkTrial) (float64, bool) {
		if r.cue.Absolute > 0 {
			return math.Log(t.test), t.test > 0
		}
		return math.Log((t.test + f) / (t.ref + f)), t.ref+f > 0 && t.test+f > 0
	}
	trial := func(x, l float64) checkTrial {
		if r.cue.Absolute > 0 {
			return checkTrial{x: x, test: math.Exp(l)}
		}
		return checkTrial{x: x, ref: 1, test: (1+f)*math.Exp(l) - f}
	}
	type level struct {
		x, mean float64
		logs    []float64
	}
	var levels []level
	for _, t := range trials {
		l, ok := logOf(t)
		if !ok {
			continue
		}
		i := slices.IndexFunc(levels, func(v level) bool { return v.x == t.x })
		if i < 0 {
			levels = append(levels, level{x: t.x})
			i = len(levels) - 1
		}
		levels[i].logs = append(levels[i].logs, l)
	}
	for i := range levels {
		for _, l := range levels[i].logs {
			levels[i].mean += l / float64(len(levels[i].logs))
		}
	}
	rng := rand.New(rand.NewPCG(1, 0xc1))
	xs := make([]float64, 0, ciResamples)
	re := make([]checkTrial, 0, len(trials))
	for range ciResamples {
		re = re[:0]
		for _, v := range levels {
			n := float64(len(v.logs))
			k := 1.0
			if n > 1 {
				k = math.Sqrt(n / (n - 1))
			}
			for range v.logs {
				l := v.logs[rng.IntN(len(v.logs))]
				re = append(re, trial(v.x, v.mean+k*(l-v.mean)))
			}
		}
		b := StimulusReport{Levels: r.Levels, cue: r.cue, scale: r.scale, gain: r.gain}
		b.fit(re, w)
		x, _ := b.predict(w)
		if math.IsNaN(x) {
			x = math.Inf(1)
		}
		xs = append(xs, x)
	}
	slices.Sort(xs)
	for i, p := range []float64{0.025, 0.975} {
		if x := xs[int(math.Round(p*float64(len(xs)-1)))]; !math.IsInf(x, 1) {
			ci[i] = &x
		}
	}
	return ci
}

// modelContrast is the fitted contrast at level x, for Weber fraction w.
func (r *StimulusReport) modelContrast(x, w float64) float64 {
	if r.cue.Absolute > 0 {
		return r.Efficiency * x / r.cue.Floor(w)
	}
	return math.Pow(r.gain(x), r.Efficiency) - 1
}

// Predict returns the level a cue observer of Weber fraction w should
// find as its threshold (75 % correct in 2AFC, F = 0.5): the level whose
// delivered contrast it discriminates. Its own noise σ_w (see
// psych.CueObserver) adds to the delivered cue's variation from interval
// to interval (CueSD), so the contrast it needs is
// ln(1 + c) = ln(1 + w)·√(1 + (CueSD/σ_w)²). The level is where Curve
// reaches it, or where the power law does when the curve does not within
// the largest checked level (see PredictPowerLaw). NaN when neither
// reaches it there.
func (r *StimulusReport) Predict(w float64) float64 {
	x, _ := r.predict(w)
	return x
}

// predict is Predict, with how the level was found: "curve" or
// "power law" (empty with NaN).
func (r *StimulusReport) predict(w float64) (float64, string) {
	if x, ok := r.crossing(w); ok {
		return x, "curve"
	}
	if x := r.PredictPowerLaw(w); !math.IsNaN(x) {
		return x, "power law"
	}
	return math.NaN(), ""
}

// need returns the log contrast ln(1 + c) a cue observer of Weber
// fraction w discriminates at F = 0.5 through the cue's own variation.
func (r *StimulusReport) need(w float64) float64 {
	sigmaW := math.Log1p(w) / (math.Sqrt2 * 0.6744897501960817)
	return math.Log1p(w) * math.Sqrt(1+(r.CueSD/sigmaW)*(r.CueSD/sigmaW))
}

// PredictPowerLaw is Predict from the power law alone (Efficiency): the
// level where the fitted contrast reaches what the observer needs. NaN
// when the stimulus does not grow the cue or the level lies beyond the
// largest checked level.
func (r *StimulusReport) PredictPowerLaw(w float64) float64 {
	need := r.need(w)
	if !(r.Efficiency > 0) || len(r.Levels) == 0 {
		return math.NaN()
	}
	var x float64
	if r.cue.Absolute > 0 {
		x = math.Expm1(need) * r.cue.Floor(w) / r.Efficiency
	} else {
		x = r.gain.inverse(math.Exp(need / r.Efficiency))
	}
	if !(x <= r.Levels[len(r.Levels)-1].X) {
		return math.NaN()
	}
	return x
}

// curveCoords returns a checked trial's coordinates for the curve: u, the
// level's, and v, what its cues delivered. For a discrimination cue
// u = ln gain(x) and v = ln((test + f)/(reference + f)) = ln(1 + c), in
// which the power law is the line v = Efficiency·u; for a detection cue
// u = x and v the test cue, which the contrast is v/f of. ok is false
// for a trial that delivered nothing to compare.
func (r *StimulusReport) curveCoords(t checkTrial, f float64) (u, v float64, ok bool) {
	if r.cue.Absolute > 0 {
		return t.x, t.test, t.x > 0 && !math.IsNaN(t.test)
	}
	if !(t.ref+f > 0) || !(t.test+f > 0) {
		return 0, 0, false
	}
	return math.Log(r.gain(t.x)), math.Log((t.test + f) / (t.ref + f)), t.x > 0
}

// fitCurve sets Curve from the check's trials: v = a·u + b·u² (see
// curveCoords) by least squares over every trial, so that the local
// efficiency a + 2b·u may change with the level. Left zero when fewer
// than two levels delivered a cue.
func (r *StimulusReport) fitCurve(trials []checkTrial, f float64) {
	var s2, s3, s4, b1, b2 float64
	levels := map[float64]bool{}
	for _, t := range trials {
		u, v, ok := r.curveCoords(t, f)
		if !ok {
			continue
		}
		levels[t.x] = true
		s2, s3, s4 = s2+u*u, s3+u*u*u, s4+u*u*u*u
		b1, b2 = b1+u*v, b2+u*u*v
	}
	det := s2*s4 - s3*s3
	if len(levels) < 2 || !(det > 0) {
		return
	}
	r.Curve = [2]float64{(b1*s4 - b2*s3) / det, (s2*b2 - s3*b1) / det}
}

// crossing returns the level where the fitted curve (Curve) reaches the
// contrast the observer of Weber fraction w needs: the smallest u > 0 with
// a·u + b·u² = need, on the curve's rising part. ok is false when the
// curve does not rise from the reference or does not reach the contrast
// within the largest checked level.
func (r *StimulusReport) crossing(w float64) (x float64, ok bool) {
	a, b := r.Curve[0], r.Curve[1]
	if !(a > 0) || len(r.Levels) == 0 {
		return math.NaN(), false
	}
	need := r.need(w)
	if r.cue.Absolute > 0 {
		need = math.Expm1(need) * r.cue.Floor(w)
	}
	u := need / a
	if b != 0 {
		disc := a*a + 4*b*need
		if disc < 0 {
			return math.NaN(), false // the curve turns before it gets there
		}
		u = 2 * need / (a + math.Sqrt(disc))
	}
	x = u
	if r.cue.Absolute == 0 {
		x = r.gain.inverse(math.Exp(u))
	}
	if !(x <= r.Levels[len(r.Levels)-1].X) {
		return math.NaN(), false
	}
	return x, true
}

// checkOf returns the stimulus check's report for a stream: a tone's
// streams each have their own, the other dimensions' streams present the
// same stimulus and share the first's; nil without a check.
func (run *runner) checkOf(stream int) *StimulusReport {
	rep := run.check
	if rep != nil && stream > 0 && len(rep.Streams) > 0 {
		if stream > len(rep.Streams) {
			return nil
		}
		rep = rep.Streams[stream-1]
	}
	return rep
}

// stimulusCheck runs the discrimination's check before its first trial
// (checkBeforeTrials).
func (run *runner) stimulusCheck(ctx context.Context) error {
	fab, err := run.fabricInfo(run.fab)
	if err != nil {
		return err
	}
	rec, err := run.checkBeforeTrials(ctx, fab.SHA256, run.cue.Name+" over the procedure's range", &StimulusReport{}, func(ctx context.Context) (checkRecord, error) {
		return Check(ctx, CheckOptions{Experiment: run.e, Library: run.o.Library, Rig: run.o.Rig})
	})
	if rec != nil {
		run.check = rec.(*StimulusReport)
	}
	return err
}

// checkRecord is a stimulus check as a run records it in
// stimulus-check.json: a discrimination's StimulusReport, a set's
// SetReport.
type checkRecord interface {
	verdict() (valid bool, reason string)
	// summary says in a line what a valid check found (unit: the
	// stimulus's).
	summary(unit string) string
	// files points at the record's SHA-256 of the experiment file and of
	// the fabric definitions it was made on.
	files() (experiment, fabric *string)
}

func (r *StimulusReport) verdict() (bool, string)   { return r.Valid, r.Reason }
func (r *StimulusReport) files() (*string, *string) { return &r.ExperimentSHA256, &r.FabricSHA256 }

// summary says from which level the delivered contrast reaches the Weber
// fraction.
func (r *StimulusReport) summary(unit string) string {
	return fmt.Sprintf("the delivered contrast reaches the Weber fraction %.3g from %s", r.Weber, r.DetectableFrom(unit))
}

// checkBeforeTrials runs a stimulus check (check, announced as what)
// before a run's first trial, and on a resume that has no record of it
// or a record of another experiment file or fabric definition (a run
// killed after its check and started again on an edited file); writes
// stimulus-check.json; and refuses an invalid experiment unless
// Options.Force. rec is an empty record of the check's kind, which a
// record of this experiment file and these fabrics (fabricSHA) fills
// instead of a check when it passed or the run is forced. On a refusal it
// returns the record and the error; with Options.SkipStimulusCheck,
// nothing.
func (run *runner) checkBeforeTrials(ctx context.Context, fabricSHA, what string, rec checkRecord, check func(context.Context) (checkRecord, error)) (checkRecord, error) {
	o := run.o
	if o.SkipStimulusCheck {
		return nil, nil
	}
	const name = "stimulus-check.json"
	if ok, why := run.recorded(name, rec, fabricSHA); !ok {
		if why != "" {
			fmt.Fprintf(o.Out, "stimulus check: again: %s\n", why)
		}
		fmt.Fprintf(o.Out, "stimulus check: %s, in virtual time ...\n", what)
		var err error
		if rec, err = check(ctx); err != nil {
			return nil, err
		}
		if valid, _ := rec.verdict(); valid {
			fmt.Fprintf(o.Out, "stimulus check: ok; %s\n", rec.summary(run.e.Stimulus.Unit))
		}
		exp, fab := rec.files()
		*exp, *fab = run.sha, fabricSHA
		b, err := json.MarshalIndent(rec, "", "  ")
		if err != nil {
			// A number JSON cannot hold (a NaN the check could not
			// avoid): written as null, the fields in name order.
			b, err = marshalNaN(rec)
		}
		if err != nil {
			return nil, fmt.Errorf("experiment: %w", err)
		}
		if err := run.root.WriteFile(name, b); err != nil {
			return nil, fmt.Errorf("experiment: %w", err)
		}
	}
	if valid, reason := rec.verdict(); !valid {
		if !o.Force {
			return rec, fmt.Errorf("experiment: %s (-force runs it anyway)", reason)
		}
		fmt.Fprintf(o.Out, "warning: %s; running anyway (-force)\n", reason)
	}
	return rec, nil
}

// recorded reports whether the file name holds a check of this experiment
// file and these fabrics (fabricSHA), read into rec, that passed or that
// the run is forced past; when the file exists but is not such a record,
// why says what it is instead.
func (run *runner) recorded(name string, rec checkRecord, fabricSHA string) (ok bool, why string) {
	b, err := run.root.ReadFile(name, maxStateSize)
	if errors.Is(err, fs.ErrNotExist) {
		return false, ""
	}
	if err == nil {
		err = json.Unmarshal(b, rec)
	}
	if err != nil {
		return false, fmt.Sprintf("%s could not be read (%v)", name, err)
	}
	exp, fab := rec.files()
	switch valid, _ := rec.verdict(); {
	case *exp != run.sha:
		return false, fmt.Sprintf("%s is of another version of the experiment file", name)
	case *fab != fabricSHA:
		return false, fmt.Sprintf("%s is of other definitions of the fabrics", name)
	case !valid && !run.o.Force:
		return false, fmt.Sprintf("%s refused the experiment", name)
	}
	return true, ""
}

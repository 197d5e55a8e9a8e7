package experiment

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/kes"
	"github.com/haptex/haptex/calib/psych"
	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/internal/rankcorr"
	"github.com/haptex/haptex/sim"
)

// FabricReport is what CheckFabrics found: the delivered cue of the
// experiment's dimension for each fabric handled as the reference, beside
// the fabric's KES quantity of that dimension.
type FabricReport struct {
	Dimension Kind   `json:"dimension"`
	Motion    string `json:"motion"`
	Cue       string `json:"cue"`
	Unit      string `json:"unit"`
	// Quantity and QuantityUnit name the KES quantity.
	Quantity     string      `json:"quantity"`
	QuantityUnit string      `json:"quantity_unit"`
	Fabrics      []FabricCue `json:"fabrics"` // in increasing KES value
	// Unmeasured are the fabrics whose cue the motion could not measure
	// (a fabric that slips out of the pinch, say), with the reason.
	Unmeasured []FabricCue `json:"unmeasured,omitempty"`
	// Monotone: the mean cue rises with the KES value from each fabric to
	// the next (falls, for an Inverse quantity).
	Monotone bool `json:"monotone"`
	// Reversals are the pairs of fabrics whose mean cues are in the
	// opposite order to their KES values by more than twice the standard
	// error of the difference (from each fabric's intervals): what the
	// check's scatter does not explain. MonotoneWithinScatter: there are
	// none (and at least two fabrics were measured).
	Reversals             []Reversal `json:"reversals,omitempty"`
	MonotoneWithinScatter bool       `json:"monotone_within_scatter"`
	// Spearman is the rank correlation of cue and KES value (its sign
	// flipped for an Inverse quantity); null where it has no value: every
	// fabric of one KES value, or every cue the same.
	Spearman *float64 `json:"spearman"`
	// Extremes is the contrast between the fabrics of the smallest and
	// the largest KES value, (cue_high + f)/(cue_low + f) − 1, in units of
	// the cue's Weber fraction.
	ExtremeContrast float64 `json:"extreme_contrast"`
	ExtremeWebers   float64 `json:"extreme_webers"`
	Weber           float64 `json:"weber"`
}

// SpearmanText is Spearman to three figures, or "none" where it has no
// value.
func (rep *FabricReport) SpearmanText() string {
	if rep.Spearman == nil {
		return "none"
	}
	return fmt.Sprintf("%.3g", *rep.Spearman)
}

// FabricCue is one fabric's line of a FabricReport: its KES value and the
// mean and standard deviation of the cue its intervals delivered.
type FabricCue struct {
	Fabric string    `json:"fabric"`
	KES    float64   `json:"kes"`
	Cue    float64   `json:"cue"`
	CueSD  float64   `json:"cue_sd"`
	Cues   []float64 `json:"cues,omitempty"`
	Error  string    `json:"error,omitempty"`
}

// Reversal is a pair of fabrics whose cues reverse their KES order beyond
// the scatter (FabricReport.Reversals).
type Reversal struct {
	Lower  string `json:"lower"`  // the fabric of smaller KES value
	Higher string `json:"higher"` // the fabric of larger KES value
	// Difference is the higher's mean cue less the lower's (sign flipped
	// for an Inverse quantity): negative. SE is its standard error.
	Difference float64 `json:"difference"`
	SE         float64 `json:"se"`
}

// CheckFabrics handles each of the named fabrics (from o.Library) with
// the experiment's motion and timing, in virtual time on the simulated
// devices, for intervals reference intervals each (0: 4), and reports the
// cue each delivered against its KES quantity: whether what reaches the
// finger orders the fabrics as their KES values do (o.Extremes: only the
// two fabrics of extreme KES value). The experiment's own fabric is
// ignored; its dimension must scale a KES quantity.
func CheckFabrics(ctx context.Context, o CheckOptions, names []string, intervals int) (*FabricReport, error) {
	e := o.Experiment
	if e == nil {
		return nil, fmt.Errorf("experiment: check: no experiment")
	}
	dim := dimensions[e.Stimulus.Kind]
	q := dim.kes
	if q == nil {
		return nil, fmt.Errorf("experiment: check: %s scales no KES quantity", e.Stimulus.Kind)
	}
	if intervals == 0 {
		intervals = 4
	}
	weber := o.Weber
	if weber == 0 {
		weber = dim.cue.Weber
	}
	rep := &FabricReport{Dimension: e.Stimulus.Kind, Motion: e.Timing.Motion, Cue: dim.cue.Name, Unit: dim.cue.Unit,
		Quantity: q.Name, QuantityUnit: q.Unit, Weber: weber}
	base := o.Rig
	base.Exos, base.Tactile, base.OpenDevices = [sim.NumFingers]devices.Exoskeleton{}, [sim.NumFingers]devices.TactileArray{}, nil
	base.OutDir, base.RecordDevices, base.Logf = "", false, nil
	type fabric struct {
		name string
		f    *kes.Fabric
		v    float64
	}
	var fabs []fabric
	for _, name := range names {
		f, err := o.Library.Load(name)
		if err != nil {
			return nil, fmt.Errorf("experiment: check: %w", err)
		}
		v, err := q.at(f, 1)
		if err != nil {
			return nil, err
		}
		fabs = append(fabs, fabric{name, f, v})
	}
	if o.Extremes && len(fabs) > 2 {
		slices.SortStableFunc(fabs, func(a, b fabric) int { return cmp.Compare(a.v, b.v) })
		fabs = []fabric{fabs[0], fabs[len(fabs)-1]}
	}
	for _, fb := range fabs {
		name, f, v := fb.name, fb.f, fb.v
		cfg, err := rigConfig(e, base, f)
		if err != nil {
			return nil, err
		}
		cues, err := referenceCues(ctx, e, cfg, dim.cue, intervals)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			rep.Unmeasured = append(rep.Unmeasured, FabricCue{Fabric: name, KES: v, Error: err.Error()})
			continue
		}
		rep.Fabrics = append(rep.Fabrics, fabricCue(name, v, cues))
	}
	rep.conclude(dim.cue, q.Inverse)
	return rep, nil
}

// fabricCue is a fabric's line of a FabricReport from the cues its
// intervals delivered.
func fabricCue(name string, kesValue float64, cues []float64) FabricCue {
	fc := FabricCue{Fabric: name, KES: kesValue, Cues: cues}
	for _, c := range cues {
		fc.Cue += c / float64(len(cues))
	}
	for _, c := range cues {
		fc.CueSD += (c - fc.Cue) * (c - fc.Cue) / math.Max(1, float64(len(cues)-1))
	}
	fc.CueSD = math.Sqrt(fc.CueSD)
	return fc
}

// conclude sorts the report's fabrics by KES value and sets what they
// say: monotone, the reversals, the rank correlation and the extremes'
// contrast of cue at the report's Weber fraction (inverse: the cue falls
// as the quantity grows).
func (rep *FabricReport) conclude(cue *Cue, inverse bool) {
	slices.SortStableFunc(rep.Fabrics, func(a, b FabricCue) int { return cmp.Compare(a.KES, b.KES) })
	sign := 1.0
	if inverse {
		sign = -1
	}
	rep.Monotone = monotone(rep.Fabrics, sign)
	rep.Reversals = reversals(rep.Fabrics, sign)
	rep.MonotoneWithinScatter = len(rep.Fabrics) > 1 && len(rep.Reversals) == 0
	if r := sign * spearman(rep.Fabrics); !math.IsNaN(r) {
		rep.Spearman = &r
	}
	if n := len(rep.Fabrics); n > 1 {
		lo, hi := rep.Fabrics[0].Cue, rep.Fabrics[n-1].Cue
		if inverse {
			lo, hi = hi, lo
		}
		rep.ExtremeContrast = cue.Contrast(hi, lo, rep.Weber)
		rep.ExtremeWebers = rep.ExtremeContrast / rep.Weber
	}
}

// monotone says whether the cue of fs (in increasing KES value) rises
// with it, sign times: every fabric's cue above that of every fabric of
// smaller KES value. Fabrics of equal KES value (two denims of MIU 0.22)
// are not ordered among themselves.
func monotone(fs []FabricCue, sign float64) bool {
	if len(fs) < 2 {
		return false
	}
	for j := range fs {
		for i := range j {
			if fs[i].KES < fs[j].KES && !(sign*(fs[j].Cue-fs[i].Cue) > 0) {
				return false
			}
		}
	}
	return true
}

// reversals returns the pairs of fs (in increasing KES value) whose cues,
// sign times, fall from the smaller KES value to the larger by more than
// twice the standard error of their difference, √(sd₁²/n₁ + sd₂²/n₂).
// Fabrics of equal KES value are not ordered among themselves.
func reversals(fs []FabricCue, sign float64) []Reversal {
	var rs []Reversal
	for j := range fs {
		for i := range j {
			lo, hi := &fs[i], &fs[j]
			if !(lo.KES < hi.KES) {
				continue
			}
			d := sign * (hi.Cue - lo.Cue)
			se := math.Sqrt(sqErr(lo) + sqErr(hi))
			if d < -2*se {
				rs = append(rs, Reversal{Lower: lo.Fabric, Higher: hi.Fabric, Difference: d, SE: se})
			}
		}
	}
	return rs
}

// sqErr is the squared standard error of f's mean cue.
func sqErr(f *FabricCue) float64 {
	if len(f.Cues) == 0 {
		return 0
	}
	return f.CueSD * f.CueSD / float64(len(f.Cues))
}

// spearman is the rank correlation of the fabrics' KES values and their
// cues, ties ranked at their mean rank.
func spearman(fs []FabricCue) float64 {
	kes, cue := make([]float64, len(fs)), make([]float64, len(fs))
	for i, f := range fs {
		kes[i], cue[i] = f.KES, f.Cue
	}
	return rankcorr.Spearman(kes, cue)
}

// referenceCues plays n intervals of the experiment's motion on a rig of
// configuration cfg at the reference level and returns the cue of each.
func referenceCues(ctx context.Context, e *Experiment, cfg rig.Config, cue *Cue, n int) ([]float64, error) {
	return levelCues(ctx, e, cfg, cue, n, 0)
}

// levelCues is referenceCues at the experiment's level x, set once the rig
// has settled, after which one interval plays unmeasured.
func levelCues(ctx context.Context, e *Experiment, cfg rig.Config, cue *Cue, n int, x float64) ([]float64, error) {
	r, s, script, err := lockstepRig(ctx, e, cfg)
	if err != nil {
		return nil, err
	}
	defer s.Finish()
	if x != 0 {
		if err := newStimulus(e, r, cfg.Fabric).set(r, x, 0); err != nil {
			return nil, err
		}
		n++
	}
	cues, err := playCues(ctx, e, r, s, script, cue, n)
	if err != nil {
		return nil, err
	}
	if x != 0 {
		cues = cues[1:]
	}
	return cues, nil
}

// playCues plays n intervals of the experiment's motion (script) on the
// settled lockstep rig r, with the experiment's timing, and returns the cue
// of each.
func playCues(ctx context.Context, e *Experiment, r *rig.Rig, s *rig.Stepper, script *twin.Script, cue *Cue, n int) ([]float64, error) {
	tr := r.NewIntervalTrace(e.Timing.Interval)
	var cues []float64
	s.Advance(e.Timing.ITI)
	for range n {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s.Advance(e.Timing.Gap)
		if err := r.BeginTracedInterval(tr); err != nil {
			return nil, err
		}
		s.Advance(e.Timing.Interval)
		ch, err := r.EndInterval()
		if err != nil {
			return nil, err
		}
		s.Advance(50 * time.Millisecond)
		<-ch
		c, err := measureCue(cue, tr, script)
		if err != nil {
			return nil, err
		}
		cues = append(cues, c)
		s.Advance(e.Timing.ITI)
	}
	return cues, nil
}

// SetReport is the stimulus check of a set experiment: for an
// identification or rating, per property the cue each fabric of the set
// delivered (CheckFabrics); for a magnitude estimation, the levels' check
// (Check).
type SetReport struct {
	Experiment string          `json:"experiment"`
	Kind       SetKind         `json:"kind"`
	Properties []*FabricReport `json:"properties,omitempty"`
	Levels     *StimulusReport `json:"levels,omitempty"`
	Valid      bool            `json:"valid"`
	Reason     string          `json:"reason,omitempty"`
	// ExperimentSHA256 and FabricSHA256 identify what a run's check
	// checked: the experiment file, and the fabric's definition (a
	// magnitude estimation) or the set's (setFabricsSHA256). A run takes
	// up a recorded check only for the same two.
	ExperimentSHA256 string `json:"experiment_sha256,omitempty"`
	FabricSHA256     string `json:"fabric_sha256,omitempty"`
}

// summary says in a line what a valid check found: from which level a
// magnitude estimation's contrast reaches the Weber fraction, or by how
// many Weber fractions each property's cue differs between the set's
// extremes.
func (r *SetReport) summary(unit string) string {
	if r.Levels != nil {
		return r.Levels.summary(unit)
	}
	var s []string
	for _, p := range r.Properties {
		s = append(s, fmt.Sprintf("%s %.3g", p.Dimension, math.Abs(p.ExtremeWebers)))
	}
	return "between the set's extremes of KES value the delivered cue differs by (in Weber fractions) " + strings.Join(s, ", ")
}

func (r *SetReport) verdict() (bool, string)   { return r.Valid, r.Reason }
func (r *SetReport) files() (*string, *string) { return &r.ExperimentSHA256, &r.FabricSHA256 }

// CheckSet runs a set experiment's stimulus check in virtual time. An
// identification or rating is valid when at least one property delivers
// contrasts across the set of at least twice its cue's Weber fraction
// between its extremes (otherwise a subject could tell no fabric from
// another by what reaches the finger); a rating of real swatches needs no
// check. A magnitude estimation is valid as a discrimination experiment
// over its levels is (Check).
func CheckSet(ctx context.Context, o CheckOptions, intervals int) (*SetReport, error) {
	e := o.Experiment
	if e == nil || e.Set == nil {
		return nil, fmt.Errorf("experiment: check: not a set experiment")
	}
	s := e.Set
	rep := &SetReport{Experiment: e.Name, Kind: s.Kind}
	if s.Kind == Rate && s.Condition == "real" {
		rep.Valid = true
		return rep, nil
	}
	if s.Kind == Magnitude {
		m := *e
		m.Set = nil
		m.Timing.Motion = e.motionOf(e.Stimulus.Kind)
		m.Timing.Interval = motions[m.Timing.Motion].length()
		m.Procedure = psych.Config{Kind: psych.KindConstant, Constant: &psych.ConstantConfig{Task: psych.TwoAFC, Levels: s.Levels, Repeats: 1}}
		o.Experiment = &m
		lr, err := Check(ctx, o)
		if err != nil {
			return nil, err
		}
		rep.Levels, rep.Valid, rep.Reason = lr, lr.Valid, lr.Reason
		return rep, nil
	}
	var best float64
	for _, p := range s.Properties {
		m := *e
		m.Set = nil
		m.Stimulus.Kind = p
		m.Timing.Motion = dimensions[p].motion
		m.Timing.Interval = motions[m.Timing.Motion].length()
		o.Experiment = &m
		fr, err := CheckFabrics(ctx, o, s.Fabrics, intervals)
		if err != nil {
			return nil, err
		}
		rep.Properties = append(rep.Properties, fr)
		best = math.Max(best, math.Abs(fr.ExtremeContrast)/fr.Weber)
	}
	rep.Valid = best >= 2
	if !rep.Valid {
		rep.Reason = fmt.Sprintf("stimulus check: no property delivers a contrast across the set of twice its Weber fraction (at most %.2g times): choose fabrics that differ more, or properties the rig delivers", best)
	}
	return rep, nil
}

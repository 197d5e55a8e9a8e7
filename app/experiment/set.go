package experiment

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/haptex/haptex/internal/safefile"
)

// SetKind is the task of a set experiment: trials that each render one
// stimulus of a set (a fabric, or a level of one property of a fabric)
// and record what the subject says of it.
type SetKind string

const (
	// Identify: each trial renders one fabric of the set; the subject
	// names it, among Responses (the labels of real swatches in front of
	// them, or the fabrics' names). Analysis: the confusion matrix, the
	// percent correct and the information transmitted.
	Identify SetKind = "identify"
	// Rate: each trial renders one fabric of the set, or (Condition
	// "real") asks about the real swatch of that name; the subject rates
	// it on every bipolar scale. Analysis: per fabric the profile, per
	// scale the real-versus-virtual correlation across fabrics.
	Rate SetKind = "rate"
	// Magnitude: each trial renders one level of the stimulus dimension
	// (stimulus.kind, on stimulus.fabric); the subject gives a number in
	// proportion to the property felt. Analysis: Stevens' power law,
	// against the level's KES value and against the delivered cue.
	Magnitude SetKind = "magnitude"
)

// Set is a set experiment's [set] table.
type Set struct {
	Kind SetKind `toml:"kind" json:"kind"`
	// Fabrics is the set an identification or rating renders: built-in
	// or imported fabric names, 2 to 20.
	Fabrics []string `toml:"fabrics" json:"fabrics,omitempty"`
	// Responses are the names an identification accepts (default: the
	// fabrics); a name that is no fabric (a swatch label, "none") counts
	// as wrong.
	Responses []string `toml:"responses" json:"responses,omitempty"`
	// Properties are what each trial's handling delivers, one interval
	// per property with its dimension's motion: "roughness", "friction",
	// "stiffness" (tensile), "bending". Default: the four for an
	// identification, those of the scales for a rating.
	Properties []Kind `toml:"properties" json:"properties,omitempty"`
	// Scales are a rating's bipolar scales, "left-right" (see
	// SemanticScales for those the simulated rater perceives); Points
	// the points of each (default 7), answered 1 (left) to Points.
	Scales []string `toml:"scales" json:"scales,omitempty"`
	Points int      `toml:"points" json:"points,omitempty"`
	// Condition is what a rating rates: "virtual" (default), rendered
	// fabrics, or "real", the real swatches named by Fabrics, entered at
	// the terminal from the subject's answers or a paper form (no rig
	// runs).
	Condition string `toml:"condition" json:"condition,omitempty"`
	// Levels are a magnitude estimation's levels of stimulus.kind [%],
	// at least 3 distinct, each above -100.
	Levels []float64 `toml:"levels" json:"levels,omitempty"`
	// Question is what a magnitude estimation asks (default per
	// property).
	Question string `toml:"question" json:"question,omitempty"`
	// Repeats is how often each stimulus is presented (default 5), in an
	// order shuffled per subject.
	Repeats int `toml:"repeats" json:"repeats,omitempty"`
}

// SemanticScales are the bipolar scales the simulated rater perceives,
// with the property whose delivered cue places a fabric on each: the
// left pole is the property's low end. A scale not listed (warm-cool,
// spongy-crisp) has no cue the rig delivers: the simulated rater answers
// it at the midpoint with noise.
var SemanticScales = map[string]Kind{
	"smooth-rough":    Roughness,
	"slippery-sticky": Friction,
	"stretchy-firm":   Stiffness,
	"flexible-stiff":  Bending,
}

// setProperties are the properties a set experiment may deliver, in the
// order a trial's intervals play them.
var setProperties = []Kind{Roughness, Friction, Stiffness, Bending}

// validateSet checks a set experiment and fills its defaults.
func (e *Experiment) validateSet() error {
	s := e.Set
	if e.Procedure.Kind != "" {
		return errors.New("procedure: a set experiment has no procedure: its trials are [set]'s stimuli, shuffled")
	}
	switch s.Kind {
	case Identify, Rate:
		if e.Stimulus.Kind != "" {
			return fmt.Errorf("stimulus.kind: a %s experiment renders whole fabrics ([set] fabrics), not levels of %s", s.Kind, e.Stimulus.Kind)
		}
		if len(s.Fabrics) < 2 || len(s.Fabrics) > 20 {
			return fmt.Errorf("set.fabrics: %d fabrics, want 2..20", len(s.Fabrics))
		}
		if err := uniqueNames("set.fabrics", s.Fabrics); err != nil {
			return err
		}
		if len(s.Levels) > 0 {
			return fmt.Errorf("set.levels: only a magnitude estimation has levels (this one is %s)", s.Kind)
		}
	case Magnitude:
		dim, ok := dimensions[e.Stimulus.Kind]
		if !ok || dim.kes == nil {
			return fmt.Errorf("stimulus.kind: %q, a magnitude estimation needs a property: %s", e.Stimulus.Kind, kindNames(setProperties))
		}
		if len(s.Fabrics) > 0 {
			return errors.New("set.fabrics: a magnitude estimation renders levels of stimulus.kind on stimulus.fabric")
		}
		xs := slices.Clone(s.Levels)
		slices.Sort(xs)
		if n := len(slices.Compact(xs)); n < 3 {
			return fmt.Errorf("set.levels: %d distinct levels, a power law needs at least 3", n)
		}
		for _, x := range s.Levels {
			if !(x > -100 && x <= 1000) {
				return fmt.Errorf("set.levels: %g %%, want above -100 and at most 1000", x)
			}
		}
		s.Properties = []Kind{e.Stimulus.Kind}
		def(&s.Question, fmt.Sprintf("How much %s did you feel? (a number in proportion: twice as much, twice the number; 0 for none)", e.Stimulus.Kind))
	default:
		return fmt.Errorf("set.kind: %q, want %s, %s or %s", s.Kind, Identify, Rate, Magnitude)
	}
	if s.Kind != Identify && len(s.Responses) > 0 {
		return fmt.Errorf("set.responses: only an identification has named responses (this one is %s)", s.Kind)
	}
	if s.Kind == Identify {
		if len(s.Responses) == 0 {
			s.Responses = slices.Clone(s.Fabrics)
		}
		if err := uniqueNames("set.responses", s.Responses); err != nil {
			return err
		}
	}
	if s.Kind == Rate {
		if len(s.Scales) == 0 || len(s.Scales) > 20 {
			return fmt.Errorf("set.scales: %d scales, want 1..20", len(s.Scales))
		}
		if err := uniqueNames("set.scales", s.Scales); err != nil {
			return err
		}
		for _, sc := range s.Scales {
			if l, r, ok := strings.Cut(sc, "-"); !ok || l == "" || r == "" {
				return fmt.Errorf("set.scales: %q, want left-right (smooth-rough)", sc)
			}
		}
		if s.Points == 0 {
			s.Points = 7
		}
		if s.Points < 3 || s.Points > 11 {
			return fmt.Errorf("set.points: %d, want 3..11", s.Points)
		}
		def(&s.Condition, "virtual")
		if s.Condition != "virtual" && s.Condition != "real" {
			return fmt.Errorf("set.condition: %q, want virtual or real", s.Condition)
		}
		if len(s.Properties) == 0 {
			for _, p := range setProperties {
				for _, sc := range s.Scales {
					if SemanticScales[sc] == p && !slices.Contains(s.Properties, p) {
						s.Properties = append(s.Properties, p)
					}
				}
			}
		}
	} else if s.Condition != "" || s.Points != 0 || len(s.Scales) > 0 {
		return fmt.Errorf("set.scales, set.points, set.condition: only a rating has them (this one is %s)", s.Kind)
	}
	if s.Kind == Identify && len(s.Properties) == 0 {
		s.Properties = slices.Clone(setProperties)
	}
	if len(s.Properties) == 0 && !(s.Kind == Rate && s.Condition == "real") {
		return errors.New("set.properties: none of the scales has a property the rig delivers: name the properties the handling should deliver")
	}
	for _, p := range s.Properties {
		if !slices.Contains(setProperties, p) {
			return fmt.Errorf("set.properties: %q, want %s", p, kindNames(setProperties))
		}
	}
	if s.Repeats == 0 {
		s.Repeats = 5
	}
	if s.Repeats < 1 || s.Repeats > 100 {
		return fmt.Errorf("set.repeats: %d, want 1..100", s.Repeats)
	}
	if m := e.Timing.Motion; m != "" {
		if s.Kind != Magnitude {
			return fmt.Errorf("timing.motion: %s plays each property's own motion (set.properties); only a magnitude estimation, one property on one fabric, chooses its motion", s.Kind)
		}
		if _, ok := motions[m]; !ok {
			return fmt.Errorf("timing.motion: %q, want %s", m, motionList())
		}
	}
	return nil
}

// motionOf is the motion a set experiment plays for property p: the
// magnitude estimation's timing.motion when it names one, otherwise the
// property's own (its dimension's default).
func (e *Experiment) motionOf(p Kind) string {
	if e.Set != nil && e.Set.Kind == Magnitude && e.Timing.Motion != "" {
		return e.Timing.Motion
	}
	return dimensions[p].motion
}

func uniqueNames(field string, names []string) error {
	for i, n := range names {
		if !safefile.ValidName(n) {
			return fmt.Errorf("%s[%d]: %q, want %s", field, i, n, safefile.NameRule)
		}
		if slices.Index(names, n) != i {
			return fmt.Errorf("%s: %q twice", field, n)
		}
	}
	return nil
}

func kindNames(ks []Kind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// stimuli returns a set experiment's stimuli: the fabrics, or the levels
// formatted as the record writes them.
func (s *Set) stimuli() []string {
	if s.Kind == Magnitude {
		out := make([]string, len(s.Levels))
		for i, x := range s.Levels {
			out[i] = fmtFloat(x)
		}
		return out
	}
	return s.Fabrics
}

// perceptNoise is the standard deviation of the log-normal noise of a
// simulated observer whose discrimination threshold (75 % correct in
// 2AFC) for a cue is the Weber fraction w: the difference of two
// intervals' noisy logs, √2·σ, reaches ln(1 + w) at its 75th percentile.
func perceptNoise(w float64) float64 { return math.Log1p(w) / (math.Sqrt2 * 0.6744897501960817) }

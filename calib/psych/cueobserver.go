package psych

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// CueObserver is a simulated subject that perceives what was delivered:
// it compares the intervals' cues (a physical quantity measured in each,
// such as the force at the fingertip), each seen through multiplicative
// noise, and chooses the interval whose cue looks largest.
//
// The noise is log-normal: the observer sees ln(c + Floor) + σ·ε, ε
// standard normal, with σ set so that its discrimination threshold is the
// Weber fraction W: two cues whose (c + Floor) differ by the factor 1 + W
// are told apart 75 % of the time in 2AFC, F = 0.5 of the observer's
// psychometric function of the contrast ln((c₂ + f)/(c₁ + f)),
//
//	ψ = γ + (1 − γ − λ)·(2Φ(Δ/(σ√2)) − 1),  σ = ln(1 + W) / (√2·Φ⁻¹(0.75)),
//
// a cumulative normal in the log contrast. A positive Floor models a
// detection cue (Weber's law with a floor): against a reference of 0 the
// detection threshold is W·Floor. On a fraction λ/(1 − γ) of the trials
// the observer lapses and guesses, so λ is the lapse rate of ψ.
type CueObserver struct {
	Weber  float64 `json:"weber"`
	Lambda float64 `json:"lambda"`
	Floor  float64 `json:"floor,omitempty"`
	Task   Task    `json:"task"`
	Seed   uint64  `json:"seed"`
	RNG    rng     `json:"rng"`
	Spec   string  `json:"spec"`
	// FloorSet reports that Floor was given rather than left to the
	// experiment's cue (see SetDefaultFloor).
	FloorSet bool `json:"floor_set,omitempty"`
}

func (o *CueObserver) validate() error {
	if err := o.Task.Validate(); err != nil {
		return err
	}
	if o.Task.Kind != AFC {
		return fmt.Errorf("psych: a cue observer compares intervals: it answers m-AFC tasks, not %s", o.Task.Kind)
	}
	if !(o.Weber > 0 && o.Weber < 10) {
		return fmt.Errorf("psych: cue observer Weber fraction %g outside (0, 10)", o.Weber)
	}
	if g := o.Task.Guess(); !(o.Lambda >= 0 && o.Lambda < 1-g) {
		return fmt.Errorf("psych: cue observer lapse rate %g outside [0, %g)", o.Lambda, 1-g)
	}
	if !(o.Floor >= 0) || math.IsInf(o.Floor, 0) {
		return fmt.Errorf("psych: cue observer floor %g invalid", o.Floor)
	}
	if o.RNG.pcg == nil {
		return fmt.Errorf("psych: cue observer has no random state")
	}
	return nil
}

func (o *CueObserver) spec() string {
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	s := fmt.Sprintf("cue:weber=%s,lambda=%s,seed=%d", g(o.Weber), g(o.Lambda), o.Seed)
	if o.FloorSet {
		s += ",floor=" + g(o.Floor)
	}
	return s
}

// SetDefaultFloor sets the floor an experiment's cue implies (Cue.Floor)
// unless the specification gave one.
func (o *CueObserver) SetDefaultFloor(f float64) {
	if !o.FloorSet {
		o.Floor = f
	}
}

// Sigma returns the standard deviation of the observer's noise on the
// log cue.
func (o *CueObserver) Sigma() float64 {
	return math.Log1p(o.Weber) / (math.Sqrt2 * probit(0.75))
}

// Choose answers a trial whose intervals delivered the cues (one per
// interval, in the order presented): it returns the index of the interval
// it judges largest. A cue that is NaN (not measured) or negative is seen
// as zero.
func (o *CueObserver) Choose(cues []float64) int {
	m := len(cues)
	if g := 1 - o.Task.Guess(); o.RNG.float64()*g < o.Lambda {
		return o.RNG.intn(m)
	}
	best, bestV := 0, math.Inf(-1)
	sigma := o.Sigma()
	for i, c := range cues {
		if !(c > 0) {
			c = 0
		}
		v := math.Log(c+o.Floor) + sigma*o.RNG.normal()
		if v > bestV {
			best, bestV = i, v
		}
	}
	return best
}

// Prob returns the probability that the observer chooses the interval
// whose cue is test over one whose cue is reference (2AFC).
func (o *CueObserver) Prob(test, reference float64) float64 {
	d := math.Log((test + o.Floor) / (reference + o.Floor))
	phi := 0.5 * math.Erfc(-d/(o.Sigma()*math.Sqrt2)/math.Sqrt2)
	f := 2*phi - 1
	g := o.Task.Guess()
	return g + (1-g-o.Lambda)*f
}

// State returns the observer, random state included, as JSON.
func (o *CueObserver) State() ([]byte, error) { return json.Marshal(o) }

// RestoreCueObserver rebuilds a cue observer from State.
func RestoreCueObserver(b []byte) (*CueObserver, error) {
	var o CueObserver
	if err := json.Unmarshal(b, &o); err != nil {
		return nil, fmt.Errorf("psych: restore cue observer: %w", err)
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	return &o, nil
}

// ParseCueObserver builds a cue observer for task from a command-line
// specification such as
//
//	cue:weber=0.15,lambda=0.01,seed=3
//
// Keys: weber (the discrimination threshold as a fraction; default the
// experiment's cue's, set with SetDefaultWeber), lambda (default 0), seed
// (default 1) and floor (default the cue's, see SetDefaultFloor).
func ParseCueObserver(spec string, task Task) (*CueObserver, error) {
	rest, ok := strings.CutPrefix(spec, "cue:")
	if !ok {
		return nil, fmt.Errorf("psych: observer %q: want cue:key=value,...", spec)
	}
	var (
		weber, lambda, floor float64
		seed                 = uint64(1)
		haveFloor            bool
	)
	if rest != "" {
		for _, kv := range strings.Split(rest, ",") {
			k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
			if !ok {
				return nil, fmt.Errorf("psych: observer %q: %q is not key=value", spec, kv)
			}
			var err error
			switch k {
			case "weber", "lambda", "floor":
				var x float64
				x, err = strconv.ParseFloat(v, 64)
				if err != nil || !finite(x) {
					return nil, fmt.Errorf("psych: observer %q: %s=%q is not a finite number", spec, k, v)
				}
				switch k {
				case "weber":
					weber = x
				case "lambda":
					lambda = x
				default:
					floor, haveFloor = x, true
				}
			case "seed":
				seed, err = strconv.ParseUint(v, 10, 64)
			default:
				err = fmt.Errorf("psych: observer %q: unknown key %q (weber, lambda, seed, floor)", spec, k)
			}
			if err != nil {
				return nil, err
			}
		}
	}
	o := &CueObserver{Weber: weber, Lambda: lambda, Floor: floor, FloorSet: haveFloor, Task: task, Seed: seed, RNG: newRNG(seed, 0xc0e)}
	if weber == 0 {
		// Left to the experiment's cue: validated once it is set.
		o.Weber = 1
		if err := o.validate(); err != nil {
			return nil, err
		}
		o.Weber = 0
	} else if err := o.validate(); err != nil {
		return nil, err
	}
	if haveFloor && floor <= 0 {
		return nil, fmt.Errorf("psych: observer %q: floor must be positive", spec)
	}
	o.Spec = o.spec()
	return o, nil
}

// SetDefaultWeber sets the Weber fraction an experiment's cue has from
// the literature unless the specification gave one.
func (o *CueObserver) SetDefaultWeber(w float64) error {
	if o.Weber == 0 {
		o.Weber = w
		o.Spec = o.spec()
	}
	return o.validate()
}

package psych

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Observer is a simulated subject that answers from the nominal stimulus:
// it draws each response from a known psychometric function of the
// trial's X, whatever a device delivered. It validates procedures and
// fits against a known truth; to dry-run an experiment on a rig, where
// what reaches the finger matters, use a CueObserver.
//
// For a rating task the observer has one function per boundary between
// adjacent ratings, all with PF's form, β, γ and λ, with thresholds
// RatingThresholds (increasing, one per boundary k−1|k, k = 2..Levels):
// P(rating ≥ k | x) is the function with threshold RatingThresholds[k−2]
// at criterion 0.5. One uniform draw per trial makes the ratings nested.
type Observer struct {
	PF               PF        `json:"pf"`
	Task             Task      `json:"task"`
	RatingThresholds []float64 `json:"rating_thresholds,omitempty"`
	RNG              rng       `json:"rng"`
	// Seed is the seed the observer started from; Spec its specification
	// (ParseObserver's syntax, every parameter given).
	Seed   uint64 `json:"seed"`
	Spec   string `json:"spec"`
	rating []PF
}

// NewObserver returns a simulated observer drawing from pf, seeded.
func NewObserver(pf PF, task Task, seed uint64) (*Observer, error) {
	return newObserver(Observer{PF: pf, Task: task, RNG: newRNG(seed, 0x0b5e), Seed: seed})
}

// NewRatingObserver returns a simulated observer for a rating task (see
// Observer).
func NewRatingObserver(pf PF, task Task, thresholds []float64, seed uint64) (*Observer, error) {
	return newObserver(Observer{PF: pf, Task: task, RatingThresholds: append([]float64(nil), thresholds...), RNG: newRNG(seed, 0x0b5e), Seed: seed})
}

// spec returns the observer's specification with every parameter.
func (o *Observer) spec() string {
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	s := fmt.Sprintf("nominal:form=%s,alpha=%s,beta=%s,gamma=%s,lambda=%s,seed=%d",
		o.PF.Form, g(o.PF.Alpha), g(o.PF.Beta), g(o.PF.Gamma), g(o.PF.Lambda), o.Seed)
	if len(o.RatingThresholds) > 0 {
		r := make([]string, len(o.RatingThresholds))
		for i, t := range o.RatingThresholds {
			r[i] = g(t)
		}
		s += ",ratings=" + strings.Join(r, ";")
	}
	return s
}

func newObserver(o Observer) (*Observer, error) {
	if err := o.PF.Validate(); err != nil {
		return nil, err
	}
	if err := o.Task.Validate(); err != nil {
		return nil, err
	}
	if g := o.Task.Guess(); finite(g) && o.PF.Gamma != g {
		return nil, fmt.Errorf("psych: observer guess rate %g, but the %s task has 1/m = %g", o.PF.Gamma, o.Task.Kind, g)
	}
	if o.Task.Kind == Rating {
		if len(o.RatingThresholds) != o.Task.Levels-1 {
			return nil, fmt.Errorf("psych: rating observer needs %d thresholds, has %d", o.Task.Levels-1, len(o.RatingThresholds))
		}
		o.rating = make([]PF, len(o.RatingThresholds))
		for i, t := range o.RatingThresholds {
			if i > 0 && !(t > o.RatingThresholds[i-1]) {
				return nil, fmt.Errorf("psych: rating thresholds %v not increasing", o.RatingThresholds)
			}
			pf, err := NewPF(o.PF.Form, t, 0.5, o.PF.Beta, o.PF.Gamma, o.PF.Lambda)
			if err != nil {
				return nil, err
			}
			o.rating[i] = pf
		}
	} else if len(o.RatingThresholds) > 0 {
		return nil, fmt.Errorf("psych: rating thresholds given for a %s task", o.Task.Kind)
	}
	if o.RNG.pcg == nil {
		return nil, fmt.Errorf("psych: observer has no random state")
	}
	if o.Spec == "" {
		o.Spec = o.spec()
	}
	return &o, nil
}

// Respond answers a trial at stimulus x.
func (o *Observer) Respond(x float64) Response {
	u := o.RNG.float64()
	if o.Task.Kind == Rating {
		r := 1
		for _, pf := range o.rating {
			if u < pf.Prob(x) {
				r++
			}
		}
		return Response(r)
	}
	if u < o.PF.Prob(x) {
		return 1
	}
	return 0
}

// State returns the observer, random state included, as JSON.
func (o *Observer) State() ([]byte, error) { return json.Marshal(o) }

// RestoreObserver rebuilds an observer from State.
func RestoreObserver(b []byte) (*Observer, error) {
	var o Observer
	if err := json.Unmarshal(b, &o); err != nil {
		return nil, fmt.Errorf("psych: restore observer: %w", err)
	}
	return newObserver(o)
}

// ParseObserver builds an observer for task from a command-line
// specification such as
//
//	nominal:form=weibull,threshold=10,beta=3.5,lambda=0.01,seed=7
//
// Keys: form (logistic, cumnormal, weibull; default logistic), threshold
// (the x at which F = criterion) or alpha, criterion (default 0.5), beta,
// gamma (default 1/m for m-AFC, else 0), lambda (default 0), seed
// (default 1), and for rating tasks ratings=t2;t3;... (the boundary
// thresholds). "sim:" is the prefix's older name and means the same.
func ParseObserver(spec string, task Task) (*Observer, error) {
	rest, ok := strings.CutPrefix(spec, "nominal:")
	if !ok {
		rest, ok = strings.CutPrefix(spec, "sim:")
	}
	if !ok {
		return nil, fmt.Errorf("psych: observer %q: want nominal:key=value,...", spec)
	}
	var (
		form                Form
		haveT, haveA, haveB bool
		t, a, b, lambda     float64
		c                   = 0.5
		gamma               = task.Guess()
		seed                = uint64(1)
		ratings             []float64
	)
	if !finite(gamma) {
		gamma = 0
	}
	num := func(k, v string) (float64, error) {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || !finite(x) {
			return 0, fmt.Errorf("psych: observer %q: %s=%q is not a finite number", spec, k, v)
		}
		return x, nil
	}
	for _, kv := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return nil, fmt.Errorf("psych: observer %q: %q is not key=value", spec, kv)
		}
		var err error
		switch k {
		case "form":
			err = form.UnmarshalText([]byte(v))
		case "threshold":
			t, err = num(k, v)
			haveT = true
		case "alpha":
			a, err = num(k, v)
			haveA = true
		case "beta":
			b, err = num(k, v)
			haveB = true
		case "criterion":
			c, err = num(k, v)
		case "gamma":
			gamma, err = num(k, v)
		case "lambda":
			lambda, err = num(k, v)
		case "seed":
			seed, err = strconv.ParseUint(v, 10, 64)
		case "ratings":
			for _, s := range strings.Split(v, ";") {
				x, e := num(k, s)
				if e != nil {
					return nil, e
				}
				ratings = append(ratings, x)
			}
		default:
			err = fmt.Errorf("psych: observer %q: unknown key %q", spec, k)
		}
		if err != nil {
			return nil, err
		}
	}
	if haveT == haveA || !haveB {
		return nil, fmt.Errorf("psych: observer %q: give beta and exactly one of threshold and alpha", spec)
	}
	var (
		pf  PF
		err error
	)
	if haveT {
		pf, err = NewPF(form, t, c, b, gamma, lambda)
	} else {
		pf = PF{Form: form, Alpha: a, Beta: b, Gamma: gamma, Lambda: lambda}
	}
	if err != nil {
		return nil, err
	}
	if task.Kind == Rating {
		return NewRatingObserver(pf, task, ratings, seed)
	}
	if ratings != nil {
		return nil, fmt.Errorf("psych: observer %q: ratings given for a %s task", spec, task.Kind)
	}
	return NewObserver(pf, task, seed)
}

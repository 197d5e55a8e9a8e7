package psych

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// MatchingObserver is a simulated subject of an identification or
// matching experiment whose confusions are set: shown stimulus i it names
// response j with probability Matrix[i][j]. It validates the confusion
// analysis against a known truth (InformationOf gives the true
// information transmitted); it does not look at what a device delivered.
type MatchingObserver struct {
	// Matrix holds one row of response probabilities per stimulus, each
	// row summing to 1.
	Matrix [][]float64 `json:"matrix"`
	Seed   uint64      `json:"seed"`
	RNG    rng         `json:"rng"`
}

// NewMatchingObserver returns a seeded observer answering with the
// confusion probabilities matrix.
func NewMatchingObserver(matrix [][]float64, seed uint64) (*MatchingObserver, error) {
	o := &MatchingObserver{Matrix: cloneRows(matrix), Seed: seed, RNG: newRNG(seed, 0x3a7c)}
	return o, o.validate()
}

func cloneRows(m [][]float64) [][]float64 {
	c := make([][]float64, len(m))
	for i, r := range m {
		c[i] = slices.Clone(r)
	}
	return c
}

func (o *MatchingObserver) validate() error {
	if len(o.Matrix) < 2 {
		return fmt.Errorf("psych: matching observer with %d stimuli, need at least 2", len(o.Matrix))
	}
	if err := checkRows(o.Matrix); err != nil {
		return err
	}
	if o.RNG.pcg == nil {
		return fmt.Errorf("psych: matching observer has no random state")
	}
	return nil
}

// Respond returns the index of the response the observer gives to
// stimulus i.
func (o *MatchingObserver) Respond(stimulus int) (int, error) {
	if stimulus < 0 || stimulus >= len(o.Matrix) {
		return 0, fmt.Errorf("psych: matching observer: stimulus %d outside 0..%d", stimulus, len(o.Matrix)-1)
	}
	u := 1 - o.RNG.float64() // in (0, 1]: a response of probability 0 is never given
	row := o.Matrix[stimulus]
	var c float64
	last := 0
	for j, p := range row {
		if p > 0 {
			last = j
		}
		c += p
		if u <= c && p > 0 {
			return j, nil
		}
	}
	return last, nil // rounding left u just above the row's sum
}

// State returns the observer, random state included, as JSON.
func (o *MatchingObserver) State() ([]byte, error) { return json.Marshal(o) }

// RestoreMatchingObserver rebuilds an observer from State.
func RestoreMatchingObserver(b []byte) (*MatchingObserver, error) {
	var o MatchingObserver
	if err := json.Unmarshal(b, &o); err != nil {
		return nil, fmt.Errorf("psych: restore matching observer: %w", err)
	}
	return &o, o.validate()
}

// MagnitudeObserver is a simulated subject of a magnitude-estimation
// experiment who follows Stevens' power law: it answers stimulus x with
// Scale·x^Exponent·exp(Sigma·ε), ε standard normal, so that ln(answer) is
// linear in ln(x) with normal noise of SD Sigma. Fed the cue a device
// delivered instead of the nominal stimulus, it perceives what reached
// the finger.
type MagnitudeObserver struct {
	Exponent float64 `json:"exponent"`
	Scale    float64 `json:"scale"`
	Sigma    float64 `json:"sigma"`
	Seed     uint64  `json:"seed"`
	RNG      rng     `json:"rng"`
}

// NewMagnitudeObserver returns a seeded magnitude-estimation observer.
func NewMagnitudeObserver(exponent, scale, sigma float64, seed uint64) (*MagnitudeObserver, error) {
	o := &MagnitudeObserver{Exponent: exponent, Scale: scale, Sigma: sigma, Seed: seed, RNG: newRNG(seed, 0x5e75)}
	return o, o.validate()
}

func (o *MagnitudeObserver) validate() error {
	if !(o.Exponent > 0 && o.Exponent < 10) {
		return fmt.Errorf("psych: magnitude observer exponent %g outside (0, 10)", o.Exponent)
	}
	if !(o.Scale > 0) || math.IsInf(o.Scale, 0) {
		return fmt.Errorf("psych: magnitude observer scale %g must be positive", o.Scale)
	}
	if !(o.Sigma >= 0 && o.Sigma < 5) {
		return fmt.Errorf("psych: magnitude observer noise %g outside [0, 5)", o.Sigma)
	}
	if o.RNG.pcg == nil {
		return fmt.Errorf("psych: magnitude observer has no random state")
	}
	return nil
}

// Respond returns the magnitude the observer gives stimulus x > 0; for
// x <= 0 or NaN (nothing felt) it returns 0.
func (o *MagnitudeObserver) Respond(x float64) float64 {
	z := o.RNG.normal()
	if !(x > 0) || math.IsInf(x, 0) {
		return 0
	}
	return o.Scale * math.Pow(x, o.Exponent) * math.Exp(o.Sigma*z)
}

// State returns the observer, random state included, as JSON.
func (o *MagnitudeObserver) State() ([]byte, error) { return json.Marshal(o) }

// RestoreMagnitudeObserver rebuilds an observer from State.
func RestoreMagnitudeObserver(b []byte) (*MagnitudeObserver, error) {
	var o MagnitudeObserver
	if err := json.Unmarshal(b, &o); err != nil {
		return nil, fmt.Errorf("psych: restore magnitude observer: %w", err)
	}
	return &o, o.validate()
}

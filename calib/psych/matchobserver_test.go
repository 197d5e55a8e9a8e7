package psych

import (
	"fmt"
	"slices"
)

// MatchingObserver is the tests' simulated subject of an identification
// or matching experiment whose confusions are set: shown stimulus i it names
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

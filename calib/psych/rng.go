package psych

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
)

// rng is a PCG generator whose state survives a JSON round trip, so that a
// restored procedure or observer draws exactly the numbers the original
// would have drawn.
type rng struct {
	pcg *rand.PCG
}

func newRNG(seed, stream uint64) rng { return rng{pcg: rand.NewPCG(seed, stream)} }

func (r rng) float64() float64 { return float64(r.pcg.Uint64()<<11>>11) / (1 << 53) }

// normal returns a standard normal draw (Box–Muller, one pair of uniform
// draws per value).
func (r rng) normal() float64 {
	u := 1 - r.float64() // in (0, 1]
	v := r.float64()
	return math.Sqrt(-2*math.Log(u)) * math.Cos(2*math.Pi*v)
}

// intn returns a uniform integer in [0, n) by Lemire's method without bias.
func (r rng) intn(n int) int {
	return rand.New(r.pcg).IntN(n)
}

// perm fills dst with a uniform permutation of 0..len(dst)-1.
func (r rng) perm(dst []int) {
	for i := range dst {
		dst[i] = i
	}
	for i := len(dst) - 1; i > 0; i-- {
		j := r.intn(i + 1)
		dst[i], dst[j] = dst[j], dst[i]
	}
}

// MarshalJSON encodes the generator state as a hex string.
func (r rng) MarshalJSON() ([]byte, error) {
	if r.pcg == nil {
		return nil, fmt.Errorf("psych: rng not initialised")
	}
	b, err := r.pcg.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("psych: rng state: %w", err)
	}
	return json.Marshal(hex.EncodeToString(b))
}

// UnmarshalJSON restores the generator state.
func (r *rng) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("psych: rng state: %w", err)
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return fmt.Errorf("psych: rng state %q: %w", s, err)
	}
	p := new(rand.PCG)
	if err := p.UnmarshalBinary(b); err != nil {
		return fmt.Errorf("psych: rng state %q: %w", s, err)
	}
	r.pcg = p
	return nil
}

package filter

// Filter runs a cascade sample by sample, each section in transposed direct
// form II (Oppenheim & Schafer, §6.4):
//
//	y  = B0 x + s1
//	s1 = B1 x - A1 y + s2
//	s2 = B2 x - A2 y
//
// A Filter is not safe for concurrent use; give each signal its own.
// A NaN or Inf input propagates into the state and every later output
// until Reset or SetSteady.
type Filter struct {
	stages []stage
}

type stage struct {
	Section
	s1, s2 float64
}

// New returns a filter for s with zero state. It copies s. It panics if s
// fails Validate: a cascade from Butterworth or ChebyshevI never does;
// validate hand-written or loaded cascades first.
func New(s SOS) *Filter {
	if err := s.Validate(); err != nil {
		panic(err)
	}
	f := &Filter{stages: make([]stage, len(s))}
	for i, c := range s {
		f.stages[i].Section = c
	}
	return f
}

// Step filters one input sample and returns the output sample. It does not
// allocate.
func (f *Filter) Step(x float64) float64 {
	for i := range f.stages {
		st := &f.stages[i]
		y := st.B0*x + st.s1
		st.s1 = st.B1*x - st.A1*y + st.s2
		st.s2 = st.B2*x - st.A2*y
		x = y
	}
	return x
}

// Reset zeroes the state, as if the input had been zero forever.
func (f *Filter) Reset() {
	for i := range f.stages {
		f.stages[i].s1, f.stages[i].s2 = 0, 0
	}
}

// SetSteady sets the state as if x had been the input forever, so that the
// next Step(x) returns DCGain()·x with no transient: use it to start a
// filter on a signal that is already far from zero (a force-sensor bias,
// a resting position).
func (f *Filter) SetSteady(x float64) {
	for i := range f.stages {
		st := &f.stages[i]
		// Validate guarantees 1 + A1 + A2 > 0: no pole at z = 1.
		y := x * (st.B0 + st.B1 + st.B2) / (1 + st.A1 + st.A2)
		st.s2 = st.B2*x - st.A2*y
		st.s1 = st.B1*x - st.A1*y + st.s2
		x = y
	}
}

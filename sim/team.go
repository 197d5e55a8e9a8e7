package sim

import (
	"runtime"
	"sync/atomic"
)

// team splits a job in two: run posts part 1 for another goroutine to
// claim (Cloth.Assist), runs part 0 on the calling goroutine, and runs part
// 1 itself unless it was claimed meanwhile. A nil team runs both parts on
// the caller, one after the other. The parts must write disjoint memory,
// so the result does not depend on which goroutine ran which part or when.
//
// No goroutine of its own waits for jobs: a helper that spins between
// jobs takes a core from whoever else has work (in lockstep, the runner's
// haptics and tactile ticks), and one that parks takes about as long to
// wake as half an element pass at the rig's mesh takes to run. The assistant
// is a goroutine that has nothing better to do, and an unclaimed half
// costs the step nothing but its own time.
type team struct {
	job   func(part int)
	state atomic.Uint32 // teamIdle, teamPosted or teamClaimed
	ended atomic.Bool   // the assistant finished its claimed part
}

const (
	teamIdle uint32 = iota
	teamPosted
	teamClaimed
)

// run runs job(0) and job(1). job must be a stored func value, not a
// closure made per call, so that a step allocates nothing.
func (t *team) run(job func(part int)) {
	if t == nil {
		job(0)
		job(1)
		return
	}
	t.job = job
	t.state.Store(teamPosted)
	job(0)
	if t.state.CompareAndSwap(teamPosted, teamIdle) {
		job(1)
	} else {
		// Claimed: the other half is running and takes about as long as
		// this one did.
		for i := 1; !t.ended.Load(); i++ {
			if i%256 == 0 {
				runtime.Gosched()
			}
		}
		t.ended.Store(false)
		t.state.Store(teamIdle)
	}
	t.job = nil // the assistant keeps no reference to the cloth
}

// assist runs part 1 of the posted job, if there is one nobody claimed,
// and reports whether it did.
func (t *team) assist() bool {
	if t == nil || t.state.Load() != teamPosted || !t.state.CompareAndSwap(teamPosted, teamClaimed) {
		return false
	}
	t.job(1)
	t.ended.Store(true)
	return true
}

// rowSplit splits a product's rows at half for the team: rows are
// independent, so the result is the same whichever goroutine runs each
// half, or whether one runs both.
type rowSplit struct {
	n, half int
	dst, x  []float64 // the arguments of the product in progress
	dst3    *[3][]float64
	x3      *[3][]float64 // those of a three-vector product (run3)
}

func (s *rowSplit) init(n int) { s.n, s.half = n, n/2 }

// rows returns part p's rows.
func (s *rowSplit) rows(p int) (i0, i1 int) {
	if p == 0 {
		return 0, s.half
	}
	return s.half, s.n
}

// run runs a product's job on dst and x, its two halves side by side on
// the team if there is one.
func (s *rowSplit) run(t *team, job func(part int), dst, x []float64) {
	s.dst, s.x = dst, x
	t.run(job)
	s.dst, s.x = nil, nil
}

// run3 is run for a product of three vectors at once.
func (s *rowSplit) run3(t *team, job func(part int), dst, x *[3][]float64) {
	s.dst3, s.x3 = dst, x
	t.run(job)
	s.dst3, s.x3 = nil, nil
}

// part3 returns the three vectors' rows i0..i1-1 of dst3.
func (s *rowSplit) part3(i0, i1 int) [3][]float64 {
	d := s.dst3
	return [3][]float64{d[0][3*i0 : 3*i1], d[1][3*i0 : 3*i1], d[2][3*i0 : 3*i1]}
}

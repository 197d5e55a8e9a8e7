package sim

import (
	"runtime"
	"sync/atomic"
	"time"
)

// team runs a job's two halves, part 0 on the calling goroutine and part 1
// on a helper goroutine, and waits for both: the fork and join of the
// step's element pass (Cloth.SetParallel). A nil team runs both parts on
// the caller, one after the other. The parts must write disjoint memory,
// so the result does not depend on which goroutine ran which part or when.
//
// The helper spins (yielding to other goroutines) for teamSpin after each
// job before it parks: on this virtual machine waking a parked goroutine
// takes about 100 µs, as long as half an element pass at 24², while a
// spinning one starts within a few microseconds (BenchmarkTeam: 197 µs a
// fork of two 100 µs halves when parked, 101-104 µs spinning).
type team struct {
	job    func(part int)
	posted atomic.Bool // a job waits for the helper
	ended  atomic.Bool // the helper finished its part
	parked atomic.Bool // the helper sleeps on wake
	wake   chan struct{}
}

// teamSpin is how long the helper spins for the next job: longer than the
// longest gap between jobs (from one step's last product to the next
// step's element pass) at the rig's meshes.
const teamSpin = 3 * time.Millisecond

// newTeam starts the helper of owner's team. The helper ends when owner is
// garbage collected, so a Cloth needs no Close; the team must be reachable
// only through owner.
func newTeam[T any](owner *T) *team {
	t := &team{wake: make(chan struct{}, 1)}
	go t.help()
	runtime.AddCleanup(owner, func(wake chan struct{}) { close(wake) }, t.wake)
	return t
}

func (t *team) help() {
	for {
		since := time.Now()
		for !t.posted.Load() {
			if time.Since(since) < teamSpin {
				runtime.Gosched()
				continue
			}
			// Park. run posts before it looks at parked, and the helper
			// parks before it looks at posted, so one of them sees the
			// other: no job is missed. A stale wake-up only restarts the
			// spin.
			t.parked.Store(true)
			if !t.posted.Load() {
				if _, ok := <-t.wake; !ok {
					return
				}
			}
			t.parked.Store(false)
			since = time.Now()
		}
		t.posted.Store(false)
		t.job(1)
		t.ended.Store(true)
	}
}

// run runs job(0) and job(1). job must be a stored func value, not a
// closure made per call, so that a step allocates nothing.
func (t *team) run(job func(part int)) {
	if t == nil {
		job(0)
		job(1)
		return
	}
	t.job = job
	t.posted.Store(true)
	if t.parked.Load() {
		select {
		case t.wake <- struct{}{}:
		default:
		}
	}
	job(0)
	for !t.ended.Load() {
		runtime.Gosched()
	}
	t.ended.Store(false)
	t.job = nil // the helper keeps no reference to the cloth
}

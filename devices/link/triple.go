package link

import "sync/atomic"

// triple is a single-producer single-consumer latest-value buffer over
// three preallocated slots. The writer fills its back slot and swaps it
// into the middle; the reader swaps the middle out when it is fresh. Each
// slot is owned by one side between swaps, so there is no lock and no torn
// value, and the race detector sees the atomic exchange as the hand-off.
type triple[T any] struct {
	slots [3]T
	mid   atomic.Uint32 // slot index | fresh
	back  uint32        // writer's slot
	front uint32        // reader's slot
}

const fresh = 1 << 2

func (t *triple[T]) init() {
	t.back, t.front = 0, 2
	t.mid.Store(1)
}

// slot returns the writer's slot to fill.
func (t *triple[T]) slot() *T { return &t.slots[t.back] }

// publish makes the filled slot the newest value.
func (t *triple[T]) publish() {
	t.back = t.mid.Swap(t.back|fresh) &^ fresh
}

// load returns the newest value and whether it was published since the
// previous load.
func (t *triple[T]) load() (*T, bool) {
	if t.mid.Load()&fresh == 0 {
		return &t.slots[t.front], false
	}
	t.front = t.mid.Swap(t.front) &^ fresh
	return &t.slots[t.front], true
}

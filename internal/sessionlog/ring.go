package sessionlog

import (
	"fmt"
	"sync/atomic"
)

// Ring is a bounded single-producer single-consumer queue of fixed-size
// values over a preallocated array. Push never blocks and never allocates:
// when the ring is full the value is dropped and counted. Pop is called by
// one consumer goroutine.
type Ring[T any] struct {
	buf  []T
	mask uint64

	_    [64]byte
	head atomic.Uint64 // next slot to write (producer)
	_    [56]byte
	tail atomic.Uint64 // next slot to read (consumer)
	_    [56]byte

	dropped atomic.Uint64
	pushed  atomic.Uint64
}

// NewRing returns a ring of the given capacity, rounded up to a power of
// two. It panics on a non-positive capacity.
func NewRing[T any](capacity int) *Ring[T] {
	if capacity <= 0 {
		panic(fmt.Sprintf("record: ring capacity %d", capacity))
	}
	n := uint64(1)
	for n < uint64(capacity) {
		n <<= 1
	}
	return &Ring[T]{buf: make([]T, n), mask: n - 1}
}

// Push copies *v into the ring. It returns false, and counts a dropped row,
// when the consumer has fallen a whole ring behind.
func (r *Ring[T]) Push(v *T) bool {
	h := r.head.Load()
	if h-r.tail.Load() >= uint64(len(r.buf)) {
		r.dropped.Add(1)
		return false
	}
	r.buf[h&r.mask] = *v
	r.head.Store(h + 1)
	r.pushed.Add(1)
	return true
}

// Pop copies the oldest value into *dst and reports whether there was one.
func (r *Ring[T]) Pop(dst *T) bool {
	t := r.tail.Load()
	if t == r.head.Load() {
		return false
	}
	*dst = r.buf[t&r.mask]
	r.tail.Store(t + 1)
	return true
}

// Dropped returns how many pushes found the ring full.
func (r *Ring[T]) Dropped() uint64 { return r.dropped.Load() }

// Pushed returns how many values went into the ring.
func (r *Ring[T]) Pushed() uint64 { return r.pushed.Load() }

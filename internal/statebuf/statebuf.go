// Package statebuf hands the latest value of something from one loop to
// others without locks: a triple buffer generalised to several readers.
//
// One goroutine writes; up to R goroutines read. The buffer holds R+2
// preallocated slots. The writer fills a slot nobody reads and publishes it
// with one atomic store; a reader acquires the latest published slot by
// pinning it with an atomic reference count, and keeps it until its next
// read. With one reader this is exactly the classic triple buffer (three
// slots).
//
// # Guarantees
//
//   - A reader always sees a whole slot as the writer published it, never a
//     slot being written: a slot is written only while it is neither the
//     latest nor pinned by any reader.
//   - A reader never goes back in time: each read returns the latest slot
//     published when the read confirmed its pin, which is never older than
//     what the previous read returned.
//   - Publish and Read take no lock, never block each other and allocate
//     nothing. Read retries only when a publish lands between its load and
//     its pin; Publish rescans its handful of slots only when readers move
//     their pins during the scan, at most 2R+1 times.
//
// Payloads may contain slices (a cloth snapshot does): the slots are made
// once by the init function given to New and reused forever; the writer
// overwrites a slot's contents in place.
//
// The synchronisation is sync/atomic only, so the race detector sees every
// hand-off: there is no seqlock and no unsynchronised read of a payload.
package statebuf

import (
	"fmt"
	"sync/atomic"
)

// cacheLine keeps the per-slot counters and the latest index on separate
// cache lines, so a reader pinning one slot does not slow the writer or the
// other reader.
const cacheLine = 64

type pin struct {
	n atomic.Int32
	_ [cacheLine - 4]byte
}

// Buffer is a latest-value buffer for values of type T. Create it with New.
type Buffer[T any] struct {
	slots []T
	pins  []pin

	_      [cacheLine]byte
	latest atomic.Uint64 // slot index<<48 | publish sequence number
	_      [cacheLine - 8]byte

	// Writer-owned: the slot being filled and the next sequence number.
	back    int
	seq     uint64
	readers atomic.Int32
	maxRead int
}

const (
	seqBits = 48
	seqMask = 1<<seqBits - 1
)

// New returns a buffer for up to readers concurrent readers. init is called
// once on every slot (readers+2 of them) to allocate what the payload needs;
// it may be nil for plain value types. The initial slots are published as
// sequence number 0, so a reader never sees a nil or unsized payload.
//
// New panics if readers < 1 or readers > 1024: that is a programming error.
func New[T any](readers int, init func(*T)) *Buffer[T] {
	if readers < 1 || readers > 1024 {
		panic(fmt.Sprintf("statebuf: %d readers, want 1..1024", readers))
	}
	n := readers + 2
	b := &Buffer[T]{slots: make([]T, n), pins: make([]pin, n), maxRead: readers}
	if init != nil {
		for i := range b.slots {
			init(&b.slots[i])
		}
	}
	b.latest.Store(0) // slot 0, sequence 0
	b.back = 1
	b.seq = 0
	return b
}

// Slot returns the slot the writer fills next. The writer may read and write
// it freely until Publish. Only the writer may call Slot and Publish.
func (b *Buffer[T]) Slot() *T { return &b.slots[b.back] }

// Publish makes the slot returned by Slot the latest value and chooses a
// fresh slot for the next write. It returns the sequence number of the
// published value (1 for the first publish).
func (b *Buffer[T]) Publish() uint64 {
	b.seq++
	published := b.back
	b.latest.Store(uint64(published)<<seqBits | b.seq&seqMask)
	// The next back slot: any slot that is not the latest and that no
	// reader pins. Readers pin at most one slot each, so R+2 slots always
	// leave one free; but the scan is not atomic, and a reader that moves
	// its pin during the scan can be seen twice. A reader moves its pin at
	// most twice per publish (a stale pin it drops, then the latest, which
	// the scan skips), so the rescan ends after at most 2R+1 passes.
	for {
		for i := 1; i < len(b.slots); i++ {
			c := (published + i) % len(b.slots)
			if b.pins[c].n.Load() == 0 {
				b.back = c
				return b.seq
			}
		}
	}
}

// Seq returns the sequence number of the latest published value.
func (b *Buffer[T]) Seq() uint64 { return b.latest.Load() & seqMask }

// NewReader returns a reader handle. Each reading goroutine needs its own
// handle; at most the number given to New may exist. It panics when more are
// asked for, a programming error caught at setup.
func (b *Buffer[T]) NewReader() *Reader[T] {
	if n := b.readers.Add(1); int(n) > b.maxRead {
		panic(fmt.Sprintf("statebuf: more than %d readers", b.maxRead))
	}
	return &Reader[T]{b: b, held: -1}
}

// Reader reads a Buffer from one goroutine.
type Reader[T any] struct {
	b    *Buffer[T]
	held int // pinned slot, -1 when none
	seq  uint64
}

// Read returns the latest published value and its sequence number. The
// value stays valid and unchanged until the reader's next Read or Release;
// the reader must not modify it.
func (r *Reader[T]) Read() (*T, uint64) {
	b := r.b
	for {
		l := b.latest.Load()
		i := int(l >> seqBits)
		if i == r.held {
			// Still the latest: the pin we hold keeps it intact.
			r.seq = l & seqMask
			return &b.slots[i], r.seq
		}
		// Drop the old pin before taking the new one, so a reader never
		// holds more than one pin and R+2 slots always leave the writer a
		// free one. The old value is not needed: a newer one is latest.
		r.Release()
		b.pins[i].n.Add(1)
		// The writer may have moved on and started filling slot i between
		// our load and our pin; it cannot have if i is still the latest
		// (a latest slot is never written) or latest again (then it was
		// republished whole, and our pin now keeps the writer out).
		if l2 := b.latest.Load(); int(l2>>seqBits) == i {
			r.held = i
			r.seq = l2 & seqMask
			return &b.slots[i], r.seq
		}
		b.pins[i].n.Add(-1)
	}
}

// Release drops the reader's pin, so the writer may reuse that slot. A
// reader that is about to stop reading for a long time calls it; the next
// Read pins again.
func (r *Reader[T]) Release() {
	if r.held >= 0 {
		r.b.pins[r.held].n.Add(-1)
		r.held = -1
	}
}

// Seq returns the sequence number of the value the last Read returned.
func (r *Reader[T]) Seq() uint64 { return r.seq }

// Package statebufbench measures internal/statebuf's publish and reads
// with a payload the size of the haptics loop's output. `haptex bench
// statebuf` prints its Result.
package statebufbench

import (
	"runtime"
	"slices"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/haptex/haptex/internal/statebuf"
)

// Payload is the payload the bench moves: 256 bytes, about one
// sim.FingerState.
type Payload struct {
	Seq  uint64
	Data [31]uint64
}

// Result is the JSON of `haptex bench statebuf`: nanoseconds per
// operation, each the median of 15 rounds.
type Result struct {
	Bench            string  `json:"bench"`
	PayloadBytes     int     `json:"payload_bytes"`
	PublishNs        float64 `json:"publish_ns"`
	ReadNs           float64 `json:"read_ns"`
	ReadUnchangedNs  float64 `json:"read_unchanged_ns"`
	ConcurrentReadNs float64 `json:"concurrent_read_ns"`
	Rounds           int     `json:"rounds"`
	OpsPerRound      int     `json:"ops_per_round"`
}

var sink Payload

// Bench measures the buffer with a 256-byte payload: a publish (fill the
// slot and publish), a read that acquires a new slot and copies the payload
// out, a read of an unchanged value, and a read while a writer publishes
// continuously on the other core.
func Bench() Result {
	const rounds, ops = 15, 200_000
	res := Result{Bench: "statebuf", PayloadBytes: int(unsafe.Sizeof(Payload{})), Rounds: rounds, OpsPerRound: ops}
	median := func(f func()) float64 {
		ns := make([]float64, rounds)
		for i := range ns {
			t0 := time.Now()
			f()
			ns[i] = float64(time.Since(t0).Nanoseconds()) / ops
		}
		slices.Sort(ns)
		return ns[rounds/2]
	}
	b := statebuf.New[Payload](2, nil)
	r := b.NewReader()
	var src Payload
	res.PublishNs = median(func() {
		for i := 0; i < ops; i++ {
			src.Seq++
			*b.Slot() = src
			b.Publish()
		}
	})
	res.ReadNs = median(func() {
		for i := 0; i < ops; i++ {
			r.Release()
			p, _ := r.Read()
			sink = *p
		}
	})
	res.ReadUnchangedNs = median(func() {
		for i := 0; i < ops; i++ {
			p, _ := r.Read()
			sink = *p
		}
	})

	// Concurrent: a writer publishing as fast as it can on another core.
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer close(done)
		var v Payload
		for !stop.Load() {
			v.Seq++
			*b.Slot() = v
			b.Publish()
		}
	}()
	res.ConcurrentReadNs = median(func() {
		for i := 0; i < ops; i++ {
			p, _ := r.Read()
			sink = *p
		}
	})
	stop.Store(true)
	<-done
	return res
}

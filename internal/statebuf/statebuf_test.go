package statebuf

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// payload is 256 bytes, about one sim.FingerState: a sequence number, data
// derived from it, and a checksum over both, so a torn read shows.
type payload struct {
	Seq  uint64
	Data [30]uint64
	Sum  uint64
}

func (p *payload) fill(seq uint64) {
	p.Seq = seq
	x := seq*0x9e3779b97f4a7c15 + 1
	sum := seq
	for i := range p.Data {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		p.Data[i] = x
		sum = sum*31 + x
	}
	p.Sum = sum
}

func (p *payload) ok() bool {
	sum := p.Seq
	for _, d := range p.Data {
		sum = sum*31 + d
	}
	return sum == p.Sum
}

func TestInitialValue(t *testing.T) {
	b := New[[]float64](1, func(s *[]float64) { *s = make([]float64, 4) })
	r := b.NewReader()
	v, seq := r.Read()
	if seq != 0 || len(*v) != 4 {
		t.Fatalf("initial read: seq %d len %d, want 0 and 4", seq, len(*v))
	}
	(*b.Slot())[0] = 7
	if got := b.Publish(); got != 1 {
		t.Fatalf("first publish seq %d, want 1", got)
	}
	v, seq = r.Read()
	if seq != 1 || (*v)[0] != 7 {
		t.Fatalf("after publish: seq %d value %v", seq, *v)
	}
}

// A reader that reads slower than the writer writes always gets the newest
// value, and one that reads faster sees the same value again.
func TestLatestWins(t *testing.T) {
	b := New[int](1, nil)
	r := b.NewReader()
	for i := 1; i <= 10; i++ {
		*b.Slot() = i
		b.Publish()
	}
	for k := 0; k < 3; k++ {
		if v, seq := r.Read(); *v != 10 || seq != 10 {
			t.Fatalf("read %d: got %d (seq %d), want 10", k, *v, seq)
		}
	}
}

func TestTooManyReadersPanics(t *testing.T) {
	b := New[int](2, nil)
	b.NewReader()
	b.NewReader()
	defer func() {
		if recover() == nil {
			t.Fatal("third reader of a 2-reader buffer did not panic")
		}
	}()
	b.NewReader()
}

// The writer must always find a free slot, whatever the readers pin, and
// must never hand out a slot a reader holds.
func TestPinnedSlotsAreNeverWritten(t *testing.T) {
	const readers = 3
	b := New[payload](readers, nil)
	rs := make([]*Reader[payload], readers)
	for i := range rs {
		rs[i] = b.NewReader()
	}
	held := make([]payload, readers)
	for step := uint64(1); step < 2000; step++ {
		b.Slot().fill(step)
		b.Publish()
		// Readers read in a rotating, uneven pattern and keep what they read.
		k := int(step % readers)
		if step%uint64(k+2) == 0 {
			p, _ := rs[k].Read()
			held[k] = *p
		}
		for j, r := range rs {
			if r.held < 0 {
				continue
			}
			if got := b.slots[r.held]; got != held[j] {
				t.Fatalf("step %d: reader %d's pinned slot was overwritten (seq %d -> %d)", step, j, held[j].Seq, got.Seq)
			}
		}
	}
}

// TestStress is the acceptance test of the foundation issue: one writer and
// two readers on separate goroutines, at least 10^6 publishes, under the race
// detector in make test. No reader may see a torn payload or go backwards.
func TestStress(t *testing.T) {
	publishes := uint64(1_000_000)
	if testing.Short() {
		publishes = 100_000
	}
	const readers = 2
	b := New[payload](readers, nil)
	var done atomic.Bool
	var wg sync.WaitGroup
	type result struct {
		reads, torn, backwards, distinct uint64
		seqMismatch                      uint64
	}
	results := make([]result, readers)
	for k := 0; k < readers; k++ {
		r := b.NewReader()
		wg.Add(1)
		go func(res *result) {
			defer wg.Done()
			var last uint64
			for {
				stop := done.Load()
				p, seq := r.Read()
				res.reads++
				if !p.ok() {
					res.torn++
				}
				if p.Seq != seq {
					res.seqMismatch++
				}
				if seq < last {
					res.backwards++
				}
				if seq != last {
					res.distinct++
				}
				last = seq
				if stop {
					if seq != publishes {
						res.backwards++ // the final value must be visible after the writer stops
					}
					return
				}
				runtime.Gosched()
			}
		}(&results[k])
	}
	for s := uint64(1); s <= publishes; s++ {
		b.Slot().fill(s)
		b.Publish()
	}
	done.Store(true)
	wg.Wait()
	for k, res := range results {
		t.Logf("reader %d: %d reads, %d distinct values", k, res.reads, res.distinct)
		if res.torn != 0 || res.backwards != 0 || res.seqMismatch != 0 {
			t.Errorf("reader %d: %d torn, %d backwards, %d sequence mismatches", k, res.torn, res.backwards, res.seqMismatch)
		}
		if res.distinct < 2 {
			t.Errorf("reader %d saw %d distinct values: the test did not exercise concurrency", k, res.distinct)
		}
	}
}

func TestAllocs(t *testing.T) {
	b := New[payload](2, nil)
	r := b.NewReader()
	var seq uint64
	if a := testing.AllocsPerRun(1000, func() {
		seq++
		b.Slot().Seq = seq
		b.Publish()
		r.Read()
	}); a != 0 {
		t.Fatalf("publish+read: %v allocs per op, want 0", a)
	}
}

var sink payload

func BenchmarkPublish(b *testing.B) {
	buf := New[payload](2, nil)
	var src payload
	src.fill(1)
	b.ReportAllocs()
	for b.Loop() {
		*buf.Slot() = src
		buf.Publish()
	}
}

// BenchmarkRead measures a read that acquires a slot it does not hold yet
// (what a read costs after a publish: drop the old pin, pin, validate) and
// copies the 256-byte payload out.
func BenchmarkRead(b *testing.B) {
	buf := New[payload](2, nil)
	r := buf.NewReader()
	b.ReportAllocs()
	for b.Loop() {
		r.Release()
		p, _ := r.Read()
		sink = *p
	}
}

// BenchmarkReadUnchanged is a read when nothing new was published.
func BenchmarkReadUnchanged(b *testing.B) {
	buf := New[payload](2, nil)
	r := buf.NewReader()
	b.ReportAllocs()
	for b.Loop() {
		p, _ := r.Read()
		sink = *p
	}
}

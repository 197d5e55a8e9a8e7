package render

import (
	"sync"
	"testing"
)

func TestPadCentres(t *testing.T) {
	near := func(a, b vec3) bool { return norm(sub(a, b)) < 1e-12 }
	p := Pinch{Point: vec3{0.05, 0.10, 0.01}, Gap: 0.04}
	th, ix := p.PadCentres(0.008)
	// Open: surfaces 4 cm apart, so centres at ±(2 cm + r).
	if !near(th, vec3{0.05, 0.10, 0.01 - 0.028}) || !near(ix, vec3{0.05, 0.10, 0.01 + 0.028}) {
		t.Errorf("open: thumb %v index %v", th, ix)
	}
	p.Closed = true
	th, ix = p.PadCentres(0.008)
	// Closed: the surfaces touch at the point.
	if !near(th, vec3{0.05, 0.10, 0.01 - 0.008}) || !near(ix, vec3{0.05, 0.10, 0.01 + 0.008}) {
		t.Errorf("closed: thumb %v index %v", th, ix)
	}
}

func TestAtomicPinchLoadAllocs(t *testing.T) {
	var a AtomicPinch
	var p Pinch
	if a.Load(&p) {
		t.Fatal("Load of an empty AtomicPinch succeeded")
	}
	a.Store(DefaultPinch())
	if n := testing.AllocsPerRun(100, func() { a.Load(&p) }); n != 0 {
		t.Errorf("Load allocates %v times", n)
	}
	if p.Point != DefaultPinch().Point || p.Seq != 1 {
		t.Errorf("loaded %+v", p)
	}
}

// One writer, several readers: every Pinch a reader sees is one the writer
// stored whole (its fields agree), and Seq never goes back.
func TestAtomicPinchConcurrent(t *testing.T) {
	var a AtomicPinch
	const n = 20000
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for k := 1; k <= n; k++ {
			f := float64(k)
			a.Store(Pinch{Point: vec3{f, 2 * f, 3 * f}, Gap: f, Closed: k%2 == 0, Active: true})
		}
	}()
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var p Pinch
			var last uint64
			for i := 0; i < n; i++ {
				if !a.Load(&p) {
					continue
				}
				k := p.Gap
				if p.Point != (vec3{k, 2 * k, 3 * k}) || p.Closed != (int(k)%2 == 0) || p.Seq != uint64(k) {
					t.Errorf("torn Pinch %+v", p)
					return
				}
				if p.Seq < last {
					t.Errorf("Seq went back from %d to %d", last, p.Seq)
					return
				}
				last = p.Seq
			}
		}()
	}
	wg.Wait()
}

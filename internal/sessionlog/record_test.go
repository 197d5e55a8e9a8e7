package sessionlog

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// One producer and one consumer on separate goroutines: every value that was
// not dropped arrives exactly once and in order; drops are counted.
func TestRingConcurrentOrder(t *testing.T) {
	const n = 200_000
	r := NewRing[uint64](64)
	var wg sync.WaitGroup
	var got []uint64
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		var v uint64
		for {
			if r.Pop(&v) {
				got = append(got, v)
				continue
			}
			select {
			case <-done:
				for r.Pop(&v) {
					got = append(got, v)
				}
				return
			default:
			}
		}
	}()
	for i := uint64(1); i <= n; i++ {
		r.Push(&i)
	}
	close(done)
	wg.Wait()
	if uint64(len(got))+r.Dropped() != n || r.Pushed() != uint64(len(got)) {
		t.Fatalf("got %d, dropped %d, pushed %d, of %d", len(got), r.Dropped(), r.Pushed(), n)
	}
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] {
			t.Fatalf("out of order at %d: %d after %d", i, got[i], got[i-1])
		}
	}
}

func TestRingFullDropsAndCounts(t *testing.T) {
	r := NewRing[int](4)
	for i := 0; i < 10; i++ {
		r.Push(&i)
	}
	if r.Dropped() != 6 {
		t.Fatalf("dropped %d, want 6", r.Dropped())
	}
	var v int
	for want := 0; want < 4; want++ {
		if !r.Pop(&v) || v != want {
			t.Fatalf("pop %d: %d", want, v)
		}
	}
	if r.Pop(&v) {
		t.Fatal("pop from an empty ring")
	}
}

func TestRingPushAllocs(t *testing.T) {
	type row struct{ a [40]float64 }
	r := NewRing[row](8)
	var v row
	if a := testing.AllocsPerRun(100, func() { r.Push(&v); r.Pop(&v) }); a != 0 {
		t.Fatalf("push+pop allocates %v", a)
	}
}

type row struct {
	T float64
	X [3]float64
}

func formatRow(dst []byte, r *row) []byte {
	dst = AppendFloat(dst, r.T)
	return AppendFloats(dst, r.X[0], r.X[1], r.X[2])
}

// Rows go through the session to a CSV that a standard CSV reader parses
// back to the same float64 values, bit for bit.
func TestSessionCSVRoundTrip(t *testing.T) {
	s, err := Create(t.TempDir(), "test-")
	if err != nil {
		t.Fatal(err)
	}
	tab, err := NewTable(s, "rows.csv", []string{"t", "x", "y", "z"}, 8192, formatRow)
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	const n = 5000
	for i := 0; i < n; i++ {
		r := row{T: float64(i) * 1e-3, X: [3]float64{1.0 / float64(i+1), -float64(i), 1e-300 * float64(i)}}
		if !tab.Push(&r) {
			t.Fatalf("row %d dropped with a ring larger than the run", i)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(map[string]any{"tables": s.Stats()})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.WriteFile("session.json", js); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(s.Dir, "rows.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != n+1 || recs[0][0] != "t" {
		t.Fatalf("%d records, header %v", len(recs), recs[0])
	}
	for i, rec := range recs[1:] {
		want := []float64{float64(i) * 1e-3, 1.0 / float64(i+1), -float64(i), 1e-300 * float64(i)}
		for k, w := range want {
			v, err := strconv.ParseFloat(rec[k], 64)
			if err != nil || v != w {
				t.Fatalf("row %d col %d: %q, want %v", i, k, rec[k], w)
			}
		}
	}
	var meta struct{ Tables []TableStats }
	b, _ := os.ReadFile(filepath.Join(s.Dir, "session.json"))
	if err := json.Unmarshal(b, &meta); err != nil || meta.Tables[0].Rows != n || meta.Tables[0].Dropped != 0 {
		t.Fatalf("session.json: %s (%v)", b, err)
	}
}

// A writer that cannot keep up makes the producer drop rows, never wait.
func TestSessionDropsInsteadOfBlocking(t *testing.T) {
	s, err := Create(t.TempDir(), "drop-")
	if err != nil {
		t.Fatal(err)
	}
	tab, err := NewTable(s, "rows.csv", []string{"t", "x", "y", "z"}, 16, formatRow)
	if err != nil {
		t.Fatal(err)
	}
	// The writer is not started: every push past the ring's capacity drops.
	for i := 0; i < 100; i++ {
		r := row{T: float64(i)}
		tab.Push(&r)
	}
	if tab.Dropped() != 84 {
		t.Fatalf("dropped %d, want 84", tab.Dropped())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats()[0]; st.Rows != 16 || st.Dropped != 84 {
		t.Fatalf("stats %+v", st)
	}
}

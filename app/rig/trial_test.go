package rig

import (
	"bytes"
	"encoding/csv"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/haptex/haptex/haptics"
)

// An interval's trace holds every haptics tick and tactile frame of the
// interval, the delivered pin amplitudes of the simulated arrays, and
// writes them as CSV with its header's columns; a tick that records into
// it allocates nothing, and ticks beyond its room are counted, not kept.
func TestIntervalTrace(t *testing.T) {
	r, err := New(coarse(Config{}))
	if err != nil {
		t.Fatal(err)
	}
	s, err := r.Lockstep()
	if err != nil {
		t.Fatal(err)
	}
	// One frame first: the run's first has no frame before it whose
	// delivery it could carry.
	s.Advance(30 * time.Millisecond)
	tr := r.NewIntervalTrace(time.Second)
	if err := r.BeginTracedInterval(tr); err != nil {
		t.Fatal(err)
	}
	s.Advance(time.Second)
	c, err := r.EndInterval()
	if err != nil {
		t.Fatal(err)
	}
	s.Advance(30 * time.Millisecond)
	st := <-c
	if n := len(tr.Haptics); n < 999 || n > 1002 || tr.DroppedTicks != 0 {
		t.Fatalf("%d ticks traced (%d dropped) over 1 s", n, tr.DroppedTicks)
	}
	if len(tr.Tactile) != st.TactileFrames || len(tr.Tactile) < 39 || !tr.Tactile[0].Measured[0] {
		t.Fatalf("%d frames traced, %d counted", len(tr.Tactile), st.TactileFrames)
	}
	var b bytes.Buffer
	if err := tr.WriteHapticsCSV(&b); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(recs) != len(tr.Haptics)+1 || len(recs[0]) != len(strings.Split(haptics.TickCSVHeader(), ",")) {
		t.Fatalf("haptics CSV: %d rows, %v", len(recs), err)
	}
	b.Reset()
	if err := tr.WriteTactileCSV(&b); err != nil {
		t.Fatal(err)
	}
	recs, err = csv.NewReader(&b).ReadAll()
	if err != nil || len(recs) != len(tr.Tactile)+1 || len(recs[0]) != 1+2*4*24+1+2*5+2 {
		t.Fatalf("tactile CSV: %d rows, %v", len(recs), err)
	}
	// The simulated arrays report no status: each frame written, and its
	// report's columns empty. What they delivered, read as the frame was
	// written, is of the frame before.
	for i, rec := range recs[1:] {
		want := strconv.Itoa(int(tr.Tactile[i].Seq) - 1)
		if seq := rec[1+2*4*24]; seq != strconv.Itoa(int(tr.Tactile[i].Seq)) || tr.Tactile[i].Seq == 0 ||
			rec[len(rec)-12] != "1" || strings.Join(rec[len(rec)-11:len(rec)-7], "") != "" || rec[len(rec)-7] != "1" ||
			rec[len(rec)-2] != want || rec[len(rec)-1] != want {
			t.Fatalf("tactile CSV row %d: seq %s, reports %v", i, seq, rec[len(rec)-13:])
		}
	}
	if _, err := s.Finish(); err != nil {
		t.Fatal(err)
	}

	// Recording into a full trace allocates nothing and counts.
	r2, err := New(coarse(Config{}))
	if err != nil {
		t.Fatal(err)
	}
	small := r2.NewIntervalTrace(0)
	r2.haptics.iv.begin(0, 0.001, 0.008, small)
	tick := time.Duration(0)
	if a := testing.AllocsPerRun(200, func() {
		tick += time.Millisecond
		r2.haptics.step(tick)
	}); a != 0 {
		t.Fatalf("a traced haptics tick allocates %v times", a)
	}
	if len(small.Haptics) != cap(small.Haptics) || small.DroppedTicks == 0 {
		t.Fatalf("full trace: %d of %d kept, %d dropped", len(small.Haptics), cap(small.Haptics), small.DroppedTicks)
	}
}

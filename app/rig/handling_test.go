package rig

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/sim"
)

// The named handlings: the showcase is the twin's, the sim scenes keep
// their keyframes, an unknown name is refused.
func TestHandlingScript(t *testing.T) {
	cfg := sim.DefaultConfig()
	for _, name := range Handlings {
		s, err := HandlingScript(name, twin.DefaultScene(), cfg)
		if err != nil || s.Duration() <= 0 {
			t.Fatalf("%s: %v", name, err)
		}
	}
	s, _ := HandlingScript("fold", twin.DefaultScene(), cfg)
	f := sim.FoldScript(cfg)
	if s.Duration() != f.Duration() {
		t.Errorf("fold lasts %v, the sim's %v", s.Duration(), f.Duration())
	}
	// Half-way through a segment, where minimum-jerk paths are furthest
	// from a straight line, both give the same pad centre.
	at := (f.Keys[4].T + f.Keys[5].T) / 2
	var in sim.FingerState
	f.Sample(at, &in)
	for k := range sim.NumFingers {
		p, _ := s.At(at, k)
		for c := range 3 {
			if d := p[c] - in.Fingers[k].Pos[c]; d > 1e-12 || d < -1e-12 {
				t.Fatalf("finger %d at %v: %v against the sim's %v", k, at, p, in.Fingers[k].Pos)
			}
		}
	}
	if _, err := New(Config{Handling: "unfold"}); err == nil {
		t.Error("unknown handling accepted")
	}
}

// A fold session lays the cloth on itself: the scripted fingertips carry
// the corner across, and sim.csv records the self-contact pairs. (Through
// the simulated exoskeletons the fingers do not carry the flap over; see
// docs/cloth-contact.md.)
func TestFoldSession(t *testing.T) {
	// The flap lands at 2.9 s and the pads pinch the two layers from
	// 3.1 s to 5 s, in 10-40 pairs on this coarse mesh (the flap's
	// landing on it turns on how the flap slides on the pad: with the
	// pads' kinetic friction kept in the spring's direction, 241 pairs at
	// 3.15 s; sim's TestSelfCollisionScenes covers 24² to 64²). The cloth
	// does not read the tactile arrays, whose frames at their longest
	// period cost the least.
	r, err := New(Config{OutDir: t.TempDir(), Duration: 4500 * time.Millisecond, Handling: "fold", Scripted: true,
		TactilePeriod: 100 * time.Millisecond, Sim: sim.Config{NodesU: 16, NodesV: 16}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.RunLockstep(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(r.SessionDir(), "sim.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := slices.Index(rows[0], "self_contacts")
	if col < 0 {
		t.Fatalf("sim.csv has no self_contacts column: %v", rows[0])
	}
	most := 0
	for _, row := range rows[1:] {
		n, err := strconv.Atoi(row[col])
		if err != nil {
			t.Fatal(err)
		}
		most = max(most, n)
	}
	t.Logf("most self-contact pairs in a step: %d", most)
	if most < 20 {
		t.Errorf("at most %d self-contact pairs: the fold did not lay the cloth on itself", most)
	}
}

package rig

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/sim"
)

// intervals runs a rig as an experiment does: the pinch motion set at the
// start (held while the rig settles, or, without hold, played at once),
// then n intervals of it, the example experiment's 0.5 s gap before each.
// It returns each interval's statistics.
func intervals(t *testing.T, cfg Config, hold bool, n int) []IntervalStats {
	t.Helper()
	motion := twin.PinchScript(twin.DefaultScene())
	cfg.Script = motion
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := r.Lockstep()
	if err != nil {
		t.Fatal(err)
	}
	if hold {
		if err := r.HoldMotion(motion); err != nil {
			t.Fatal(err)
		}
		for r.Settled(250*time.Millisecond) != nil {
			if s.Now() > 5*time.Second {
				t.Fatalf("not settled after %v: %v", s.Now(), r.Settled(250*time.Millisecond))
			}
			s.Advance(50 * time.Millisecond)
		}
		t.Logf("settled at %v", s.Now())
	} else if err := r.hapticsLoop.do(func(t time.Duration) { r.intent.restart(t, motion) }); err != nil {
		t.Fatal(err)
	}
	var out []IntervalStats
	for range n {
		s.Advance(500 * time.Millisecond)
		if err := r.BeginInterval(); err != nil {
			t.Fatal(err)
		}
		s.Advance(motion.Duration())
		c, err := r.EndInterval()
		if err != nil {
			t.Fatal(err)
		}
		s.Advance(50 * time.Millisecond)
		out = append(out, <-c)
	}
	if _, err := s.Finish(); err != nil {
		t.Fatal(err)
	}
	return out
}

// The first interval after a start delivers the force the next ones do
// once the rig has settled with the fingers held at the start of the
// motion: the thumb's peak force, measured and asked for, within 20 % of
// the next two intervals'. (The index finger's peak comes from the cloth
// springing back onto it at the release and changes by more than that
// from one interval to the next, however the run started: it is logged.
// The -long kill test of app/experiment compares it with many intervals.)
// Played from the start instead (as runs did before), the motion pinches
// the cloth before the first interval, whose restart then pulls the
// fingers out of the pinch: a peak several times the others'.
func TestFirstIntervalAfterStart(t *testing.T) {
	cfg := coarse(Config{})
	iv := intervals(t, cfg, true, 3)
	for f := range sim.NumFingers {
		for _, m := range []struct {
			name string
			peak func(*IntervalStats) float64
		}{
			{"measured", func(s *IntervalStats) float64 { return s.PeakForceN[f] }},
			{"asked for", func(s *IntervalStats) float64 { return s.PeakForceDesN[f] }},
		} {
			first := m.peak(&iv[0])
			ref := (m.peak(&iv[1]) + m.peak(&iv[2])) / 2
			t.Logf("%s, %s: first interval %.3f N, the next two %.3f and %.3f N", sim.FingerName(f), m.name, first, m.peak(&iv[1]), m.peak(&iv[2]))
			if f == sim.Thumb && math.Abs(first/ref-1) > 0.2 {
				t.Errorf("thumb, %s peak force: first interval %.3f N, the next ones %.3f N on average", m.name, first, ref)
			}
		}
	}
	if raceEnabled {
		return // the control below shows only that the test can fail
	}
	old := intervals(t, cfg, false, 2)
	if r := old[0].PeakForceN[sim.Thumb] / old[1].PeakForceN[sim.Thumb]; r < 2 {
		t.Errorf("played from the start: the first interval's thumb peak is %.2f times the second's; the test would not see the transient", r)
	} else {
		t.Logf("played from the start: the first interval's thumb peak is %.1f times the second's", r)
	}
}

// The held motion stays at its start until an interval plays it, and
// Settled says what it waits for.
func TestHoldMotion(t *testing.T) {
	sc := twin.DefaultScene()
	pinch := twin.PinchScript(sc)
	r := &replayIntent{inner: twin.DefaultScript(sc)}
	r.hold(time.Second, pinch)
	for _, at := range []time.Duration{time.Second + restartBlend, 5 * time.Second} {
		for f := range 2 {
			got, v := r.At(at, f)
			want, _ := pinch.At(0, f)
			if got != want || v != [3]float64{} {
				t.Errorf("held at %v: finger %d at %v moving %v, want %v at rest", at, f, got, v, want)
			}
		}
	}
	if r.still(time.Second+restartBlend/2) || !r.still(time.Second+restartBlend) {
		t.Error("still while blending to the start, or not once there")
	}
	r.restart(6*time.Second, nil)
	if r.still(7 * time.Second) {
		t.Error("still while the motion plays")
	}
	if p, _ := r.At(7*time.Second, 1); p == func() [3]float64 { q, _ := pinch.At(0, 1); return q }() {
		t.Error("the restarted motion did not play")
	}
	if !r.still(6*time.Second + pinch.Duration()) {
		t.Error("not still after the motion ended")
	}
	var rg Rig
	rg.settled.init()
	if err := rg.Settled(0); err == nil || !strings.Contains(err.Error(), "not run") {
		t.Errorf("before running: %v", err)
	}
}

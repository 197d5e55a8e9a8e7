package emu

import (
	"math"
	"testing"
	"time"

	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/internal/vec3"
)

// Each run plays the hand's script from its start: a restart in the
// middle of the script blends from where the fingers were heading, with
// no jump, and after the blend the hand is where the script says for the
// time since the restart.
func TestHandRestart(t *testing.T) {
	s := twin.DefaultScript(twin.DefaultScene())
	h := newHand(s)
	first := 3 * time.Second
	h.restart(first)
	for f := range 2 {
		got, _ := h.At(first, f)
		want, _ := s.At(0, f)
		if d := vec3.Norm(vec3.Sub(got, want)); d > 1e-12 {
			t.Errorf("finger %d: at its first start the hand is %.3g m from the script's start", f, d)
		}
	}
	// Restart 6.3 s into the script, mid-pinch.
	again := first + 6300*time.Millisecond
	before, _ := h.At(again-time.Microsecond, 1)
	h.restart(again)
	after, _ := h.At(again, 1)
	if d := vec3.Norm(vec3.Sub(after, before)); d > 1e-6 {
		t.Errorf("the restart moved the index finger by %.3g m at once", d)
	}
	const dt = time.Millisecond
	var prev [3]float64
	maxStep := 0.0
	for tt := again; tt < again+time.Second; tt += dt {
		p, v := h.At(tt, 1)
		if tt > again {
			maxStep = math.Max(maxStep, vec3.Norm(vec3.Sub(p, prev)))
			// The velocity is the derivative of the position.
			q, _ := h.At(tt+time.Microsecond, 1)
			fd := vec3.Scale(1e6, vec3.Sub(q, p))
			if e := vec3.Norm(vec3.Sub(fd, v)); e > 1e-3*(1+vec3.Norm(v)) {
				t.Fatalf("at %v: velocity %v, finite difference %v", tt-again, v, fd)
			}
		}
		prev = p
	}
	// The script's fastest stretch (the approach) moves about 0.1 m/s;
	// the blend adds at most (offset) × 1.875 / 0.3 s.
	if maxStep > 1e-3 {
		t.Errorf("the index finger moved up to %.3g mm in 1 ms after the restart", maxStep*1e3)
	}
	got, _ := h.At(again+1200*time.Millisecond, 1)
	want, _ := s.At(1200*time.Millisecond, 1)
	if d := vec3.Norm(vec3.Sub(got, want)); d > 1e-12 {
		t.Errorf("1.2 s after the restart the index finger is %.3g m from the script", d)
	}
	if h.runs() != 2 {
		t.Errorf("%d runs, want 2", h.runs())
	}
}

package rig

import (
	"math"
	"testing"
	"time"

	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/sim"
)

// Clamps hold a further edge of the cloth where it lies: a swatch clamped
// along its top edge and, by Clamps, its left, sagging out of its plane
// under a gravity across it, keeps both edges in the plane while its free
// corner falls; without the left clamp that edge sags too.
func TestClamps(t *testing.T) {
	sag := func(clamps []sim.Edge) (left, corner float64) {
		sc := twin.DefaultScene()
		cfg := Config{Scripted: true, Scene: sc, Script: twin.RestScript(sc), Clamps: clamps,
			Sim: sim.Config{Width: 0.025, Height: 0.025, NodesU: 11, NodesV: 11, Pin: sim.PinTopEdge, PinLines: 2, NoRod: true,
				Gravity: [3]float64{0, 0, -9.81}}}
		r, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		v := r.NewView()
		s, err := r.Lockstep()
		if err != nil {
			t.Fatal(err)
		}
		s.Advance(time.Second)
		snap := v.Read().Snapshot
		z := func(i, j int) float64 { return float64(snap.Pos[3*(j*11+i)+2]) }
		for j := range 9 { // below the top clamp's two rows
			left = math.Max(left, math.Abs(z(0, j)))
		}
		corner = math.Abs(z(10, 0))
		if _, err := s.Finish(); err != nil {
			t.Fatal(err)
		}
		return left, corner
	}
	left, corner := sag([]sim.Edge{sim.EdgeLeft})
	t.Logf("clamped along the left: the left edge out of plane by %.3g mm at most, the free corner by %.3g mm", 1000*left, 1000*corner)
	if !(left < 1e-9) || !(corner > 1e-4) {
		t.Errorf("clamped along the left: the left edge moved %.3g mm, the free corner %.3g mm", 1000*left, 1000*corner)
	}
	left, _ = sag(nil)
	t.Logf("without: the left edge by %.3g mm", 1000*left)
	if !(left > 1e-4) {
		t.Errorf("without the left clamp its edge sagged %.3g mm", 1000*left)
	}
}

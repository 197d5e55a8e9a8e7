package rig

import (
	"github.com/haptex/haptex/calib/kes"
	"github.com/haptex/haptex/internal/statebuf"
	"github.com/haptex/haptex/sim"
)

// View reads a rig's latest state for a display. It owns one reader of
// each of the rig's buffers, so a rig has at most one View, and Read is
// called from one goroutine. It never blocks a loop.
type View struct {
	r        *Rig
	fingers  *statebuf.Reader[sim.FingerState]
	simOut   *statebuf.Reader[sim.Output]
	snaps    *statebuf.Reader[sim.Snapshot]
	tactile  *statebuf.Reader[TactileOut]
	Topology sim.Topology // the cloth's fixed connectivity
}

// ViewState is what a View read: pointers into the rig's buffer slots,
// valid and unchanged until the next Read.
type ViewState struct {
	Fingers  *sim.FingerState
	Sim      *sim.Output
	Snapshot *sim.Snapshot
	Tactile  *TactileOut
}

// NewView returns the rig's view. It panics when called twice (each buffer
// has one reader reserved for the view), a programming error.
func (r *Rig) NewView() *View {
	r.viewing.Store(true)
	return &View{
		r: r, Topology: r.topology,
		fingers: r.fingers.NewReader(), simOut: r.simOut.NewReader(),
		snaps: r.snapshots.NewReader(), tactile: r.tactileOut.NewReader(),
	}
}

// Read returns the latest state of every loop.
func (v *View) Read() ViewState {
	var s ViewState
	s.Fingers, _ = v.fingers.Read()
	s.Sim, _ = v.simOut.Read()
	s.Snapshot, _ = v.snaps.Read()
	s.Tactile, _ = v.tactile.Read()
	return s
}

// Loops appends each loop's name, measured rate [Hz] and p99 lateness to
// dst[:0], live (zero in a lockstep run).
func (v *View) Loops(dst []LoopStatus) []LoopStatus {
	out := dst[:0]
	for _, l := range v.r.loops {
		ls := LoopStatus{Name: l.name}
		if lr := l.rt.Load(); lr != nil {
			ls.RateHz = lr.Tel.Rate()
			ls.LatenessP99 = float64(lr.Tel.Lateness.Quantile(0.99)) / 1e3
		}
		out = append(out, ls)
	}
	return out
}

// Fabric returns the fabric the rig handles.
func (v *View) Fabric() *kes.Fabric { return v.r.cfg.Fabric }

// PadRadius returns the fingertip pad radius [m].
func (v *View) PadRadius() float64 { return v.r.cfg.Scene.PadRadius }

// RodRadius and RodY locate the stand's rod [m].
func (v *View) Rod() (radius, y float64) {
	return v.r.topology.RodRadius, v.r.topology.RodCenter[1]
}

// ArrayLimits returns the largest amplitudes finger f's tactile array
// drives at 40 and 320 Hz [µm peak], as its capability record says
// (devices.TactileSpec): above them it clips.
func (v *View) ArrayLimits(f int) (a40, a320 float64) {
	s := v.r.tactile.arrays[f].Spec()
	return s.MaxA40Um, s.MaxA320Um
}

// PinLimits returns the largest amplitudes the tactile arrays render at
// 40 and 320 Hz [µm peak]: the tighter of the two arrays' (the renderer
// clamps to it).
func (v *View) PinLimits() (a40, a320 float64) {
	for f := range sim.NumFingers {
		f40, f320 := v.ArrayLimits(f)
		if a40 == 0 || f40 < a40 {
			a40 = f40
		}
		if a320 == 0 || f320 < a320 {
			a320 = f320
		}
	}
	return a40, a320
}

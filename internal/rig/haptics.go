package rig

import (
	"time"

	devsim "github.com/haptex/haptex/devices/sim"
	"github.com/haptex/haptex/internal/record"
	"github.com/haptex/haptex/internal/rt"
	"github.com/haptex/haptex/internal/statebuf"
	"github.com/haptex/haptex/sim"
)

// HapticsRow is one haptics tick in the session record.
type HapticsRow struct {
	T          float64 // tick time [s]
	LatenessUs float64 // how late the tick woke [µs] (0 in lockstep)
	Fingers    [sim.NumFingers]FingerRow
}

// FingerRow is one finger in a HapticsRow.
type FingerRow struct {
	Pos     [3]float64 // pad centre [m]
	Vel     [3]float64 // [m/s]
	Force   [3]float64 // cloth force on the fingertip from the local model [N]
	Contact bool
}

func hapticsHeader() []string {
	h := []string{"t_s", "lateness_us"}
	for f := 0; f < sim.NumFingers; f++ {
		n := sim.FingerName(f)
		for _, c := range []string{"x_m", "y_m", "z_m", "vx_mps", "vy_mps", "vz_mps", "fx_n", "fy_n", "fz_n", "contact"} {
			h = append(h, n+"_"+c)
		}
	}
	return h
}

func appendHapticsRow(dst []byte, r *HapticsRow) []byte {
	dst = record.AppendFloat(dst, r.T)
	dst = record.AppendFloats(dst, r.LatenessUs)
	for f := range r.Fingers {
		fr := &r.Fingers[f]
		dst = record.AppendFloats(dst, fr.Pos[0], fr.Pos[1], fr.Pos[2], fr.Vel[0], fr.Vel[1], fr.Vel[2], fr.Force[0], fr.Force[1], fr.Force[2])
		if fr.Contact {
			dst = append(dst, ",1"...)
		} else {
			dst = append(dst, ",0"...)
		}
	}
	return dst
}

// hapticsLoop is the 1 kHz loop. With scripted fingertips it reads the
// script, evaluates the cloth's local model at the scripted positions (the
// force a device would render) and publishes FingerState.
type hapticsLoop struct {
	r      *Rig
	rt     *rt.Loop // nil in lockstep
	script *devsim.Script
	model  *statebuf.Reader[sim.SimOutput]
	tick   uint64
	row    HapticsRow
	stats  forceStats
}

func newHapticsLoop(r *Rig) *hapticsLoop {
	return &hapticsLoop{r: r, script: r.cfg.Script, model: r.simOut.NewReader()}
}

func (h *hapticsLoop) step(t time.Duration) {
	in, _ := h.model.Read()
	out := h.r.fingers.Slot()
	out.T = t.Seconds()
	out.Tick = h.tick
	h.row.T = out.T
	h.row.LatenessUs = 0
	if h.rt != nil {
		h.row.LatenessUs = float64(h.rt.Lateness()) / 1e3
	}
	for f := 0; f < sim.NumFingers; f++ {
		pos, vel := h.script.At(t, f)
		force, contact := evalLocal(&in.Local[f], pos)
		fs := &out.Fingers[f]
		fs.Pos, fs.Vel, fs.Force, fs.Normal, fs.Valid = pos, vel, force, devsim.PadNormal(f), true
		h.row.Fingers[f] = FingerRow{Pos: pos, Vel: vel, Force: force, Contact: contact}
	}
	h.stats.add(&h.row.Fingers)
	h.r.fingers.Publish()
	if h.r.hapticsRows != nil {
		h.r.hapticsRows.Push(&h.row)
	}
	h.tick++
}

// evalLocal evaluates a local model at x per its documented semantics
// (sim/exchange.go): F0 + K (x - X0) inside the contact half-space, zero
// outside.
func evalLocal(m *sim.LocalModel, x [3]float64) (f [3]float64, contact bool) {
	if !m.Valid || !m.InContact {
		return f, false
	}
	var dx [3]float64
	for i := range dx {
		dx[i] = x[i] - m.X0[i]
	}
	if m.Depth+m.Normal[0]*dx[0]+m.Normal[1]*dx[1]+m.Normal[2]*dx[2] <= 0 {
		return f, false
	}
	for i := range f {
		f[i] = m.F0[i] + m.K[i][0]*dx[0] + m.K[i][1]*dx[1] + m.K[i][2]*dx[2]
	}
	return f, true
}

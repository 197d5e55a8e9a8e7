package rig

import (
	"fmt"
	"strconv"
	"time"

	"github.com/haptex/haptex/internal/sessionlog"
	"github.com/haptex/haptex/internal/statebuf"
	"github.com/haptex/haptex/sim"
)

// simRow is one simulation step in the session record.
type simRow struct {
	Stats   sim.Stats
	Contact [sim.NumFingers]sim.ContactPatch
	Local   [sim.NumFingers]sim.LocalModel
	// LatenessUs is how late the step's tick woke, StepUs the wall time of
	// the cloth's step itself; both 0 in lockstep, whose records two runs
	// reproduce byte for byte.
	LatenessUs, StepUs float64
	// FingersSeq is the haptics tick whose finger state the step took:
	// the number of ticks published before it (0: none yet).
	FingersSeq uint64
}

func simHeader() []string {
	h := []string{"t_s", "step", "status", "cg_iters", "residual", "sens_iters", "max_strain", "recoveries", "regraded",
		"energy_kinetic_j", "energy_tensile_j", "energy_bending_j", "energy_gravity_j", "energy_contact_j"}
	for f := range sim.NumFingers {
		n := sim.FingerName(f) + "_"
		h = append(h, n+"contact", n+"normal_force_n", n+"area_m2", n+"u_m", n+"v_m",
			n+"f0_x_n", n+"f0_y_n", n+"f0_z_n", n+"depth_m")
	}
	// self_contacts: the cloth's self-contact pairs; self_collisions: the
	// collisions its fail-safe caught in the step (sim.Stats).
	return append(h, "self_contacts", "self_collisions", "lateness_us", "step_us", "fingers_seq")
}

func appendSimRow(dst []byte, r *simRow) []byte {
	s := &r.Stats
	dst = sessionlog.AppendFloat(dst, s.T.Seconds())
	dst = fmt.Appendf(dst, ",%d,%s,%d", s.Step, s.Status, s.CGIters)
	dst = sessionlog.AppendFloats(dst, s.Residual, float64(s.SensIters), s.MaxStrain, float64(s.Recoveries))
	dst = appendFlag(dst, s.Regraded)
	dst = sessionlog.AppendFloats(dst, s.Energy.Kinetic, s.Energy.Tensile, s.Energy.Bending, s.Energy.Gravity, s.Energy.Contact)
	for f := range sim.NumFingers {
		c, l := &r.Contact[f], &r.Local[f]
		dst = appendFlag(dst, c.InContact)
		dst = sessionlog.AppendFloats(dst, c.NormalForce, c.Area, c.U, c.V, l.F0[0], l.F0[1], l.F0[2], l.Depth)
	}
	dst = fmt.Appendf(dst, ",%d,%d", s.SelfContacts, s.Collisions)
	dst = sessionlog.AppendFloats(dst, r.LatenessUs, r.StepUs)
	return strconv.AppendUint(append(dst, ','), r.FingersSeq, 10)
}

// simLoop steps the cloth with the latest fingers and publishes what the
// other loops and the view read. Its tick is three parts, so that the
// lockstep runner can pipeline it (lockstep.Task): begin takes the
// fingers, work steps the cloth, commit publishes. In real time they run
// back to back.
type simLoop struct {
	r       *Rig
	cloth   *sim.Cloth
	fingers *statebuf.Reader[sim.FingerState]
	in      sim.FingerState
	t       time.Duration
	row     simRow
	timed   bool // a real-time step: its wall time is recorded
}

func newSimLoop(r *Rig) (*simLoop, error) {
	c, err := sim.New(r.cfg.Sim)
	if err != nil {
		return nil, fmt.Errorf("rig: cloth: %w", err)
	}
	for _, e := range r.cfg.Clamps {
		if err := c.Grip(e, 2); err != nil {
			return nil, fmt.Errorf("rig: cloth: %w", err)
		}
	}
	return &simLoop{r: r, cloth: c, fingers: r.fingers.NewReader()}, nil
}

func (l *simLoop) step(t time.Duration) {
	l.begin(t)
	l.work()
	l.commit()
}

func (l *simLoop) begin(t time.Duration) {
	in, seq := l.fingers.Read()
	l.in, l.t = *in, t
	l.row.FingersSeq = seq
	l.row.LatenessUs, l.timed = 0, false
	if lr := l.r.simLoop.rt.Load(); lr != nil {
		l.row.LatenessUs, l.timed = float64(lr.Lateness())/1e3, true
	}
}

func (l *simLoop) work() {
	if !l.timed {
		l.cloth.Step(l.t, &l.in)
		return
	}
	t0 := time.Now()
	l.cloth.Step(l.t, &l.in)
	l.row.StepUs = float64(time.Since(t0)) / 1e3
}

func (l *simLoop) commit() {
	out := l.r.simOut.Slot()
	l.cloth.Output(out)
	l.r.simOut.Publish()
	l.r.settled.simStep(out.T, l.cloth.Stats().Energy.Kinetic)
	if l.r.viewing.Load() {
		l.cloth.SnapshotTo(l.r.snapshots.Slot())
		l.r.snapshots.Publish()
	}
	if l.r.simRows != nil {
		l.row.Stats = l.cloth.Stats()
		l.row.Contact = out.Contact
		l.row.Local = out.Local
		l.r.simRows.Push(&l.row)
	}
}

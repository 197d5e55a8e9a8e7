package rig

import (
	"fmt"
	"strconv"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/haptics"
	"github.com/haptex/haptex/internal/rt"
	"github.com/haptex/haptex/internal/sessionlog"
	"github.com/haptex/haptex/internal/statebuf"
	"github.com/haptex/haptex/sim"
)

// hapticsRow is one haptics tick in the session record: what the servo did
// and how late the tick woke.
type hapticsRow struct {
	Rec        haptics.TickRecord
	LatenessUs float64 // 0 in lockstep
	// SimSeq is the cloth step whose output the tick rendered (0: none
	// yet): with the other tables' sequence columns, the order in which
	// the loops met, which a replay of a real-time run follows (replay.go).
	SimSeq uint64
}

func hapticsHeader() []string { return []string{haptics.TickCSVHeader(), "lateness_us", "sim_seq"} }

func appendHapticsRow(dst []byte, r *hapticsRow) []byte {
	dst = r.Rec.AppendCSV(dst)
	dst = sessionlog.AppendFloats(dst, r.LatenessUs)
	return strconv.AppendUint(append(dst, ','), r.SimSeq, 10)
}

// hapticsLoop is the 1 kHz loop: the force-feedback servo on the two
// exoskeletons, or, with scripted fingertips, the script itself.
type hapticsLoop struct {
	r      *Rig
	rt     *rt.Loop // nil in lockstep
	servo  *haptics.Servo
	script twin.Intent // scripted mode only
	model  *statebuf.Reader[sim.Output]
	tick   uint64
	row    hapticsRow
	stats  forceStats
	trips  tripLog
	track  *haptics.ContactTracking // device mode only
	iv     hapticsInterval          // the experiment interval being measured
	end    endOfRun                 // the run's end (real time, device mode)
}

func newHapticsLoop(r *Rig) (*hapticsLoop, error) {
	h := &hapticsLoop{r: r, model: r.simOut.NewReader()}
	if r.cfg.Scripted {
		h.script = r.intent
		return h, nil
	}
	var fingers [sim.NumFingers]haptics.Finger
	for f := range sim.NumFingers {
		dev := r.cfg.Exos[f]
		if dev == nil {
			exo, err := twin.NewExo(r.cfg.ExoParams, twin.DefaultBase(f), r.intent, f)
			if err != nil {
				return nil, fmt.Errorf("rig: simulated %s exoskeleton: %w", sim.FingerName(f), err)
			}
			r.ownedExos[f] = exo
			dev = exo
		}
		kin, base, err := kinematicsOf(dev, f)
		if err != nil {
			return nil, err
		}
		if dev, err = r.recordExo(f, dev, kin, base); err != nil {
			return nil, err
		}
		fingers[f] = haptics.Finger{Device: dev, Kin: kin, Base: base}
	}
	servo, err := haptics.NewServo(r.cfg.Servo, fingers)
	if err != nil {
		return nil, err
	}
	h.servo = servo
	if h.track, err = haptics.NewContactTracking(servo.Period()); err != nil {
		return nil, err
	}
	return h, nil
}

func (h *hapticsLoop) step(t time.Duration) {
	in, seq := h.model.Read()
	h.row.SimSeq = seq
	out := h.r.fingers.Slot()
	rec := &h.row.Rec
	if h.servo != nil {
		h.servo.Tick(t, in, out, rec)
	} else {
		h.scripted(t, in, out, rec)
	}
	var late time.Duration
	if h.rt != nil {
		late = h.rt.Lateness()
	}
	h.row.LatenessUs = float64(late) / 1e3
	if h.iv.active {
		h.iv.add(t, rec, late, h.servo != nil)
	}
	h.r.fingers.Publish()
	h.r.settled.hapticsTick(t, h.servo, h.r.intent)
	if h.r.hapticsRows != nil {
		h.r.hapticsRows.Push(&h.row)
	}
	h.stats.add(rec)
	h.trips.add(t, rec, late)
	if h.servo != nil {
		h.end.add(t, h.tick, h.servo, rec)
	}
	if h.track != nil && !h.end.stopping {
		// Tracking judges the rendering: the run's end stops it.
		h.track.Add(rec)
	}
	h.tick++
}

// scripted moves the fingertips exactly as the script says, with no device:
// the force is what the cloth's local model gives at the scripted position
// (what a device would render); nothing is rendered.
func (h *hapticsLoop) scripted(t time.Duration, in *sim.Output, out *sim.FingerState, rec *haptics.TickRecord) {
	out.T = t
	out.Tick = h.tick
	rec.T, rec.Tick, rec.Overrun = t.Seconds(), h.tick, false
	for f := range sim.NumFingers {
		pos, vel := h.script.At(t, f)
		m := &in.Local[f]
		force := m.EvalAt(t, pos)
		fs := &out.Fingers[f]
		fs.Pos, fs.Vel, fs.Force, fs.Normal, fs.Valid = pos, vel, force, twin.PadNormal(f), true
		rec.Fingers[f] = haptics.FingerRecord{
			Pos: pos, Vel: vel, ForceDes: force,
			Contact: m.Touches(t, pos),
			State:   haptics.StateSafe, Reason: haptics.ReasonNoDevice,
		}
	}
}

// kinematicsOf returns the kinematic model and base pose of an exoskeleton:
// the device must describe itself (devices.Kinematic).
func kinematicsOf(dev devices.Exoskeleton, f int) (*exo.Model, exo.Pose, error) {
	k, ok := dev.(devices.Kinematic)
	if !ok || k.Kinematics() == nil {
		return nil, exo.Pose{}, fmt.Errorf("rig: %s exoskeleton %s gives no kinematic model", sim.FingerName(f), dev.Spec().Model)
	}
	return k.Kinematics(), k.Base(), nil
}

package rig

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/internal/sessionlog"
	"github.com/haptex/haptex/internal/statebuf"
	"github.com/haptex/haptex/internal/vec3"
	"github.com/haptex/haptex/sim"
	"github.com/haptex/haptex/tactile"
)

// TactileOut is what the tactile loop publishes for the view: the frame it
// rendered and sent.
type TactileOut struct {
	T     time.Duration
	Frame tactile.Frame
}

// tactileRow is one tactile frame in the session record: what the loop
// rendered and sent, and what the pins delivered, measured when the next
// frame began: over this frame on a simulated array, over the frame its
// Delivered.Seq names on a device array, whose measurement of a frame
// comes after the next one.
type tactileRow struct {
	Frame      tactile.Frame
	Contact    [sim.NumFingers]tactile.Contact
	Errors     [sim.NumFingers]bool // the array refused the frame
	Delivered  [sim.NumFingers]devices.TactileFrame
	Measured   [sim.NumFingers]bool // Delivered holds a measurement (else NaN is recorded)
	LatenessUs float64              // how late the frame's tick woke (0 in lockstep)
	Seq        uint32               // the frame's sequence number (TactileFrame.Seq)
	// FingersSeq and SimSeq are the haptics tick and the cloth step whose
	// outputs the frame was rendered from (0: none yet).
	FingersSeq, SimSeq uint64
}

// tactileFingerColumns are the per-finger columns of tactile.csv before
// the pins'.
var tactileFingerColumns = []string{
	"contact", "u_m", "v_m", "orientation_rad", "slip_u_mps", "slip_v_mps", "normal_force_n",
	"curvature_1pm", "pad_d_m", "pad_l_m", "patch_a_m", "patch_b_m", "patch_area_m2",
	"np_level_db", "p_level_db", "np_residual_db", "p_residual_db", "exact",
	"metamer_a40_um", "metamer_a320_um", "a40_rms_um", "a320_rms_um", "peak_sl40_db", "peak_sl320_db",
	"active_pins", "driven_pins", "compressed", "clamped_pins", "write_error",
}

func tactileHeader() []string {
	h := []string{"t_s"}
	for f := range sim.NumFingers {
		n := sim.FingerName(f) + "_"
		for _, c := range tactileFingerColumns {
			h = append(h, n+c)
		}
		for _, kind := range []string{"", "_delivered"} {
			for _, band := range []string{"a40", "a320"} {
				for p := range tactile.Pins {
					h = append(h, fmt.Sprintf("%s%s_pin%02d%s_um", n, band, p, kind))
				}
			}
		}
	}
	h = append(h, "lateness_us", "fingers_seq", "sim_seq", "seq")
	for f := range sim.NumFingers {
		h = append(h, sim.FingerName(f)+"_delivered_seq")
	}
	return h
}

func appendTactileRow(dst []byte, r *tactileRow) []byte {
	dst = sessionlog.AppendFloat(dst, r.Frame.T.Seconds())
	for f := range sim.NumFingers {
		c, ff := &r.Contact[f], &r.Frame.Fingers[f]
		dst = appendFlag(dst, c.InContact)
		dst = sessionlog.AppendFloats(dst, c.U, c.V, c.Orientation, c.SlipU, c.SlipV, c.NormalForce,
			c.Curvature, c.PadD, c.PadL, ff.Patch.A, ff.Patch.B, ff.Patch.Area,
			ff.Level(tactile.NonPacinian), ff.Level(tactile.Pacinian), ff.ResidualDB[tactile.NonPacinian], ff.ResidualDB[tactile.Pacinian])
		dst = appendFlag(dst, ff.Exact)
		dst = sessionlog.AppendFloats(dst, ff.MetamerA40Um, ff.MetamerA320Um, ff.RMSA40Um, ff.RMSA320Um, ff.PeakSL40DB, ff.PeakSL320DB,
			float64(ff.Active), float64(ff.Driven), float64(ff.Compressed), float64(ff.Clamped))
		dst = appendFlag(dst, r.Errors[f])
		dst = sessionlog.AppendFloats(dst, ff.A40Um[:]...)
		dst = sessionlog.AppendFloats(dst, ff.A320Um[:]...)
		d := &r.Delivered[f]
		if !r.Measured[f] {
			for range 2 * tactile.Pins {
				dst = sessionlog.AppendFloats(dst, math.NaN())
			}
			continue
		}
		dst = sessionlog.AppendFloats(dst, d.A40Um[:]...)
		dst = sessionlog.AppendFloats(dst, d.A320Um[:]...)
	}
	dst = sessionlog.AppendFloats(dst, r.LatenessUs)
	dst = strconv.AppendUint(append(dst, ','), r.FingersSeq, 10)
	dst = strconv.AppendUint(append(dst, ','), r.SimSeq, 10)
	dst = strconv.AppendUint(append(dst, ','), uint64(r.Seq), 10)
	for f := range sim.NumFingers {
		dst = append(dst, ',')
		if r.Measured[f] {
			dst = strconv.AppendUint(dst, uint64(r.Delivered[f].Seq), 10)
		}
	}
	return dst
}

func appendFlag(dst []byte, b bool) []byte {
	if b {
		return append(dst, ",1"...)
	}
	return append(dst, ",0"...)
}

// tactileLoop renders the fabric's surface for both fingers each frame and
// writes the amplitudes to the two arrays.
type tactileLoop struct {
	r          *Rig
	renderer   *tactile.Renderer
	simIn      *statebuf.Reader[sim.Output]
	fingerIn   *statebuf.Reader[sim.FingerState]
	arrays     [sim.NumFingers]devices.TactileArray // as written to, recorded when the rig records devices
	inner      [sim.NumFingers]devices.TactileArray // the arrays themselves (for what they report delivering)
	clocked    [sim.NumFingers]devices.Clocked
	distal     [sim.NumFingers][3]float64 // each finger's distal axis, world frame
	padR       float64                    // the pads' radius [m]
	forceScale float64                    // rendered force per cloth force (Rig.SetForceScale)
	contacts   [sim.NumFingers]tactile.Contact
	devFrame   [sim.NumFingers]devices.TactileFrame
	row        tactileRow
	pending    bool // row holds a frame whose delivery is not yet measured
	seq        uint32
	errs       [sim.NumFingers]uint64 // the loop's writes that failed (silence's not counted)
	// clippedFrames and silencedFrames count the frames whose array's
	// newest status, read as the frame was written, said it clipped at its
	// amplitude limits, or had silenced itself or had a fault.
	clippedFrames, silencedFrames [sim.NumFingers]uint64
	cal                           [sim.NumFingers]tactile.Calibration
	tone                          Tone // sent instead of the fabric while toneOn
	toneOn                        bool
	iv                            tactileInterval

	// status holds the arrays that report their status (nil: cannot);
	// report what each said of the newest frame (tactileInterval.add).
	status [sim.NumFingers]devices.StatusReader
	report [sim.NumFingers]ArrayReport
	// delivery holds the arrays that can tell what their pins delivered
	// (nil: cannot): the simulated ones, and those that measure their
	// pins over the device protocol.
	delivery [sim.NumFingers]devices.DeliveryReader
	deliv    [sim.NumFingers]deliveryAccount // what they delivered over the run
}

func newTactileLoop(r *Rig) (*tactileLoop, error) {
	l := &tactileLoop{r: r, simIn: r.simOut.NewReader(), fingerIn: r.fingers.NewReader(),
		distal: r.sim.cloth.Config().Distal, padR: r.cfg.Scene.PadRadius, forceScale: 1}
	cfg := tactile.Config{}
	for f := range sim.NumFingers {
		a := r.cfg.Tactile[f]
		if a == nil {
			t, err := twin.NewTactile(r.cfg.TactileParams, f)
			if err != nil {
				return nil, err
			}
			a = t
			r.ownedTactile[f] = t
		}
		l.inner[f] = a
		a, err := r.recordTactile(f, a)
		if err != nil {
			return nil, err
		}
		l.arrays[f] = a
		l.clocked[f], _ = a.(devices.Clocked)
		// The status is read from the array itself (step): the reads
		// decide no command, so they stay out of the device recording
		// the rig makes, which a replay follows.
		l.status[f], _ = l.inner[f].(devices.StatusReader)
		l.delivery[f], _ = l.inner[f].(devices.DeliveryReader)
		// The renderer clamps to the tighter of the two arrays' limits, so
		// neither array clips what the record says was sent.
		spec := a.Spec()
		if cfg.MaxA40Um == 0 || spec.MaxA40Um < cfg.MaxA40Um {
			cfg.MaxA40Um = spec.MaxA40Um
		}
		if cfg.MaxA320Um == 0 || spec.MaxA320Um < cfg.MaxA320Um {
			cfg.MaxA320Um = spec.MaxA320Um
		}
		if spec.PitchM > 0 {
			cfg.PitchM = spec.PitchM
		}
	}
	// The thumb touches the fabric's back face: mirror its pin columns so
	// that both fingers see the weave with the same handedness.
	cfg.Mirror[sim.Thumb] = true
	sp, err := r.cfg.Fabric.SurfaceParams(r.fabricSize())
	if err != nil {
		return nil, fmt.Errorf("rig: tactile surface: %w", err)
	}
	surf, err := tactile.NewSurface(sp, 1)
	if err != nil {
		return nil, fmt.Errorf("rig: tactile surface of %s: %w", r.cfg.Fabric.Name, err)
	}
	rend, err := tactile.NewRenderer(surf, cfg)
	if err != nil {
		return nil, fmt.Errorf("rig: tactile renderer: %w", err)
	}
	l.renderer = rend
	for f := range sim.NumFingers {
		l.cal[f] = tactile.DefaultCalibration()
		if c := r.cfg.TactileCal[f]; c != nil {
			l.cal[f] = *c
		}
		if err := rend.SetCalibration(f, l.cal[f]); err != nil {
			return nil, fmt.Errorf("rig: %s tactile calibration: %w", sim.FingerName(f), err)
		}
	}
	return l, nil
}

// contact returns finger f's contact at time t for the renderer: where on
// the fabric and on the pad from the simulation's contact patch, and the
// normal force the force rendering renders now, the cloth's local model
// evaluated at the measured fingertip (times the force scale). So the
// tactile patch and the force on the finger describe the same contact:
// when the finger has left the model's contact region there is none,
// whatever the last step saw.
func (l *tactileLoop) contact(t time.Duration, out *sim.Output, fs *sim.FingerState, f int) tactile.Contact {
	p := &out.Contact[f]
	c := tactile.Contact{InContact: p.InContact, U: p.U, V: p.V, Orientation: p.Orientation,
		SlipU: p.SlipU, SlipV: p.SlipV, NormalForce: p.NormalForce, Curvature: p.Curvature}
	lm, fg := &out.Local[f], &fs.Fingers[f]
	if !p.InContact || !lm.Valid || !fg.Valid {
		return c
	}
	c.InContact = lm.Touches(t, fg.Pos)
	c.NormalForce = 0
	if c.InContact {
		c.NormalForce = max(0, -vec3.Dot(lm.EvalAt(t, fg.Pos), lm.Normal)) * l.forceScale
	}
	// The contact point on the pad: where the contact normal leaves the
	// pad's sphere, measured from the pad's centre line (the array's
	// centre) along the finger's distal axis and along distal × pad
	// normal, the direction the array's columns count in on both fingers
	// as the rig mounts them (the thumb's mirrored).
	d := l.distal[f]
	lat := vec3.Cross(d, fg.Normal)
	c.PadD = l.padR * vec3.Dot(lm.Normal, d)
	c.PadL = l.padR * vec3.Dot(lm.Normal, lat)
	return c
}

func (l *tactileLoop) step(t time.Duration) {
	// The arrays' pins have now played the previous frame: advance them to
	// t, and record that frame with what they delivered.
	for f := range sim.NumFingers {
		if c := l.clocked[f]; c != nil {
			c.Advance(t)
		}
	}
	if l.pending {
		l.measure()
		l.push()
	}
	in, simSeq := l.simIn.Read()
	fs, fingersSeq := l.fingerIn.Read()
	l.row.SimSeq, l.row.FingersSeq = simSeq, fingersSeq
	for f := range sim.NumFingers {
		l.contacts[f] = l.contact(t, in, fs, f)
	}
	frame := &l.row.Frame
	l.renderer.Step(t, &l.contacts, frame)
	if l.toneOn {
		for f := range frame.Fingers {
			a40, a320 := l.tone.A40Um, l.tone.A320Um
			if l.tone.Silent[f] {
				a40, a320 = 0, 0
			}
			ff := &frame.Fingers[f]
			*ff = tactile.FingerFrame{PeakSL40DB: tactile.MinLevelDB, PeakSL320DB: tactile.MinLevelDB}
			for p := range ff.A40Um {
				ff.A40Um[p], ff.A320Um[p] = a40, a320
			}
			if a40 > 0 || a320 > 0 {
				ff.Active, ff.Driven, ff.RMSA40Um, ff.RMSA320Um = tactile.Pins, tactile.Pins, a40, a320
			}
		}
	}
	l.seq++
	l.row.Seq = l.seq
	for f := range sim.NumFingers {
		d := &l.devFrame[f]
		d.Seq = l.seq
		d.A40Um = frame.Fingers[f].A40Um
		d.A320Um = frame.Fingers[f].A320Um
		err := l.arrays[f].WriteFrame(d)
		l.row.Errors[f] = err != nil
		if err != nil {
			l.errs[f]++
		}
		rep := &l.report[f]
		rep.Written, rep.Reported, rep.Gone = err == nil, false, false
		if sr := l.status[f]; sr != nil && err == nil {
			// A late report (ErrTimeout) says the host's reader was held,
			// not that the array failed: the array's loss shows within
			// the link's silence limit as ErrDisconnected and failed
			// writes.
			err := sr.Status(&rep.Status)
			rep.Reported, rep.Gone = err == nil, err != nil && !errors.Is(err, devices.ErrTimeout)
			if rep.Clipped() {
				l.clippedFrames[f]++
			}
			if rep.Silenced() {
				l.silencedFrames[f]++
			}
		}
	}
	if l.iv.active {
		// What the arrays delivered, as measure read it at this step's
		// start (the pending frame's row).
		l.iv.add(frame, l.seq, &l.row.Delivered, &l.row.Measured, &l.report)
	}
	l.row.Contact = l.contacts
	l.row.LatenessUs = 0
	if lr := l.r.tactileLoop.rt.Load(); lr != nil {
		l.row.LatenessUs = float64(lr.Lateness()) / 1e3
	}
	l.pending = true
	out := l.r.tactileOut.Slot()
	out.T = frame.T
	out.Frame = *frame
	l.r.tactileOut.Publish()
}

// measure reads what each array's pins delivered over the pending frame,
// from arrays that can tell (the simulated ones, and arrays that measure
// their pins over the device protocol); the others' delivery is recorded
// as NaN.
func (l *tactileLoop) measure() {
	for f := range sim.NumFingers {
		d := l.delivery[f]
		if d == nil {
			l.row.Measured[f] = false
			continue
		}
		// devFrame still holds the pending frame, as written.
		cur := &l.devFrame[f]
		l.row.Measured[f] = d.Delivered(&l.row.Delivered[f])
		if l.row.Measured[f] {
			l.deliv[f].add(&l.row.Delivered[f], cur)
		}
		l.deliv[f].next(cur, !l.row.Errors[f])
	}
}

// push records the pending frame.
func (l *tactileLoop) push() {
	l.pending = false
	if l.r.tactileRows != nil {
		l.r.tactileRows.Push(&l.row)
	}
}

// silence sends every array a frame of zero amplitudes when the run has
// stopped its exoskeletons (endOfRun): otherwise an array plays its newest
// frame until the program closes it. Not recorded in tactile.csv, which
// holds the loop's frames; the device recordings have it. It runs after
// the loops stop, and returns the frame's sequence number.
func (l *tactileLoop) silence() uint32 {
	l.seq++
	l.row.Seq = l.seq
	for f := range sim.NumFingers {
		d := &l.devFrame[f]
		*d = devices.TactileFrame{Seq: l.seq}
		// Whether it arrived, silenced says (FingerEnd.PinsSilentMs).
		_ = l.arrays[f].WriteFrame(d)
	}
	return l.seq
}

// silenced waits, at most wait, for each array that reports its status
// to acknowledge frame seq, and returns per finger the time it took
// (negative: not acknowledged, or the array cannot say).
func (l *tactileLoop) silenced(seq uint32, wait time.Duration) [sim.NumFingers]time.Duration {
	var took [sim.NumFingers]time.Duration
	var sr [sim.NumFingers]devices.StatusReader
	left := 0
	for f := range sim.NumFingers {
		took[f] = -1
		// The array's own status (l.status): a recording wrapper would
		// answer for an array that reports none, and be polled for the
		// whole wait.
		if r := l.status[f]; r != nil {
			sr[f] = r
			left++
		}
	}
	var st devices.TactileStatus
	for start := time.Now(); left > 0 && time.Since(start) < wait; time.Sleep(time.Millisecond) {
		for f, r := range sr {
			if r == nil || took[f] >= 0 {
				continue
			}
			if err := r.Status(&st); err == nil && !st.Stale && st.AckSeq == seq {
				took[f] = time.Since(start)
				left--
			}
		}
	}
	return took
}

// flush records the last frame, whose delivery no later frame measured
// (NaN in the record), when the run ends. It runs after the loops stop.
func (l *tactileLoop) flush() {
	if l.pending {
		l.row.Measured = [sim.NumFingers]bool{}
		l.push()
	}
}

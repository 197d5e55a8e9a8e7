package rig

import (
	"fmt"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/internal/sessionlog"
	"github.com/haptex/haptex/internal/statebuf"
	"github.com/haptex/haptex/sim"
	"github.com/haptex/haptex/tactile"
)

// TactileOut is what the tactile loop publishes for the view: the frame it
// rendered and sent.
type TactileOut struct {
	T     time.Duration
	Frame tactile.Frame
}

// tactileRow is one tactile frame in the session record.
type tactileRow struct {
	Frame      tactile.Frame
	Contact    [sim.NumFingers]tactile.Contact
	Errors     [sim.NumFingers]bool // the array refused the frame
	LatenessUs float64              // how late the frame's tick woke (0 in lockstep)
}

func tactileHeader() []string {
	h := []string{"t_s"}
	for f := range sim.NumFingers {
		n := sim.FingerName(f) + "_"
		h = append(h, n+"contact", n+"u_m", n+"v_m", n+"slip_u_mps", n+"slip_v_mps", n+"normal_force_n",
			n+"a40_um", n+"a320_um", n+"active_pins", n+"clamped_pins", n+"write_error")
		for _, band := range []string{"a40", "a320"} {
			for p := range tactile.Pins {
				h = append(h, fmt.Sprintf("%s%s_pin%02d_um", n, band, p))
			}
		}
	}
	return append(h, "lateness_us")
}

func appendTactileRow(dst []byte, r *tactileRow) []byte {
	dst = sessionlog.AppendFloat(dst, r.Frame.T.Seconds())
	for f := range sim.NumFingers {
		c, ff := &r.Contact[f], &r.Frame.Fingers[f]
		dst = appendFlag(dst, c.InContact)
		dst = sessionlog.AppendFloats(dst, c.U, c.V, c.SlipU, c.SlipV, c.NormalForce, ff.A40, ff.A320, float64(ff.Active), float64(ff.Clamped))
		dst = appendFlag(dst, r.Errors[f])
		for _, a := range ff.A40Um {
			dst = sessionlog.AppendFloats(dst, a)
		}
		for _, a := range ff.A320Um {
			dst = sessionlog.AppendFloats(dst, a)
		}
	}
	return sessionlog.AppendFloats(dst, r.LatenessUs)
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
	r        *Rig
	renderer *tactile.Renderer
	simIn    *statebuf.Reader[sim.Output]
	arrays   [sim.NumFingers]devices.TactileArray // as written to, recorded when the rig records devices
	inner    [sim.NumFingers]devices.TactileArray // the arrays themselves (for what they report delivering)
	clocked  [sim.NumFingers]devices.Clocked
	contacts [sim.NumFingers]tactile.Contact
	devFrame [sim.NumFingers]devices.TactileFrame
	row      tactileRow
	seq      uint32
	errs     [sim.NumFingers]uint64
	cal      [sim.NumFingers]tactile.Calibration
	tone     Tone // sent instead of the fabric while toneOn
	toneOn   bool
	iv       tactileInterval
}

func newTactileLoop(r *Rig) (*tactileLoop, error) {
	l := &tactileLoop{r: r, simIn: r.simOut.NewReader()}
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

func (l *tactileLoop) step(t time.Duration) {
	in, _ := l.simIn.Read()
	for f := range sim.NumFingers {
		p := &in.Contact[f]
		l.contacts[f] = tactile.Contact{InContact: p.InContact, U: p.U, V: p.V, Orientation: p.Orientation,
			SlipU: p.SlipU, SlipV: p.SlipV, NormalForce: p.NormalForce, Area: p.Area}
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
			for p := range ff.A40Um {
				ff.A40Um[p], ff.A320Um[p] = a40, a320
			}
		}
	}
	l.seq++
	for f := range sim.NumFingers {
		d := &l.devFrame[f]
		d.Seq = l.seq
		d.A40Um = frame.Fingers[f].A40Um
		d.A320Um = frame.Fingers[f].A320Um
		if c := l.clocked[f]; c != nil {
			c.Advance(t)
		}
		err := l.arrays[f].WriteFrame(d)
		l.row.Errors[f] = err != nil
		if err != nil {
			l.errs[f]++
		}
	}
	if l.iv.active {
		l.iv.add(frame, &l.inner)
	}
	l.row.Contact = l.contacts
	l.row.LatenessUs = 0
	if lr := l.r.tactileLoop.rt.Load(); lr != nil {
		l.row.LatenessUs = float64(lr.Lateness()) / 1e3
	}
	out := l.r.tactileOut.Slot()
	out.T = frame.T
	out.Frame = *frame
	l.r.tactileOut.Publish()
	if l.r.tactileRows != nil {
		l.r.tactileRows.Push(&l.row)
	}
}

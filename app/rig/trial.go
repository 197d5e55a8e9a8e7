package rig

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/haptics"
	"github.com/haptex/haptex/internal/lockstep"
	"github.com/haptex/haptex/internal/rt"
	"github.com/haptex/haptex/internal/sessionlog"
	"github.com/haptex/haptex/internal/vec3"
	"github.com/haptex/haptex/sim"
	"github.com/haptex/haptex/tactile"
)

// IntervalStats is the stimulus a rig actually delivered during one
// interval of a trial: what the devices rendered and measured, beside the
// nominal stimulus an experiment asked for.
type IntervalStats struct {
	DurationS float64 `json:"duration_s"`
	// PeakForceN is the largest force the fingertip sensor measured, per
	// finger [N]; PeakForceDesN the largest force the cloth asked for at
	// the measured pad (haptics.FingerRecord.ForceDes).
	PeakForceN    [sim.NumFingers]float64 `json:"peak_force_n"`
	PeakForceDesN [sim.NumFingers]float64 `json:"peak_force_des_n"`
	// LimitedS is how long the coupling rendered less stiffness than the
	// cloth's local model asked for, per finger [s]: the interval's
	// stiffness cue was cut where it lay outside the stable region.
	LimitedS [sim.NumFingers]float64 `json:"limited_s"`
	// CappedS is how long the cloth's force was capped at the finger's
	// force limit (haptics.FingerRecord.Capped), per finger [s]: the
	// finger was asked for less than the cloth computed.
	CappedS [sim.NumFingers]float64 `json:"capped_s"`
	// ContactS is each finger's time in contact with the cloth, PinchS the
	// time both were [s].
	ContactS [sim.NumFingers]float64 `json:"contact_s"`
	PinchS   float64                 `json:"pinch_s"`
	// MinPadGapM is the smallest distance between the two pad surfaces
	// while both touched the cloth [m] (the fabric's thickness minus it is
	// how far the pinch squeezed it); NaN without a pinch.
	MinPadGapM float64 `json:"min_pad_gap_m"`
	// Loop health over the interval.
	HapticsLatenessP99Us float64 `json:"haptics_lateness_p99_us"`
	HapticsLateOver1ms   uint64  `json:"haptics_late_over_1ms"`
	HapticsOverruns      uint64  `json:"haptics_overruns"`
	SafeTicks            uint64  `json:"safe_ticks"` // ticks with a finger outside StateActive, counted per finger (devices only)
	// SafeS is how long each finger's exoskeleton was outside its active
	// state (lost, faulted, stopped, tripped; devices only) [s], and
	// TactileUnconfirmed how many of the interval's frames each finger's
	// array did not confirm: the write failed (the array gone or refusing
	// the frame), or the array, reporting its status, was gone, had
	// silenced itself (its watchdog) or had a fault. TactileClipped is
	// how many frames each finger's array reported clipping at its
	// amplitude limits (TactileStatus.Clamped, as its newest report said
	// at each frame): it drove less than was sent. An interval with any
	// of them did not deliver its stimulus to that finger.
	SafeS              [sim.NumFingers]float64 `json:"safe_s"`
	TactileUnconfirmed [sim.NumFingers]int     `json:"tactile_unconfirmed_frames"`
	TactileClipped     [sim.NumFingers]int     `json:"tactile_clipped_frames"`
	// Tactile amplitudes sent to the arrays: the mean over frames of the
	// mean over pins with a non-zero amplitude, and the peak pin [µm].
	TactileFrames int                     `json:"tactile_frames"`
	MeanA40Um     [sim.NumFingers]float64 `json:"mean_a40_um"`
	MeanA320Um    [sim.NumFingers]float64 `json:"mean_a320_um"`
	PeakA40Um     [sim.NumFingers]float64 `json:"peak_a40_um"`
	PeakA320Um    [sim.NumFingers]float64 `json:"peak_a320_um"`
	// DeliveredA40Um and DeliveredA320Um are the mean over frames of the
	// mean amplitude the arrays reported delivering over the pins the
	// frame drove or that vibrated, a driven pin that did not move
	// counting as 0 (arrays that can measure it, such as the simulated
	// ones); NaN otherwise.
	DeliveredA40Um  [sim.NumFingers]float64 `json:"delivered_a40_um"`
	DeliveredA320Um [sim.NumFingers]float64 `json:"delivered_a320_um"`
}

// hapticsInterval accumulates an interval on the haptics goroutine.
type hapticsInterval struct {
	active   bool
	start    time.Duration
	last     time.Duration
	ticks    uint64
	stats    IntervalStats
	lateness rt.Histogram
	dt       float64
	radius   float64
	trace    *IntervalTrace // nil: no tick-level record
}

func (a *hapticsInterval) begin(t time.Duration, dt, radius float64, tr *IntervalTrace) {
	a.active, a.start, a.last, a.ticks = true, t, t, 0
	a.stats = IntervalStats{MinPadGapM: math.NaN()}
	a.lateness.Reset()
	a.dt, a.radius, a.trace = dt, radius, tr
}

func (a *hapticsInterval) add(t time.Duration, rec *haptics.TickRecord, lateness time.Duration, withDevices bool) {
	s := &a.stats
	a.last = t
	a.ticks++
	if tr := a.trace; tr != nil {
		if len(tr.Haptics) < cap(tr.Haptics) {
			tr.Haptics = append(tr.Haptics, *rec)
		} else {
			tr.DroppedTicks++
		}
	}
	both := true
	for f := range rec.Fingers {
		fr := &rec.Fingers[f]
		s.PeakForceN[f] = max(s.PeakForceN[f], vec3.Norm(fr.ForceMeas))
		s.PeakForceDesN[f] = max(s.PeakForceDesN[f], vec3.Norm(fr.ForceDes))
		if fr.Limited {
			s.LimitedS[f] += a.dt
		}
		if fr.Capped {
			s.CappedS[f] += a.dt
		}
		if fr.Contact {
			s.ContactS[f] += a.dt
		} else {
			both = false
		}
		if withDevices && fr.State != haptics.StateActive {
			s.SafeTicks++
			s.SafeS[f] += a.dt
		}
	}
	if both {
		s.PinchS += a.dt
		a0, a1 := rec.Fingers[0].Pos, rec.Fingers[1].Pos
		gap := vec3.Norm([3]float64{a0[0] - a1[0], a0[1] - a1[1], a0[2] - a1[2]}) - 2*a.radius
		if math.IsNaN(s.MinPadGapM) || gap < s.MinPadGapM {
			s.MinPadGapM = gap
		}
	}
	if rec.Overrun {
		s.HapticsOverruns++
	}
	if lateness > time.Millisecond {
		s.HapticsLateOver1ms++
	}
	a.lateness.Record(lateness)
}

func (a *hapticsInterval) finish() IntervalStats {
	a.active, a.trace = false, nil
	s := a.stats
	s.DurationS = (a.last - a.start).Seconds() + a.dt
	s.HapticsLatenessP99Us = float64(a.lateness.Quantile(0.99)) / 1e3
	return s
}

// tactileInterval accumulates an interval on the tactile goroutine.
type tactileInterval struct {
	active   bool
	stats    IntervalStats
	sum40    [sim.NumFingers]float64
	sum320   [sim.NumFingers]float64
	del40    [sim.NumFingers]float64
	del320   [sim.NumFingers]float64
	measured [sim.NumFingers]int // frames the array said what it delivered over
	trace    *IntervalTrace      // nil: no frame-level record
}

func (a *tactileInterval) begin(tr *IntervalTrace) {
	*a = tactileInterval{active: true, trace: tr}
}

// appendBit appends 1 or 0.
func appendBit(b []byte, v bool) []byte {
	if v {
		return append(b, '1')
	}
	return append(b, '0')
}

// add accumulates frame fr (sequence number seq), written to arrays that
// said of it what reports holds and, where measured says they told,
// what their pins delivered (delivered).
func (a *tactileInterval) add(fr *tactile.Frame, seq uint32, delivered *[sim.NumFingers]devices.TactileFrame, measured *[sim.NumFingers]bool, reports *[sim.NumFingers]ArrayReport) {
	s := &a.stats
	s.TactileFrames++
	for f := range reports {
		if reports[f].Unconfirmed() {
			s.TactileUnconfirmed[f]++
		}
		if reports[f].Clipped() {
			s.TactileClipped[f]++
		}
	}
	var smp *TactileSample
	if tr := a.trace; tr != nil {
		if len(tr.Tactile) < cap(tr.Tactile) {
			tr.Tactile = tr.Tactile[:len(tr.Tactile)+1]
			smp = &tr.Tactile[len(tr.Tactile)-1]
			*smp = TactileSample{T: fr.T, Seq: seq, Report: *reports}
		} else {
			tr.DroppedFrames++
		}
	}
	for f := range fr.Fingers {
		ff := &fr.Fingers[f]
		if d := &delivered[f]; measured[f] {
			a.del40[f] += meanDriven(d.A40Um[:], ff.A40Um[:])
			a.del320[f] += meanDriven(d.A320Um[:], ff.A320Um[:])
			a.measured[f]++
			if smp != nil {
				smp.Delivered[f] = *d
				smp.Measured[f] = true
			}
		}
		if smp != nil {
			smp.Sent[f].A40Um, smp.Sent[f].A320Um = ff.A40Um, ff.A320Um
		}
		m40, m320 := meanNonZero(ff.A40Um[:]), meanNonZero(ff.A320Um[:])
		a.sum40[f] += m40
		a.sum320[f] += m320
		for p := range ff.A40Um {
			s.PeakA40Um[f] = max(s.PeakA40Um[f], ff.A40Um[p])
			s.PeakA320Um[f] = max(s.PeakA320Um[f], ff.A320Um[p])
		}
	}
}

func (a *tactileInterval) finish() IntervalStats {
	a.active, a.trace = false, nil
	s := a.stats
	for f := range sim.NumFingers {
		s.DeliveredA40Um[f], s.DeliveredA320Um[f] = math.NaN(), math.NaN()
		if n := float64(s.TactileFrames); n > 0 {
			s.MeanA40Um[f], s.MeanA320Um[f] = a.sum40[f]/n, a.sum320[f]/n
			// A mean over part of the interval would pass over the frames
			// whose measurement is missing: none, then.
			if a.measured[f] == s.TactileFrames {
				s.DeliveredA40Um[f], s.DeliveredA320Um[f] = a.del40[f]/n, a.del320[f]/n
			}
		}
	}
	return s
}

// meanDriven is the mean of the delivered amplitudes over the pins that
// were sent or delivered more than 1 nm: a pin driven that did not move
// counts as 0, where a mean over the pins that vibrate would pass over it.
func meanDriven(delivered, sent []float64) float64 {
	var sum float64
	n := 0
	for i, v := range delivered {
		if v > 1e-3 || sent[i] > 1e-3 {
			sum += v
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// meanNonZero is the mean of the amplitudes above 1 nm (pins that vibrate).
func meanNonZero(a []float64) float64 {
	var sum float64
	n := 0
	for _, v := range a {
		if v > 1e-3 {
			sum += v
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// ErrAboveLimit is SetTone's error for a tone above an array's amplitude
// limits.
var ErrAboveLimit = errors.New("above the amplitude limits")

// Tone is a test vibration the tactile loop sends on every pin of both
// arrays in place of the rendered fabric (detection thresholds, pin
// calibration).
type Tone struct {
	A40Um, A320Um float64 // [µm peak]
	// Silent marks fingers whose pins stay still (a one-finger tone).
	Silent [sim.NumFingers]bool
}

// BeginInterval starts an interval of a trial at the next haptics tick:
// the handling motion restarts from its beginning and the delivered
// stimulus is accumulated until EndInterval.
func (r *Rig) BeginInterval() error { return r.BeginTracedInterval(nil) }

// BeginTracedInterval is BeginInterval that also keeps the interval's
// tick-level record in tr (see IntervalTrace): tr belongs to the loops
// until the statistics EndInterval returns have arrived. A nil tr keeps
// none.
func (r *Rig) BeginTracedInterval(tr *IntervalTrace) error {
	if tr != nil {
		tr.reset()
	}
	h, tl := r.haptics, r.tactile
	err := r.hapticsLoop.do(func(t time.Duration) {
		r.intent.restart(t, nil)
		h.iv.begin(t, r.cfg.HapticsPeriod.Seconds(), r.cfg.Scene.PadRadius, tr)
	})
	if err != nil {
		return err
	}
	return r.tactileLoop.do(func(time.Duration) { tl.iv.begin(tr) })
}

// IntervalTrace is the tick-level record of one interval: every haptics
// tick's record (fingertip positions, desired and measured forces, the
// servo's state) and every tactile frame (the amplitudes sent to each pin
// and those the arrays reported delivering), so that any cue of what was
// delivered can be computed, or recomputed later. The loops fill it
// without allocating: NewIntervalTrace sizes it before the interval, and
// ticks beyond its capacity are counted, not kept.
type IntervalTrace struct {
	Haptics []haptics.TickRecord
	Tactile []TactileSample
	// DroppedTicks and DroppedFrames count the ticks and frames that did
	// not fit.
	DroppedTicks, DroppedFrames int
	// HapticsPeriod and PadRadius [m] are the rig's, for readers of the
	// record.
	HapticsPeriod time.Duration
	PadRadius     float64
}

// TactileSample is one tactile frame of an interval: per finger, the pin
// amplitudes sent and, where the array reports it (Measured), those it
// delivered [µm peak]; and what the array said of it (Report).
type TactileSample struct {
	T         time.Duration
	Seq       uint32 // the frame's sequence number (TactileFrame.Seq; TactileStatus.AckSeq names it)
	Sent      [sim.NumFingers]devices.TactileFrame
	Delivered [sim.NumFingers]devices.TactileFrame
	Measured  [sim.NumFingers]bool
	Report    [sim.NumFingers]ArrayReport
}

// ArrayReport is what a tactile array said when the frame was written: the
// write's outcome and, from an array that reports its status, its newest
// status report (which answers the frame before it, or an earlier one).
type ArrayReport struct {
	Written  bool                  // the write succeeded
	Reported bool                  // Status holds the array's report
	Gone     bool                  // the status read failed, not for a late report: the array is gone
	Status   devices.TactileStatus // AckSeq, Active, Clamped, Fault
}

// Unconfirmed says that the array did not confirm the frame: the write
// failed, the array is gone, or it has silenced itself.
func (r *ArrayReport) Unconfirmed() bool { return !r.Written || r.Gone || r.Silenced() }

// Silenced says that the array's report says it has silenced itself (its
// watchdog) or has a fault.
func (r *ArrayReport) Silenced() bool {
	return r.Reported && (r.Status.Fault != 0 || !r.Status.Active)
}

// Clipped says that the array reported clipping at its amplitude limits.
func (r *ArrayReport) Clipped() bool { return r.Reported && r.Status.Clamped }

// NewIntervalTrace returns a trace with room for an interval of length d
// (and the ticks it takes to begin and end one).
func (r *Rig) NewIntervalTrace(d time.Duration) *IntervalTrace {
	const margin = 64
	return &IntervalTrace{
		Haptics:       make([]haptics.TickRecord, 0, int(d/r.cfg.HapticsPeriod)+margin),
		Tactile:       make([]TactileSample, 0, int(d/r.cfg.TactilePeriod)+margin),
		HapticsPeriod: r.cfg.HapticsPeriod,
		PadRadius:     r.cfg.Scene.PadRadius,
	}
}

func (tr *IntervalTrace) reset() {
	tr.Haptics, tr.Tactile = tr.Haptics[:0], tr.Tactile[:0]
	tr.DroppedTicks, tr.DroppedFrames = 0, 0
}

// WriteHapticsCSV writes the haptics ticks as CSV, with the columns of the
// session record's haptics.csv.
func (tr *IntervalTrace) WriteHapticsCSV(w io.Writer) error {
	buf := append([]byte(haptics.TickCSVHeader()), '\n')
	for i := range tr.Haptics {
		buf = append(tr.Haptics[i].AppendCSV(buf), '\n')
		if len(buf) > 1<<16 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	_, err := w.Write(buf)
	return err
}

// TactileTraceHeader returns the CSV header of WriteTactileCSV: the frame
// time, then per finger and band the 24 pins sent and delivered (empty
// where the array does not report what it delivers); then the frame's
// sequence number and per finger the array's report (ArrayReport):
// written (1 or 0) and its newest status's ack_seq, active, clipped (1 or
// 0) and fault bits (empty where the array reports no status, or its
// report could not be read); last, per finger, delivered_seq: the frame
// the delivered amplitudes are of, read as the frame was written (the
// frame before on a simulated array; on a device array, whose
// measurement comes over the line after the next frame, one or two
// before), empty where they are.
func TactileTraceHeader() string {
	h := "t_s"
	for f := range sim.NumFingers {
		for _, kind := range []string{"sent", "delivered"} {
			for _, band := range []string{"a40", "a320"} {
				for p := range devices.Pins {
					h += fmt.Sprintf(",%s_%s_%s_pin%02d_um", sim.FingerName(f), kind, band, p)
				}
			}
		}
	}
	h += ",seq"
	for f := range sim.NumFingers {
		for _, c := range []string{"written", "ack_seq", "active", "clipped", "fault"} {
			h += "," + sim.FingerName(f) + "_" + c
		}
	}
	for f := range sim.NumFingers {
		h += "," + sim.FingerName(f) + "_delivered_seq"
	}
	return h
}

// WriteTactileCSV writes the tactile frames as CSV (TactileTraceHeader).
func (tr *IntervalTrace) WriteTactileCSV(w io.Writer) error {
	buf := append([]byte(TactileTraceHeader()), '\n')
	for i := range tr.Tactile {
		s := &tr.Tactile[i]
		buf = strconv.AppendFloat(buf, s.T.Seconds(), 'g', -1, 64)
		for f := range sim.NumFingers {
			buf = sessionlog.AppendFloats(buf, s.Sent[f].A40Um[:]...)
			buf = sessionlog.AppendFloats(buf, s.Sent[f].A320Um[:]...)
			for _, a := range [][]float64{s.Delivered[f].A40Um[:], s.Delivered[f].A320Um[:]} {
				if !s.Measured[f] {
					for range a {
						buf = append(buf, ',')
					}
					continue
				}
				buf = sessionlog.AppendFloats(buf, a...)
			}
		}
		buf = append(buf, ',')
		buf = strconv.AppendUint(buf, uint64(s.Seq), 10)
		for f := range sim.NumFingers {
			r := &s.Report[f]
			buf = append(buf, ',')
			buf = appendBit(buf, r.Written)
			if !r.Reported {
				buf = append(buf, ",,,,"...)
				continue
			}
			buf = append(buf, ',')
			buf = strconv.AppendUint(buf, uint64(r.Status.AckSeq), 10)
			buf = append(buf, ',')
			buf = appendBit(buf, r.Status.Active)
			buf = append(buf, ',')
			buf = appendBit(buf, r.Status.Clamped)
			buf = append(buf, ',')
			buf = strconv.AppendUint(buf, uint64(r.Status.Fault), 10)
		}
		for f := range sim.NumFingers {
			buf = append(buf, ',')
			if s.Measured[f] {
				buf = strconv.AppendUint(buf, uint64(s.Delivered[f].Seq), 10)
			}
		}
		buf = append(buf, '\n')
		if len(buf) > 1<<16 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	_, err := w.Write(buf)
	return err
}

// EndInterval ends the interval at the next tick of each loop and returns
// a channel that delivers its statistics once both loops have reported.
func (r *Rig) EndInterval() (<-chan IntervalStats, error) {
	h, tl := r.haptics, r.tactile
	hc := make(chan IntervalStats, 1)
	tc := make(chan IntervalStats, 1)
	if err := r.hapticsLoop.do(func(time.Duration) { hc <- h.iv.finish() }); err != nil {
		return nil, err
	}
	if err := r.tactileLoop.do(func(time.Duration) { tc <- tl.iv.finish() }); err != nil {
		return nil, err
	}
	out := make(chan IntervalStats, 1)
	go func() {
		s := <-hc
		ts := <-tc
		s.TactileFrames = ts.TactileFrames
		s.MeanA40Um, s.MeanA320Um = ts.MeanA40Um, ts.MeanA320Um
		s.PeakA40Um, s.PeakA320Um = ts.PeakA40Um, ts.PeakA320Um
		s.DeliveredA40Um, s.DeliveredA320Um = ts.DeliveredA40Um, ts.DeliveredA320Um
		s.TactileUnconfirmed, s.TactileClipped = ts.TactileUnconfirmed, ts.TactileClipped
		out <- s
	}()
	return out, nil
}

// Material returns the cloth's material as configured (the reference a
// stimulus varies).
func (r *Rig) Material() sim.Material { return r.cfg.Sim.Material }

// SetForceScale makes the servo render k times the cloth's force from its
// next tick on, and the tactile contact patch follow the force rendered.
// It fails with scripted fingertips (nothing is rendered).
func (r *Rig) SetForceScale(k float64) error {
	if r.haptics.servo == nil {
		return errors.New("rig: no force rendering with scripted fingertips")
	}
	if !(k >= 0 && k <= 10) {
		return fmt.Errorf("rig: force scale %g outside [0, 10]", k)
	}
	s := r.haptics.servo
	if err := r.hapticsLoop.do(func(time.Duration) { s.SetForceScale(k) }); err != nil {
		return err
	}
	tl := r.tactile
	return r.tactileLoop.do(func(time.Duration) { tl.forceScale = k })
}

// SetTone replaces the rendered fabric on both arrays by a test vibration
// from the next tactile frame on; nil goes back to rendering the fabric.
// A tone above the amplitude limits of an array it is not silent on fails
// with ErrAboveLimit: the array would clip it, and the record say it sent
// more than the pins drove.
func (r *Rig) SetTone(tone *Tone) error {
	var v Tone
	on := tone != nil
	if on {
		v = *tone
		if !(v.A40Um >= 0) || !(v.A320Um >= 0) || math.IsInf(v.A40Um, 0) || math.IsInf(v.A320Um, 0) {
			return fmt.Errorf("rig: tone %g µm at 40 Hz, %g µm at 320 Hz: want finite, >= 0", v.A40Um, v.A320Um)
		}
		for f, a := range r.tactile.arrays {
			if v.Silent[f] {
				continue
			}
			s := a.Spec()
			if v.A40Um > s.MaxA40Um || v.A320Um > s.MaxA320Um {
				return fmt.Errorf("rig: tone %g µm at 40 Hz, %g µm at 320 Hz: %w of the %s array (%g µm, %g µm)",
					v.A40Um, v.A320Um, ErrAboveLimit, sim.FingerName(f), s.MaxA40Um, s.MaxA320Um)
			}
		}
	}
	tl := r.tactile
	return r.tactileLoop.do(func(time.Duration) { tl.tone, tl.toneOn = v, on })
}

// SetTactileGain shifts both fingers' 40 Hz and 320 Hz amplitudes by the
// given gains [dB] (a stimulus level or a comfort setting), keeping each
// finger's channels and pin calibration.
func (r *Rig) SetTactileGain(db40, db320 float64) error {
	if !(math.Abs(db40) <= 40) || !(math.Abs(db320) <= 40) {
		return fmt.Errorf("rig: tactile gain %g dB, %g dB outside [-40, 40]", db40, db320)
	}
	tl := r.tactile
	return r.tactileLoop.do(func(time.Duration) {
		for f := range sim.NumFingers {
			c := tl.cal[f]
			c.Gain40DB, c.Gain320DB = db40, db320
			if tl.renderer.SetCalibration(f, c) == nil {
				tl.cal[f] = c
			}
		}
	})
}

// SetMaterial blends the cloth into a new material over ramp of
// simulation time from its next step (sim.Cloth.SetMaterial).
func (r *Rig) SetMaterial(m sim.Material, ramp time.Duration) error {
	if err := m.Validate(); err != nil {
		return err
	}
	c := r.sim.cloth
	return r.simLoop.do(func(time.Duration) {
		if err := c.SetMaterial(m, ramp); err != nil {
			r.logf("rig: %v", err)
		}
	})
}

// SetSurface makes the tactile renderer render a new surface from its next
// frame (build it off the loops with tactile.NewSurface: it takes ~0.5 s).
func (r *Rig) SetSurface(s *tactile.Surface) error {
	if s == nil {
		return errors.New("rig: nil surface")
	}
	tl := r.tactile
	return r.tactileLoop.do(func(time.Duration) {
		if err := tl.renderer.SetSurface(s); err != nil {
			r.logf("rig: %v", err)
		}
	})
}

func (r *Rig) logf(format string, args ...any) {
	if r.cfg.Logf != nil {
		r.cfg.Logf(format, args...)
	}
}

// parallelNodes is the smallest cloth whose step the lockstep runner
// splits over two cores (sim.Cloth.SetParallel): at 24² (576 nodes) a half
// element pass is far longer than handing it over, while at 12² the halves
// are too short to be worth claiming.
const parallelNodes = 400

// SplitsStep reports whether the lockstep runner splits the cloth's step
// over two cores.
func (r *Rig) SplitsStep() bool {
	return runtime.GOMAXPROCS(0) >= 2 && r.topology.Nodes >= parallelNodes
}

// Stepper runs a rig in virtual time in chunks, for callers that act
// between chunks (the experiment runner): the lockstep counterpart of Run.
type Stepper struct {
	r     *Rig
	run   *lockstep.Runner
	now   time.Duration
	start time.Time
}

// Lockstep starts a lockstep run of the rig and returns its stepper at
// virtual time 0. cfg.Duration is ignored; Finish ends the run.
func (r *Rig) Lockstep() (*Stepper, error) {
	if r.ran {
		return nil, errors.New("rig: already ran")
	}
	r.ran = true
	if r.session != nil {
		r.session.Start()
	}
	if r.devRec != nil {
		// Virtual time waits on no clock: a device recording may wait for
		// its disk rather than drop an event.
		r.devRec.SetLossless(true)
	}
	// The cloth steps on a goroutine of its own while the other loops tick
	// (a pipelined task) and, when it is large enough, offers halves of
	// its element pass and products to the runner's goroutine, which takes
	// them between ticks and while it waits; neither changes a bit of the
	// result.
	split := r.SplitsStep()
	r.sim.cloth.SetParallel(split)
	tasks := make([]lockstep.Task, len(r.loops))
	for i, l := range r.loops {
		tasks[i] = lockstep.Task{Name: l.name, Period: l.period}
		if l.work != nil {
			tasks[i].Begin, tasks[i].Work, tasks[i].Commit = l.beginTick, l.work, l.commit
			if split {
				tasks[i].Assist = l.assist
			}
		} else {
			tasks[i].Step = l.tick
		}
	}
	return &Stepper{r: r, run: lockstep.New(tasks...), start: time.Now()}, nil
}

// Advance runs every tick in the next d of virtual time.
func (s *Stepper) Advance(d time.Duration) {
	s.now += d
	s.run.RunUntil(s.now)
}

// Now returns the virtual time reached.
func (s *Stepper) Now() time.Duration { return s.now }

// Finish ends the run: it closes the session and returns the summary.
func (s *Stepper) Finish() (*Summary, error) {
	s.run.Flush()
	sum := s.r.summary("lockstep", s.now, time.Since(s.start))
	return sum, s.r.finish(sum)
}

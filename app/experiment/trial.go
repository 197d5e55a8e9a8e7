package experiment

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/kes"
	"github.com/haptex/haptex/calib/psych"
	"github.com/haptex/haptex/sim"
	"github.com/haptex/haptex/tactile"
)

// csvHeader is trials.csv's header: the trial, who answered (observer),
// then per interval its role, nominal value, delivered cue (cue, the
// sidecar's Cue) and what the devices delivered.
func csvHeader(intervals int) []string {
	h := []string{"trial", "stream", "x", "unit", "test_interval", "response", "chosen_interval", "positive", "rt_s", "observer"}
	for i := 1; i <= intervals; i++ {
		p := fmt.Sprintf("i%d_", i)
		h = append(h, p+"role", p+"value", p+"cue", p+"duration_s",
			p+"thumb_peak_force_n", p+"index_peak_force_n", p+"thumb_peak_force_des_n", p+"index_peak_force_des_n",
			p+"thumb_contact_s", p+"index_contact_s", p+"pinch_s", p+"min_pad_gap_m",
			p+"thumb_a40_sent_um", p+"index_a40_sent_um", p+"thumb_a320_sent_um", p+"index_a320_sent_um",
			p+"thumb_a40_delivered_um", p+"index_a40_delivered_um", p+"thumb_a320_delivered_um", p+"index_a320_delivered_um",
			p+"haptics_lateness_p99_us", p+"haptics_late_over_1ms", p+"haptics_overruns", p+"safe_ticks",
			p+"thumb_limited_s", p+"index_limited_s")
	}
	return append(h, "estimate", "estimate_sd", "run_time_s", "wall_time")
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// presentations is how often a trial is presented before the run stops
// for a stimulus the devices did not deliver; redeliverWait is the pause
// before each further presentation, for a device that is reconnecting.
const (
	presentations = 3
	redeliverWait = time.Second
)

// trial presents one trial, takes the response and records it. A
// presentation the devices did not deliver in full (undelivered) is not
// answered: the trial is presented again, and after presentations
// attempts the run stops with the trials so far saved.
func (run *runner) trial(ctx context.Context, t psych.Trial) error {
	e := run.e
	test := run.testInterval()
	var stats [2]rig.IntervalStats
	var values, cues [2]float64
	for attempt := 1; ; attempt++ {
		if err := run.drive.wait(ctx, e.Timing.ITI); err != nil {
			return run.stopped(err)
		}
		if !run.simulated() {
			run.term.announce(run.done+1, run.e.Procedure)
		}
		if err := run.present(ctx, t, test, &stats, &values, &cues); err != nil {
			return err
		}
		why := undelivered(stats[:run.intervals], func(i int) string { return fmt.Sprintf("interval %d", i+1) }, e.needs())
		if why == "" {
			break
		}
		if err := run.reset(); err != nil {
			return err
		}
		if err := run.again(ctx, fmt.Sprintf("trial %d", run.done+1), attempt, why); err != nil {
			return run.stopped(err)
		}
	}
	if err := run.reset(); err != nil {
		return err
	}
	resp, chosen, rt, err := run.respond(ctx, t, test, cues[:run.intervals])
	if err != nil {
		return run.stopped(err)
	}
	if !run.o.NoTraces {
		if err := run.writeTraces(run.done + 1); err != nil {
			return err
		}
	}
	if err := run.proc.Update(t, resp); err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	positive, err := e.Task.Positive(resp)
	if err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	est := run.proc.Estimate()
	row := []string{strconv.Itoa(t.Index), strconv.Itoa(t.Stream), fmtFloat(t.X), e.Stimulus.Unit,
		strconv.Itoa(test + 1), strconv.Itoa(int(resp)), chosenCol(chosen), boolCol(positive), fmtFloat(rt), run.observerSpec(t.Stream)}
	for i := range run.intervals {
		role := "reference"
		if i == test {
			role = "test"
		}
		s := &stats[i]
		row = append(row, role, fmtFloat(values[i]), fmtFloat(cues[i]), fmtFloat(s.DurationS),
			fmtFloat(s.PeakForceN[sim.Thumb]), fmtFloat(s.PeakForceN[sim.IndexFinger]),
			fmtFloat(s.PeakForceDesN[sim.Thumb]), fmtFloat(s.PeakForceDesN[sim.IndexFinger]),
			fmtFloat(s.ContactS[sim.Thumb]), fmtFloat(s.ContactS[sim.IndexFinger]), fmtFloat(s.PinchS), fmtFloat(s.MinPadGapM),
			fmtFloat(s.MeanA40Um[sim.Thumb]), fmtFloat(s.MeanA40Um[sim.IndexFinger]), fmtFloat(s.MeanA320Um[sim.Thumb]), fmtFloat(s.MeanA320Um[sim.IndexFinger]),
			fmtFloat(s.DeliveredA40Um[sim.Thumb]), fmtFloat(s.DeliveredA40Um[sim.IndexFinger]),
			fmtFloat(s.DeliveredA320Um[sim.Thumb]), fmtFloat(s.DeliveredA320Um[sim.IndexFinger]),
			fmtFloat(s.HapticsLatenessP99Us), strconv.FormatUint(s.HapticsLateOver1ms, 10),
			strconv.FormatUint(s.HapticsOverruns, 10), strconv.FormatUint(s.SafeTicks, 10),
			fmtFloat(s.LimitedS[sim.Thumb]), fmtFloat(s.LimitedS[sim.IndexFinger]))
	}
	row = append(row, fmtFloat(est.Threshold), fmtFloat(est.SD), fmtFloat(run.drive.now().Seconds()), time.Now().UTC().Format(time.RFC3339Nano))
	// The row reaches the disk, then the state: a run stopped between the
	// two replays this trial on resume (see open).
	if err := run.writeRow(row); err != nil {
		return err
	}
	run.done++
	if err := run.saveState(); err != nil {
		return err
	}
	if !run.simulated() {
		fmt.Fprintf(run.o.Out, "trial %d done\n", run.done)
	}
	return nil
}

// present plays each interval of trial t, the test in interval test, and
// fills in what each delivered: the rig's statistics, the nominal value
// and the measured cue.
func (run *runner) present(ctx context.Context, t psych.Trial, test int, stats *[2]rig.IntervalStats, values, cues *[2]float64) error {
	e := run.e
	for i := range run.intervals {
		v, err := run.apply(t, i == test)
		if err != nil {
			return err
		}
		values[i] = v
		if err := run.drive.wait(ctx, e.Timing.Gap); err != nil {
			return run.stopped(err)
		}
		if !run.simulated() {
			fmt.Fprintf(run.o.Out, "  interval %d ...\n", i+1)
		}
		if err := run.r.BeginTracedInterval(run.traces[i]); err != nil {
			return err
		}
		if err := run.drive.wait(ctx, e.Timing.Interval); err != nil {
			return run.stopped(err)
		}
		ch, err := run.r.EndInterval()
		if err != nil {
			return err
		}
		// One tactile frame later both loops have reported.
		if err := run.drive.wait(ctx, 50*time.Millisecond); err != nil {
			return run.stopped(err)
		}
		select {
		case stats[i] = <-ch:
		case <-time.After(5 * time.Second):
			return errors.New("experiment: the rig's loops did not report the interval (is the rig running?)")
		}
		// A cue the interval does not allow (no contact, no stretch) is
		// recorded as NaN; the observer sees nothing there.
		cues[i], _ = measureCue(run.cue, run.traces[i], run.motion)
	}
	return nil
}

// ErrNotDelivered is matched (errors.Is) by the error of a run that
// stopped because the devices did not deliver a trial's stimulus.
var ErrNotDelivered = errors.New("stimulus not delivered")

// needs says which devices a stimulus must reach: the exoskeletons, where
// the fingers' forces take part, and each finger's tactile array.
type needs struct {
	exos   bool
	arrays [sim.NumFingers]bool
}

// allDevices is what every stimulus but a tone needs.
var allDevices = needs{exos: true, arrays: [sim.NumFingers]bool{true, true}}

// needs returns what the experiment's stimulus must reach: a tone plays on
// the arrays whatever the exoskeletons do, and only on its finger's (the
// other stays silent, as a lost array does).
func (e *Experiment) needs() needs {
	if e.Stimulus.Kind != TactileTone {
		return allDevices
	}
	var n needs
	for f := range sim.NumFingers {
		n.arrays[f] = e.Stimulus.Finger == "" || e.Stimulus.Finger == sim.FingerName(f)
	}
	return n
}

// An interval's pins delivered its stimulus when, as the arrays measured
// them (rig.IntervalStats.DeliveredA40Um; NaN, and not judged, from an
// array that cannot measure its pins), they delivered at least half of
// the mean amplitude sent (6 dB: beyond the pins' 1 dB spread and the
// frame or two a device array's measurement lags), where that was
// minSentUm or more.
const (
	deliveredShortfall = 0.5
	minSentUm          = 0.5
)

// undelivered says how the intervals' statistics show a stimulus that did
// not reach the devices it needs in full, each interval named by name:
// frames a tactile array did not confirm or reported clipping, pins that
// delivered less than deliveredShortfall of what was sent as their array
// measured them, an exoskeleton outside its active state, or a finger's
// force capped at its force limit (rig.IntervalStats); "" when nothing
// shows.
func undelivered(stats []rig.IntervalStats, name func(i int) string, need needs) string {
	var parts []string
	capped := false
	for i := range stats {
		s := &stats[i]
		for f := range sim.NumFingers {
			if need.exos && s.SafeS[f] > 0 {
				parts = append(parts, fmt.Sprintf("%s: the %s exoskeleton outside its active state for %.3g of %.3g s", name(i), sim.FingerName(f), s.SafeS[f], s.DurationS))
			}
			if need.exos && s.CappedS[f] > 0 {
				parts = append(parts, fmt.Sprintf("%s: the %s's force capped at its exoskeleton's force limit for %.3g of %.3g s", name(i), sim.FingerName(f), s.CappedS[f], s.DurationS))
				capped = true
			}
			if !need.arrays[f] {
				continue
			}
			if n := s.TactileUnconfirmed[f]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s: %d of %d frames not confirmed by the %s tactile array", name(i), n, s.TactileFrames, sim.FingerName(f)))
			}
			if n := s.TactileClipped[f]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s: %d of %d frames clipped by the %s tactile array at its amplitude limits", name(i), n, s.TactileFrames, sim.FingerName(f)))
			}
			for _, b := range []struct {
				hz              int
				sent, delivered float64
			}{{40, s.MeanA40Um[f], s.DeliveredA40Um[f]}, {320, s.MeanA320Um[f], s.DeliveredA320Um[f]}} {
				if b.sent >= minSentUm && b.delivered < deliveredShortfall*b.sent {
					parts = append(parts, fmt.Sprintf("%s: the %s's pins delivered %.3g µm at %d Hz of the %.3g µm sent, as its array measured them", name(i), sim.FingerName(f), b.delivered, b.hz, b.sent))
				}
			}
		}
	}
	if capped {
		parts = append(parts, "the cloth asked for more force than the exoskeletons render: a lighter grip, or lower levels")
	}
	return strings.Join(parts, "; ")
}

// again follows presentation attempt of what, which the devices did not
// deliver (why): after the last one it returns the error that stops the
// run (ErrNotDelivered); before, it says that what is presented again
// and waits for a device that is reconnecting.
func (run *runner) again(ctx context.Context, what string, attempt int, why string) error {
	if attempt == presentations {
		return fmt.Errorf("experiment: %s: %w in %d presentations (%s); the %d completed trials are saved (resume with the same command once the devices are back, or fixed)",
			what, ErrNotDelivered, attempt, why, run.done)
	}
	fmt.Fprintf(run.o.Out, "%s not delivered (%s): presented again\n", what, why)
	return run.drive.wait(ctx, redeliverWait)
}

// writeTraces writes the trial's interval traces under traces/, gzipped
// CSV, each atomically (a resumed trial rewrites them).
func (run *runner) writeTraces(trial int) error {
	for i := range run.intervals {
		if err := run.writeTrace(trial, i+1, run.traces[i]); err != nil {
			return err
		}
	}
	return nil
}

// writeTrace writes one interval's trace (the trial's interval-th, from
// 1) under traces/ as NNNN-iK-haptics.csv.gz and NNNN-iK-tactile.csv.gz.
func (run *runner) writeTrace(trial, interval int, tr *rig.IntervalTrace) error {
	dir, err := run.root.Sub("traces", true)
	if err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	defer dir.Close()
	for _, k := range []struct {
		name  string
		write func(io.Writer) error
	}{{"haptics", tr.WriteHapticsCSV}, {"tactile", tr.WriteTactileCSV}} {
		var b bytes.Buffer
		z := gzip.NewWriter(&b)
		err := k.write(z)
		if e := z.Close(); err == nil {
			err = e
		}
		if err != nil {
			return fmt.Errorf("experiment: trace: %w", err)
		}
		if err := dir.WriteFile(fmt.Sprintf("%04d-i%d-%s.csv.gz", trial, interval, k.name), b.Bytes()); err != nil {
			return fmt.Errorf("experiment: %w", err)
		}
	}
	return nil
}

func chosenCol(c int) string {
	if c < 0 {
		return ""
	}
	return strconv.Itoa(c + 1)
}

func boolCol(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// stopped wraps an interruption with how to resume.
func (run *runner) stopped(err error) error {
	if errors.Is(err, ErrNotDelivered) {
		return err
	}
	return fmt.Errorf("experiment: stopped during trial %d; the %d completed trials are saved (resume with the same command): %w", run.done+1, run.done, err)
}

// apply sets one interval's stimulus on the rig and returns its value in
// the record's unit terms (0 for the reference).
func (run *runner) apply(t psych.Trial, isTest bool) (float64, error) {
	x := 0.0
	if isTest {
		x = t.X
	}
	return x, run.stim.set(run.r, x, t.Stream)
}

// reset puts the reference stimulus back between trials.
func (run *runner) reset() error { return run.stim.set(run.r, 0, 0) }

// stimulus puts the levels of an experiment's dimension on a rig.
type stimulus struct {
	e   *Experiment
	ref sim.Material // the reference material
	fab *kes.Fabric  // the reference fabric
	// surfaces holds a roughness experiment's tactile surfaces by level:
	// each takes about half a second to build, and a staircase revisits
	// its levels.
	surfaces map[float64]*tactile.Surface
}

// withinLimits checks that every tone the procedure can ask for lies
// within the amplitude limit of each array it vibrates on rig r, as the
// array's capability record gives it: above it the array clips, and the
// trial would record as sent a level the pins never drove.
func (e *Experiment) withinLimits(r *rig.Rig) error {
	if e.Stimulus.Kind != TactileTone {
		return nil
	}
	v, need := r.NewView(), e.needs()
	for stream, sp := range psych.SpanOf(e.Procedure) {
		hz := e.Stimulus.FrequencyHz[0]
		if stream < len(e.Stimulus.FrequencyHz) {
			hz = e.Stimulus.FrequencyHz[stream]
		}
		for f := range sim.NumFingers {
			if !need.arrays[f] {
				continue
			}
			a40, a320 := v.ArrayLimits(f)
			limit := a320
			if hz == 40 {
				limit = a40
			}
			if sp.Max > limit {
				return fmt.Errorf("procedure: levels up to %g µm at %g Hz, above the %s array's limit of %g µm (its capability record): it would clip them while the trials recorded them as sent; lower the procedure's levels or max to %g µm",
					sp.Max, hz, sim.FingerName(f), limit, limit)
			}
		}
	}
	return nil
}

// newStimulus returns the stimulus of experiment e on rig r, whose
// material as configured is the reference.
func newStimulus(e *Experiment, r *rig.Rig, fab *kes.Fabric) *stimulus {
	return &stimulus{e: e, ref: r.Material(), fab: fab, surfaces: map[float64]*tactile.Surface{}}
}

// set puts level x of the experiment's dimension on the rig (0: the
// reference) for a trial of the stream.
func (st *stimulus) set(r *rig.Rig, x float64, stream int) error {
	e, ref := st.e, st.ref
	k := percentGain(x)
	switch e.Stimulus.Kind {
	case Stiffness:
		m := ref
		if x != 0 {
			m = scaleMaterial(ref, k)
		}
		return r.SetMaterial(m, sim.MaterialRamp)
	case Friction:
		m := ref
		m.FrictionStatic, m.FrictionKinetic = k*ref.FrictionStatic, k*ref.FrictionKinetic
		if m.LayerFriction == 0 {
			// Layer on layer keeps the reference's friction.
			m.LayerFriction = ref.FrictionKinetic
		}
		return r.SetMaterial(m, sim.MaterialRamp)
	case Bending:
		return r.SetMaterial(scaleBending(ref, k), sim.MaterialRamp)
	case Roughness:
		if err := r.SetTactileGain(e.Stimulus.ReferenceDB, e.Stimulus.ReferenceDB); err != nil {
			return err
		}
		s, err := st.surface(r, k)
		if err != nil {
			return err
		}
		return r.SetSurface(s)
	case ForceScale:
		return r.SetForceScale(k)
	case TactileLevel:
		g := e.Stimulus.ReferenceDB + x
		return r.SetTactileGain(g, g)
	case TactileTone:
		if x == 0 {
			return r.SetTone(&rig.Tone{})
		}
		f := e.Stimulus.FrequencyHz[0]
		if stream < len(e.Stimulus.FrequencyHz) {
			f = e.Stimulus.FrequencyHz[stream]
		}
		tone := &rig.Tone{}
		switch e.Stimulus.Finger {
		case "thumb":
			tone.Silent[sim.IndexFinger] = true
		case "index":
			tone.Silent[sim.Thumb] = true
		}
		if f == 40 {
			tone.A40Um = x
		} else {
			tone.A320Um = x
		}
		return r.SetTone(tone)
	}
	return fmt.Errorf("experiment: unknown stimulus kind %q", e.Stimulus.Kind)
}

// surface returns the reference fabric's tactile surface with its
// geometric roughness (SMD) k times the fabric's, built as the rig
// builds its own (the same seed: the same pseudo-topology, scaled).
func (st *stimulus) surface(r *rig.Rig, k float64) (*tactile.Surface, error) {
	if s, ok := st.surfaces[k]; ok {
		return s, nil
	}
	cfg := r.Config()
	sp, err := st.fab.SurfaceParams(cfg.Sim.Width, cfg.Sim.Height)
	if err != nil {
		return nil, fmt.Errorf("experiment: tactile surface: %w", err)
	}
	sp.SMD *= k
	s, err := tactile.NewSurface(sp, 1)
	if err != nil {
		return nil, fmt.Errorf("experiment: tactile surface of %s with %.4g times its SMD: %w", st.fab.Name, k, err)
	}
	st.surfaces[k] = s
	return s, nil
}

// scaleMaterial returns m with its tensile and shear curves k times as
// stiff: the same strains carry k times the stress, and the internal
// friction's loops are k times as wide.
func scaleMaterial(m sim.Material, k float64) sim.Material {
	scale := func(c sim.Curve) sim.Curve {
		s := make([]float64, len(c.Stress))
		for i, v := range c.Stress {
			s[i] = k * v
		}
		return sim.Curve{Strain: append([]float64(nil), c.Strain...), Stress: s}
	}
	m.Weft, m.Warp, m.Shear = scale(m.Weft), scale(m.Warp), scale(m.Shear)
	// The internal friction's loops scale with the curves they ride on:
	// the tensile saturation is a fraction of the scaled stress already,
	// the shear and bending saturations are absolute.
	h := &m.Hysteresis
	h.Shear05, h.Shear5, h.BendWeft, h.BendWarp = k*h.Shear05, k*h.Shear5, k*h.BendWeft, k*h.BendWarp
	m.Name = fmt.Sprintf("%s (x%.4g)", m.Name, k)
	return m
}

// scaleBending returns m with its bending response k times as stiff: the
// rigidities (KES B, and the twist's) and the bending friction's
// saturations (KES 2HB) alike, as scaleMaterial scales the tensile
// curves with their loops. The friction is what a fold's small
// curvature changes meet first (it is several times stiffer there than
// B), and across fabrics 2HB grows with B (0.4 to 1 cm⁻¹ times B in the
// built-in fabrics): scaling B alone changed the fold's cue by a fraction
// of what the same step in B changes it by between fabrics.
func scaleBending(m sim.Material, k float64) sim.Material {
	m.BendWeft, m.BendWarp, m.BendTwist = k*m.BendWeft, k*m.BendWarp, k*m.BendTwist
	m.Hysteresis.BendWeft, m.Hysteresis.BendWarp = k*m.Hysteresis.BendWeft, k*m.Hysteresis.BendWarp
	return m
}

// respond takes the trial's response: from the simulated observer, or from
// the person at the terminal. It returns the response (1 correct / yes),
// the interval chosen (-1 for yes/no) and the response time [s] (NaN for a
// simulated observer).
func (run *runner) respond(ctx context.Context, t psych.Trial, test int, cues []float64) (psych.Response, int, float64, error) {
	if o := run.observer(t.Stream); o != nil {
		r := o.Respond(t.X)
		chosen := -1
		if run.intervals == 2 {
			chosen = test
			if r == 0 {
				chosen = 1 - test
			}
		}
		return r, chosen, math.NaN(), nil
	}
	if o := run.cueObserver(t.Stream); o != nil {
		r, chosen := cueResponse(o, cues, test)
		return r, chosen, math.NaN(), nil
	}
	return run.term.ask(ctx, run.e.Stimulus.Question, run.intervals, test)
}

// cueResponse is a cue observer's answer: the interval it chose, correct
// when that is the test interval.
func cueResponse(o *psych.CueObserver, cues []float64, test int) (psych.Response, int) {
	chosen := o.Choose(cues)
	if chosen == test {
		return psych.Correct, chosen
	}
	return psych.Incorrect, chosen
}

// driver lets the rig run while the runner waits.
type driver interface {
	wait(ctx context.Context, d time.Duration) error
	now() time.Duration
	finish() (*rig.Summary, error)
}

type lockstepDriver struct{ s *rig.Stepper }

func (d *lockstepDriver) wait(ctx context.Context, dt time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d.s.Advance(dt)
	return nil
}
func (d *lockstepDriver) now() time.Duration            { return d.s.Now() }
func (d *lockstepDriver) finish() (*rig.Summary, error) { return d.s.Finish() }

type realtimeDriver struct {
	cancel context.CancelFunc
	start  time.Time
	done   chan error
	sum    *rig.Summary
}

func startRealtime(ctx context.Context, r *rig.Rig) *realtimeDriver {
	ctx, cancel := context.WithCancel(ctx)
	d := &realtimeDriver{cancel: cancel, start: time.Now(), done: make(chan error, 1)}
	go func() {
		sum, err := r.Run(ctx)
		d.sum = sum
		d.done <- err
	}()
	return d
}

func (d *realtimeDriver) wait(ctx context.Context, dt time.Duration) error {
	t := time.NewTimer(dt)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
func (d *realtimeDriver) now() time.Duration { return time.Since(d.start) }
func (d *realtimeDriver) finish() (*rig.Summary, error) {
	d.cancel()
	err := <-d.done
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return d.sum, err
}

// Package experiment runs psychophysical experiments on a haptex rig: an
// experiment file names the task, the stimulus dimension, the procedure
// (calib/psych) and the timing; the runner sets each trial's stimulus on
// the rig, lets the subject (or a simulated observer) handle the fabric in
// each interval, takes the response, and records one CSV row per trial with
// the nominal stimulus beside the one the devices delivered.
//
// What was delivered is judged by each dimension's Cue, computed from the
// interval's tick-level trace (force sensors, pad positions, the pin
// amplitudes the arrays delivered), never from commands. Check measures
// the cue at a spread of levels in virtual time and says whether the
// stimulus reaches the finger; a run refuses one that does not. A cue
// observer (psych.CueObserver) answers from the recorded cues, a nominal
// observer (psych.Observer) from the nominal level. docs/experiments.md
// documents the file format, the cues and the outputs.
//
// Every trial is written and synced, with the procedure's state, before the
// next one starts, so an interrupted run resumes where it stopped with the
// same procedure state and loses no completed trial. With a simulated
// observer the rig runs in virtual time (lockstep), faster than real time
// and deterministically; with a person it runs in real time and the
// responses come from the terminal. ThresholdCalibration measures a
// subject's 40 and 320 Hz detection thresholds as one such experiment per
// finger.
//
// It never reads flags or the environment (cmd/haptex does) and never
// decides a psychophysical method itself: procedures and fits are
// calib/psych's.
package experiment

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/psych"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/internal/safefile"
)

// FormatVersion is the experiment file format this package reads.
const FormatVersion = 1

// MaxFileSize bounds an experiment file (a few kilobytes); Parse also
// holds it to safefile.DefaultTOML's structure limits before decoding.
const MaxFileSize = 1 << 20

// Kind is what a trial's stimulus value X changes.
type Kind string

// dimension is what the experiment package knows of a stimulus kind: its
// unit, the question a subject answers, the handling motion that delivers
// it by default and the cue a person judges it by. A new dimension is a
// new entry here, a case in stimulus.set and, when no cue fits,
// a new Cue.
type dimension struct {
	unit, question, motion string
	cue                    *Cue
	// gain is the factor level X scales the dimension's physical quantity
	// by (the stimulus check's model, StimulusReport.Efficiency).
	gain gainFunc
	// kes is the Kawabata quantity the level scales, for the dimensions
	// that vary a fabric property (nil for the others).
	kes *KESQuantity
}

var dimensions = map[Kind]dimension{
	Stiffness:    {"%", "Which interval felt stiffer?", "pull", cueLoadingStiffness, percentGain, kesEMT},
	ForceScale:   {"%", "Which interval pulled harder?", "pinch", cueContactForce, percentGain, nil},
	TactileLevel: {"dB", "Which interval felt rougher?", "stroke", cueVibration, decibelGain, nil},
	TactileTone:  {"µm", "Which interval held the vibration?", "rest", cueVibrationDetection, nil, nil},
	Roughness:    {"%", "Which interval felt rougher?", "scan", cueVibration, percentGain, kesSMD},
	Friction:     {"%", "Which interval was harder to draw?", "draw", cueFrictionDrag, percentGain, kesMIU},
	Bending:      {"%", "Which interval was harder to bend?", "flex", cueBending, percentGain, kesB},
}

// gainFunc is a dimension's gain: the factor its level scales its
// physical quantity by.
type gainFunc func(x float64) float64

func percentGain(x float64) float64 { return 1 + x/100 }
func decibelGain(x float64) float64 { return math.Pow(10, x/20) }

// inverse returns the level of gain g.
func (f gainFunc) inverse(g float64) float64 {
	// Both gains are monotone: bisect over a wide bracket.
	lo, hi := -1e3, 1e4
	if f(lo) > g || f(hi) < g {
		return math.NaN()
	}
	for range 200 {
		m := (lo + hi) / 2
		if f(m) < g {
			lo = m
		} else {
			hi = m
		}
	}
	return (lo + hi) / 2
}

func kindList() string {
	return fmt.Sprintf("%s, %s, %s, %s, %s, %s or %s", Stiffness, ForceScale, TactileLevel, TactileTone, Roughness, Friction, Bending)
}

// motion is a handling motion an interval can play.
type motion struct {
	script func(twin.Scene) *twin.Script
	doc    string
	// bench sets the rig's cloth the motion handles; nil: the fabric
	// hanging from the stand's rod, as the rig builds it.
	bench func(*rig.Config)
}

// length is the motion's duration (a still pose: 1 s).
func (m motion) length() time.Duration {
	if d := m.script(twin.DefaultScene()).Duration(); d > 0 {
		return d
	}
	return time.Second
}

var motions = map[string]motion{
	"stretch":  {twin.StretchScript, "pinch firmly, pull the pinched point 1 mm down and back once, then pull it 1 mm down again, loading the fabric in tension (4.2 s)", nil},
	"bend":     {twin.BendScript, "pinch firmly and lift the pinched point 25 mm up and 15 mm out, folding the fabric (3.3 s)", nil},
	"stroke":   {twin.StrokeScript, "rub the fabric ±3 mm with the index finger over the thumb, which holds it from behind (3 s)", nil},
	"scan":     {scanScript, "rub the fabric ±3 mm with the index finger over the thumb, which holds it from behind, at 60 mm/s, 5 times a second (3 s)", nil},
	"fold":     {foldScript, "pinch firmly and push the pinched point 15 mm up towards the rod, in the fabric's plane, so that the fabric between them buckles (3.3 s)", nil},
	"flex":     {flexScript, "on a 3 × 1.5 cm swatch clamped along its top edge: the thumb presses it back flat from behind, the index touches its face 2.5 mm above its free edge, rests, pushes 6 mm further, bending it between the clamp and the finger, and holds (4.3 s)", swatchBench},
	"pull":     {pullScript, "on a 2.5 × 2.5 cm swatch clamped along its top and left edges: pinch its middle lightly, pull it 0.4 mm away from both clamps and back once, then again, stretching warp and weft alike (4.2 s)", pullBench},
	"draw":     {drawScript, "on a 3 × 4 cm swatch clamped along its top edge: thumb and index pinch it 6 mm below its top edge, draw it 15 mm down between them (the friction read over the last 12) and open (3.45 s)", drawBench},
	"pinch":    {twin.PinchScript, "pinch lightly and pull 36 mm out of the plane and down (3 s)", nil},
	"showcase": {twin.DefaultScript, "the showcase handling: touch, stroke, pinch, stretch (10 s)", nil},
	"rest":     {twin.RestScript, "no handling: both fingers still, 3 cm off the fabric (1 s)", nil},
}

// foldScript pinches the fabric and pushes the pinched point foldPush
// up towards the rod in the fabric's plane: the fabric between them
// cannot carry the compression and buckles. It was meant to load the pads
// with the force that bends the fabric (Euler's buckling load grows with
// B); what it loads them with is mostly the weight of the fabric below the
// pinch, which the pads take over once the fabric above goes slack, and
// how much of that sheet lifts with the pinch grows with B
// (docs/evaluation.md, "Why the fold did not deliver B"): the bending
// dimension uses flex.
func foldScript(sc twin.Scene) *twin.Script {
	return twin.GripScript(sc, [3]float64{0, foldPush, 0}, bendPhase)
}

// foldPush is how far the fold motion pushes the pinched point up [m].
const foldPush = 0.015

// scanScript is the stroke's rub (twin.RubScript) at the speed people explore a
// surface's roughness with: tens of millimetres a second to a few hundred
// (Lederman, Percept Psychophys 16:385-395, 1974; Tanaka, Bergmann
// Tiest, Kappers & Sano, PLoS ONE 9:e93363, 2014; recalled). The index
// rubs ±Rub over the thumb, which holds the fabric from behind, in legs
// of scanLeg (60 mm/s at the default 3 mm) through the stroke's 1.5 s;
// the touch and the lift-off are the stroke's. The stroke's own rub, at
// 12 mm/s, slips the index over the fabric at about 6 mm/s.
func scanScript(sc twin.Scene) *twin.Script { return twin.RubScript(sc, scanLeg/2, scanLeg) }

// scanLeg is how long the scan takes to rub from one side to the other.
const scanLeg = 100 * time.Millisecond

func motionList() string {
	names := make([]string, 0, len(motions))
	for n := range motions {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

const (
	// Stiffness: the test interval's fabric has its tensile and shear
	// curves stiffened by X percent over the reference fabric.
	Stiffness Kind = "stiffness"
	// ForceScale: the servo renders the cloth's force X percent stronger
	// in the test interval.
	ForceScale Kind = "force-scale"
	// TactileLevel: the tactile amplitudes of the test interval are X dB
	// above the reference's (both channels).
	TactileLevel Kind = "tactile-level"
	// TactileTone: the test interval holds a vibration of X µm peak on
	// every pin, at the stream's frequency; the reference interval is
	// silent (a detection threshold).
	TactileTone Kind = "tactile-tone"
	// Roughness: the test interval's fabric has X percent more geometric
	// roughness (KES SMD) than the reference: the tactile surface is
	// rebuilt with its height variation scaled, the same pseudo-topology.
	Roughness Kind = "roughness"
	// Friction: the test interval's fabric has X percent more friction
	// (KES MIU): the Coulomb coefficients between fingertip and fabric
	// are scaled.
	Friction Kind = "friction"
	// Bending: the test interval's fabric bends X percent harder: its
	// bending rigidity (KES B) in both directions and in twist, and its
	// bending friction (KES 2HB), are X percent larger.
	Bending Kind = "bending"
)

// Experiment is one experiment file.
type Experiment struct {
	Format       int    `toml:"format" json:"format"`
	Name         string `toml:"name" json:"name"`
	Title        string `toml:"title" json:"title"`
	Instructions string `toml:"instructions" json:"instructions"`
	// Task is the response task; 2AFC when empty.
	Task      psych.Task       `toml:"task" json:"task"`
	Stimulus  Stimulus         `toml:"stimulus" json:"stimulus"`
	Timing    Timing           `toml:"-" json:"timing"` // the file's [timing], decoded by Parse
	Procedure psych.Config     `toml:"procedure" json:"procedure"`
	Fit       psych.FitOptions `toml:"fit" json:"fit"`
	// Seed makes the interval order reproducible (0: derived from the
	// subject's name).
	Seed uint64 `toml:"seed" json:"seed"`
	// Side sets the cloth's resolution, nodes per side of its grid, for
	// this experiment (0: the rig's default, rig.DefaultSide).
	Side int `toml:"side" json:"side"`
	// Refine grades the cloth's mesh round the point where the handling
	// motion pinches (rig.PinchRefinement), so that the pinch forces do not
	// depend on the mesh; the step costs more (README, design decisions).
	Refine bool `toml:"refine" json:"refine"`
	// Set makes this a set experiment (identification, rating or
	// magnitude estimation): no procedure, trials that each render one
	// stimulus of the set (see Set).
	Set *Set `toml:"set" json:"set,omitempty"`
}

// Stimulus is the dimension an experiment varies.
type Stimulus struct {
	Kind Kind `toml:"kind" json:"kind"`
	// Fabric is the fabric handled in every interval (a built-in or
	// imported name; "" the rig's default).
	Fabric string `toml:"fabric" json:"fabric"`
	// FrequencyHz is the tone frequency per stream (interleaved track) of
	// a tactile-tone experiment: 40 or 320.
	FrequencyHz []float64 `toml:"frequency_hz" json:"frequency_hz,omitempty"`
	// Finger is the finger a tactile-tone experiment vibrates: "thumb",
	// "index" or "" for both.
	Finger string `toml:"finger" json:"finger,omitempty"`
	// ReferenceDB is a tactile-level experiment's reference level [dB],
	// relative to the fabric's own rendering, in [-40, 0]; the test is X dB
	// above it. Below 0 it keeps the levels under the comfortable range's
	// knee (tactile.ComfortKneeDB under its top), where a level in dB is
	// delivered as it is: above the knee the pins are compressed and X dB
	// more delivers less. A roughness experiment plays both intervals at
	// it, for the same reason.
	ReferenceDB float64 `toml:"reference_db" json:"reference_db,omitempty"`
	// Question is what the subject answers; a default per kind.
	Question string `toml:"question" json:"question"`
	// Unit names X's unit in the record ("%", "dB", "µm").
	Unit string `toml:"unit" json:"unit"`
}

// Timing is the shape of a trial. The file gives its durations in seconds
// (interval_s, gap_s, iti_s); Parse decodes them into time.Duration.
type Timing struct {
	// Motion is the simulated hand's handling in each interval (see
	// motions): "stretch", "pull", "bend", "fold", "flex", "draw", "stroke",
	// "scan", "pinch", "showcase" or "rest"; the default is the one that
	// delivers the dimension (stiffness: pull; force-scale: pinch;
	// tactile-level: stroke; roughness: scan; friction: draw; bending:
	// flex; tactile-tone: rest).
	Motion string
	// Interval is an interval's length (0: the motion's length; 1 s at
	// rest).
	Interval time.Duration
	// Gap is the pause between the intervals of a trial (0: 0.5 s).
	Gap time.Duration
	// ITI is the pause between trials (0: 1 s).
	ITI time.Duration
}

// timingFile is the file's [timing] table, durations in seconds, and
// Timing's JSON (sidecar.json).
type timingFile struct {
	Motion    string  `toml:"motion" json:"motion"`
	IntervalS float64 `toml:"interval_s" json:"interval_s"`
	GapS      float64 `toml:"gap_s" json:"gap_s"`
	ITIS      float64 `toml:"iti_s" json:"iti_s"`
}

func (f *timingFile) timing() (Timing, error) {
	var errs []error
	dur := func(key string, s float64) time.Duration {
		// Truncated to the nanosecond: the virtual time a run advances by.
		if !(math.Abs(s) < 1e9) {
			errs = append(errs, fmt.Errorf("%s: %g s, not a duration", key, s))
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	t := Timing{Motion: f.Motion, Interval: dur("timing.interval_s", f.IntervalS),
		Gap: dur("timing.gap_s", f.GapS), ITI: dur("timing.iti_s", f.ITIS)}
	return t, errors.Join(errs...)
}

// MarshalJSON writes the timing as the file gives it, in seconds.
func (t Timing) MarshalJSON() ([]byte, error) {
	return json.Marshal(timingFile{Motion: t.Motion, IntervalS: t.Interval.Seconds(), GapS: t.Gap.Seconds(), ITIS: t.ITI.Seconds()})
}

// Parse reads an experiment file and checks it; the error names the file
// and the field.
func Parse(data []byte, file string) (*Experiment, error) {
	var err error
	if len(data) > MaxFileSize {
		err = &safefile.Error{Path: file, Err: safefile.ErrTooLarge, Detail: fmt.Sprintf("%d bytes, over the limit of %d bytes for an experiment file", len(data), MaxFileSize)}
	} else {
		err = safefile.CheckTOML(file, data, safefile.TOMLLimits{})
	}
	if err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	var f struct {
		Experiment
		Timing timingFile `toml:"timing"`
	}
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&f)
	if err != nil {
		return nil, fmt.Errorf("experiment: %s: %w", file, safefile.OneLineError(err))
	}
	if un := md.Undecoded(); len(un) > 0 {
		keys := make([]string, len(un))
		for i, k := range un {
			keys[i] = k.String()
			if keys[i] == "nodes" {
				return nil, fmt.Errorf("experiment: %s: the key nodes is now side (nodes per side of the cloth's grid)", file)
			}
		}
		if len(keys) > 5 {
			keys = append(keys[:5], fmt.Sprintf("and %d more", len(keys)-5))
		}
		return nil, fmt.Errorf("experiment: %s: unknown field %s", file, strings.Join(keys, ", "))
	}
	e := f.Experiment
	if e.Timing, err = f.Timing.timing(); err != nil {
		return nil, fmt.Errorf("experiment: %s: %w", file, err)
	}
	if err := e.Validate(); err != nil {
		return nil, fmt.Errorf("experiment: %s: %w", file, err)
	}
	return &e, nil
}

// Load reads and checks an experiment file: a regular file of at most
// MaxFileSize bytes.
func Load(path string) (*Experiment, []byte, error) {
	data, err := safefile.ReadFile(path, MaxFileSize)
	if err != nil {
		return nil, nil, fmt.Errorf("experiment: %w", err)
	}
	e, err := Parse(data, path)
	return e, data, err
}

// Validate checks the experiment and fills its defaults; the error names
// the field.
func (e *Experiment) Validate() error {
	if e.Format != FormatVersion {
		return fmt.Errorf("format: %d, want %d", e.Format, FormatVersion)
	}
	if !safefile.ValidName(e.Name) {
		return fmt.Errorf("name: %q, want %s (it names the experiment's folder)", e.Name, safefile.NameRule)
	}
	if e.Set != nil {
		return e.validateSetExperiment()
	}
	if e.Task.Kind == 0 && e.Task.Alternatives == 0 {
		e.Task = psych.TwoAFC
	}
	if err := e.Task.Validate(); err != nil {
		return fmt.Errorf("task: %w", err)
	}
	if e.Task.Kind == psych.AFC && e.Task.Alternatives > 2 {
		return fmt.Errorf("task: %d-AFC; the rig presents one or two intervals (2AFC or yes/no)", e.Task.Alternatives)
	}
	if e.Task.Kind == psych.Rating {
		return errors.New("task: rating tasks are not supported by the runner (2AFC or yes/no)")
	}
	s := &e.Stimulus
	if s.Fabric != "" && !safefile.ValidName(s.Fabric) {
		return fmt.Errorf("stimulus.fabric: %q, want a fabric name: %s", s.Fabric, safefile.NameRule)
	}
	dim, ok := dimensions[s.Kind]
	if !ok {
		return fmt.Errorf("stimulus.kind: %q, want %s", s.Kind, kindList())
	}
	def(&s.Unit, dim.unit)
	def(&s.Question, dim.question)
	def(&e.Timing.Motion, dim.motion)
	if s.Kind == TactileTone {
		if len(s.FrequencyHz) == 0 {
			return errors.New("stimulus.frequency_hz: a tactile-tone experiment needs one frequency (40 or 320) per stream")
		}
		for i, f := range s.FrequencyHz {
			if f != 40 && f != 320 {
				return fmt.Errorf("stimulus.frequency_hz[%d]: %g Hz, want 40 or 320", i, f)
			}
		}
		if s.Finger != "" && s.Finger != "thumb" && s.Finger != "index" {
			return fmt.Errorf("stimulus.finger: %q, want thumb, index or empty (both)", s.Finger)
		}
	}
	if s.ReferenceDB != 0 && s.Kind != TactileLevel && s.Kind != Roughness {
		return fmt.Errorf("stimulus.reference_db: only a tactile-level or roughness experiment has a reference level (this one is %s)", s.Kind)
	}
	if !(s.ReferenceDB >= -40 && s.ReferenceDB <= 0) {
		return fmt.Errorf("stimulus.reference_db: %g dB, want -40..0", s.ReferenceDB)
	}
	if e.Task.Kind == psych.YesNo {
		s.Question = strings.Replace(s.Question, "Which interval", "Did the interval", 1)
	}
	t := &e.Timing
	m, ok := motions[t.Motion]
	if !ok {
		return fmt.Errorf("timing.motion: %q, want %s", t.Motion, motionList())
	}
	if t.Interval == 0 {
		t.Interval = m.length()
	}
	if t.Gap == 0 {
		t.Gap = 500 * time.Millisecond
	}
	if t.ITI == 0 {
		t.ITI = time.Second
	}
	for _, v := range []struct {
		name   string
		v, min time.Duration
	}{{"timing.interval_s", t.Interval, 100 * time.Millisecond}, {"timing.gap_s", t.Gap, 300 * time.Millisecond}, {"timing.iti_s", t.ITI, 300 * time.Millisecond}} {
		if v.v < v.min || v.v > 600*time.Second {
			return fmt.Errorf("%s: %g s, want %g..600 s (the gap must cover the 0.25 s material ramp and a tactile frame)", v.name, v.v.Seconds(), v.min.Seconds())
		}
	}
	if d, ok := dim.cue.Needs(m.script(twin.DefaultScene())); ok && t.Interval < d {
		return fmt.Errorf("timing.interval_s: %g s ends before motion %q's %s and the hold after it are over, which the %s cue needs: want at least %.3g s (the motion lasts %.3g s)",
			t.Interval.Seconds(), t.Motion, dim.cue.Phase, dim.cue.Name, d.Seconds(), m.length().Seconds())
	}
	if e.Side != 0 && (e.Side < 8 || e.Side > 128) {
		return fmt.Errorf("side: %d, want 8..128", e.Side)
	}
	if _, err := psych.New(e.Procedure); err != nil {
		return fmt.Errorf("procedure: %w", err)
	}
	if dim.kes != nil {
		for _, sp := range psych.SpanOf(e.Procedure) {
			if !(sp.Min > -100) {
				return fmt.Errorf("procedure: levels down to %g %%: a %s level is a percentage change, want above -100 %%", sp.Min, s.Kind)
			}
		}
	}
	if s.Kind == TactileLevel {
		for _, sp := range psych.SpanOf(e.Procedure) {
			if top := s.ReferenceDB + sp.Max; top > 40 || s.ReferenceDB+sp.Min < -40 {
				return fmt.Errorf("stimulus.reference_db: %g dB with the procedure's levels %g..%g dB puts the test outside the tactile gain's -40..40 dB", s.ReferenceDB, sp.Min, sp.Max)
			}
		}
	}
	return nil
}

// validateSetExperiment is Validate for a set experiment.
func (e *Experiment) validateSetExperiment() error {
	if e.Task != (psych.Task{}) {
		return errors.New("task: a set experiment's task is [set] kind")
	}
	s := &e.Stimulus
	if s.Fabric != "" && !safefile.ValidName(s.Fabric) {
		return fmt.Errorf("stimulus.fabric: %q, want a fabric name: %s", s.Fabric, safefile.NameRule)
	}
	if err := e.validateSet(); err != nil {
		return err
	}
	if e.Set.Kind == Magnitude {
		dim := dimensions[s.Kind]
		def(&s.Unit, dim.unit)
		def(&s.Question, e.Set.Question)
	} else if s.Fabric != "" {
		return fmt.Errorf("stimulus.fabric: a %s experiment renders the fabrics of [set]", e.Set.Kind)
	}
	if s.ReferenceDB != 0 && s.Kind != Roughness {
		return fmt.Errorf("stimulus.reference_db: only a roughness magnitude estimation has a reference level")
	}
	if !(s.ReferenceDB >= -40 && s.ReferenceDB <= 0) {
		return fmt.Errorf("stimulus.reference_db: %g dB, want -40..0", s.ReferenceDB)
	}
	t := &e.Timing
	if t.Interval != 0 {
		return errors.New("timing.interval_s: a set experiment's intervals last their motions")
	}
	if t.Gap == 0 {
		t.Gap = 500 * time.Millisecond
	}
	if t.ITI == 0 {
		t.ITI = time.Second
	}
	for _, v := range []struct {
		name string
		v    time.Duration
	}{{"timing.gap_s", t.Gap}, {"timing.iti_s", t.ITI}} {
		if v.v < 300*time.Millisecond || v.v > 600*time.Second {
			return fmt.Errorf("%s: %g s, want 0.3..600 s", v.name, v.v.Seconds())
		}
	}
	if e.Side != 0 && (e.Side < 8 || e.Side > 128) {
		return fmt.Errorf("side: %d, want 8..128", e.Side)
	}
	return nil
}

func def(s *string, v string) {
	if *s == "" {
		*s = v
	}
}

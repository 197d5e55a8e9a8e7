package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/haptex/haptex/app/experiment"
	"github.com/haptex/haptex/calib/kes"
	"gonum.org/v1/gonum/stat/distuv"
)

// checkNotes says what the stimulus check's short form can and cannot
// conclude; experiment check's usage prints it after the flags.
const checkNotes = `The full check plays one reference interval, unmeasured (the first after the
grip settles delivers a cue of its own), then 6 levels over the procedure's
range (and a staircase's start), 4 trials each, judges the contrast a power
law fitted over them gives at the largest level (valid from twice the cue's
Weber fraction W) and predicts the threshold a person of Weber fraction W
would find (detectable_from_x).

-quick is its short form, on the experiment's own cloth and motion (a coarser
cloth delivers other cues): the same reference interval, then the procedure's
largest level alone, 4 trials (the test interval first and second
in turn; 24 from the start when 4 cannot decide). Valid when the contrast
delivered there is above W at its one-sided 95 % bound (t over the trials'
spread, cue_sd): the stimulus reaches the finger, and a person discriminates
its largest level. It cannot say from which level a person discriminates it
(from one level there is no threshold prediction: detectable_from_x and its
kin are null in the JSON), nor that the range leaves a staircase the room of
twice W the full check asks for. -levels 1 with -pairs N is the same check
with N trials and no second run. An identification or rating set is checked
on the two fabrics of extreme KES value of each property, 2 intervals each,
against the full check's criterion (twice W between them); a magnitude
estimation as a check of its largest level.`

// The largest check haptex experiment check runs: 20 levels of 100 trials
// are 4000 intervals, hours of virtual time (a billion ran until killed).
const (
	maxCheckLevels = 20
	maxCheckPairs  = 100
)

// checkExperiment is haptex experiment check: the file, then (unless
// -no-stimulus) the stimulus check in virtual time, in full or in its
// short form (-quick, or -levels 1).
func checkExperiment(args []string) error {
	fs := subFlags("experiment", args)
	flagNotes[fs] = checkNotes
	table := fs.Bool("stimulus", false, "print the stimulus check's delivered cue at every level")
	asJSON := fs.Bool("json", false, "print the stimulus check as JSON")
	noStim := fs.Bool("no-stimulus", false, "check the file only, without running the stimulus check")
	weber := fs.Float64("weber", 0, "judge the delivered contrast against this Weber fraction (0: the cue's own, from the literature)")
	library := fs.String("library", defaultLibraryDir(), "user fabric library folder")
	quick := fs.Bool("quick", false, "the check's short form: the largest level alone, a verdict without a threshold prediction (below)")
	levels := fs.Int("levels", 0, "levels checked per stream (0: 6, plus a staircase's start; 1: the largest alone, the short form's verdict)")
	pairs := fs.Int("pairs", 0, "trials per level, each a reference and a test interval, the test first and second in turn (0: 4); a set's intervals per fabric")
	if err := parse(fs, args[1:], 1); err != nil {
		return err
	}
	path := fs.Arg(0)
	if path == "" {
		return fmt.Errorf("%w: experiment check FILE", errUsage)
	}
	if *levels < 0 || *pairs < 0 || *levels > maxCheckLevels || *pairs > maxCheckPairs {
		return fmt.Errorf("%w: -levels %d -pairs %d: 0 (the default) to %d levels and to %d trials a level", errUsage, *levels, *pairs, maxCheckLevels, maxCheckPairs)
	}
	if w := *weber; !(w >= 0 && w <= 10) {
		return fmt.Errorf("%w: -weber is a Weber fraction: 0 (the cue's own) or a positive number up to 10, not %g", errUsage, w)
	}
	if *quick && (*levels != 0 || *pairs != 0) {
		return fmt.Errorf("%w: -quick chooses its own levels and trials; give either -quick or -levels and -pairs", errUsage)
	}
	e, _, err := experiment.Load(path)
	if err != nil {
		return err
	}
	o := experiment.CheckOptions{Experiment: e, Library: kes.Library{Dir: *library}, Weber: *weber, Levels: *levels, Pairs: *pairs}
	if *quick {
		o.Levels, o.Pairs, o.Extremes = 1, quickPairs, true
	}
	if o.Levels == 1 && o.Pairs == 0 {
		o.Pairs = quickPairs // the check's own default, which the verdict's bound needs to know
	}
	if e.Set != nil {
		return checkSetExperiment(path, o, *quick, *noStim, *asJSON)
	}
	f, err := e.LoadFabric(o.Library)
	if err != nil {
		return fmt.Errorf("experiment: %s: %w", path, err)
	}
	if *noStim {
		fmt.Printf("%s: %s, %s stimulus on %s, %s procedure: ok\n", path, e.Name, e.Stimulus.Kind, f.Name, e.Procedure.Kind)
		return nil
	}
	rep, err := checkStimulus(o, *quick)
	if err != nil {
		return err
	}
	short := o.Levels == 1
	switch {
	case *asJSON:
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		fmt.Println(string(b))
	case *table:
		printStimulusReport(os.Stdout, rep)
	}
	if !rep.Valid {
		return errors.New(rep.Reason)
	}
	if *asJSON {
		return nil
	}
	head := fmt.Sprintf("%s: %s, %s stimulus (cue %s), %s procedure, motion %s: ok", path, e.Name, e.Stimulus.Kind, rep.Cue, e.Procedure.Kind, rep.Motion)
	if short {
		fmt.Printf("%s (short form); %s; no threshold prediction from one level (the full check, without -quick, predicts it)\n", head, largestContrast(rep))
		return nil
	}
	fmt.Printf("%s; the delivered contrast reaches the Weber fraction %.3g from %s\n", head, rep.Weber, rep.DetectableFrom(rep.XUnit))
	return nil
}

// quickPairs is how many trials -quick runs at the largest level first,
// quickMorePairs how many it runs from the start when they cannot decide.
const quickPairs, quickMorePairs = 4, 24

// checkStimulus runs the stimulus check; a check of one level is judged
// by shortVerdict instead of the full check's fitted power law, and
// without its threshold predictions. With more, an undecided short
// verdict is checked again with quickMorePairs trials.
func checkStimulus(o experiment.CheckOptions, more bool) (*experiment.StimulusReport, error) {
	rep, err := experiment.Check(context.Background(), o)
	if err != nil || o.Levels != 1 {
		return rep, err
	}
	if shortVerdict(rep, o.Pairs) == undecided && more {
		o.Pairs = quickMorePairs
		if rep, err = experiment.Check(context.Background(), o); err != nil {
			return nil, err
		}
		shortVerdict(rep, o.Pairs)
	}
	return rep, nil
}

// verdict is what a check of one level concluded.
type verdict int

const (
	shown     verdict = iota // the contrast is above W at its bound
	undecided                // the contrast's interval holds W
	refused                  // the contrast is below W at its bound, or no cue was measured
)

// shortVerdict judges a check of the largest level alone, run with pairs
// trials per level, and sets the report's (and its streams') Valid and
// Reason: valid when ln(1 + c) of the level's contrast c, less its
// one-sided 95 % bound t·s/√pairs, is above ln(1 + W). s is the spread of
// one trial's log contrast, from the report's cue_sd (cue_sd is that of
// one interval: s = √2·cue_sd for a ratio of two intervals, cue_sd for a
// detection cue, whose reference delivers nothing); t is Student's
// quantile with pairs − 1 degrees of freedom. The threshold predictions,
// which need more than one level, are cleared.
func shortVerdict(rep *experiment.StimulusReport, pairs int) verdict {
	all := append([]*experiment.StimulusReport{rep}, rep.Streams...)
	worst := shown
	for _, r := range all {
		r.DetectableFromX, r.Prediction, r.DetectableFromXPowerLaw, r.DetectableFromXCI = nil, "", nil, [2]*float64{}
		if len(r.Levels) == 0 {
			// The cue could not be measured: Check says why.
			r.Valid, worst = false, refused
			continue
		}
		l := r.Levels[len(r.Levels)-1]
		s := r.CueSD
		if l.Ratio != nil {
			s *= math.Sqrt2
		}
		if pairs < 2 {
			r.Valid, worst = false, max(worst, undecided)
			r.Reason = "stimulus check (short form): one trial has no spread to bound its contrast with: -pairs 2 or more"
			continue
		}
		half := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(pairs - 1)}.Quantile(0.95) * s / math.Sqrt(float64(pairs))
		v, need := math.Log1p(l.Contrast), math.Log1p(r.Weber)
		lo, hi := 100*math.Expm1(v-half), 100*math.Expm1(v+half)
		r.Valid, r.Reason = v-half > need, ""
		switch {
		case r.Valid:
		case v+half <= need:
			worst = refused
			r.Reason = fmt.Sprintf("stimulus check (short form): at the largest level (%g %s) the delivered %s is %.3g %s against %.3g %s, a contrast of %.1f %% (%.1f to %.1f %% at 95 %% over %d trials), not above its Weber fraction of %.0f %%: the stimulus does not reach the finger discriminably (the full check, without -quick, says what to change)",
				l.X, r.XUnit, r.Cue, l.CueTest, r.Unit, l.CueReference, r.Unit, 100*l.Contrast, lo, hi, pairs, 100*r.Weber)
		default:
			worst = max(worst, undecided)
			r.Reason = fmt.Sprintf("stimulus check (short form): at the largest level (%g %s) the delivered %s contrast is %.1f %%, %.1f to %.1f %% at 95 %% over %d trials, which holds its Weber fraction of %.0f %%: too variable to tell; run the full check (without -quick) or more -pairs",
				l.X, r.XUnit, r.Cue, 100*l.Contrast, lo, hi, pairs, 100*r.Weber)
		}
	}
	for _, r := range all[1:] {
		if !r.Valid && rep.Valid {
			rep.Valid, rep.Reason = false, r.Reason
		}
	}
	return worst
}

// largestContrast describes the contrast each stream delivered at its
// largest checked level, in the cue's Weber fractions.
func largestContrast(rep *experiment.StimulusReport) string {
	var s []string
	for _, r := range append([]*experiment.StimulusReport{rep}, rep.Streams...) {
		if len(r.Levels) == 0 {
			continue
		}
		l := r.Levels[len(r.Levels)-1]
		s = append(s, fmt.Sprintf("at %g %s the delivered contrast is %.3g, %.2g times the Weber fraction %.3g", l.X, r.XUnit, l.Contrast, l.Contrast/r.Weber, r.Weber))
	}
	return strings.Join(s, "; ")
}

// checkSetExperiment is experiment check of a set experiment
// (identification, rating, magnitude estimation): o.Pairs intervals per
// fabric of an identification or rating, o.Levels and o.Pairs for the
// levels of a magnitude estimation.
func checkSetExperiment(path string, o experiment.CheckOptions, quick, noStim, asJSON bool) error {
	e := o.Experiment
	if noStim {
		fmt.Printf("%s: %s, %s set: ok\n", path, e.Name, e.Set.Kind)
		return nil
	}
	intervals := o.Pairs
	if quick {
		intervals = experiment.SetCheckIntervals // the short form a set run checks with
	}
	rep, err := experiment.CheckSet(context.Background(), o, intervals)
	if err != nil {
		return err
	}
	short := o.Levels == 1 && rep.Levels != nil
	if short && len(rep.Levels.Levels) > 0 {
		// A magnitude estimation: its levels' check, of the largest alone.
		if shortVerdict(rep.Levels, o.Pairs) == undecided && quick {
			o.Pairs = quickMorePairs
			if rep, err = experiment.CheckSet(context.Background(), o, intervals); err != nil {
				return err
			}
			shortVerdict(rep.Levels, o.Pairs)
		}
		rep.Valid, rep.Reason = rep.Levels.Valid, rep.Levels.Reason
	}
	if asJSON {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		fmt.Println(string(b))
	} else {
		for _, p := range rep.Properties {
			fmt.Printf("%s: %s [%s] against KES %s [%s], Weber fraction %.3g\n", p.Dimension, p.Cue, p.Unit, p.Quantity, p.QuantityUnit, p.Weber)
			for _, f := range p.Fabrics {
				fmt.Printf("  %-20s %10.4g %12.4g ± %.2g\n", f.Fabric, f.KES, f.Cue, f.CueSD)
			}
			for _, f := range p.Unmeasured {
				fmt.Printf("  %-20s %10.4g  not measured: %s\n", f.Fabric, f.KES, f.Error)
			}
			fmt.Printf("  monotone %v (within the scatter %v), rank correlation %s, extremes' contrast %.3g (%.3g Weber fractions)\n", p.Monotone, p.MonotoneWithinScatter, p.SpearmanText(), p.ExtremeContrast, p.ExtremeWebers)
			for _, r := range p.Reversals {
				fmt.Printf("  reversed beyond the scatter: %s's cue under %s's by %.3g ± %.2g %s\n", r.Higher, r.Lower, -r.Difference, r.SE, p.Unit)
			}
		}
		if rep.Levels != nil {
			printStimulusReport(os.Stdout, rep.Levels)
		}
	}
	if !rep.Valid {
		return errors.New(rep.Reason)
	}
	if asJSON {
		return nil
	}
	switch {
	case short:
		fmt.Printf("%s: %s, %s set: ok (short form); %s\n", path, e.Name, e.Set.Kind, largestContrast(rep.Levels))
	case quick:
		fmt.Printf("%s: %s, %s set: ok (short form: the fabrics of extreme KES value of each property)\n", path, e.Name, e.Set.Kind)
	default:
		fmt.Printf("%s: %s, %s set: ok\n", path, e.Name, e.Set.Kind)
	}
	return nil
}

// printStimulusReport writes the check's table to w: per stream and
// level the cues delivered, their contrast and its interval, and a line
// naming the levels whose interval holds zero.
func printStimulusReport(w io.Writer, rep *experiment.StimulusReport) {
	for _, r := range append([]*experiment.StimulusReport{rep}, rep.Streams...) {
		fmt.Fprintf(w, "stream %d: %s [%s], Weber fraction %.3g\n", r.Stream, r.Cue, r.Unit, r.Weber)
		fmt.Fprintf(w, "  %10s %14s %14s %8s %9s %22s\n", "x ["+r.XUnit+"]", "reference", "test", "ratio", "contrast", "95 % interval")
		var within []string
		for _, l := range r.Levels {
			ratio := "-"
			if l.Ratio != nil {
				ratio = fmt.Sprintf("%.3f", *l.Ratio)
			}
			ci := "-"
			if c := l.ContrastCI; c != nil {
				ci = fmt.Sprintf("%.1f to %.1f%%", 100*c[0], 100*c[1])
				if c[0] <= 0 && c[1] >= 0 {
					within = append(within, fmt.Sprintf("%.4g", l.X))
				}
			}
			fmt.Fprintf(w, "  %10.4g %14.4g %14.4g %8s %8.1f%% %22s\n", l.X, l.CueReference, l.CueTest, ratio, 100*l.Contrast, ci)
		}
		if len(within) > 0 {
			fmt.Fprintf(w, "  at %s %s the interval holds 0: the contrast there is within what the cue varies by itself (%.0f %% an interval)\n",
				strings.Join(within, ", "), r.XUnit, 100*math.Expm1(r.CueSD))
		}
	}
}

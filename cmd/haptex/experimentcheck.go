package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/haptex/haptex/app/experiment"
	"github.com/haptex/haptex/calib/kes"
)

// checkExperiment is haptex experiment check: the file, then (unless
// -no-stimulus) the stimulus check in virtual time.
func checkExperiment(args []string) error {
	fs := subFlags("experiment", args)
	table := fs.Bool("stimulus", false, "print the stimulus check's delivered cue at every level")
	asJSON := fs.Bool("json", false, "print the stimulus check as JSON")
	noStim := fs.Bool("no-stimulus", false, "check the file only, without running the stimulus check")
	weber := fs.Float64("weber", 0, "judge the delivered contrast against this Weber fraction (0: the cue's own, from the literature)")
	library := fs.String("library", defaultLibraryDir(), "user fabric library folder")
	if err := parse(fs, args[1:], 1); err != nil {
		return err
	}
	path := fs.Arg(0)
	if path == "" {
		return fmt.Errorf("%w: experiment check FILE", errUsage)
	}
	e, _, err := experiment.Load(path)
	if err != nil {
		return err
	}
	if e.Set != nil {
		return checkSetExperiment(path, e, kes.Library{Dir: *library}, *noStim, *asJSON, *weber)
	}
	f, err := e.LoadFabric(kes.Library{Dir: *library})
	if err != nil {
		return fmt.Errorf("experiment: %s: %w", path, err)
	}
	if *noStim {
		fmt.Printf("%s: %s, %s stimulus on %s, %s procedure: ok\n", path, e.Name, e.Stimulus.Kind, f.Name, e.Procedure.Kind)
		return nil
	}
	rep, err := experiment.Check(context.Background(), experiment.CheckOptions{Experiment: e, Library: kes.Library{Dir: *library}, Weber: *weber})
	if err != nil {
		return err
	}
	switch {
	case *asJSON:
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		fmt.Println(string(b))
	case *table:
		printStimulusReport(rep)
	}
	if !rep.Valid {
		return errors.New(rep.Reason)
	}
	if !*asJSON {
		from := "no checked level"
		if d := rep.DetectableFromX; d != nil {
			from = fmt.Sprintf("%.3g %s (%s)", *d, rep.XUnit, rep.Prediction)
		}
		fmt.Printf("%s: %s, %s stimulus (cue %s), %s procedure, motion %s: ok; the delivered contrast reaches the Weber fraction %.3g from %s\n",
			path, e.Name, e.Stimulus.Kind, rep.Cue, e.Procedure.Kind, rep.Motion, rep.Weber, from)
	}
	return nil
}

// checkSetExperiment is experiment check of a set experiment
// (identification, rating, magnitude estimation).
func checkSetExperiment(path string, e *experiment.Experiment, lib kes.Library, noStim, asJSON bool, weber float64) error {
	if noStim {
		fmt.Printf("%s: %s, %s set: ok\n", path, e.Name, e.Set.Kind)
		return nil
	}
	rep, err := experiment.CheckSet(context.Background(), experiment.CheckOptions{Experiment: e, Library: lib, Weber: weber}, 0)
	if err != nil {
		return err
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
			fmt.Printf("  monotone %v, rank correlation %.2f, extremes' contrast %.3g (%.3g Weber fractions)\n", p.Monotone, p.Spearman, p.ExtremeContrast, p.ExtremeWebers)
		}
		if rep.Levels != nil {
			printStimulusReport(rep.Levels)
		}
	}
	if !rep.Valid {
		return errors.New(rep.Reason)
	}
	if !asJSON {
		fmt.Printf("%s: %s, %s set: ok\n", path, e.Name, e.Set.Kind)
	}
	return nil
}

func printStimulusReport(rep *experiment.StimulusReport) {
	for _, r := range append([]*experiment.StimulusReport{rep}, rep.Streams...) {
		fmt.Printf("stream %d: %s [%s], Weber fraction %.3g\n", r.Stream, r.Cue, r.Unit, r.Weber)
		fmt.Printf("  %10s %14s %14s %8s %9s\n", "x ["+r.XUnit+"]", "reference", "test", "ratio", "contrast")
		for _, l := range r.Levels {
			ratio := "-"
			if l.Ratio != nil {
				ratio = fmt.Sprintf("%.3f", *l.Ratio)
			}
			fmt.Printf("  %10.4g %14.4g %14.4g %8s %8.1f%%\n", l.X, l.CueReference, l.CueTest, ratio, 100*l.Contrast)
		}
	}
}

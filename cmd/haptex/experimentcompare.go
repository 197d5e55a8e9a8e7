package main

import (
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"

	"github.com/haptex/haptex/app/experiment"
	"github.com/haptex/haptex/calib/psych"
)

// comparison is what experiment compare prints, and writes with -json.
type comparison struct {
	Experiment string                 `json:"experiment"`
	Unit       string                 `json:"unit"`
	Shared     []string               `json:"shared"`
	Test       *psych.ModelComparison `json:"test"`
	// Thresholds are the fuller model's, per condition, and Group their
	// summary across conditions.
	Thresholds map[string]float64 `json:"thresholds"`
	Group      psych.GroupSummary `json:"group"`
}

// shareParams maps -share's names to the joint fit's parameters.
var shareParams = []string{"threshold", "width", "lapse"}

// compareExperiments is haptex experiment compare: the conditions of the
// given output folders fitted jointly, the parameters -share names shared
// (the lesser model) against separate (the fuller), thresholds otherwise
// free in both.
func compareExperiments(args []string) error {
	fs := subFlags("experiment", args)
	share := fs.String("share", "lapse", "the parameters the lesser model shares across the conditions, comma-separated: "+strings.Join(shareParams, ", ")+" (the fuller model has each separate)")
	sims := fs.Int("simulations", 0, "also a Monte Carlo p-value from this many data sets simulated from the lesser model (the χ² p is liberal at small samples; 1000 is usual)")
	asJSON := fs.Bool("json", false, "print the comparison as JSON")
	if err := parse(fs, args[1:], math.MaxInt); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("%w: experiment compare DIR... (each an experiment run's output folder, or an experiment's folder of them)", errUsage)
	}
	var shared []string
	for _, s := range strings.Split(*share, ",") {
		if s = strings.TrimSpace(s); !slices.Contains(shareParams, s) {
			return fmt.Errorf("%w: -share %q: want some of %s", errUsage, s, strings.Join(shareParams, ", "))
		}
		shared = append(shared, s)
	}
	var conds []psych.Condition
	var first *experiment.Folder
	for _, dir := range experiment.SubjectFolders(fs.Args()) {
		f, err := experiment.ReadFolder(dir)
		if err != nil {
			return err
		}
		if first == nil {
			first = f
		} else if f.Task != first.Task || f.Form != first.Form || f.Unit != first.Unit {
			return fmt.Errorf("experiment compare: %s and %s differ in task, fitted form or stimulus unit: their thresholds do not compare", first.Dir, f.Dir)
		}
		conds = append(conds, f.Conditions...)
	}
	if len(conds) < 2 {
		return fmt.Errorf("experiment compare: %s holds a single condition; give two folders or more (or an interleaved run's)", first.Dir)
	}
	fuller := psych.JointOptions{Form: first.Form, LambdaSharing: psych.Separate, Lambda: 0.02}
	if g := first.Task.Guess(); math.IsNaN(g) {
		fuller.GammaSharing, fuller.Gamma = psych.Separate, 0.02
	} else {
		fuller.Gamma = g
	}
	lesser := fuller
	for _, s := range shared {
		switch s {
		case "threshold":
			lesser.Alpha = psych.Shared
		case "width":
			lesser.Beta = psych.Shared
		case "lapse":
			lesser.LambdaSharing = psych.Shared
		}
	}
	m, err := psych.CompareModelsWith(conds, lesser, fuller, psych.CompareOptions{Simulations: *sims, Seed: 1, Workers: runtime.GOMAXPROCS(0)})
	if err != nil {
		return fmt.Errorf("experiment compare: %w", err)
	}
	c := comparison{Experiment: first.Experiment, Unit: first.Unit, Shared: shared, Test: m, Thresholds: map[string]float64{}}
	for i, name := range m.Fuller.Conditions {
		c.Thresholds[name] = m.Fuller.Threshold[i]
	}
	if c.Group, err = psych.Summarise(m.Fuller.Threshold, 0); err != nil {
		return fmt.Errorf("experiment compare: %w", err)
	}
	if *asJSON {
		b, err := json.MarshalIndent(c, "", "  ")
		if err != nil {
			return err
		}
		fmt.Println(string(b))
		return nil
	}
	printComparison(&c)
	return nil
}

func printComparison(c *comparison) {
	m := c.Test
	fmt.Printf("%s: %d conditions; lesser model shares %s, fuller has it separate\n", c.Experiment, len(m.Fuller.Conditions), strings.Join(c.Shared, ", "))
	fmt.Printf("  likelihood ratio %.3g on %d df: p = %.3g (χ²)", m.LR, m.DF, m.P)
	if m.Simulations > 0 {
		fmt.Printf(", %.3g (Monte Carlo, %d data sets)", m.MonteCarloP, m.Simulations)
	}
	verdict := "the lesser model stands"
	if m.PreferFuller {
		verdict = "the conditions differ"
	}
	fmt.Printf(": %s at level %g\n", verdict, m.Alpha)
	fmt.Printf("  AIC lesser %.2f, fuller %.2f\n", m.Lesser.AIC, m.Fuller.AIC)
	for i, name := range m.Fuller.Conditions {
		fmt.Printf("  %-40s threshold %.4g %s (lesser model %.4g)\n", name, m.Fuller.Threshold[i], c.Unit, m.Lesser.Threshold[i])
	}
	for _, w := range append(m.Fuller.Warnings, m.Lesser.Warnings...) {
		fmt.Printf("  WARNING: %s\n", w)
	}
	g := c.Group
	fmt.Printf("  group: mean threshold %.4g %s, SD %.3g, SEM %.3g, %.0f %% interval [%.4g, %.4g] (n = %d)\n",
		g.Mean, c.Unit, g.SD, g.SEM, 100*g.Level, g.Interval.Lo, g.Interval.Hi, g.N)
}

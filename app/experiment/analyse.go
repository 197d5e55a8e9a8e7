package experiment

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"github.com/haptex/haptex/calib/psych"
)

// analysis is fit.json.
type analysis struct {
	Experiment string           `json:"experiment"`
	Subject    string           `json:"subject"`
	Trials     int              `json:"trials"`
	Streams    []streamAnalysis `json:"streams"`
}

type streamAnalysis struct {
	Stream    int              `json:"stream"`
	Estimate  psych.Estimate   `json:"estimate"`
	Fit       *psych.Fit       `json:"fit,omitempty"`
	Bootstrap *psych.Bootstrap `json:"bootstrap,omitempty"`
	FitError  string           `json:"fit_error,omitempty"`
	Plots     []string         `json:"plots,omitempty"`
}

// analyse fits a psychometric function per stream to the nominal stimuli,
// bootstraps it, plots it (PNG and SVG), writes fit.json and prints a
// summary.
func (run *runner) analyse() (*Result, error) {
	e := run.e
	res := &Result{Dir: run.dir, Trials: run.done, Procedure: run.proc}
	records := run.proc.Records()
	streams := 1
	for _, r := range records {
		streams = max(streams, r.Stream+1)
	}
	var estimates []psych.Estimate
	if il, ok := run.proc.(*psych.Interleaved); ok {
		for _, tr := range il.Tracks() {
			estimates = append(estimates, tr.Estimate())
		}
	} else {
		estimates = []psych.Estimate{run.proc.Estimate()}
	}
	an := analysis{Experiment: e.Name, Subject: run.o.Subject, Trials: run.done}
	opt := e.Fit
	if g := e.Task.Guess(); !math.IsNaN(g) {
		opt.Gamma = g
	}
	fmt.Fprintf(run.o.Out, "%s, subject %s: %d trials\n", e.Name, run.o.Subject, run.done)
	for s := range streams {
		var recs []psych.Record
		for _, r := range records {
			if r.Stream == s {
				recs = append(recs, r)
			}
		}
		sa := streamAnalysis{Stream: s}
		if s < len(estimates) {
			sa.Estimate = estimates[s]
		}
		label := fmt.Sprintf("stream %d", s)
		if len(e.Stimulus.FrequencyHz) > s {
			label = fmt.Sprintf("%g Hz", e.Stimulus.FrequencyHz[s])
		}
		fit, err := psych.FitPF(psych.Tally(recs), opt)
		if err != nil {
			sa.FitError = err.Error()
			res.FitErrors = append(res.FitErrors, fmt.Sprintf("%s: %v", label, err))
			fmt.Fprintf(run.o.Out, "  %s: procedure estimate %.4g %s; no fit: %v\n", label, sa.Estimate.Threshold, e.Stimulus.Unit, err)
		} else {
			sa.Fit = fit
			bs, err := fit.Bootstrap(psych.BootstrapOptions{Samples: 1000, Seed: uint64(s) + 1})
			if err == nil {
				sa.Bootstrap = bs
			}
			p, err := fit.Plot(psych.PlotOptions{Title: fmt.Sprintf("%s, %s, %s", e.Name, run.o.Subject, label), XLabel: e.Stimulus.Unit, Bootstrap: sa.Bootstrap})
			if err != nil {
				return nil, fmt.Errorf("experiment: plot: %w", err)
			}
			for _, ext := range []string{"png", "svg"} {
				name := fmt.Sprintf("fit-%d.%s", s, ext)
				var b bytes.Buffer
				if err := psych.WritePlot(&b, p, ext); err != nil {
					return nil, fmt.Errorf("experiment: %w", err)
				}
				if err := run.root.WriteFile(name, b.Bytes()); err != nil {
					return nil, fmt.Errorf("experiment: %w", err)
				}
				sa.Plots = append(sa.Plots, run.root.Join(name))
				res.Plots = append(res.Plots, run.root.Join(name))
			}
			ci := ""
			if sa.Bootstrap != nil {
				ci = fmt.Sprintf(" [%.4g, %.4g]", sa.Bootstrap.Threshold.Lo, sa.Bootstrap.Threshold.Hi)
			}
			fmt.Fprintf(run.o.Out, "  %s: threshold %.4g %s%s, slope %.4g; procedure estimate %.4g\n",
				label, fit.Threshold, e.Stimulus.Unit, ci, fit.Slope, sa.Estimate.Threshold)
		}
		res.Fits = append(res.Fits, sa.Fit)
		res.Estimates = append(res.Estimates, sa.Estimate)
		an.Streams = append(an.Streams, sa)
	}
	b, err := json.MarshalIndent(an, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	if err := run.root.WriteFile("fit.json", b); err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	fmt.Fprintf(run.o.Out, "  results in %s\n", run.dir)
	return res, nil
}

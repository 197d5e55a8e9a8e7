package experiment

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/haptex/haptex/calib/kes"
	"github.com/haptex/haptex/calib/psych"
)

// analysis is fit.json.
type analysis struct {
	Experiment string           `json:"experiment"`
	Subject    string           `json:"subject"`
	Trials     int              `json:"trials"`
	Streams    []streamAnalysis `json:"streams"`
}

// streamAnalysis is one stream's result. Posterior holds the threshold
// and its credible interval (at Criterion, and at the procedure's target
// probability where it has one); Fit is the maximum-likelihood fit of the
// same function, for its deviance and as a check on the posterior.
// Warnings collect everything either says the data do not support.
type streamAnalysis struct {
	Stream    int              `json:"stream"`
	Estimate  psych.Estimate   `json:"estimate"`
	Criterion string           `json:"criterion"`
	Posterior *psych.Posterior `json:"posterior,omitempty"`
	Fit       *psych.Fit       `json:"fit,omitempty"`
	// DevianceP is the Monte Carlo p-value of the fit's deviance (200
	// parametric-bootstrap refits).
	DevianceP *float64 `json:"deviance_p,omitempty"`
	// KES is the threshold (the posterior's median and interval at the
	// criterion) in the dimension's KES quantity, for the dimensions that
	// scale one.
	KES *KESThreshold `json:"kes,omitempty"`
	// Delivered sets the contrasts the trials delivered against the
	// stimulus check's (absent without a check, or with too few
	// measured trials).
	Delivered *Delivered `json:"delivered,omitempty"`
	// Unmeasured counts the trials with an interval whose cue was not
	// measured (unmeasuredWhy), which Delivered leaves out.
	Unmeasured int      `json:"unmeasured_trials,omitempty"`
	Warnings   []string `json:"warnings,omitempty"`
	FitError   string   `json:"fit_error,omitempty"`
	Plots      []string `json:"plots,omitempty"`
}

// analyse fits a psychometric function per stream to the trials, plots it
// (PNG and SVG), writes fit.json and prints a summary, warnings first
// among equals: nothing the fit does not support goes unsaid.
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
	spans := psych.SpanOf(e.Procedure)
	header, rows, _, rowsErr := run.readRows()
	an := analysis{Experiment: e.Name, Subject: run.o.Subject, Trials: run.done}
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
		var span *psych.Span
		if s < len(spans) {
			span = &spans[s]
		}
		if rep := run.checkOf(s); rep != nil && rowsErr == nil {
			sa.Delivered, sa.Unmeasured = delivered(header, rows, s, rep, run.cue, dimensions[e.Stimulus.Kind].gain)
		}
		an.Streams = append(an.Streams, sa)
		a := &an.Streams[len(an.Streams)-1]
		if err := fitStream(a, recs, e, span, label, run.o.Out); err != nil {
			res.FitErrors = append(res.FitErrors, fmt.Sprintf("%s: %v", label, err))
		} else {
			if a.KES, err = kesThreshold(e, run.fab, a.Posterior.Threshold); err != nil {
				return nil, err
			}
			if k := a.KES; k != nil {
				fmt.Fprintf(run.o.Out, "    in KES %s: %.4g %s against the reference's %.4g %s (Weber fraction %.3g) [%.4g, %.4g]\n",
					k.Quantity, k.Threshold, k.Unit, k.Reference, k.Unit, k.Weber, k.Lo, k.Hi)
			}
			title := fmt.Sprintf("%s, %s, %s", e.Name, run.o.Subject, label)
			for _, ext := range []string{"png", "svg"} {
				name := fmt.Sprintf("fit-%d.%s", s, ext)
				if err := run.savePosteriorPlot(a, title, e.Stimulus.Unit, name, ext); err != nil {
					return nil, err
				}
				a.Plots = append(a.Plots, run.root.Join(name))
				res.Plots = append(res.Plots, run.root.Join(name))
			}
		}
		if a.Unmeasured > 0 {
			fmt.Fprintf(run.o.Out, "    delivered: not measured in %d trials: %s\n", a.Unmeasured, unmeasuredWhy)
		}
		if d := a.Delivered; d != nil {
			fmt.Fprintf(run.o.Out, "    delivered: %.2f [%.2f, %.2f] times the contrast the stimulus check measured at the trials' levels (%d trials)\n",
				d.Scale, d.ScaleCI[0], d.ScaleCI[1], d.Trials)
			if w := d.warning(); w != "" {
				a.Warnings = append(a.Warnings, w)
				fmt.Fprintf(run.o.Out, "  WARNING: %s: %s\n", label, w)
			}
		}
		res.Fits = append(res.Fits, a.Fit)
		res.Posteriors = append(res.Posteriors, a.Posterior)
		res.Estimates = append(res.Estimates, a.Estimate)
		res.Warnings = append(res.Warnings, a.Warnings...)
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

// KESThreshold is a threshold in a KES quantity: the reference fabric's
// value, the test fabric's at the threshold level and at the ends of its
// interval, and the Weber fraction |threshold − reference|/reference.
type KESThreshold struct {
	Quantity  string  `json:"quantity"`
	Unit      string  `json:"unit"`
	Reference float64 `json:"reference"`
	Threshold float64 `json:"threshold"`
	Lo        float64 `json:"lo"`
	Hi        float64 `json:"hi"`
	Weber     float64 `json:"weber"`
}

// kesThreshold expresses a threshold in the experiment's KES quantity
// (nil when its dimension scales none).
func kesThreshold(e *Experiment, f *kes.Fabric, th psych.Quantity) (*KESThreshold, error) {
	var k KESThreshold
	for i, x := range []float64{th.Median, th.Lo, th.Hi} {
		l, ok, err := KESLevelOf(e, f, x)
		if err != nil || !ok {
			return nil, err
		}
		switch i {
		case 0:
			k = KESThreshold{Quantity: l.Quantity, Unit: l.Unit, Reference: l.Reference, Threshold: l.Test, Weber: l.Weber}
		case 1:
			k.Lo = l.Test
		case 2:
			k.Hi = l.Test
		}
	}
	return &k, nil
}

// criterionText says what a threshold at F = c means for the task.
func criterionText(c float64, task psych.Task) string {
	if g := task.Guess(); !math.IsNaN(g) {
		return fmt.Sprintf("F = %g: %.1f %% correct without lapses", c, 100*(g+(1-g)*c))
	}
	return fmt.Sprintf("F = %g: %g of the way from the false-alarm rate to 1 − λ", c, c)
}

// fitStream fits one stream's records into a, prints the summary and the
// warnings to out, and returns the error that left it without a fit.
func fitStream(a *streamAnalysis, recs []psych.Record, e *Experiment, span *psych.Span, label string, out io.Writer) error {
	unit := e.Stimulus.Unit
	data := psych.Tally(recs)
	popt := psych.PosteriorOptions{Form: e.Fit.Form, Criterion: e.Fit.Criterion}
	opt := e.Fit
	if g := e.Task.Guess(); !math.IsNaN(g) {
		popt.Gamma, opt.Gamma = g, g
	} else {
		popt.FreeGamma = true
	}
	if tp := a.Estimate.TargetP; !math.IsNaN(tp) && tp > 0 {
		popt.Targets = []float64{tp}
	}
	if span != nil {
		popt.StimulusRange = [2]float64{span.Min, span.Max}
		if e.Fit.Form == psych.Weibull && span.Min <= 0 {
			popt.StimulusRange = [2]float64{}
		}
	}
	post, err := psych.FitPosterior(data, popt)
	if err != nil {
		a.FitError = err.Error()
		fmt.Fprintf(out, "  %s: procedure estimate %.4g %s; no fit: %v\n", label, a.Estimate.Threshold, unit, err)
		return err
	}
	a.Posterior = post
	crit := post.Options.Criterion
	a.Criterion = criterionText(crit, e.Task)
	a.Warnings = append(a.Warnings, post.Warnings...)
	if fit, err := psych.FitPF(data, opt); err == nil {
		a.Fit = fit
		for _, b := range fit.AtBound {
			a.Warnings = append(a.Warnings, fmt.Sprintf("the maximum-likelihood fit ends with %s on its search bound: the data do not determine it", b))
		}
		a.Warnings = append(a.Warnings, mlWarnings(fit.Warnings)...)
		if th := post.Threshold; !(fit.Threshold >= th.Lo && fit.Threshold <= th.Hi) {
			a.Warnings = append(a.Warnings, fmt.Sprintf("the maximum-likelihood threshold %.4g lies outside the %.0f %% credible interval [%.4g, %.4g]: the prior, not the data, decides the interval",
				fit.Threshold, 100*post.Options.Level, th.Lo, th.Hi))
		}
		if bs, err := fit.Bootstrap(psych.BootstrapOptions{Samples: 200, Seed: uint64(a.Stream) + 1}); err == nil {
			a.DevianceP = &bs.DevianceP
		}
	}
	th := post.Threshold
	fmt.Fprintf(out, "  %s: threshold %.4g %s at %s; %.0f %% credible interval [%.4g, %.4g]\n",
		label, th.Median, unit, a.Criterion, 100*post.Options.Level, th.Lo, th.Hi)
	for _, at := range post.AtTargets {
		fmt.Fprintf(out, "    at the procedure's target, %.1f %% correct: %.4g %s [%.4g, %.4g]\n", 100*at.P, at.Threshold.Median, unit, at.Threshold.Lo, at.Threshold.Hi)
	}
	target := ""
	if tp := a.Estimate.TargetP; !math.IsNaN(tp) {
		target = fmt.Sprintf(" (mean of reversals, %.1f %% correct)", 100*tp)
	}
	fmt.Fprintf(out, "    slope %.4g per %s, lapse rate %.3g; procedure estimate %.4g %s%s\n",
		post.Slope.Median, unit, post.Lambda.Median, a.Estimate.Threshold, unit, target)
	for _, w := range a.Warnings {
		fmt.Fprintf(out, "  WARNING (%s): %s\n", label, w)
	}
	return nil
}

// mlWarnings rewords the maximum-likelihood fit's warnings as such.
func mlWarnings(w []string) []string {
	out := make([]string, len(w))
	for i, s := range w {
		out[i] = "maximum-likelihood fit: " + s
	}
	return out
}

// savePosteriorPlot draws a stream's posterior fit with every warning.
func (run *runner) savePosteriorPlot(a *streamAnalysis, title, unit, name, ext string) error {
	extra := make([]string, 0, len(a.Warnings))
	for _, w := range a.Warnings {
		dup := false
		for _, pw := range a.Posterior.Warnings {
			dup = dup || pw == w
		}
		if !dup {
			extra = append(extra, w)
		}
	}
	p, err := a.Posterior.Plot(psych.PlotOptions{Title: title, XLabel: unit, Warnings: extra})
	if err != nil {
		return fmt.Errorf("experiment: plot: %w", err)
	}
	var b bytes.Buffer
	if err := psych.WritePlot(&b, p, ext); err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	if err := run.root.WriteFile(name, b.Bytes()); err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	return nil
}

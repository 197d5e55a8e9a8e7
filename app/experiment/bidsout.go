package experiment

// The optional BIDS behavioural copy of trials.csv (Options.BIDS).

import (
	"fmt"
	"strings"

	"github.com/haptex/haptex/app/experiment/bids"
	"github.com/haptex/haptex/calib/psych"
)

// writeBIDS writes trials.csv again, unchanged but for n/a where a value
// is missing, as a BIDS behavioural table beside it
// (sub-<ID>/beh/sub-<ID>_task-<name>_beh.tsv and .json), when Options.BIDS
// asks for it; columns describes each of trials.csv's columns.
func (run *runner) writeBIDS(columns map[string]bids.Column) error {
	if !run.o.BIDS {
		return nil
	}
	header, rows, _, err := run.readRows()
	if err != nil {
		return fmt.Errorf("experiment: BIDS: %w", err)
	}
	e := run.e
	_, err = bids.Write(run.root, bids.Table{Subject: run.o.Subject, Task: e.Name, TaskDescription: e.Title,
		Instructions: e.Instructions, Header: header, Rows: rows, Columns: columns})
	if err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	return nil
}

// setColumns describes a set experiment's trials.csv columns (setHeader)
// for the BIDS sidecar.
func (run *setRun) setColumns() map[string]bids.Column {
	s, e := run.set, run.e
	c := map[string]bids.Column{
		"trial":    {LongName: "Trial", Description: "the trial's number, from 1, in the order presented"},
		"subject":  {LongName: "Subject", Description: "the subject's identifier (a rating's with its condition appended)"},
		"stimulus": {LongName: "Stimulus", Description: "the fabric presented (the name of a built-in or library fabric)"},
	}
	answerColumns(c)
	switch s.Kind {
	case Identify:
		c["response"] = bids.Column{LongName: "Response", Description: "the fabric the observer named, one of set.responses"}
		c["correct"] = bids.Column{LongName: "Correct", Description: "whether the name given is the fabric presented",
			Levels: map[string]string{"0": "incorrect", "1": "correct"}}
	case Rate:
		c["condition"] = bids.Column{LongName: "Condition", Description: "what was rated",
			Levels: map[string]string{"virtual": "the rendered fabric", "real": "the real swatch"}}
		for _, sc := range s.Scales {
			l, r, _ := strings.Cut(sc, "-")
			c["rating_"+sc] = bids.Column{LongName: "Rating " + sc,
				Description: fmt.Sprintf("the rating on the scale %s, 1 (%s) to %d (%s)", sc, l, s.Points, r)}
		}
	case Magnitude:
		q := dimensions[e.Stimulus.Kind].kes
		c["stimulus"] = bids.Column{LongName: "Stimulus", Description: "the level presented, as x"}
		c["x"] = bids.Column{LongName: "Stimulus level", Description: fmt.Sprintf("the level of %s rendered on %s", e.Stimulus.Kind, e.Stimulus.Fabric), Units: e.Stimulus.Unit}
		c["unit"] = bids.Column{LongName: "Unit of x", Description: "the unit of x"}
		c["kes_"+q.Name] = bids.Column{LongName: "KES " + q.Name, Description: "the fabric's KES " + q.Name + " at the level: " + q.Doc, Units: bidsUnit(q.Unit)}
		c["estimate"] = bids.Column{LongName: "Magnitude estimate", Description: "the number the observer gave, in proportion to the magnitude felt"}
	}
	for _, p := range run.props {
		cue := dimensions[p].cue
		c["cue_"+string(p)] = bids.Column{LongName: "Delivered " + cue.Name,
			Description: fmt.Sprintf("the %s the handling for %s delivered in the trial (motion %s), measured from the interval's trace; for a real swatch its KES value", cue.Name, p, e.motionOf(p)),
			Units:       bidsUnit(cue.Unit)}
	}
	return c
}

// answerColumns adds the columns every trials.csv ends with: who
// answered, how fast, and when.
func answerColumns(c map[string]bids.Column) {
	c["rt_s"] = bids.Column{LongName: "Response time", Description: "from the question to the answer (n/a for a simulated observer)", Units: "s"}
	c["observer"] = bids.Column{LongName: "Observer", Description: "who answered: a simulated observer's full specification, or person"}
	c["run_time_s"] = bids.Column{LongName: "Run time", Description: "the rig's clock at the end of the trial, from the run's start (0 where no rig ran: real swatches)", Units: "s"}
	c["wall_time"] = bids.Column{LongName: "Wall time", Description: "when the trial ended, UTC, RFC 3339"}
}

// bidsUnit is a unit as the BIDS sidecar gives it: none for a ratio,
// the micro prefix as CMIXF-12's u (µm: um).
func bidsUnit(u string) string {
	if u == "1" {
		return ""
	}
	return strings.ReplaceAll(u, "µ", "u")
}

// trialColumns describes trials.csv's columns (csvHeader) for the BIDS
// sidecar: what each holds and its unit.
func trialColumns(intervals int, unit string, cue *Cue, task psych.Task) map[string]bids.Column {
	response := bids.Column{Description: "the answer: 1 correct, 0 incorrect (2AFC)",
		Levels: map[string]string{"0": "incorrect", "1": "correct"}}
	switch task.Kind {
	case psych.YesNo:
		response = bids.Column{Description: "the answer to the question",
			Levels: map[string]string{"0": "no", "1": "yes"}}
	case psych.Rating:
		response = bids.Column{Description: fmt.Sprintf("the rating, 1 to %d", task.Levels)}
	}
	response.LongName = "Response"
	c := map[string]bids.Column{
		"trial":  {LongName: "Trial", Description: "the trial's index, from 0, in the order presented"},
		"stream": {LongName: "Stream", Description: "the track of an interleaved procedure the trial belongs to, from 0 (0 for a single track)"},
		"x":      {LongName: "Stimulus level", Description: "the stimulus level the procedure asked for", Units: unit},
		"unit":   {LongName: "Unit of x", Description: "the unit of x and of the intervals' values"},
		"test_interval": {LongName: "Test interval", Description: "the interval that held the test stimulus",
			Levels: map[string]string{"1": "first interval", "2": "second interval"}},
		"response": response,
		"chosen_interval": {LongName: "Chosen interval", Description: "the interval the observer chose (n/a when the task has no choice)",
			Levels: map[string]string{"1": "first interval", "2": "second interval"}},
		"positive": {LongName: "Positive response", Description: "whether the response counts as positive in the fit (correct, yes, or a rating at or above the criterion)",
			Levels: map[string]string{"0": "negative", "1": "positive"}},
		"estimate":    {LongName: "Running estimate", Description: "the procedure's threshold estimate after the trial", Units: unit},
		"estimate_sd": {LongName: "Running estimate's SD", Description: "the standard deviation of the procedure's estimate after the trial", Units: unit},
	}
	answerColumns(c)
	cueName, cueUnit := "the delivered cue", ""
	if cue != nil {
		cueName, cueUnit = cue.Name, cue.Unit
	}
	fingers := [2]string{"thumb", "index"}
	for i := 1; i <= intervals; i++ {
		p := fmt.Sprintf("i%d_", i)
		in := fmt.Sprintf(" in interval %d", i)
		c[p+"role"] = bids.Column{Description: "what interval " + fmt.Sprint(i) + " presented",
			Levels: map[string]string{"test": "the test stimulus", "reference": "the reference"}}
		c[p+"value"] = bids.Column{Description: "the stimulus value set" + in + " (0 for the reference)", Units: unit}
		c[p+"cue"] = bids.Column{Description: cueName + in + ", measured from the interval's trace (sidecar.json's cue)", Units: cueUnit}
		c[p+"duration_s"] = bids.Column{Description: "the interval's length" + in, Units: "s"}
		for _, f := range fingers {
			c[p+f+"_peak_force_n"] = bids.Column{Description: "the largest force the " + f + "'s fingertip sensor measured" + in, Units: "N"}
			c[p+f+"_peak_force_des_n"] = bids.Column{Description: "the largest force the cloth asked for at the " + f + "'s pad" + in, Units: "N"}
			c[p+f+"_contact_s"] = bids.Column{Description: "the time the " + f + " touched the cloth" + in, Units: "s"}
			c[p+f+"_limited_s"] = bids.Column{Description: "the time the " + f + "'s coupling rendered less stiffness than the cloth asked for" + in, Units: "s"}
			for _, band := range []string{"a40", "a320"} {
				hz := band[1:]
				c[p+f+"_"+band+"_sent_um"] = bids.Column{Description: "the mean " + hz + " Hz pin amplitude sent to the " + f + "'s array" + in + " (over frames, of the mean over pins driven)", Units: "um"}
				c[p+f+"_"+band+"_delivered_um"] = bids.Column{Description: "the mean " + hz + " Hz pin amplitude the " + f + "'s array reported delivering" + in + " (over frames, of the mean over pins driven or vibrating, a driven pin that did not move counting as 0; n/a for an array that cannot measure it)", Units: "um"}
			}
		}
		c[p+"pinch_s"] = bids.Column{Description: "the time both pads touched the cloth" + in, Units: "s"}
		c[p+"min_pad_gap_m"] = bids.Column{Description: "the smallest distance between the two pad surfaces while both touched the cloth" + in + " (n/a without a pinch)", Units: "m"}
		c[p+"haptics_lateness_p99_us"] = bids.Column{Description: "the 99th percentile of the haptics loop's tick lateness" + in, Units: "us"}
		c[p+"haptics_late_over_1ms"] = bids.Column{Description: "the haptics ticks later than 1 ms" + in}
		c[p+"haptics_overruns"] = bids.Column{Description: "the haptics ticks that overran their period" + in}
		c[p+"safe_ticks"] = bids.Column{Description: "the haptics ticks with a finger's device outside its active state" + in + " (devices only)"}
	}
	return c
}

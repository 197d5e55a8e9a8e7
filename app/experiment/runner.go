package experiment

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/haptex/haptex/app/experiment/bids"
	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/kes"
	"github.com/haptex/haptex/calib/psych"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/haptics"
	"github.com/haptex/haptex/internal/buildinfo"
	"github.com/haptex/haptex/internal/safefile"
)

// Options configure a run.
type Options struct {
	Experiment *Experiment
	// Source is the experiment file's bytes (hashed into the sidecar and
	// the state, so a resumed run refuses a changed file); Path its name.
	Source []byte
	Path   string
	// Subject identifies the participant (letters, digits, '-', '_').
	Subject string
	// OutDir is the parent folder; the run writes OutDir/NAME/SUBJECT/.
	OutDir string
	// Observers answer instead of a person from the nominal stimulus, one
	// per stream (or one for all); CueObservers from the cues the devices
	// delivered (see Cue). Give one kind or the other: the rig then runs
	// in virtual time. Neither: a person answers on In and reads prompts
	// on Out, and the rig runs in real time.
	Observers    []*psych.Observer
	CueObservers []*psych.CueObserver
	// SetObserver answers a set experiment (Experiment.Set) instead of a
	// person, in virtual time.
	SetObserver *SetObserver
	// SwitchObserver lets a resumed run continue with other observers (or
	// a person) than those that answered so far; without it such a resume
	// is refused. The sidecar lists who answered from which trial.
	SwitchObserver bool
	// NoTraces keeps no tick-level record of the intervals (by default
	// each interval's is written under traces/, compressed).
	NoTraces bool
	// Force runs an experiment the stimulus check finds invalid (the
	// check is still run and recorded); SkipStimulusCheck does not run it.
	Force, SkipStimulusCheck bool
	Library                  kes.Library
	In                       io.Reader
	Out                      io.Writer
	// Rig is the base rig configuration (devices, priority, logging); the
	// runner sets the fabric and the cloth resolution.
	Rig rig.Config
	// BIDS also writes trials.csv as a BIDS behavioural table beside it
	// at the end of the run (bidsout.go; docs/experiments.md).
	BIDS bool
	// AfterTrial, when set, is called after each trial is on disk with
	// the number of completed trials; an error stops the run there (tests
	// use it to interrupt a run).
	AfterTrial func(completed int) error
}

// Result is what a run produced.
type Result struct {
	Dir        string             `json:"dir"`
	Trials     int                `json:"trials"`
	Resumed    bool               `json:"resumed"`
	Estimates  []psych.Estimate   `json:"estimates"`  // per stream
	Posteriors []*psych.Posterior `json:"posteriors"` // per stream, nil where the data cannot be fitted
	Fits       []*psych.Fit       `json:"fits"`       // per stream: the maximum-likelihood fits
	FitErrors  []string           `json:"fit_errors,omitempty"`
	// Warnings are the fits' warnings, every one printed and drawn.
	Warnings []string `json:"warnings,omitempty"`
	Plots    []string `json:"plots,omitempty"`
	// Analysis is a set experiment's analysis file (matching.json,
	// semantic.json or magnitude.json).
	Analysis string `json:"analysis,omitempty"`
	// Procedure is the finished procedure (for callers that read its
	// tracks, such as the tactile threshold calibration).
	Procedure psych.Procedure `json:"-"`
}

// state is what state.json holds after each completed trial.
type state struct {
	Format       string            `json:"format"`
	Version      int               `json:"version"`
	Experiment   string            `json:"experiment_sha256"`
	Subject      string            `json:"subject"`
	Completed    int               `json:"completed"`
	Procedure    json.RawMessage   `json:"procedure"`
	Observers    []json.RawMessage `json:"observers,omitempty"`
	CueObservers []json.RawMessage `json:"cue_observers,omitempty"`
	// Answering names who answers: the observers' specifications, or
	// "person".
	Answering []string `json:"answering"`
	RNG       []byte   `json:"rng"`
}

// person is the observer column's value for a person's answer.
const person = "person"

const stateFormat = "haptex-experiment-state"

// runner holds a run in progress.
type runner struct {
	o      Options
	e      *Experiment
	dir    string
	proc   psych.Procedure
	rng    *rand.PCG
	obs    []*psych.Observer
	cueObs []*psych.CueObserver
	r      *rig.Rig
	motion *twin.Script // the handling motion of every interval
	cue    *Cue
	traces [2]*rig.IntervalTrace
	drive  driver
	fab    *kes.Fabric
	// setFabrics are an identification's or rating's fabrics, for
	// the sidecar.
	setFabrics []*kes.Fabric
	root       *safefile.Dir // the subject's folder, dir
	fresh      bool          // this run created the folder's files
	csv        *os.File
	header     []string
	col        map[string]int
	done       int
	sha        string
	stim       *stimulus
	term       *terminal
	intervals  int
	// check is the stimulus check this run made or, resumed, recorded;
	// the analysis sets the trials' delivered contrasts against it.
	check *StimulusReport
}

// Run runs (or resumes) an experiment to its end, then fits and plots it.
func Run(ctx context.Context, o Options) (*Result, error) {
	e := o.Experiment
	if e == nil {
		return nil, errors.New("experiment: no experiment")
	}
	if err := safefile.CheckName("subject", o.Subject); err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	if e.Set != nil {
		return runSet(ctx, o)
	}
	if o.SetObserver != nil {
		return nil, errors.New("experiment: a set observer answers set experiments ([set]); this one has a procedure")
	}
	simulated := len(o.Observers) > 0 || len(o.CueObservers) > 0
	if len(o.Observers) > 0 && len(o.CueObservers) > 0 {
		return nil, errors.New("experiment: give nominal observers or cue observers, not both")
	}
	if !simulated && (o.In == nil || o.Out == nil) {
		return nil, errors.New("experiment: a run without a simulated observer needs a terminal (In and Out)")
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	sum := sha256.Sum256(o.Source)
	run := &runner{o: o, e: e, sha: hex.EncodeToString(sum[:]), obs: o.Observers, cueObs: o.CueObservers, intervals: 2,
		cue: dimensions[e.Stimulus.Kind].cue}
	if e.Task.Kind == psych.YesNo {
		run.intervals = 1
	}
	if len(run.cueObs) > 0 && run.intervals != 2 {
		return nil, errors.New("experiment: a cue observer compares the two intervals of a 2AFC trial; this task has one")
	}
	for _, c := range run.cueObs {
		if err := c.SetDefaultWeber(run.cue.Weber); err != nil {
			return nil, fmt.Errorf("experiment: %w", err)
		}
		c.SetDefaultFloor(run.cue.Floor(c.Weber))
	}
	if o.In != nil {
		run.term = newTerminal(o.In, o.Out)
	}
	// Nothing is written before the fabric loads.
	var err error
	if run.fab, err = e.LoadFabric(o.Library); err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	cleanup, err := run.openDir()
	if err != nil {
		return nil, err
	}
	defer run.root.Close()
	resumed, err := run.open()
	if err == nil {
		defer run.csv.Close()
		err = run.stimulusCheck(ctx)
	}
	if err == nil {
		err = run.startRig(ctx)
		if err == nil && !run.proc.Done() {
			err = run.settle(ctx)
		}
		if err == nil {
			err = run.loop(ctx)
		}
		if run.drive != nil {
			if ferr := run.finishDrive(run.drive); ferr != nil && err == nil {
				err = ferr
			}
		}
	}
	res, err := run.conclude(err, cleanup, resumed, run.analyse)
	if err != nil {
		return nil, err
	}
	return res, run.writeBIDS(trialColumns(run.intervals, run.e.Stimulus.Unit, run.cue, run.e.Task))
}

// finishDrive stops the rig that d drives and, for a rig on
// exoskeletons, says how it left them (rig.EndLine): whether each device
// confirmed its power stage off.
func (run *runner) finishDrive(d driver) error {
	sum, err := d.finish()
	if sum != nil {
		if l := rig.EndLine(sum.EndOfRun); l != "" {
			fmt.Fprintln(run.o.Out, l)
		}
	}
	return err
}

// conclude ends a run whose trials ended with err: on an error it
// discards a folder this run created and completed no trial in (cleanup
// removes the folders openDir made), otherwise it analyses the run and
// marks the result resumed or not.
func (run *runner) conclude(err error, cleanup func(), resumed bool, analyse func() (*Result, error)) (*Result, error) {
	if err != nil {
		if run.fresh && run.done == 0 {
			// No trial to keep: leave nothing that would stop the next run.
			run.discard()
			cleanup()
		}
		return nil, err
	}
	res, err := analyse()
	if err != nil {
		return nil, err
	}
	res.Resumed = resumed
	return res, nil
}

// Limits on the files a run reads back: far above what the longest
// experiment writes.
const (
	maxStateSize  = 16 << 20
	maxTrialsSize = 64 << 20
)

// openDir opens (making them where missing) OUT/NAME/SUBJECT: OUT as
// given, NAME and SUBJECT without following a symbolic link. cleanup
// removes the two folders again where they are empty.
func (run *runner) openDir() (cleanup func(), err error) {
	e, o := run.e, run.o
	out, err := safefile.MkdirAll(o.OutDir)
	if err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	defer out.Close()
	exp, err := out.Sub(e.Name, true)
	if err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	defer exp.Close()
	if run.root, err = exp.Sub(o.Subject, true); err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	run.dir = run.root.Path()
	// One run at a time writes a subject's folder: two would each take
	// the other's trials for their own, and the last to write the state
	// would lose the other's.
	switch err := run.root.Lock(); {
	case errors.Is(err, safefile.ErrLocked):
		run.root.Close()
		return nil, fmt.Errorf("experiment: %s is in use by another run of this experiment and subject: let it end, or stop it, before running it again", run.dir)
	case err != nil:
		// A file system without locks (some network shares): run as
		// before the lock, and say what is not guarded.
		fmt.Fprintf(o.Out, "warning: %v: a second run of this subject started meanwhile would not be refused\n", err)
	default:
		// What a run killed while writing left behind, now that no
		// other run writes here: a trace or a record it was writing,
		// whose trial is run again.
		folders := []string{"traces"}
		if tsv, _, err := bids.Path(o.Subject, e.Name); err == nil {
			folders = append(folders, path.Dir(tsv))
		}
		if err := removeTemps(run.root, folders); err != nil {
			run.root.Close()
			return nil, fmt.Errorf("experiment: %w", err)
		}
	}
	return func() {
		run.root.Close()
		if out, err := safefile.OpenDir(o.OutDir); err == nil {
			if exp, err := out.Sub(e.Name, false); err == nil {
				exp.Remove(o.Subject)
				exp.Close()
			}
			out.Remove(e.Name)
			out.Close()
		}
	}, nil
}

// removeTemps removes the temporary files killed writes left in root and
// in its folders named (slash-separated paths), where they exist.
func removeTemps(root *safefile.Dir, folders []string) error {
	if _, err := root.RemoveTemps(); err != nil {
		return err
	}
	for _, f := range folders {
		d, err := openPath(root, strings.Split(f, "/"))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		_, err = d.RemoveTemps()
		d.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// openPath opens the folder root/names[0]/names[1]/..., creating nothing.
func openPath(root *safefile.Dir, names []string) (*safefile.Dir, error) {
	d, err := root.Sub(names[0], false)
	for _, n := range names[1:] {
		if err != nil {
			return nil, err
		}
		next, e := d.Sub(n, false)
		d.Close()
		d, err = next, e
	}
	return d, err
}

// discard removes the files of a run that completed no trial.
func (run *runner) discard() {
	if run.csv != nil {
		run.csv.Close()
	}
	for _, name := range []string{"trials.csv", "state.json", "sidecar.json"} {
		run.root.Remove(name)
	}
}

// open starts a new run, or restores an interrupted one from state.json
// and trials.csv, replaying a trial that reached the CSV but not the state.
// What a run left before completing a trial (the files of a run that
// failed or was killed before) is discarded: it holds no data.
func (run *runner) open() (resumed bool, err error) {
	e, o := run.e, run.o
	csvPath := run.root.Join("trials.csv")
	statePath := run.root.Join("state.json")
	header, rows, keep, csvErr := run.readRows()
	if csvErr != nil && !errors.Is(csvErr, fs.ErrNotExist) {
		return false, fmt.Errorf("experiment: %w", csvErr)
	}
	data, err := run.root.ReadFile("state.json", maxStateSize)
	var st state
	switch {
	case err == nil:
		if err := json.Unmarshal(data, &st); err != nil {
			return false, fmt.Errorf("experiment: %s: %w", statePath, err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return false, fmt.Errorf("experiment: %w", err)
	case len(rows) > 0:
		return false, fmt.Errorf("experiment: %s holds %d trials without state.json: move it away or restore the state", csvPath, len(rows))
	}
	if len(rows) == 0 && st.Completed == 0 {
		run.discard()
		run.fresh = true
		if run.proc, err = psych.New(e.Procedure); err != nil {
			return false, fmt.Errorf("experiment: procedure: %w", err)
		}
		seed := e.Seed
		if seed == 0 {
			h := fnv.New64a()
			h.Write([]byte(o.Subject))
			seed = h.Sum64()
		}
		run.rng = rand.NewPCG(seed, 0x6861707465780001)
		f, err := run.root.Create("trials.csv")
		if err != nil {
			return false, fmt.Errorf("experiment: %w", err)
		}
		run.csv = f
		run.setHeader(csvHeader(run.intervals))
		if err := run.writeRow(run.header); err != nil {
			return false, err
		}
		if err := run.writeSidecar(nil); err != nil {
			return false, err
		}
		return false, run.saveState()
	}
	if st.Format != stateFormat || st.Experiment != run.sha || st.Subject != o.Subject {
		return false, fmt.Errorf("experiment: %s belongs to another experiment file or subject (the file changed since the run started?)", statePath)
	}
	if run.proc, err = psych.Resume(e.Procedure, st.Procedure); err != nil {
		return false, fmt.Errorf("experiment: %s: %w", statePath, err)
	}
	run.rng = &rand.PCG{}
	if err := run.rng.UnmarshalBinary(st.RNG); err != nil {
		return false, fmt.Errorf("experiment: %s: rng: %w", statePath, err)
	}
	switched, err := run.restoreObservers(&st, statePath)
	if err != nil {
		return false, err
	}
	if csvErr != nil {
		return false, fmt.Errorf("experiment: %w", csvErr)
	}
	run.done = st.Completed
	if want := csvHeader(run.intervals); !slices.Equal(header, want) {
		return false, fmt.Errorf("experiment: %s has other columns than this version writes: it cannot be resumed by it", csvPath)
	}
	run.setHeader(header)
	if len(rows) < run.done || len(rows) > run.done+1 {
		return false, fmt.Errorf("experiment: %s has %d trials, state.json %d: the files do not belong together", csvPath, len(rows), run.done)
	}
	if len(rows) == run.done+1 {
		// The trial reached the CSV, then the run stopped before its state
		// was saved: apply its recorded response again.
		if err := run.replay(rows[run.done]); err != nil {
			return false, fmt.Errorf("experiment: %s: last trial: %w", csvPath, err)
		}
	}
	if err := run.appendTrials(keep); err != nil {
		return false, err
	}
	if switched {
		if err := run.writeSidecar(st.Answering); err != nil {
			return false, err
		}
	}
	fmt.Fprintf(run.o.Out, "resuming %s for %s after trial %d\n", run.e.Name, run.o.Subject, run.done)
	return true, run.saveState()
}

// answering returns who answers this run: the observers' specifications,
// or "person".
func (run *runner) answering() []string {
	if o := run.o.SetObserver; o != nil {
		return []string{o.Spec}
	}
	var a []string
	for _, o := range run.obs {
		a = append(a, o.Spec)
	}
	for _, o := range run.cueObs {
		a = append(a, o.Spec)
	}
	if len(a) == 0 {
		a = []string{person}
	}
	return a
}

// restoreObservers takes the observers of an interrupted run back: the
// same ones continue from their saved random states. Other observers (or
// a person instead of observers, or the reverse) are refused unless
// Options.SwitchObserver; then the new ones start afresh and switched is
// true.
func (run *runner) restoreObservers(st *state, statePath string) (switched bool, err error) {
	was := st.Answering
	if len(was) == 0 {
		// A state from before the observer was recorded.
		for _, b := range st.Observers {
			o, err := psych.RestoreObserver(b)
			if err != nil {
				return false, fmt.Errorf("experiment: %s: %w", statePath, err)
			}
			was = append(was, o.Spec)
		}
		if len(was) == 0 {
			was = []string{person}
		}
	}
	now := run.answering()
	if !slices.Equal(was, now) {
		if !run.o.SwitchObserver {
			return false, fmt.Errorf("experiment: %s was answered by %s, this run by %s: resume with the same observer, or allow the change (-switch-observer)",
				statePath, strings.Join(was, " + "), strings.Join(now, " + "))
		}
		return true, nil
	}
	if len(st.Observers) != len(run.obs) || len(st.CueObservers) != len(run.cueObs) {
		return false, fmt.Errorf("experiment: %s holds the states of %d observers and %d cue observers for %d and %d: it was damaged or edited",
			statePath, len(st.Observers), len(st.CueObservers), len(run.obs), len(run.cueObs))
	}
	// The saved observers must be the run's but for their random states:
	// the specifications compared above are kept beside the parameters
	// that answer.
	for i, b := range st.Observers {
		o, err := psych.RestoreObserver(b)
		if err == nil {
			err = o.Matches(run.obs[i])
		}
		if err != nil {
			return false, fmt.Errorf("experiment: %s: observer %d: %w", statePath, i, err)
		}
		run.obs[i] = o
	}
	for i, b := range st.CueObservers {
		o, err := psych.RestoreCueObserver(b)
		if err == nil {
			err = o.Matches(run.cueObs[i])
		}
		if err != nil {
			return false, fmt.Errorf("experiment: %s: cue observer %d: %w", statePath, i, err)
		}
		run.cueObs[i] = o
	}
	return false, nil
}

// readRows returns the header and the complete data rows of trials.csv,
// and the length of the file that holds them when a line was cut short
// by an interruption (-1 when none was): open truncates the file there
// once the run is known to resume, and leaves it as it is otherwise.
func (run *runner) readRows() (header []string, rows [][]string, keep int64, err error) {
	f, err := run.root.Open("trials.csv", os.O_RDONLY)
	if err != nil {
		return nil, nil, -1, err
	}
	defer f.Close()
	data, err := safefile.ReadAll(f, f.Name(), maxTrialsSize)
	if err != nil {
		return nil, nil, -1, err
	}
	return parseTrials(f.Name(), data)
}

// parseTrials parses a trials.csv's bytes as readRows returns them: a
// last line without its line break, cut short by an interruption or
// still being written by the run that owns the file, is left out, and
// keep is the length that holds the complete lines (-1 when all are).
func parseTrials(path string, data []byte) (header []string, rows [][]string, keep int64, err error) {
	keep = -1
	if i := bytesLastNewline(data); i+1 < len(data) {
		keep, data = int64(i+1), data[:i+1]
	}
	if len(data) == 0 {
		return nil, nil, keep, nil // killed before its header was written
	}
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil || len(recs) == 0 {
		return nil, nil, -1, fmt.Errorf("%s: not a trials table (%v)", path, err)
	}
	return recs[0], recs[1:], keep, nil
}

// appendTrials opens trials.csv for the resumed run's rows, first cutting
// it to keep bytes when readRows found a torn last line (keep >= 0): the
// line goes only once the run is known to resume.
func (run *runner) appendTrials(keep int64) error {
	f, err := run.root.Open("trials.csv", os.O_WRONLY|os.O_APPEND)
	if err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	if keep >= 0 {
		if err := f.Truncate(keep); err != nil {
			f.Close()
			return fmt.Errorf("experiment: %w", err)
		}
	}
	run.csv = f
	return nil
}

// setHeader sets the columns rows are written and read with.
func (run *runner) setHeader(h []string) {
	run.header = h
	run.col = make(map[string]int, len(h))
	for i, c := range h {
		run.col[c] = i
	}
}

// writeRow appends one CSV record to trials.csv and syncs it.
func (run *runner) writeRow(rec []string) error {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if err := w.Write(rec); err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	w.Flush()
	if _, err := run.csv.Write(b.Bytes()); err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	if err := run.csv.Sync(); err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	return nil
}

func bytesLastNewline(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '\n' {
			return i
		}
	}
	return -1
}

// replay re-applies a trial found in the CSV but not in the state: the
// procedure gives the same pending trial, the interval order and the
// observer draw come from the same random states, and the recorded
// response must agree with them.
func (run *runner) replay(row []string) error {
	if len(row) != len(run.header) {
		return fmt.Errorf("%d fields, the header %d", len(row), len(run.header))
	}
	get := func(c string) string { return row[run.col[c]] }
	t, err := run.proc.Next()
	if err != nil {
		return err
	}
	if got := get("x"); got != fmtFloat(t.X) {
		return fmt.Errorf("recorded stimulus %s, the procedure's pending trial is %s", got, fmtFloat(t.X))
	}
	test := run.testInterval()
	if got, want := get("test_interval"), strconv.Itoa(test+1); got != want {
		return fmt.Errorf("recorded test interval %s, the replayed draw %s", got, want)
	}
	var resp psych.Response
	if _, err := fmt.Sscan(get("response"), &resp); err != nil {
		return fmt.Errorf("response %q: %w", get("response"), err)
	}
	if o := run.observer(t.Stream); o != nil {
		if r := o.Respond(t.X); r != resp {
			return fmt.Errorf("recorded response %d, the observer's replayed draw %d", resp, r)
		}
	}
	if o := run.cueObserver(t.Stream); o != nil {
		var cues [2]float64
		for i := range cues {
			if cues[i], err = strconv.ParseFloat(get(fmt.Sprintf("i%d_cue", i+1)), 64); err != nil {
				return fmt.Errorf("interval %d cue: %w", i+1, err)
			}
		}
		r, _ := cueResponse(o, cues[:], test)
		if r != resp {
			return fmt.Errorf("recorded response %d, the cue observer's replayed draw %d", resp, r)
		}
	}
	if err := run.proc.Update(t, resp); err != nil {
		return err
	}
	run.done++
	return nil
}

func (run *runner) observer(stream int) *psych.Observer {
	switch {
	case len(run.obs) == 0:
		return nil
	case stream < len(run.obs):
		return run.obs[stream]
	}
	return run.obs[0]
}

func (run *runner) cueObserver(stream int) *psych.CueObserver {
	switch {
	case len(run.cueObs) == 0:
		return nil
	case stream < len(run.cueObs):
		return run.cueObs[stream]
	}
	return run.cueObs[0]
}

// simulated reports whether simulated observers answer.
func (run *runner) simulated() bool { return len(run.obs) > 0 || len(run.cueObs) > 0 }

// observerSpec is the observer column of a trial of the stream.
func (run *runner) observerSpec(stream int) string {
	if o := run.observer(stream); o != nil {
		return o.Spec
	}
	if o := run.cueObserver(stream); o != nil {
		return o.Spec
	}
	return person
}

// testInterval draws which interval holds the test stimulus.
func (run *runner) testInterval() int {
	if run.intervals == 1 {
		return 0
	}
	return int(run.rng.Uint64() & 1)
}

// saveState writes state.json atomically after a completed trial.
func (run *runner) saveState() error {
	st := state{Format: stateFormat, Version: 1, Experiment: run.sha, Subject: run.o.Subject, Completed: run.done, Answering: run.answering()}
	var err error
	if st.Procedure, err = run.proc.State(); err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	for _, o := range run.obs {
		b, err := o.State()
		if err != nil {
			return fmt.Errorf("experiment: %w", err)
		}
		st.Observers = append(st.Observers, b)
	}
	for _, o := range run.cueObs {
		b, err := o.State()
		if err != nil {
			return fmt.Errorf("experiment: %w", err)
		}
		st.CueObservers = append(st.CueObservers, b)
	}
	if st.RNG, err = run.rng.MarshalBinary(); err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	if err := run.root.WriteFile("state.json", b); err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	if err := run.root.Sync(); err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	return nil
}

// sidecar is sidecar.json: what a reader needs to know about the run.
type sidecar struct {
	Format     string      `json:"format"`
	Experiment *Experiment `json:"experiment"`
	File       string      `json:"file"`
	FileSHA256 string      `json:"file_sha256"`
	Fabric     fabricInfo  `json:"fabric"`
	// Fabrics are an identification's or a rating's fabrics, in
	// set.fabrics' order (Fabric is the first of them).
	Fabrics []fabricInfo `json:"fabrics,omitempty"`
	Subject string       `json:"subject"`
	// Observers lists who answered (observer specifications or
	// "person"), each from the trial it answered first.
	Observers []answerer `json:"observers"`
	// Cue is the cue of the dimension in trials.csv's i1_cue and i2_cue,
	// with its name, unit and Weber fraction.
	Cue *Cue `json:"cue"`
	// Traces names the folder of the intervals' tick-level records (""
	// when not kept) and its files' columns.
	Traces   *traceInfo        `json:"traces,omitempty"`
	Created  time.Time         `json:"created"`
	Software map[string]string `json:"software"`
	// DevicesFile and Calibrations are the rig's (rig.Config), with their
	// hashes: the devices file and the calibration files applied.
	DevicesFile  *rig.CalibrationFile  `json:"devices_file,omitempty"`
	Calibrations []rig.CalibrationFile `json:"calibrations,omitempty"`
}

type answerer struct {
	Spec      string `json:"spec"`
	FromTrial int    `json:"from_trial"`
}

type traceInfo struct {
	Folder  string `json:"folder"`
	Haptics string `json:"haptics"`
	Tactile string `json:"tactile"`
}

type fabricInfo struct {
	Name   string `json:"name"`
	File   string `json:"file"`
	SHA256 string `json:"sha256"`
}

// writeSidecar writes sidecar.json; on a resume with other observers it
// is rewritten with the observers so far (before, from the old sidecar)
// and the new ones from the next trial.
func (run *runner) writeSidecar(before []string) error {
	fab, err := run.fabricInfo(run.fab)
	if err != nil {
		return err
	}
	sc := sidecar{
		Format: "haptex-experiment-sidecar", Experiment: run.e, File: run.o.Path, FileSHA256: run.sha,
		Fabric: fab, Subject: run.o.Subject, Created: time.Now().UTC(), Software: software(), Cue: run.cue,
		DevicesFile: run.o.Rig.DevicesFile, Calibrations: run.o.Rig.Calibrations,
	}
	for _, f := range run.setFabrics {
		fi, err := run.fabricInfo(f)
		if err != nil {
			return err
		}
		sc.Fabrics = append(sc.Fabrics, fi)
	}
	if !run.o.NoTraces {
		sc.Traces = &traceInfo{Folder: "traces", Haptics: "NNNN-iK-haptics.csv.gz: " + haptics.TickCSVHeader(),
			Tactile: "NNNN-iK-tactile.csv.gz: per frame, per finger, 24 pins sent and delivered at 40 and 320 Hz [µm]; then the frame's seq and, per finger, what the array said of it: written, ack_seq, active, clipped, fault; last, per finger, delivered_seq: the frame the delivered amplitudes are of"}
	}
	if before != nil {
		var old sidecar
		if b, err := run.root.ReadFile("sidecar.json", maxStateSize); err == nil && json.Unmarshal(b, &old) == nil {
			sc.Observers, sc.Created = old.Observers, old.Created
		}
	}
	for _, a := range run.answering() {
		sc.Observers = append(sc.Observers, answerer{Spec: a, FromTrial: run.done + 1})
	}
	b, err := json.MarshalIndent(sc, "", "  ")
	if err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	if err := run.root.WriteFile("sidecar.json", b); err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	return nil
}

// fabricInfo names f, its file and the hash of its definition in the
// run's library.
func (run *runner) fabricInfo(f *kes.Fabric) (fabricInfo, error) {
	src, err := run.o.Library.Source(f.Name)
	if err != nil {
		return fabricInfo{}, fmt.Errorf("experiment: %w", err)
	}
	h := sha256.Sum256(src)
	return fabricInfo{Name: f.Name, File: f.File, SHA256: hex.EncodeToString(h[:])}, nil
}

// LoadFabric loads the fabric the experiment handles from l (the rig's
// default when the file names none); the error names the field.
func (e *Experiment) LoadFabric(l kes.Library) (*kes.Fabric, error) {
	name := e.Stimulus.Fabric
	if name == "" {
		name = rig.DefaultFabric
	}
	f, err := l.Load(name)
	if err != nil {
		return nil, fmt.Errorf("stimulus.fabric: %w", err)
	}
	return f, nil
}

func software() map[string]string { return buildinfo.Read().Map() }

// rigConfig is the rig configuration of an experiment: base with the
// experiment's fabric f, cloth resolution and grading, and the scene's
// defaults filled in (the motions are built on it). A motion with a bench
// of its own (flex's swatch) sets the cloth instead.
func rigConfig(e *Experiment, base rig.Config, f *kes.Fabric) (rig.Config, error) {
	return benchConfig(e, base, f, motions[e.Timing.Motion].bench)
}

// benchConfig is rigConfig with the cloth of bench (nil: the hanging
// fabric at the experiment's side and grading).
func benchConfig(e *Experiment, base rig.Config, f *kes.Fabric, bench func(*rig.Config)) (rig.Config, error) {
	cfg := base
	cfg.Fabric = f
	cfg.Duration = 0
	if cfg.Scene == (twin.Scene{}) {
		cfg.Scene = twin.DefaultScene()
	}
	if bench != nil {
		bench(&cfg)
		return cfg, nil
	}
	if e.Side > 0 {
		cfg.Sim.NodesU, cfg.Sim.NodesV = e.Side, e.Side
	}
	if e.Refine {
		cfg.Sim.Refine = rig.PinchRefinement(cfg.Scene, &cfg.Sim)
	}
	return cfg, nil
}

// startRig builds the rig and starts it: in virtual time with simulated
// observers, in real time with a person or with devices (which keep
// their own time).
func (run *runner) startRig(ctx context.Context) error {
	cfg, err := rigConfig(run.e, run.o.Rig, run.fab)
	if err != nil {
		return err
	}
	// The devices start where the motion does, and hold there until the
	// first interval plays it.
	motion := motions[run.e.Timing.Motion].script(cfg.Scene)
	cfg.Script = motion
	r, err := rig.New(cfg)
	if err != nil {
		return err
	}
	run.r = r
	run.stim = newStimulus(run.e, r, run.fab)
	run.motion = motion
	for i := range run.intervals {
		run.traces[i] = r.NewIntervalTrace(run.e.Timing.Interval)
	}
	if run.simulated() && cfg.OpenDevices == nil {
		s, err := r.Lockstep()
		if err != nil {
			return err
		}
		run.drive = &lockstepDriver{s: s}
	} else {
		run.drive = startRealtime(ctx, r)
	}
	// The arrays' limits are known once the rig has opened them; Run
	// stops the drive on an error.
	if err := run.e.withinLimits(r); err != nil {
		return err
	}
	return r.HoldMotion(motion)
}

// settle prepares the rig for the first trial of a run or of a resumed
// run, so that its first interval starts as every other one does: it runs
// the rig, the fingers held at the start of the motion, until it has
// settled (rig.Settled: the servo active, the fingers still, the cloth at
// rest for settleHold), then plays one interval of a handling motion that
// is not recorded. Every later interval follows one, on a cloth that has
// been handled; on a cloth never handled the release in the pinch motion
// pressed the index finger by up to half as much again (a 12 x 12 cloth).
func (run *runner) settle(ctx context.Context) error {
	announce := func() {}
	if !run.simulated() {
		announce = func() { fmt.Fprintf(run.o.Out, "  warm-up interval (not recorded) ...\n") }
	}
	if err := settleRig(ctx, run.r, run.drive, run.motion, run.e.Timing.Interval, announce); err != nil {
		return run.settleFailed(err)
	}
	return nil
}

// errUnsettled is settleRig's error when the rig did not settle in time.
var errUnsettled = errors.New("the rig did not settle")

// settleFailed is the error of a run whose rig did not settle before its
// next trial. On devices the fingers are the person's (or an emulator's
// scripted hand), and only they can let the cloth come to rest: the
// error says so.
func (run *runner) settleFailed(err error) error {
	if run.o.Rig.OpenDevices != nil && errors.Is(err, errUnsettled) {
		return fmt.Errorf("experiment: before trial %d: %w: the fingers must rest, off the cloth, until it does (haptex devices emulate: -script rest)", run.done+1, err)
	}
	return fmt.Errorf("experiment: before trial %d: %w", run.done+1, err)
}

// settleRig runs r through drive, the fingers held at the start of
// motion, until it has settled (rig.Settled: the servo active, the
// fingers still, the cloth at rest for settleHold), then plays one
// interval of motion that is not recorded (announce says so first). A
// stopped context stops it; the run can be resumed.
func settleRig(ctx context.Context, r *rig.Rig, drive driver, motion *twin.Script, interval time.Duration, announce func()) error {
	const step, limit = 50 * time.Millisecond, 10 * time.Second
	var err error
	for waited := time.Duration(0); ; waited += step {
		if waited >= limit {
			return fmt.Errorf("%w within %v: %w", errUnsettled, limit, err)
		}
		if werr := drive.wait(ctx, step); werr != nil {
			return fmt.Errorf("stopped (resume with the same command): %w", werr)
		}
		if err = r.Settled(settleHold); err == nil {
			break
		}
	}
	if motion.Duration() == 0 {
		return nil // a still hand handles nothing
	}
	announce()
	if err := r.BeginInterval(); err != nil {
		return err
	}
	if err := drive.wait(ctx, interval); err != nil {
		return fmt.Errorf("stopped (resume with the same command): %w", err)
	}
	_, err = r.EndInterval()
	return err
}

// settleHold is how long the rig must have been settled before a run's
// first trial: the servo's slowest filter and the enable ramp are over
// well within it.
const settleHold = 250 * time.Millisecond

// loop runs trials until the procedure is done.
func (run *runner) loop(ctx context.Context) error {
	e := run.e
	if !run.simulated() {
		if run.done == 0 && e.Instructions != "" {
			fmt.Fprintf(run.o.Out, "%s\n\n%s\n\n", e.Title, e.Instructions)
		}
		if err := run.term.start(ctx); err != nil {
			return run.stopped(err)
		}
	}
	for !run.proc.Done() {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("experiment: stopped after trial %d (resume with the same command): %w", run.done, err)
		}
		t, err := run.proc.Next()
		if errors.Is(err, psych.ErrDone) {
			break
		}
		if err != nil {
			return fmt.Errorf("experiment: %w", err)
		}
		if err := run.trial(ctx, t); err != nil {
			return err
		}
		if run.o.AfterTrial != nil {
			if err := run.o.AfterTrial(run.done); err != nil {
				return err
			}
		}
	}
	return nil
}

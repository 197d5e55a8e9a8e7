package experiment

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/kes"
	"github.com/haptex/haptex/calib/psych"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/sim"
	"github.com/haptex/haptex/tactile"
)

// SetObserver is a simulated subject of a set experiment. It perceives
// each property through the cue the devices delivered, with the
// log-normal noise of a person whose discrimination threshold is the
// cue's Weber fraction (times Noise), and:
//   - matches (identify): names the fabric whose cues, as it felt them
//     when it was shown each fabric first (familiarization), lie nearest
//     in units of that noise, so it confuses fabrics whose delivered cues
//     are close; with probability Lambda it answers at random;
//   - rates (rate): places a fabric on each scale by where its felt cue
//     lies between the set's smallest and largest familiarization cue,
//     rounded to the scale's points; scales without a delivered cue at
//     the midpoint with a noise of one point. Rating a real swatch, it
//     feels the swatch's KES value instead of a delivered cue;
//   - estimates (magnitude): answers Scale·cue^Exponent·exp(Sigma·N(0,1))
//     (psych.MagnitudeObserver).
type SetObserver struct {
	Spec   string
	Kind   SetKind
	Lambda float64
	Noise  float64
	// Exponent, Scale and Sigma are a magnitude estimator's.
	Exponent, Scale, Sigma float64
	Seed                   uint64
}

// ParseSetObserver reads a set observer's specification:
// match:lambda=L,noise=N,seed=S (identify), rate:noise=N,seed=S (rate) or
// magnitude:exponent=E,scale=K,sigma=S,seed=S (magnitude). Defaults:
// lambda 0.02, noise 1, exponent 1, scale 10, sigma 0.3, seed 1.
func ParseSetObserver(spec string) (*SetObserver, error) {
	kind, args, _ := strings.Cut(spec, ":")
	o := &SetObserver{Spec: spec, Lambda: 0.02, Noise: 1, Exponent: 1, Scale: 10, Sigma: 0.3, Seed: 1}
	switch kind {
	case "match":
		o.Kind = Identify
	case "rate":
		o.Kind = Rate
	case "magnitude":
		o.Kind = Magnitude
	default:
		return nil, fmt.Errorf("set observer %q: want match:..., rate:... or magnitude:...", spec)
	}
	allowed := map[SetKind][]string{Identify: {"lambda", "noise", "seed"}, Rate: {"noise", "seed"}, Magnitude: {"exponent", "scale", "sigma", "seed"}}[o.Kind]
	if args != "" {
		for _, kv := range strings.Split(args, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || !slices.Contains(allowed, k) {
				return nil, fmt.Errorf("set observer %q: %q, want one of %s as key=value", spec, kv, strings.Join(allowed, ", "))
			}
			if k == "seed" {
				s, err := strconv.ParseUint(v, 10, 64)
				if err != nil {
					return nil, fmt.Errorf("set observer %q: seed %q: %w", spec, v, err)
				}
				o.Seed = s
				continue
			}
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, fmt.Errorf("set observer %q: %s = %q, not a number", spec, k, v)
			}
			switch k {
			case "lambda":
				o.Lambda = f
			case "noise":
				o.Noise = f
			case "exponent":
				o.Exponent = f
			case "scale":
				o.Scale = f
			case "sigma":
				o.Sigma = f
			}
		}
	}
	if !(o.Lambda >= 0 && o.Lambda < 1) || !(o.Noise > 0 && o.Noise <= 100) || !(o.Exponent > 0 && o.Exponent <= 10) ||
		!(o.Scale > 0) || !(o.Sigma >= 0 && o.Sigma <= 5) {
		return nil, fmt.Errorf("set observer %q: want lambda in [0, 1), noise in (0, 100], exponent in (0, 10], scale > 0, sigma in [0, 5]", spec)
	}
	return o, nil
}

// setRun is a set experiment in progress.
type setRun struct {
	*runner
	set     *Set
	props   []Kind
	scripts []*twin.Script // per property
	benches []*setBench
	benchOf []int         // per property, its bench
	fabrics []*kes.Fabric // identify, rate: the set
	mats    []sim.Material
	order   []int // the trials' stimuli
	real    bool  // a rating of real swatches: no rig
	obs     *SetObserver
	// templates are the cues felt at familiarization, per stimulus and
	// property (ln of the cue; NaN where it could not be measured).
	templates [][]float64
}

// runSet runs (or resumes) a set experiment and writes its analysis.
func runSet(ctx context.Context, o Options) (*Result, error) {
	e := o.Experiment
	s := e.Set
	if len(o.Observers) > 0 || len(o.CueObservers) > 0 {
		return nil, errors.New("experiment: a set experiment is answered by a set observer (match:, rate:, magnitude:) or a person")
	}
	obs := o.SetObserver
	if obs != nil && obs.Kind != s.Kind {
		return nil, fmt.Errorf("experiment: observer %q answers a %s experiment, this one is %s", obs.Spec, obs.Kind, s.Kind)
	}
	if obs == nil && (o.In == nil || o.Out == nil) {
		return nil, errors.New("experiment: a run without a simulated observer needs a terminal (In and Out)")
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	sum := sha256.Sum256(o.Source)
	run := &setRun{runner: &runner{o: o, e: e, sha: hex.EncodeToString(sum[:])}, set: s, props: s.Properties, obs: obs,
		real: s.Kind == Rate && s.Condition == "real"}
	if s.Kind == Rate {
		// Both conditions of one subject live side by side.
		run.o.Subject = o.Subject + "-" + s.Condition
	}
	if run.real {
		// No rig handles a real swatch: no interval has a trace, and the
		// sidecar does not name a folder of them.
		run.o.NoTraces = true
	}
	if o.In != nil {
		run.term = newTerminal(o.In, o.Out)
	}
	if err := run.loadStimuli(); err != nil {
		return nil, err
	}
	cleanup, err := run.openDir()
	if err != nil {
		return nil, err
	}
	defer run.root.Close()
	resumed, err := run.openSet()
	if err == nil {
		defer run.csv.Close()
		if !run.real && run.done < len(run.order) {
			var groups []benchGroup
			groups, err = run.groupBenches()
			if err == nil {
				err = run.stimulusCheck(ctx)
			}
			if err == nil {
				err = run.startSetRig(ctx, groups)
			}
			if err == nil {
				err = run.familiarize(ctx)
				if err == nil {
					err = run.setLoop(ctx)
				}
			}
			for _, b := range run.benches {
				if ferr := run.finishDrive(b.drive); ferr != nil && err == nil {
					err = ferr
				}
			}
		} else if run.done < len(run.order) {
			err = run.setLoop(ctx)
		}
	}
	res, err := run.conclude(err, cleanup, resumed, run.analyseSet)
	if err != nil {
		return nil, err
	}
	return res, run.writeBIDS(run.setColumns())
}

// loadStimuli loads the set's fabrics (or the magnitude estimation's
// fabric) and their materials.
func (run *setRun) loadStimuli() error {
	e, s := run.e, run.set
	if s.Kind == Magnitude {
		f, err := e.LoadFabric(run.o.Library)
		if err != nil {
			return fmt.Errorf("experiment: %w", err)
		}
		run.fab = f
		return nil
	}
	for i, name := range s.Fabrics {
		f, err := run.o.Library.Load(name)
		if err != nil {
			return fmt.Errorf("experiment: set.fabrics[%d]: %w", i, err)
		}
		m, err := f.Material()
		if err != nil {
			return fmt.Errorf("experiment: set.fabrics[%d]: %w", i, err)
		}
		run.fabrics = append(run.fabrics, f)
		run.mats = append(run.mats, m)
	}
	run.fab, run.setFabrics = run.fabrics[0], run.fabrics
	return nil
}

// SetCheckIntervals is how many intervals the short form of a set's check
// (haptex experiment check -quick, and a set run's before its first
// trial) plays per fabric of an identification or rating, on the two of
// extreme KES value of each property (CheckOptions.Extremes).
const SetCheckIntervals = 2

// stimulusCheck runs the set's check before its first trial
// (checkBeforeTrials): for an identification or rating its short form,
// for a magnitude estimation the check of its levels.
func (run *setRun) stimulusCheck(ctx context.Context) error {
	fabSHA, err := run.setFabricsSHA256()
	if err != nil {
		return err
	}
	what := "each property's cue on the fabrics of extreme KES value"
	if run.set.Kind == Magnitude {
		what = fmt.Sprintf("%s over the levels", dimensions[run.e.Stimulus.Kind].cue.Name)
	}
	_, err = run.checkBeforeTrials(ctx, fabSHA, what, &SetReport{}, func(ctx context.Context) (checkRecord, error) {
		return CheckSet(ctx, CheckOptions{Experiment: run.e, Library: run.o.Library, Rig: run.o.Rig, Extremes: true}, SetCheckIntervals)
	})
	return err
}

// setFabricsSHA256 identifies the fabric definitions a set run presents:
// a magnitude estimation's fabric's SHA-256, or for an identification or
// rating the SHA-256 of its fabrics' SHA-256s in hexadecimal, one a line
// in the set's order.
func (run *setRun) setFabricsSHA256() (string, error) {
	if run.set.Kind == Magnitude {
		fi, err := run.fabricInfo(run.fab)
		return fi.SHA256, err
	}
	h := sha256.New()
	for _, f := range run.fabrics {
		fi, err := run.fabricInfo(f)
		if err != nil {
			return "", err
		}
		fmt.Fprintln(h, fi.SHA256)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// setHeader is a set experiment's trials.csv header.
func (run *setRun) setHeader() []string {
	s := run.set
	h := []string{"trial", "subject", "stimulus"}
	switch s.Kind {
	case Identify:
		h = append(h, "response", "correct")
	case Rate:
		h = append(h, "condition")
		for _, sc := range s.Scales {
			h = append(h, "rating_"+sc)
		}
	case Magnitude:
		h = append(h, "x", "unit", "kes_"+dimensions[run.e.Stimulus.Kind].kes.Name, "estimate")
	}
	for _, p := range run.props {
		h = append(h, "cue_"+string(p))
	}
	return append(h, "rt_s", "observer", "run_time_s", "wall_time")
}

// openSet starts a new run or resumes one: the completed trials are the
// rows of trials.csv, and the trial order, drawn from the seed, is the
// same again.
func (run *setRun) openSet() (resumed bool, err error) {
	e, o, s := run.e, run.o, run.set
	seed := e.Seed
	if seed == 0 {
		h := fnv.New64a()
		h.Write([]byte(o.Subject))
		seed = h.Sum64()
	}
	rng := rand.New(rand.NewPCG(seed, 0x6861707465780002))
	n := len(s.stimuli())
	for range s.Repeats {
		for i := range n {
			run.order = append(run.order, i)
		}
	}
	rng.Shuffle(len(run.order), func(i, j int) { run.order[i], run.order[j] = run.order[j], run.order[i] })
	run.header = run.setHeader()
	run.setHeaderCols(run.header)
	header, rows, keep, csvErr := run.readRows()
	if csvErr != nil && !errors.Is(csvErr, fs.ErrNotExist) {
		return false, fmt.Errorf("experiment: %w", csvErr)
	}
	var st setState
	data, err := run.root.ReadFile("state.json", maxStateSize)
	switch {
	case err == nil:
		if err := json.Unmarshal(data, &st); err != nil {
			return false, fmt.Errorf("experiment: %s: %w", run.root.Join("state.json"), err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return false, fmt.Errorf("experiment: %w", err)
	}
	if len(rows) == 0 {
		run.discard()
		run.fresh = true
		f, err := run.root.Create("trials.csv")
		if err != nil {
			return false, fmt.Errorf("experiment: %w", err)
		}
		run.csv = f
		if err := run.writeRow(run.header); err != nil {
			return false, err
		}
		if err := run.writeSidecar(nil); err != nil {
			return false, err
		}
		return false, run.saveSetState()
	}
	if st.Format != setStateFormat || st.Experiment != run.sha || st.Subject != o.Subject {
		return false, fmt.Errorf("experiment: %s belongs to another experiment file or subject (the file changed since the run started?)", run.root.Join("state.json"))
	}
	if !slices.Equal(header, run.header) {
		return false, fmt.Errorf("experiment: %s has other columns than this version writes: it cannot be resumed by it", run.root.Join("trials.csv"))
	}
	if now := run.answeringSet(); st.Answering != now && !o.SwitchObserver {
		return false, fmt.Errorf("experiment: %s was answered by %s, this run by %s: resume with the same observer, or allow the change (-switch-observer)",
			run.root.Join("state.json"), st.Answering, now)
	}
	if len(rows) > len(run.order) {
		return false, fmt.Errorf("experiment: %s has %d trials, the experiment %d", run.root.Join("trials.csv"), len(rows), len(run.order))
	}
	stim := s.stimuli()
	for i, r := range rows {
		if len(r) != len(run.header) || r[run.col["stimulus"]] != stim[run.order[i]] {
			return false, fmt.Errorf("experiment: %s: trial %d is not the one this experiment's order gives (%s): the files do not belong together", run.root.Join("trials.csv"), i+1, stim[run.order[i]])
		}
	}
	run.done = len(rows)
	if err := run.appendTrials(keep); err != nil {
		return false, err
	}
	if run.done < len(run.order) {
		fmt.Fprintf(run.o.Out, "resuming %s for %s after trial %d\n", e.Name, o.Subject, run.done)
	}
	return true, run.saveSetState()
}

// setState is a set run's state.json.
type setState struct {
	Format     string `json:"format"`
	Experiment string `json:"experiment_sha256"`
	Subject    string `json:"subject"`
	Completed  int    `json:"completed"`
	Answering  string `json:"answering"`
}

const setStateFormat = "haptex-set-state"

func (run *setRun) answeringSet() string {
	if run.obs != nil {
		return run.obs.Spec
	}
	return person
}

func (run *setRun) saveSetState() error {
	b, err := json.MarshalIndent(setState{Format: setStateFormat, Experiment: run.sha, Subject: run.o.Subject, Completed: run.done, Answering: run.answeringSet()}, "", "  ")
	if err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	if err := run.root.WriteFile("state.json", b); err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	return nil
}

// setHeaderCols sets the column index of the runner's row reader.
func (run *setRun) setHeaderCols(h []string) {
	run.runner.setHeader(h)
}

// setBench is one of a set run's rigs: the cloth some of its properties'
// motions handle (the hanging fabric; flex's clamped swatch).
type setBench struct {
	r        *rig.Rig
	drive    driver
	stim     *stimulus
	trace    *rig.IntervalTrace
	surfaces []*tactile.Surface // identify, rate: per fabric, on this cloth
}

// benchGroup is a bench and the properties whose motions it plays.
type benchGroup struct {
	bench func(*rig.Config)
	props []int
}

// groupBenches sorts the properties onto the benches their motions need
// (most handle the hanging fabric, flex a swatch of its own), sets
// benchOf, and refuses more than one bench on devices, which render one
// cloth: before the stimulus check, so that a refusal comes at once.
func (run *setRun) groupBenches() ([]benchGroup, error) {
	var groups []benchGroup
	keys := map[string]int{}
	for k, p := range run.props {
		name := run.e.motionOf(p)
		key := ""
		if motions[name].bench != nil {
			key = name
		}
		g, ok := keys[key]
		if !ok {
			g = len(groups)
			keys[key] = g
			groups = append(groups, benchGroup{bench: motions[name].bench})
		}
		run.benchOf = append(run.benchOf, g)
		groups[g].props = append(groups[g].props, k)
	}
	if len(groups) > 1 && run.o.Rig.OpenDevices != nil {
		return nil, fmt.Errorf("experiment: set.properties: %s's motion handles a clamped swatch beside the hanging fabric, and one set of devices renders one of them: run %s as an experiment of its own on the devices", run.props[groups[1].props[0]], run.props[groups[1].props[0]])
	}
	return groups, nil
}

// startSetRig builds a rig per bench (groupBenches), on the first
// stimulus's fabric, and starts each, in virtual time with a simulated
// observer. A bench stands still while another's motion plays.
func (run *setRun) startSetRig(ctx context.Context, groups []benchGroup) error {
	run.scripts = make([]*twin.Script, len(run.props))
	for _, g := range groups {
		cfg, err := benchConfig(run.e, run.o.Rig, run.fab, g.bench)
		if err != nil {
			return err
		}
		var ss []*twin.Script
		for _, k := range g.props {
			run.scripts[k] = motions[run.e.motionOf(run.props[k])].script(cfg.Scene)
			ss = append(ss, run.scripts[k])
		}
		cfg.Script = ss[0]
		r, err := rig.New(cfg)
		if err != nil {
			return err
		}
		b := &setBench{r: r, stim: newStimulus(run.e, r, run.fab), trace: r.NewIntervalTrace(maxScriptLength(ss))}
		if run.set.Kind != Magnitude {
			rc := r.Config()
			for i, f := range run.fabrics {
				sp, err := f.SurfaceParams(rc.Sim.Width, rc.Sim.Height)
				if err != nil {
					return fmt.Errorf("experiment: set.fabrics[%d]: tactile surface: %w", i, err)
				}
				surf, err := tactile.NewSurface(sp, 1)
				if err != nil {
					return fmt.Errorf("experiment: set.fabrics[%d]: tactile surface: %w", i, err)
				}
				b.surfaces = append(b.surfaces, surf)
			}
		}
		if run.obs != nil && cfg.OpenDevices == nil {
			s, err := r.Lockstep()
			if err != nil {
				return err
			}
			b.drive = &lockstepDriver{s: s}
		} else {
			b.drive = startRealtime(ctx, r)
		}
		run.benches = append(run.benches, b)
		if err := r.HoldMotion(ss[0]); err != nil {
			return err
		}
		if err := settleRig(ctx, r, b.drive, ss[0], ss[0].Duration(), func() {
			if run.obs == nil {
				fmt.Fprintf(run.o.Out, "  warm-up interval (not recorded) ...\n")
			}
		}); err != nil {
			return run.settleFailed(err)
		}
	}
	run.r, run.drive, run.stim = run.benches[0].r, run.benches[0].drive, run.benches[0].stim
	return nil
}

func maxScriptLength(ss []*twin.Script) time.Duration {
	var d time.Duration
	for _, s := range ss {
		d = max(d, s.Duration())
	}
	return d
}

// present renders stimulus i and plays one interval per property; it
// returns the cue each delivered (NaN where it could not be measured).
// In a trial (trial from 1; 0 while the fabrics are shown by name) each
// interval's trace is written under traces/ as the trial's interval K,
// K the property's place in set.properties, unless Options.NoTraces.
func (run *setRun) present(ctx context.Context, i, trial int) ([]float64, error) {
	for attempt := 1; ; attempt++ {
		cues, why, err := run.presentOnce(ctx, i, trial)
		if err != nil || why == "" {
			return cues, err
		}
		what := fmt.Sprintf("trial %d", trial)
		if trial == 0 {
			what = fmt.Sprintf("fabric %q shown by name", run.set.Fabrics[i])
		}
		if err := run.again(ctx, what, attempt, why); err != nil {
			return nil, err
		}
	}
}

// presentOnce is one presentation of present: the cues, and what the
// devices did not deliver of it (undelivered; "" when nothing).
func (run *setRun) presentOnce(ctx context.Context, i, trial int) ([]float64, string, error) {
	e := run.e
	for _, b := range run.benches {
		if run.set.Kind == Magnitude {
			if err := b.stim.set(b.r, run.set.Levels[i], 0); err != nil {
				return nil, "", err
			}
			continue
		}
		if err := b.r.SetMaterial(run.mats[i], sim.MaterialRamp); err != nil {
			return nil, "", err
		}
		if err := b.r.SetSurface(b.surfaces[i]); err != nil {
			return nil, "", err
		}
	}
	cues := make([]float64, len(run.props))
	stats := make([]rig.IntervalStats, len(run.props))
	for k, p := range run.props {
		b, script := run.benches[run.benchOf[k]], run.scripts[k]
		if err := b.r.HoldMotion(script); err != nil {
			return nil, "", err
		}
		if err := b.drive.wait(ctx, e.Timing.Gap); err != nil {
			return nil, "", err
		}
		if run.obs == nil {
			fmt.Fprintf(run.o.Out, "  %s ...\n", motions[e.motionOf(p)].doc)
		}
		if err := b.r.BeginTracedInterval(b.trace); err != nil {
			return nil, "", err
		}
		if err := b.drive.wait(ctx, script.Duration()); err != nil {
			return nil, "", err
		}
		ch, err := b.r.EndInterval()
		if err != nil {
			return nil, "", err
		}
		if err := b.drive.wait(ctx, 50*time.Millisecond); err != nil {
			return nil, "", err
		}
		select {
		case stats[k] = <-ch:
		case <-time.After(5 * time.Second):
			return nil, "", errors.New("experiment: the rig's loops did not report the interval (is the rig running?)")
		}
		cues[k], _ = measureCue(dimensions[p].cue, b.trace, script)
		if trial > 0 && !run.o.NoTraces {
			if err := run.writeTrace(trial, k+1, b.trace); err != nil {
				return nil, "", err
			}
		}
	}
	return cues, undelivered(stats, func(k int) string { return string(run.props[k]) + "'s interval" }, allDevices), nil
}

// familiarize shows each fabric of an identification or rating once,
// named, before the trials: a person learns them (as they handle the
// real swatches), a simulated observer keeps the cues it felt.
func (run *setRun) familiarize(ctx context.Context) error {
	s := run.set
	if s.Kind == Magnitude {
		return nil
	}
	if run.obs == nil {
		fmt.Fprintf(run.o.Out, "%s\n\n%s\n\nFirst, each fabric once, by name.\n", run.e.Title, run.e.Instructions)
	}
	for i, name := range s.Fabrics {
		if run.obs == nil {
			fmt.Fprintf(run.o.Out, "fabric %q:\n", name)
		}
		if err := run.drive.wait(ctx, run.e.Timing.ITI); err != nil {
			return run.stopped(err)
		}
		cues, err := run.present(ctx, i, 0)
		if err != nil {
			return run.stopped(err)
		}
		t := make([]float64, len(cues))
		for k, c := range cues {
			t[k] = logCue(c)
		}
		run.templates = append(run.templates, t)
	}
	return nil
}

// logCue is ln(c), NaN for a cue that is not positive.
func logCue(c float64) float64 {
	if !(c > 0) {
		return math.NaN()
	}
	return math.Log(c)
}

// setLoop runs the remaining trials.
func (run *setRun) setLoop(ctx context.Context) error {
	s := run.set
	stim := s.stimuli()
	if run.obs == nil {
		if run.real {
			fmt.Fprintf(run.o.Out, "%s\n\n%s\n\n", run.e.Title, run.e.Instructions)
		}
		if err := run.term.start(ctx); err != nil {
			return run.stopped(err)
		}
	}
	for run.done < len(run.order) {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("experiment: stopped after trial %d (resume with the same command): %w", run.done, err)
		}
		i := run.order[run.done]
		var cues []float64
		if run.real {
			if run.obs == nil {
				fmt.Fprintf(run.o.Out, "trial %d of %d: the real swatch %q\n", run.done+1, len(run.order), stim[i])
			}
			cues = make([]float64, len(run.props))
			for k, p := range run.props {
				// What a real swatch has: its KES value.
				v, err := dimensions[p].kes.at(run.fabrics[i], 1)
				if err != nil {
					return err
				}
				cues[k] = v
			}
		} else {
			if err := run.drive.wait(ctx, run.e.Timing.ITI); err != nil {
				return run.stopped(err)
			}
			if run.obs == nil {
				fmt.Fprintf(run.o.Out, "trial %d of %d\n", run.done+1, len(run.order))
			}
			var err error
			if cues, err = run.present(ctx, i, run.done+1); err != nil {
				return run.stopped(err)
			}
		}
		answer, rt, err := run.respondSet(ctx, i, cues)
		if err != nil {
			return run.stopped(err)
		}
		row := []string{strconv.Itoa(run.done + 1), run.o.Subject, stim[i]}
		row = append(row, answer...)
		for _, c := range cues {
			row = append(row, fmtFloat(c))
		}
		now := 0.0
		if run.drive != nil {
			now = run.drive.now().Seconds()
		}
		row = append(row, fmtFloat(rt), run.answeringSet(), fmtFloat(now), time.Now().UTC().Format(time.RFC3339Nano))
		if err := run.writeRow(row); err != nil {
			return err
		}
		run.done++
		if err := run.saveSetState(); err != nil {
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

// respondSet takes trial's answer on stimulus i, whose cues were
// delivered: the columns of trials.csv between the stimulus and the cues,
// and the response time [s] (NaN for a simulated observer).
func (run *setRun) respondSet(ctx context.Context, i int, cues []float64) ([]string, float64, error) {
	s := run.set
	var rng *rand.Rand
	if o := run.obs; o != nil {
		// Each trial draws from its own stream: a resumed run answers
		// its remaining trials as an uninterrupted one would.
		rng = rand.New(rand.NewPCG(o.Seed, uint64(run.done)+1))
	}
	switch s.Kind {
	case Identify:
		var resp string
		rt := math.NaN()
		if rng != nil {
			resp = s.Responses[run.match(rng, cues)]
		} else {
			var err error
			if resp, rt, err = run.askName(ctx); err != nil {
				return nil, 0, err
			}
		}
		return []string{resp, boolCol(resp == s.Fabrics[i])}, rt, nil
	case Rate:
		out := []string{s.Condition}
		rt := math.NaN()
		start := time.Now()
		for _, sc := range s.Scales {
			var v int
			if rng != nil {
				v = run.rate(rng, sc, cues)
			} else {
				var err error
				if v, err = run.askRating(ctx, sc); err != nil {
					return nil, 0, err
				}
			}
			out = append(out, strconv.Itoa(v))
		}
		if rng == nil {
			rt = time.Since(start).Seconds()
		}
		return out, rt, nil
	}
	x := s.Levels[i]
	l, _, err := KESLevelOf(run.e, run.fab, x)
	if err != nil {
		return nil, 0, err
	}
	var m, rt float64
	if o := run.obs; o != nil {
		mo, err := psych.NewMagnitudeObserver(o.Exponent, o.Scale, o.Sigma, rng.Uint64())
		if err != nil {
			return nil, 0, fmt.Errorf("experiment: %w", err)
		}
		m, rt = mo.Respond(cues[0]), math.NaN()
	} else if m, rt, err = run.askNumber(ctx); err != nil {
		return nil, 0, err
	}
	return []string{fmtFloat(x), run.e.Stimulus.Unit, fmtFloat(l.Test), fmtFloat(m)}, rt, nil
}

// felt is the simulated observer's percept of the cues: ln(cue) with
// noise, per property (NaN where the cue is missing).
func (run *setRun) felt(rng *rand.Rand, cues []float64) []float64 {
	f := make([]float64, len(cues))
	for k, c := range cues {
		f[k] = logCue(c) + run.obs.Noise*perceptNoise(dimensions[run.props[k]].cue.Weber)*rng.NormFloat64()
	}
	return f
}

// match is the matching observer's answer: the index of the response
// whose fabric's familiarization cues lie nearest to what it felt.
func (run *setRun) match(rng *rand.Rand, cues []float64) int {
	s := run.set
	f := run.felt(rng, cues)
	if rng.Float64() < run.obs.Lambda {
		return rng.IntN(len(s.Responses))
	}
	best, bestD := 0, math.Inf(1)
	for j, t := range run.templates {
		var d float64
		for k := range f {
			if sd := run.obs.Noise * perceptNoise(dimensions[run.props[k]].cue.Weber); !math.IsNaN(f[k]) && !math.IsNaN(t[k]) {
				z := (f[k] - t[k]) / sd
				d += z * z
			}
		}
		if d < bestD {
			best, bestD = j, d
		}
	}
	if r := slices.Index(s.Responses, s.Fabrics[best]); r >= 0 {
		return r
	}
	return rng.IntN(len(s.Responses))
}

// rate is the simulated rater's answer on scale sc.
func (run *setRun) rate(rng *rand.Rand, sc string, cues []float64) int {
	s := run.set
	mid := float64(s.Points+1) / 2
	k := slices.Index(run.props, SemanticScales[sc])
	clamp := func(v float64) int { return int(math.Round(math.Max(1, math.Min(float64(s.Points), v)))) }
	if k < 0 {
		return clamp(mid + rng.NormFloat64())
	}
	// The scale's ends: the smallest and largest value of the set, felt
	// at familiarization (a rendered set) or known (real swatches: the KES
	// value, whose sign turns where it falls as the property grows, EMT).
	sign := 1.0
	if q := dimensions[run.props[k]].kes; run.real && q.Inverse {
		sign = -1
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for j := range s.Fabrics {
		var v float64
		if run.real {
			q, _ := dimensions[run.props[k]].kes.at(run.fabrics[j], 1)
			v = sign * logCue(q)
		} else {
			v = run.templates[j][k]
		}
		if !math.IsNaN(v) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	f := sign*logCue(cues[k]) + run.obs.Noise*perceptNoise(dimensions[run.props[k]].cue.Weber)*rng.NormFloat64()
	if math.IsNaN(f) || !(hi > lo) {
		return clamp(mid + rng.NormFloat64())
	}
	return clamp(1 + float64(s.Points-1)*(f-lo)/(hi-lo))
}

// askName asks a person which fabric it was.
func (run *setRun) askName(ctx context.Context) (string, float64, error) {
	s := run.set
	var list []string
	for i, r := range s.Responses {
		list = append(list, fmt.Sprintf("%d %s", i+1, r))
	}
	for {
		open := run.term.openWindow() // before the question: see terminal.ask
		fmt.Fprintf(run.o.Out, "Which fabric was it? [%s] ", strings.Join(list, ", "))
		line, err := run.term.readLine(ctx, open)
		if err != nil {
			return "", 0, fmt.Errorf("reading the response: %w", err)
		}
		rt := time.Since(open).Seconds()
		a := strings.TrimSpace(line)
		if n, err := strconv.Atoi(a); err == nil && n >= 1 && n <= len(s.Responses) {
			return s.Responses[n-1], rt, nil
		}
		if slices.Contains(s.Responses, a) {
			return a, rt, nil
		}
		fmt.Fprintf(run.o.Out, "please answer with a number 1..%d or a name\n", len(s.Responses))
	}
}

// askRating asks a person for a rating on scale sc.
func (run *setRun) askRating(ctx context.Context, sc string) (int, error) {
	left, right, _ := strings.Cut(sc, "-")
	for {
		open := run.term.openWindow() // before the question: see terminal.ask
		fmt.Fprintf(run.o.Out, "%s 1 ... %d %s: ", left, run.set.Points, right)
		line, err := run.term.readLine(ctx, open)
		if err != nil {
			return 0, fmt.Errorf("reading the rating: %w", err)
		}
		if n, err := strconv.Atoi(strings.TrimSpace(line)); err == nil && n >= 1 && n <= run.set.Points {
			return n, nil
		}
		fmt.Fprintf(run.o.Out, "please answer with a whole number 1..%d\n", run.set.Points)
	}
}

// askNumber asks a person for a magnitude estimate.
func (run *setRun) askNumber(ctx context.Context) (float64, float64, error) {
	for {
		open := run.term.openWindow() // before the question: see terminal.ask
		fmt.Fprintf(run.o.Out, "%s ", run.e.Stimulus.Question)
		line, err := run.term.readLine(ctx, open)
		if err != nil {
			return 0, 0, fmt.Errorf("reading the estimate: %w", err)
		}
		rt := time.Since(open).Seconds()
		v, err := strconv.ParseFloat(strings.TrimSpace(line), 64)
		if err == nil && v >= 0 && v < 1e9 {
			return v, rt, nil
		}
		fmt.Fprintln(run.o.Out, "please answer with a number, 0 or more")
	}
}

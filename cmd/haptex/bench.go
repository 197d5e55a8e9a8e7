package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/app/rigbench"
	"github.com/haptex/haptex/haptics/servobench"
	"github.com/haptex/haptex/internal/buildinfo"
	"github.com/haptex/haptex/internal/statebuf/statebufbench"
	"github.com/haptex/haptex/render"
	"github.com/haptex/haptex/render/renderbench"
	"github.com/haptex/haptex/sim"
	"github.com/haptex/haptex/sim/simbench"
	"github.com/haptex/haptex/tactile/tactilebench"
)

// benches maps a bench name to its runner. Every runner returns a value that
// marshals to a JSON object; the command adds "go" and "cpus".
var benches = map[string]func(ctx context.Context, o benchOpts) (any, error){
	"loop": func(ctx context.Context, o benchOpts) (any, error) {
		return rigbench.Loop(ctx, rigbench.LoopConfig{Duration: o.duration,
			Priority: o.priority, NormalPriority: o.priority <= 0, Standby: o.standby, NoStandby: o.standby <= 0,
			IdleSleep: o.idleSleep, Baseline: o.baseline, Logf: o.logf})
	},
	"statebuf": func(context.Context, benchOpts) (any, error) { r := statebufbench.Bench(); return &r, nil },
	"control":  benchControl,
	"devices":  benchDevices,
	"sim": func(context.Context, benchOpts) (any, error) {
		r, err := simbench.Bench(simbench.Options{})
		return &r, err
	},
	"tactile": func(context.Context, benchOpts) (any, error) {
		r, err := tactilebench.Bench(4000)
		return &r, err
	},
	"render": benchRender,
	"lockstep": func(ctx context.Context, o benchOpts) (any, error) {
		return rigbench.Lockstep(ctx, o.duration, lockstepRuns)
	},
}

// benchControl measures the servo in its lab (servobench) and the
// contact tracking on the showcase, run in lockstep on the simulated
// exoskeletons: the figures are properties of the code.
func benchControl(_ context.Context, o benchOpts) (any, error) {
	res, err := servobench.Bench(servobench.Options{})
	if err != nil {
		return nil, err
	}
	r, err := rig.New(rig.Config{Duration: showcaseDuration})
	if err != nil {
		return nil, err
	}
	sum, err := r.RunLockstep()
	if err != nil {
		return nil, err
	}
	res.ContactTracking = sum.ContactTracking
	if ct := sum.ContactTracking; ct != nil {
		res.ZWidth.Asked = append(res.ZWidth.Asked, servobench.AskedRange{Label: "the showcase asks", MaxNpm: max(ct.MaxStiffNpm[0], ct.MaxStiffNpm[1])})
	}
	rp, err := servobench.RandomPinches()
	if err != nil {
		return nil, err
	}
	res.ZWidth.Asked = append(res.ZWidth.Asked,
		servobench.AskedRange{Label: fmt.Sprintf("%d random pinch trajectories ask (99th percentile)", rp.Trajectories), MaxNpm: rp.P99Npm},
		servobench.AskedRange{Label: fmt.Sprintf("%d random pinch trajectories ask (stiffest)", rp.Trajectories), MaxNpm: rp.LargestNpm})
	if o.chart != "" {
		if err := servobench.ZWidthChart(res.ZWidth, o.chart); err != nil {
			return nil, err
		}
		res.ZWidth.Chart = o.chart
	}
	return &res, nil
}

// showcaseDuration covers the showcase handling script and its release.
const showcaseDuration = 12 * time.Second

// lockstepRuns is how many times the lockstep bench runs the session: its
// speed varies from run to run on a shared machine, so it reports the
// median and the best.
const lockstepRuns = 3

// benchRender draws the showcase at 64 x 64 nodes and 1280 x 720 offscreen:
// the state 1 s into the handling script, as the rig computed it, seen as
// the view first shows it (the finger pair) and then the whole stand.
func benchRender(_ context.Context, o benchOpts) (any, error) {
	stop, err := ensureDisplay()
	if errors.Is(err, errNoXvfb) {
		return map[string]any{"skipped": err.Error()}, nil
	}
	if err != nil {
		return nil, err
	}
	defer stop()
	cfg := rig.Config{Duration: time.Second, Sim: sim.Config{NodesU: 64, NodesV: 64}}
	r, err := rig.New(cfg)
	if err != nil {
		return nil, err
	}
	v := r.NewView()
	if _, err := r.RunLockstep(); err != nil {
		return nil, err
	}
	rc, err := renderConfig(v)
	if err != nil {
		return nil, err
	}
	rc.Width, rc.Height = 1280, 720
	var frame render.Frame
	(&frameSource{v: v}).fill(&frame)
	rc.Camera = render.DefaultCamera().AimedAt(&frame) // what the view shows
	res, err := renderbench.Bench(rc, &frame, o.frames)
	if err != nil {
		return nil, err
	}
	// The whole stand, as the view showed it by default before it framed
	// the hand: a baseline from the same minutes.
	rc.Camera = render.StandCamera()
	stand, err := renderbench.Bench(rc, &frame, o.frames)
	return &renderResult{Result: res, Stand: &stand}, err
}

// renderResult is the render bench's JSON: the default view (the finger
// pair) and, under "stand_view", the whole stand.
type renderResult struct {
	renderbench.Result
	Stand *renderbench.Result `json:"stand_view"`
}

type benchOpts struct {
	chart     string
	frames    int
	duration  time.Duration
	priority  int
	standby   time.Duration
	idleSleep bool
	baseline  time.Duration
	logf      func(string, ...any)
}

// benchSummaries say what each bench measures, for its usage line.
var benchSummaries = map[string]string{
	"loop":     "the 1 kHz haptics loop in real time beside the cloth's load (-duration)",
	"statebuf": "the lock-free latest-value buffer: publish and read",
	"control":  "the force servo on the simulated finger: transparency, step, margins, tick time",
	"devices":  "2 emulated exoskeletons and 2 tactile arrays on pseudo-terminals at 1 kHz: every frame intact, command to state (-duration)",
	"sim":      "the cloth's step at 24, 32 and 64 nodes a side",
	"tactile":  "the tactile renderer's frame, both fingers",
	"render":   "the view: frames a second offscreen at 1280 x 720 (its own Xvfb when there is no display)",
	"lockstep": "a lockstep session's speed against real time, and its one-core baseline",
}

func init() {
	c := &command{name: "bench", summary: "measure a part: " + strings.Join(benchNames(), " | ") + " | all", run: runBench}
	for _, n := range benchNames() {
		c.subs = append(c.subs, subcommand{name: n, summary: benchSummaries[n]})
	}
	c.subs = append(c.subs, subcommand{name: "all", summary: "every bench in turn; one JSON object with each result, its goals and whether they were met"})
	register(c)
}

func benchNames() []string {
	var n []string
	for k := range benches {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

const benchNotes = `Output: without -json, a table of every figure that has a goal in the README
(figure, measured value, goal, met); with -json, one JSON object: the bench's
own figures plus "software" (version and commit), "timestamp", "host", and
"goals" (one entry per goal: figure, value, op, goal, unit, goal_met).
bench all prints {"bench": "all", ..., "results": {NAME: ...}}; a bench that
fails or cannot run carries "error" or "skipped" and the others still run.`

func runBench(args []string) error {
	fs := subFlags("bench", args)
	flagNotes[fs] = benchNotes
	duration := fs.Duration("duration", 10*time.Second, "how long real-time benches run, and the virtual time of each lockstep run")
	prio := fs.Int("priority", 80, "SCHED_FIFO priority of the real-time loop (0: normal scheduling)")
	standby := standbyFlag(fs)
	idleSleep := idleSleepFlag(fs)
	baseline := fs.Duration("baseline", 0, "loop bench: afterwards, run the same loop beside the same load with an empty tick for this long, to tell late ticks the tick causes from the machine's own (0: skip)")
	asJSON := fs.Bool("json", false, "print one JSON object on stdout")
	frames := fs.Int("frames", 600, "frames the render bench draws")
	chart := fs.String("chart", "", "control bench: write the Z-width chart to this .png or .svg file (and the other format beside it)")
	if len(args) == 0 {
		fs.Usage()
		return fmt.Errorf("%w: which bench?", errUsage)
	}
	name := args[0]
	if err := parse(fs, args[1:], 0); err != nil {
		return err
	}
	if name != "all" && benches[name] == nil {
		return fmt.Errorf("%w: unknown bench %q (have %s, all)", errUsage, name, strings.Join(benchNames(), ", "))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	o := benchOpts{chart: *chart, frames: *frames, duration: *duration, priority: *prio, standby: *standby, idleSleep: *idleSleep, baseline: *baseline, logf: stderrf}
	names := []string{name}
	if name == "all" {
		names = benchNames()
	}
	results := map[string]any{}
	var failed []string
	for i, n := range names {
		if name == "all" {
			fmt.Fprintf(os.Stderr, "bench %d/%d: %s (%s)...\n", i+1, len(names), n, benchSummaries[n])
		}
		t0 := time.Now()
		obj, err := runOneBench(ctx, n, o)
		if err != nil {
			if name != "all" {
				return fmt.Errorf("%s: %w", n, err)
			}
			failed = append(failed, n)
			fmt.Fprintf(os.Stderr, "bench %d/%d: %s failed after %.1f s: %v\n", i+1, len(names), n, time.Since(t0).Seconds(), err)
		} else if name == "all" {
			state := "done"
			if r, ok := obj["skipped"].(string); ok {
				state = "skipped: " + r
			}
			fmt.Fprintf(os.Stderr, "bench %d/%d: %s %s in %.1f s\n", i+1, len(names), n, state, time.Since(t0).Seconds())
		}
		results[n] = obj
		if ctx.Err() != nil {
			break
		}
	}
	var out map[string]any
	if name != "all" {
		out = results[name].(map[string]any)
	} else {
		out = map[string]any{"bench": "all", "results": results}
		addProvenance(out)
		met, total := 0, 0
		for _, r := range results {
			for _, g := range goalsOf(r) {
				total++
				if g.Met != nil && *g.Met {
					met++
				}
			}
		}
		out["goals_met"], out["goals_total"] = met, total
		if len(failed) > 0 {
			out["failed"] = failed
		}
	}
	if *asJSON {
		if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
			return err
		}
	} else {
		printBenchTable(os.Stdout, names, results)
	}
	if len(failed) > 0 {
		return fmt.Errorf("%s failed (see \"error\" in its result)", strings.Join(failed, ", "))
	}
	return ctx.Err()
}

// runOneBench runs one bench and returns its result as a JSON object with
// the common fields and its goals; a bench that fails still gives an
// object, with "error".
func runOneBench(ctx context.Context, n string, o benchOpts) (map[string]any, error) {
	res, err := benches[n](ctx, o)
	var obj map[string]any
	if err == nil {
		obj, err = withCommonFields(n, res)
	}
	if err != nil {
		obj = map[string]any{"bench": n, "error": err.Error()}
		addProvenance(obj)
		return obj, err
	}
	if _, skipped := obj["skipped"]; !skipped {
		obj["goals"] = evalGoals(n, obj)
	}
	return obj, nil
}

// withCommonFields turns a bench result into a JSON object carrying the
// fields every bench reports: "bench", "go", "cpus", and the provenance
// (addProvenance).
func withCommonFields(name string, res any) (map[string]any, error) {
	b, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	var obj map[string]any
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, fmt.Errorf("bench %s: result is not a JSON object: %w", name, err)
	}
	obj["bench"] = name
	addProvenance(obj)
	return obj, nil
}

// addProvenance adds what every bench JSON says about where it ran:
// "software" (haptex's version and commit), "timestamp" (UTC, RFC 3339),
// "host" (hostInfo), "go" and "cpus".
func addProvenance(obj map[string]any) {
	in := buildinfo.Read()
	obj["software"] = in.Map()
	obj["timestamp"] = time.Now().UTC().Format(time.RFC3339)
	obj["host"] = hostInfo()
	obj["go"] = runtime.Version()
	obj["cpus"] = runtime.NumCPU()
}

func printJSON(v any) {
	b, _ := json.MarshalIndent(v, "", "  ")
	fmt.Println(string(b))
}

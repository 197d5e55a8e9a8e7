package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/app/rigbench"
	"github.com/haptex/haptex/calib/kes"
	"github.com/haptex/haptex/internal/safefile"
	"github.com/haptex/haptex/internal/statebuf/statebufbench"
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
	"sim":      benchSim,
	"tactile": func(context.Context, benchOpts) (any, error) {
		r, err := tactilebench.Bench(4000)
		return &r, err
	},
	"render": benchRender,
	"lockstep": func(ctx context.Context, o benchOpts) (any, error) {
		return rigbench.Lockstep(ctx, o.duration, lockstepRuns)
	},
}

// benchSim runs the cloth's scenes (simOptions).
func benchSim(_ context.Context, o benchOpts) (any, error) {
	opt, err := simOptions(o)
	if err != nil {
		return nil, err
	}
	r, err := simbench.Bench(opt)
	return &struct {
		*simbench.Result
		Fabric string `json:"fabric,omitempty"`
	}{&r, o.fabric}, err
}

// simOptions sets the sim bench's scenes on o.fabric's material when it
// is set (with its internal friction, as a session runs it); sim's
// default cloth otherwise.
func simOptions(o benchOpts) (simbench.Options, error) {
	var opt simbench.Options
	if o.fabric == "" {
		return opt, nil
	}
	f, err := o.library.Load(o.fabric)
	if err != nil {
		return opt, err
	}
	m, err := f.Material()
	if err != nil {
		return opt, fmt.Errorf("fabric %s: %w", o.fabric, err)
	}
	opt.Edit = func(c *sim.Config) { c.Material = m }
	return opt, nil
}

type benchOpts struct {
	chart     string
	frames    int
	duration  time.Duration
	priority  int
	standby   time.Duration
	idleSleep bool
	baseline  time.Duration
	fabric    string      // sim bench: the cloth's fabric ("": sim's default cloth)
	library   kes.Library // where fabric is looked up after the built-in ones
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
fails or cannot run carries "error" or "skipped" and the others still run.
SIGINT or SIGTERM stops the bench at work: a bench that can stop early
reports what it measured, marked "interrupted"; one that cannot is reported
as {"bench": NAME, "interrupted": ...} with no figures; the benches after it
do not run; the output still prints and haptex exits with status 1. A
second signal ends haptex at once.`

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
	fabric := fs.String("fabric", "", "sim bench: run the scenes on this fabric (haptex fabric list; "+rig.DefaultFabric+" is a session's default) instead of sim's default cloth, which has no internal friction")
	library := fs.String("library", defaultLibraryDir(), "user fabric library folder, for -fabric")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the benches to this file (go tool pprof reads it; cmd/haptex/default.pgo is made from one)")
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
	// A bench of no time would run until a signal (the loop bench) or
	// measure nothing.
	switch {
	case *duration <= 0:
		return fmt.Errorf("%w: -duration %v: want a positive time", errUsage, *duration)
	case *baseline < 0:
		return fmt.Errorf("%w: -baseline %v: want a positive time, or 0 to skip it", errUsage, *baseline)
	case *frames < 1:
		return fmt.Errorf("%w: -frames %d: want at least 1", errUsage, *frames)
	}
	if *cpuProfile != "" {
		stopProfile, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer func() {
			if err := stopProfile(); err != nil {
				stderrf("bench: %v", err)
			}
		}()
	}
	// A signal stops the bench at work: what it measured so far (or that
	// it was interrupted) and every finished bench's result still print.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var interrupted error
	o := benchOpts{chart: *chart, frames: *frames, duration: *duration, priority: *prio, standby: *standby, idleSleep: *idleSleep, baseline: *baseline, fabric: *fabric, library: kes.Library{Dir: *library}, logf: stderrf}
	names := []string{name}
	if name == "all" {
		names = benchNames()
	}
	results := map[string]any{}
	var failed []string
	for i, n := range names {
		if name == "all" {
			fmt.Fprintf(os.Stderr, "bench %d/%d: %s (%s)...\n", i+1, len(names), n, benchSummaries[n])
		} else {
			fmt.Fprintf(os.Stderr, "bench %s (%s)...\n", n, benchSummaries[n])
		}
		t0 := time.Now()
		obj, err := runUntilSignal(ctx, n, o)
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
			if _, ok := obj["interrupted"]; ok {
				state = "interrupted"
			}
			fmt.Fprintf(os.Stderr, "bench %d/%d: %s %s after %.1f s\n", i+1, len(names), n, state, time.Since(t0).Seconds())
		}
		results[n] = obj
		if ctx.Err() != nil {
			stop() // a second signal ends the program at once
			interrupted = fmt.Errorf("%v during %s%s", context.Cause(ctx), n, notRun(names[i+1:]))
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
		if interrupted != nil {
			out["interrupted"] = interrupted.Error()
		}
	}
	if *asJSON {
		if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
			return err
		}
	} else {
		printBenchTable(os.Stdout, names, results)
	}
	if interrupted != nil {
		return interrupted
	}
	if len(failed) > 0 {
		return fmt.Errorf("%s failed (see \"error\" in its result)", strings.Join(failed, ", "))
	}
	return nil
}

// startCPUProfile profiles the process into path until the returned
// function is called, which reports a write that failed.
func startCPUProfile(path string) (stop func() error, err error) {
	// The profile goes to memory and replaces the file whole at the end
	// (safefile.WriteFile: never through a link); a folder that cannot
	// take it is found before the benches run.
	d, _, err := safefile.OpenParent(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	d.Close()
	var b bytes.Buffer
	if err := pprof.StartCPUProfile(&b); err != nil {
		return nil, fmt.Errorf("cpu profile %s: %w", path, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := safefile.WriteFile(path, b.Bytes()); err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		return nil
	}, nil
}

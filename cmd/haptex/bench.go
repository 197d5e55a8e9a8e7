package main

import (
	"context"
	"encoding/json"
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
// the state 1 s into the handling script, as the rig computed it.
func benchRender(_ context.Context, o benchOpts) (any, error) {
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
	res, err := renderbench.Bench(rc, &frame, o.frames)
	return &res, err
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

func init() {
	register(&command{name: "bench", summary: "measure a part: " + strings.Join(benchNames(), " | ") + " | all", run: runBench})
}

func benchNames() []string {
	var n []string
	for k := range benches {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

func runBench(args []string) error {
	fs := newFlags("bench", "bench NAME [flags]   (NAME: "+strings.Join(benchNames(), ", ")+", all)")
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	o := benchOpts{chart: *chart, frames: *frames, duration: *duration, priority: *prio, standby: *standby, idleSleep: *idleSleep, baseline: *baseline, logf: stderrf}
	names := []string{name}
	if name == "all" {
		names = benchNames()
	} else if benches[name] == nil {
		return fmt.Errorf("%w: unknown bench %q (have %s, all)", errUsage, name, strings.Join(benchNames(), ", "))
	}
	results := map[string]any{}
	for _, n := range names {
		res, err := benches[n](ctx, o)
		if err != nil {
			return fmt.Errorf("%s: %w", n, err)
		}
		obj, err := withCommonFields(n, res)
		if err != nil {
			return err
		}
		results[n] = obj
	}
	if name != "all" {
		results = results[name].(map[string]any)
	} else {
		results = map[string]any{"bench": "all", "go": runtime.Version(), "cpus": runtime.NumCPU(), "results": results}
	}
	if *asJSON {
		return json.NewEncoder(os.Stdout).Encode(results)
	}
	b, _ := json.MarshalIndent(results, "", "  ")
	fmt.Println(string(b))
	return nil
}

// withCommonFields turns a bench result into a JSON object carrying the
// fields every bench reports: "bench", "go" and "cpus".
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
	obj["go"] = runtime.Version()
	obj["cpus"] = runtime.NumCPU()
	return obj, nil
}

func printJSON(v any) {
	b, _ := json.MarshalIndent(v, "", "  ")
	fmt.Println(string(b))
}

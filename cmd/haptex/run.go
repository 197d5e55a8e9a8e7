package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/kes"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/sim"
)

func init() {
	register(&command{name: "run", summary: "run the two-finger handling session (simulated devices by default)", run: runRun})
}

func runRun(args []string) error {
	fs := newFlags("run", "run [flags]")
	duration := fs.Duration("duration", 0, "stop after this long (0: until Ctrl-C)")
	out := fs.String("out", "sessions", "parent folder of the session folder (empty: record nothing)")
	lock := fs.Bool("lockstep", false, "run in virtual time, as fast as possible (needs -duration)")
	prio := fs.Int("priority", 80, "SCHED_FIFO priority of the 1 kHz thread (0: normal scheduling)")
	standby := standbyFlag(fs)
	idleSleep := idleSleepFlag(fs)
	tactile := fs.Duration("tactile-period", 25*time.Millisecond, "tactile frame period (5 ms .. 100 ms)")
	simPeriod := fs.Duration("sim-period", 5*time.Millisecond, "cloth simulation step")
	refine := refineFlag(fs)
	simNice := fs.Int("sim-nice", 10, "nice value of the simulation's thread, 1..19 (0: the process's; see the README)")
	jsonOut := fs.Bool("json", false, "print the summary as JSON")
	fabric := fs.String("fabric", rig.DefaultFabric, "fabric to handle (haptex fabric list)")
	library := fs.String("library", defaultLibraryDir(), "user fabric library folder")
	var cal calFlags
	cal.register(fs)
	devFile := fs.String("devices", "", "devices file (TOML; haptex devices check FILE): each finger's exoskeleton and tactile array, simulated, serial or HID")
	recDevices := fs.Bool("record-devices", false, "record every device call, and the bytes of real devices, into the session folder for haptex replay (default: on with -devices)")
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	if *lock && *duration <= 0 {
		return fmt.Errorf("%w: -lockstep needs -duration", errUsage)
	}
	if *devFile != "" && !flagSet(fs, "record-devices") {
		*recDevices = true
	}
	if *recDevices && *out == "" {
		return fmt.Errorf("%w: -record-devices needs a session folder (-out)", errUsage)
	}
	fab, err := kes.Library{Dir: *library}.Load(*fabric)
	if err != nil {
		return err
	}
	cfg := rig.Config{
		Fabric: fab,
		OutDir: *out, Duration: *duration,
		// Each flag's 0 (or less) turns its feature off.
		Priority: *prio, NormalPriority: *prio <= 0,
		Standby: *standby, NoStandby: *standby <= 0, IdleSleep: *idleSleep,
		SimNice: *simNice, ProcessNice: *simNice <= 0,
		TactilePeriod: *tactile, SimPeriod: *simPeriod,
		Logf:          stderrf,
		RecordDevices: *recDevices,
	}
	if err := refine(&cfg); err != nil {
		return err
	}
	if *devFile != "" {
		set, err := openDevices(&cfg, *devFile, *lock)
		if err != nil {
			return err
		}
		defer set.close()
	}
	if err := cal.apply(&cfg); err != nil {
		return err
	}
	r, err := rig.New(cfg)
	if err != nil {
		return err
	}
	var sum *rig.Summary
	if *lock {
		sum, err = r.RunLockstep()
	} else {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		done := make(chan struct{})
		if isTerminal(os.Stdout) && !*jsonOut {
			go statusLine(r, done)
		}
		sum, err = r.Run(ctx)
		close(done)
	}
	if sum != nil {
		if *jsonOut {
			printJSON(sum)
		} else {
			printSummary(os.Stdout, sum)
			if *recDevices && sum.SessionDir != "" {
				fmt.Printf("devices recorded in %s/devices; replay them with: haptex replay %s\n", sum.SessionDir, sum.SessionDir)
			}
		}
	}
	return err
}

// refineFlag adds -refine to fs; the function it returns sets cfg.Sim's
// grading from the flag (nothing when it is empty).
func refineFlag(fs *flag.FlagSet) func(cfg *rig.Config) error {
	v := fs.String("refine", "", "grade the cloth's mesh round the point where the fingers pinch: u,v in metres from its bottom-left corner, \"pinch\" for where the simulated hand pinches, or \"follow\" to move the grading to wherever a finger approaches (empty: uniform)")
	return func(cfg *rig.Config) error {
		if *v == "" {
			return nil
		}
		switch *v {
		case "pinch", "follow":
			cfg.Sim.Refine = rig.PinchRefinement(twin.DefaultScene(), &cfg.Sim)
			cfg.Sim.Refine.Follow = *v == "follow"
		default:
			r, err := parseRefine(*v)
			if err != nil {
				return fmt.Errorf("%w: -refine: %v", errUsage, err)
			}
			cfg.Sim.Refine = r
		}
		return nil
	}
}

// parseRefine reads -refine's "u,v" into the grading the sim tests
// validate: nodes 4 times denser at the point, over a 2 cm band
// (TestPinchPullResolution).
func parseRefine(s string) (sim.Refinement, error) {
	f := strings.Split(s, ",")
	if len(f) != 2 {
		return sim.Refinement{}, fmt.Errorf("%q: want u,v in metres, pinch or follow", s)
	}
	var uv [2]float64
	for i, x := range f {
		v, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return sim.Refinement{}, fmt.Errorf("%q: %q is not a number", s, x)
		}
		uv[i] = v
	}
	return sim.Refinement{Centre: uv, Radius: sim.RefineRadius, Ratio: sim.RefineRatio}, nil
}

// statusLine rewrites one terminal line at most 4 times a second.
func statusLine(r *rig.Rig, done <-chan struct{}) {
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-done:
			fmt.Print("\r\033[K")
			return
		case <-t.C:
			fmt.Print("\r\033[K" + r.Status().String())
		}
	}
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

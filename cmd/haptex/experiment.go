package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/haptex/haptex/app/experiment"
	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/kes"
	"github.com/haptex/haptex/calib/psych"
)

func init() {
	register(&command{name: "experiment", summary: "run, check or compare psychophysics experiments", run: runExperiment,
		subs: []subcommand{
			{"run", "FILE -subject ID", "run (or resume) an experiment for a subject; -observer for a simulated one"},
			{"check", "FILE", "validate an experiment file, its fabric and (unless -no-stimulus) the stimulus it delivers"},
			{"compare", "DIR...", "fit the thresholds of experiments' output folders (or of every subject in OUT/NAME) jointly and test whether their lapse rates differ"},
		}})
}

func runExperiment(args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "check":
			return checkExperiment(args)
		case "compare":
			return compareExperiments(args)
		}
	}
	fs := subFlags("experiment", args)
	library := fs.String("library", defaultLibraryDir(), "user fabric library folder")
	subject := fs.String("subject", "", "participant identifier (letters, digits, '-', '_'); required")
	out := fs.String("out", "experiments", "parent folder: the run writes OUT/EXPERIMENT/SUBJECT/")
	var observers listFlag
	fs.Var(&observers, "observer", "a simulated observer answers instead of a person, in virtual time (in real time with -devices): "+
		"cue:weber=W,lambda=L,seed=S perceives the cue the devices delivered in each interval; "+
		"nominal:form=weibull,threshold=T,beta=B,lambda=L,seed=S answers from the nominal level (repeat for one per interleaved stream); "+
		"a set experiment's: match:lambda=L,noise=N,seed=S, rate:noise=N,seed=S or magnitude:exponent=E,scale=K,sigma=S,seed=S")
	force := fs.Bool("force", false, "run an experiment the stimulus check finds invalid")
	switchObs := fs.Bool("switch-observer", false, "let a resumed run continue with another observer (or a person) than the one that answered so far")
	traces := fs.Bool("traces", true, "keep each interval's tick-level record under the subject's traces/ folder (gzipped CSV)")
	bidsOut := fs.Bool("bids", false, "also write the trials as a BIDS behavioural table beside trials.csv: sub-ID/beh/sub-ID_task-NAME_beh.tsv and its .json")
	devFile := fs.String("devices", "", "devices file (TOML; haptex devices check FILE): each finger's exoskeleton and tactile array, simulated, serial or HID; the rig then runs in real time")
	prio := fs.Int("priority", 80, "SCHED_FIFO priority of the 1 kHz thread (0: normal scheduling)")
	var cal calFlags
	cal.register(fs)
	if err := parse(fs, args[1:], 1); err != nil {
		return err
	}
	path := fs.Arg(0)
	if path == "" {
		return fmt.Errorf("%w: experiment run FILE -subject ID", errUsage)
	}
	if *subject == "" {
		return fmt.Errorf("%w: -subject ID is required", errUsage)
	}
	e, src, err := experiment.Load(path)
	if err != nil {
		return err
	}
	cfg := rig.Config{Priority: *prio, NormalPriority: *prio <= 0, Logf: stderrf}
	if *devFile != "" {
		set, err := openDevices(&cfg, *devFile, false)
		if err != nil {
			return err
		}
		defer set.close()
	}
	if err := cal.apply(&cfg); err != nil {
		return err
	}
	prog := newProgress(os.Stderr, e.Name, maxTrials(e.Procedure))
	if len(observers) == 0 {
		prog.tty = false // a person answers on this terminal: one line per trial
		prog.every = 1
	}
	opt := experiment.Options{Experiment: e, Source: src, Path: path, Subject: *subject, OutDir: *out,
		Library: kes.Library{Dir: *library}, In: os.Stdin, Out: clearing{os.Stdout, prog}, Rig: cfg,
		AfterTrial: func(n int) error { prog.update(n); return nil },
		Force:      *force, SwitchObserver: *switchObs, NoTraces: !*traces, BIDS: *bidsOut}
	for _, spec := range observers {
		if e.Set != nil {
			if len(observers) > 1 {
				return fmt.Errorf("%w: -observer: a set experiment has one observer", errUsage)
			}
			if opt.SetObserver, err = experiment.ParseSetObserver(spec); err != nil {
				return fmt.Errorf("%w: -observer: %v", errUsage, err)
			}
			continue
		}
		if strings.HasPrefix(spec, "cue:") {
			o, err := psych.ParseCueObserver(spec, e.Task)
			if err != nil {
				return fmt.Errorf("%w: -observer: %v", errUsage, err)
			}
			opt.CueObservers = append(opt.CueObservers, o)
			continue
		}
		o, err := psych.ParseObserver(spec, e.Task)
		if err != nil {
			return fmt.Errorf("%w: -observer: %v", errUsage, err)
		}
		opt.Observers = append(opt.Observers, o)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	_, err = experiment.Run(ctx, opt)
	prog.done()
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted; every completed trial is on disk, run the same command again to resume: %w", err)
		}
		return err
	}
	return nil
}

// standbyFlag defines the -standby flag of the commands that run the
// haptics loop in real time.
func standbyFlag(fs *flag.FlagSet) *time.Duration {
	return fs.Duration("standby", rig.DefaultStandby, "when the 1 kHz loop's standby thread on the other core runs a tick its own thread has not begun, after the deadline (0: no standby; see the README)")
}

// idleSleepFlag defines the -idle-sleep flag of the commands that run the
// haptics loop in real time.
func idleSleepFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("idle-sleep", false, "let idle cores halt during a real-time run (default: as root they poll, so the 1 kHz loop wakes on time; see the README)")
}

func stderrf(format string, a ...any) { fmt.Fprintf(os.Stderr, format+"\n", a...) }

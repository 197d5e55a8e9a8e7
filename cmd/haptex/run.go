package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/kes"
)

func init() {
	register(&command{name: "run", summary: "run the two-finger handling session (simulated devices by default)", run: runRun})
}

func runRun(args []string) error {
	fs := newFlags("run", "run [flags]", summaryNotes)
	duration := fs.Duration("duration", 0, "stop after this long (0: until Ctrl-C)")
	out := fs.String("out", "sessions", "parent folder of the session folder (empty: record nothing)")
	lock := fs.Bool("lockstep", false, "run in virtual time, as fast as possible (needs -duration)")
	prio := fs.Int("priority", 80, "SCHED_FIFO priority of the 1 kHz thread (0: normal scheduling)")
	standby := standbyFlag(fs)
	idleSleep := idleSleepFlag(fs)
	tactile := fs.Duration("tactile-period", 25*time.Millisecond, "tactile frame period (5 ms .. 100 ms)")
	simPeriod := fs.Duration("sim-period", 5*time.Millisecond, "cloth simulation step (1 ms .. 20 ms)")
	refine := refineFlag(fs)
	simNice := fs.Int("sim-nice", 10, "nice value of the simulation's thread, 1..19 (0: the process's; see the README)")
	jsonOut := fs.Bool("json", false, "print the summary as JSON")
	fabric := fs.String("fabric", rig.DefaultFabric, "fabric to handle (haptex fabric list)")
	library := fs.String("library", defaultLibraryDir(), "user fabric library folder")
	script := fs.String("script", "showcase", "handling script the simulated hand plays: "+strings.Join(rig.Handlings, ", ")+" (fold and crumple need -kinematic)")
	kinematic := fs.Bool("kinematic", false, "drive the fingertips straight from the script: no exoskeletons, no force rendering")
	var cal calFlags
	cal.register(fs)
	devFile := fs.String("devices", "", "devices file (TOML; haptex devices check FILE): each finger's exoskeleton and tactile array, simulated, serial or HID")
	recDevices := fs.Bool("record-devices", false, "record every device call, and the bytes of real devices, into the session folder for haptex replay (default: on with -devices)")
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	if !slices.Contains(rig.Handlings, *script) {
		return fmt.Errorf("%w: -script %q: want %s", errUsage, *script, strings.Join(rig.Handlings, ", "))
	}
	if *script != "showcase" && !*kinematic {
		// Both start a finger on the side of the cloth the showcase does
		// not, and the simulated exoskeletons' fingers cannot get there.
		return fmt.Errorf("%w: -script %s needs -kinematic", errUsage, *script)
	}
	if *kinematic && *devFile != "" {
		return fmt.Errorf("%w: -kinematic drives no devices: drop -devices", errUsage)
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
		Handling:      *script,
		Scripted:      *kinematic,
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
		stopStatus := func() {}
		if isTerminal(os.Stdout) && !*jsonOut {
			stopStatus = startStatusLine(os.Stdout, r)
		}
		sum, err = r.Run(ctx)
		stopStatus() // the line is cleared before the summary
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

// summaryNotes explains every label of the run summary once.
const summaryNotes = `The summary at the end of a run:
  loop         haptics (the 1 kHz force servo), sim (the cloth's step), tactile (the pin frames)
  period ms    the loop's nominal period; ticks: how many it ran; rate Hz: ticks per second of run time
  rt           true when the loop's thread ran under SCHED_FIFO (real-time priority)
  late p50 µs, p99, p99.9, max
               how long after its deadline each tick woke: median, 99th and 99.9th percentile, worst
  compute p99 µs
               the 99th percentile of one tick's own work
  overruns     ticks that began later than the safety limit (haptics: safety.overrun_factor periods)
  >1 ms        ticks that woke more than 1 ms late (session.json lists the first 64, late_ticks)
  standby      the ticks the haptics loop's standby thread on the other core ran (see -standby)
  contact s    time the finger touched the cloth; peak and mean force N: the force the cloth asked
               the device to render (mean while in contact)
  pinch        time both fingers held the cloth, and the largest force on either meanwhile
  host steal   the share of CPU time the hypervisor took from this machine during the run
  recorded     rows each CSV table of the session folder got, and rows dropped (always 0 unless
               the disk fell behind by a whole ring)
The live status line (on a terminal): run time, each finger's force (* while it touches the
cloth), the haptics loop's rate, p99 lateness and overruns, the sim's rate.`

const viewNotes = `Keys and mouse (with no device, the mouse is the finger pair):
  left drag          move the pinch point over the cloth
  wheel, [ and ]     move the pinch point in depth
  space, middle click
                     close or open the pinch
  right drag, arrows orbit the camera
  ctrl+wheel (or shift+wheel), + and -
                     zoom (with -script the wheel zooms)
  F                  the whole stand, and back to the hand
  G                  hide or show the 1 cm marking grid
  R, Home            reset the camera and the pinch`

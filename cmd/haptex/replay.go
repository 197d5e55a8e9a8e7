package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/kes"
	"github.com/haptex/haptex/devices/record"
)

func init() {
	register(&command{name: "replay", summary: "replay a recorded session's devices through the rig and verify its commands", run: runReplay})
}

func runReplay(args []string) error {
	fs := newFlags("replay", "replay [flags] DIR   (a session folder recorded with recorded devices)")
	out := fs.String("out", "", "parent folder for a session folder of the replay (empty: record nothing)")
	library := fs.String("library", defaultLibraryDir(), "user fabric library folder")
	jsonOut := fs.Bool("json", false, "print the result as JSON")
	dump := fs.Bool("dump", false, "print the session's device recordings instead, one line per event, with the protocol frames decoded (and the damaged ones named)")
	if err := parse(fs, args, 1); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: which session folder?", errUsage)
	}
	if *dump {
		return dumpRecordings(os.Stdout, fs.Arg(0))
	}
	p, err := rig.LoadReplay(fs.Arg(0))
	if err != nil {
		return err
	}
	fab, err := kes.Library{Dir: *library}.Load(p.FabricName)
	if err != nil {
		return err
	}
	p.Config.Fabric = fab
	p.Config.OutDir = *out
	p.Config.Logf = stderrf
	if !*jsonOut {
		fmt.Printf("replay of %s\n", p.Method())
	}
	res, runErr := p.Run()
	if res != nil {
		if *jsonOut {
			printJSON(res)
		} else {
			printReplay(os.Stdout, res)
		}
	}
	return runErr
}

// dumpRecordings prints every device recording of the session folder dir.
func dumpRecordings(w io.Writer, dir string) error {
	paths, err := filepath.Glob(filepath.Join(record.Dir(dir), "*.hxr"))
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return fmt.Errorf("%s: no device recordings (a session recorded with -devices has them in %s)", dir, record.Dir(dir))
	}
	for _, p := range paths {
		if err := record.Dump(w, p); err != nil {
			return err
		}
	}
	return nil
}

func printReplay(w io.Writer, r *rig.ReplayResult) {
	how := "in lockstep"
	if r.Mode == "realtime" {
		how = "on its recorded schedule"
	}
	fmt.Fprintf(w, "replayed %s (recorded in %s) %s: %.2f s of run time in %.2f s\n\n", r.Dir, r.Mode, how, r.Summary.RunS, r.Summary.WallS)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "device\treads\trecorded\treplayed\tidentical\tdifferent\textra\tenable diffs\t")
	for _, v := range r.Devices {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", v.Name, v.Reads, v.Recorded, v.Replayed, v.Matched, v.Mismatched, v.Extra, v.EnableDiffs)
	}
	tw.Flush()
	if r.BitExact {
		fmt.Fprintln(w, "\nevery recorded command and tactile frame reproduced bit for bit")
	}
}

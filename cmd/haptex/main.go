// Command haptex runs the haptex system: a two-finger fabric handling
// session, benchmarks, fabric and device tools, calibration, experiments,
// replay and reports. Run `haptex help` for the commands; cli.go holds the
// grammar they share.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/haptex/haptex/internal/buildinfo"
)

func init() {
	register(&command{name: "help", summary: "describe the commands, or one: haptex help COMMAND [SUBCOMMAND]", run: help})
	register(&command{name: "version", summary: "print haptex's version, VCS commit, Go version and platform", run: runVersion})
}

func main() {
	name, err := execute(os.Args[1:])
	if err == nil {
		return
	}
	if name != "" {
		name = " " + name
	}
	fmt.Fprintf(os.Stderr, "haptex%s: %v\n", name, err)
	if errors.Is(err, errUsage) {
		os.Exit(2)
	}
	os.Exit(1)
}

func runVersion(args []string) error {
	fs := newFlags("version", "version [flags]",
		"The commit is unknown in a build that carries no VCS stamp: build with make build (or go build -buildvcs=true in a git checkout).")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	in := buildinfo.Read()
	if *asJSON {
		printJSON(in)
		return nil
	}
	fmt.Printf("haptex %s commit %s %s %s/%s\n", in.Version, in.Short(), in.Go, in.OS, in.Arch)
	return nil
}

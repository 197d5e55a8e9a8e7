// Command haptex runs the haptex system: a two-finger fabric handling
// session, benchmarks, fabric and device tools, calibration, experiments
// and replay. Run `haptex help` for the subcommands.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(args []string) error
}

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

// errUsage marks an error whose message is a usage problem: it is printed
// with exit status 2.
var errUsage = errors.New("usage")

func usage(w io.Writer) {
	fmt.Fprintln(w, "haptex: feel virtual fabric between thumb and index finger")
	fmt.Fprintln(w, "\nusage: haptex <command> [flags]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-11s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\n`haptex <command> -h` describes a command's flags.")
}

func main() {
	register(&command{name: "help", summary: "describe the commands", run: func([]string) error { usage(os.Stdout); return nil }})
	if len(os.Args) < 2 {
		usage(os.Stderr)
		os.Exit(2)
	}
	c, ok := commands[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "haptex: unknown command %q\n\n", os.Args[1])
		usage(os.Stderr)
		os.Exit(2)
	}
	if err := c.run(os.Args[2:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintf(os.Stderr, "haptex %s: %v\n", c.name, err)
		if errors.Is(err, errUsage) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// newFlags returns a flag set that reports errors instead of exiting.
func newFlags(name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet("haptex "+name, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: haptex %s\n\nflags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses flags and rejects stray arguments beyond want positional ones.
func parse(fs *flag.FlagSet, args []string, maxPositional int) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > maxPositional {
		return fmt.Errorf("%w: unexpected arguments: %s", errUsage, strings.Join(fs.Args()[maxPositional:], " "))
	}
	return nil
}

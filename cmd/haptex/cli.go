package main

// The command-line grammar every command shares: the command table, help
// (`-h`, `--help`, `haptex help COMMAND [SUB]`), subcommand dispatch, flags
// before or after positional arguments, and durations that say what is
// wrong with a bare number. A command's own file defines its flags and
// calls newFlags (or subFlags) and parse; nothing else of the grammar
// lives there.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// command is one command: `haptex NAME ...`.
type command struct {
	name    string
	summary string
	// subs, when set, are the command's subcommands (`haptex NAME SUB
	// ...`); run then gets args with a valid SUB first.
	subs []subcommand
	run  func(args []string) error
}

// subcommand is one subcommand: its name, the positional arguments it
// takes (for the usage line) and what it does.
type subcommand struct {
	name, args, summary string
}

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

// errUsage marks an error whose message is a usage problem: it is printed
// with exit status 2.
var errUsage = errors.New("usage")

// helpOut receives what -h and help print (tests capture it).
var helpOut io.Writer = os.Stdout

func commandNames() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "haptex: feel virtual fabric between thumb and index finger")
	fmt.Fprintln(w, "\nusage: haptex COMMAND [arguments] [flags]\n\ncommands:")
	for _, n := range commandNames() {
		fmt.Fprintf(w, "  %-11s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\n`haptex help COMMAND` or `haptex COMMAND -h` describes a command and its flags.")
	fmt.Fprintln(w, "Flags go before or after the arguments; -flag value and -flag=value are the same;")
	fmt.Fprintln(w, "durations take a unit (500ms, 10s, 2m).")
}

func isHelp(a string) bool { return a == "-h" || a == "-help" || a == "--help" || a == "--h" }

// execute runs the command line args (without the program name) and
// returns the command's name with its error. A request for help is not
// an error.
func execute(args []string) (string, error) {
	if len(args) == 0 {
		usage(os.Stderr)
		return "", fmt.Errorf("%w: which command?", errUsage)
	}
	if isHelp(args[0]) {
		usage(helpOut)
		return "", nil
	}
	c, ok := commands[args[0]]
	if !ok {
		return "", fmt.Errorf("%w: unknown command %q (haptex help lists them)", errUsage, args[0])
	}
	err := c.dispatch(args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return c.name, nil
	}
	return c.name, err
}

// dispatch checks the subcommand of a command that has them, answers
// requests for the command's help, and runs it.
func (c *command) dispatch(args []string) error {
	if len(c.subs) == 0 {
		return c.run(args)
	}
	if len(args) > 0 && strings.HasPrefix(args[0], "-") && !isHelp(args[0]) {
		// Flags before the subcommand: move the subcommand to the front.
		for i, a := range args {
			if c.sub(a) != nil {
				args = append(append([]string{a}, args[:i]...), args[i+1:]...)
				break
			}
		}
	}
	switch {
	case len(args) == 0:
		c.usage(os.Stderr)
		return fmt.Errorf("%w: which %s command?", errUsage, c.name)
	case isHelp(args[0]) || args[0] == "help":
		if len(args) > 1 && args[0] == "help" && c.sub(args[1]) != nil {
			return c.run([]string{args[1], "-h"})
		}
		c.usage(helpOut)
		return flag.ErrHelp
	case c.sub(args[0]) == nil:
		return fmt.Errorf("%w: unknown %s command %q (%s)", errUsage, c.name, args[0], strings.Join(c.subNames(), ", "))
	}
	return c.run(args)
}

func (c *command) sub(name string) *subcommand {
	for i := range c.subs {
		if c.subs[i].name == name {
			return &c.subs[i]
		}
	}
	return nil
}

func (c *command) subNames() []string {
	var n []string
	for _, s := range c.subs {
		n = append(n, s.name)
	}
	return n
}

func (c *command) usage(w io.Writer) {
	fmt.Fprintf(w, "haptex %s: %s\n\nusage: haptex %s COMMAND [arguments] [flags]\n\ncommands:\n", c.name, c.summary, c.name)
	width := 0
	for _, s := range c.subs {
		width = max(width, len(strings.TrimSpace(s.name+" "+s.args)))
	}
	for _, s := range c.subs {
		fmt.Fprintf(w, "  %-*s  %s\n", width, strings.TrimSpace(s.name+" "+s.args), s.summary)
	}
	fmt.Fprintf(w, "\n`haptex %s COMMAND -h` describes a command's flags.\n", c.name)
}

// help answers `haptex help [COMMAND [SUB]]`.
func help(args []string) error {
	if len(args) == 0 {
		usage(helpOut)
		return nil
	}
	c, ok := commands[args[0]]
	if isHelp(args[0]) || ok && c.name == "help" {
		fmt.Fprintf(helpOut, "usage: haptex help [COMMAND [SUBCOMMAND]]\n\n")
		usage(helpOut)
		return nil
	}
	if !ok {
		return fmt.Errorf("%w: unknown command %q (haptex help lists them)", errUsage, args[0])
	}
	if len(args) > 1 && len(c.subs) > 0 {
		if c.sub(args[1]) == nil {
			return fmt.Errorf("%w: unknown %s command %q (%s)", errUsage, c.name, args[1], strings.Join(c.subNames(), ", "))
		}
		return c.run([]string{args[1], "-h"})
	}
	return c.dispatch([]string{"-h"})
}

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
	"strconv"
	"strings"
	"time"
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

// flagNotes holds the text a flag set's usage prints after its flags,
// flagLead what it prints first (a subcommand's summary).
var flagNotes, flagLead = map[*flag.FlagSet]string{}, map[*flag.FlagSet]string{}

// newFlags returns a flag set for `haptex SYNOPSIS`; notes, when given,
// follow the flags in its usage (what the output's labels mean, say).
// Errors are returned, never printed by the flag package.
func newFlags(name, synopsis string, notes ...string) *flag.FlagSet {
	fs := flag.NewFlagSet("haptex "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if len(notes) > 0 {
		flagNotes[fs] = strings.Join(notes, "\n\n")
	}
	if c := commands[name]; c != nil {
		flagLead[fs] = fmt.Sprintf("haptex %s: %s", c.name, c.summary)
	}
	fs.Usage = func() { printUsage(helpOut, fs, synopsis) }
	return fs
}

// subFlags returns the flag set of a subcommand, args[0], of the command
// name, with its usage line from the command table.
func subFlags(name string, args []string) *flag.FlagSet {
	c := commands[name]
	if c == nil || len(args) == 0 || c.sub(args[0]) == nil {
		return newFlags(name, name+" COMMAND [arguments] [flags]")
	}
	s := c.sub(args[0])
	fs := newFlags(name+" "+s.name, strings.TrimSpace(name+" "+s.name+" "+s.args)+" [flags]")
	flagLead[fs] = fmt.Sprintf("haptex %s %s: %s", name, s.name, s.summary)
	return fs
}

func printUsage(w io.Writer, fs *flag.FlagSet, synopsis string) {
	if lead := flagLead[fs]; lead != "" {
		fmt.Fprintf(w, "%s\n\n", lead)
	}
	fmt.Fprintf(w, "usage: haptex %s\n\nflags:\n", synopsis)
	fs.VisitAll(func(f *flag.Flag) {
		kind, text := flag.UnquoteUsage(f)
		if _, ok := f.Value.(*durationFlag); ok {
			kind = "duration"
		} else if g, ok := f.Value.(flag.Getter); ok {
			if _, d := g.Get().(time.Duration); d {
				kind = "duration"
			}
		}
		line := "  -" + f.Name
		if kind != "" {
			line += " " + kind
		}
		fmt.Fprintln(w, line)
		text = strings.ReplaceAll(text, "\n", "\n    \t")
		if def := f.DefValue; def != "" && def != "0" && def != "0s" && def != "false" {
			if g, ok := f.Value.(flag.Getter); ok {
				if _, isString := g.Get().(string); isString {
					def = strconv.Quote(def)
				}
			}
			text += " (default " + def + ")"
		}
		fmt.Fprintf(w, "    \t%s\n", text)
	})
	fmt.Fprintln(w, "  -h, --help\n    \tprint this help and exit")
	if notes := flagNotes[fs]; notes != "" {
		fmt.Fprintf(w, "\n%s\n", notes)
	}
}

// parse parses flags and positional arguments in any order (a "--" ends
// the flags) and rejects more than maxPositional positional arguments;
// fs.Args() then holds the positional ones. -h and --help print the usage
// and return flag.ErrHelp.
func parse(fs *flag.FlagSet, args []string, maxPositional int) error {
	wrapDurations(fs)
	// The flag package calls Usage on every error and on -h: print it
	// here, once, and only for -h.
	show := fs.Usage
	fs.Usage = func() {}
	defer func() { fs.Usage = show }()
	var pos []string
	rest := args
	for len(rest) > 0 {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				show()
				return err
			}
			return fmt.Errorf("%w: %v (%s -h lists the flags)", errUsage, err, fs.Name())
		}
		left := fs.Args()
		if used := len(rest) - len(left); used > 0 && rest[used-1] == "--" {
			pos = append(pos, left...)
			break
		}
		if len(left) == 0 {
			break
		}
		pos = append(pos, left[0])
		rest = left[1:]
	}
	// Parse again with only the positional arguments after "--", so that
	// fs.Args() returns them; flags keep the values set above.
	if err := fs.Parse(append([]string{"--"}, pos...)); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > maxPositional {
		return fmt.Errorf("%w: unexpected arguments: %s (%s -h describes the command)", errUsage, strings.Join(fs.Args()[maxPositional:], " "), fs.Name())
	}
	return nil
}

// durationFlag wraps a time.Duration flag so that a value without a unit
// gets an error that says which unit to add.
type durationFlag struct{ inner flag.Value }

func (d *durationFlag) String() string {
	if d == nil || d.inner == nil {
		return "0s"
	}
	return d.inner.String()
}

func (d *durationFlag) Get() any {
	if g, ok := d.inner.(flag.Getter); ok {
		return g.Get()
	}
	return nil
}

func (d *durationFlag) Set(s string) error {
	if err := d.inner.Set(s); err != nil {
		return durationHint(s)
	}
	return nil
}

// durationHint explains why s is not a duration.
func durationHint(s string) error {
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return fmt.Errorf("%s has no unit: write %ss for seconds or %sms for milliseconds", s, s, s)
	}
	return fmt.Errorf("%q is not a duration: write a number and a unit (ns, us, ms, s, m, h), e.g. 10s or 1.5ms", s)
}

// wrapDurations gives every duration flag of fs the hint of durationFlag.
func wrapDurations(fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		if _, done := f.Value.(*durationFlag); done {
			return
		}
		if g, ok := f.Value.(flag.Getter); ok {
			if _, isDur := g.Get().(time.Duration); isDur {
				f.Value = &durationFlag{inner: f.Value}
			}
		}
	})
}

// flagSet reports whether the flag was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

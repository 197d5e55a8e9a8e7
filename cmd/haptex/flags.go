package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// The flags half of the command-line grammar (cli.go): flag sets with
// their usage, parsing in any order, and durations with a unit hint.

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
	// An empty argument is a shell variable that was not set ("$DIR"), not
	// a name: said as such, not as a file "" that does not exist.
	for i, a := range fs.Args() {
		if a == "" {
			return fmt.Errorf("%w: argument %d is empty (%s -h describes the command)", errUsage, i+1, fs.Name())
		}
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

package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// built is the program as a user runs it, built once for the tests that
// run it: without the race detector, with the Makefile's link flags when
// make is at hand (stamped). make test runs go vet first, which leaves
// every package compiled without -race in the build cache, so the build
// is a link of a few seconds there (a cold cache compiles everything,
// GLFW's C code too: a minute or more).
var built struct {
	once    sync.Once
	dir     string
	path    string
	stamped bool
	err     error
}

// program returns the path of the built program and whether it carries
// the Makefile's link flags; the test fails when it cannot be built. It is
// built without the profile (-pgo=off), which changes no result: make
// test's vet has then compiled every package it needs, where the profile
// would compile them all again.
func program(t *testing.T) (path string, stamped bool) {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "haptex-test-"); built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "haptex")
		args := []string{"build", "-pgo=off", "-o", built.path}
		if ldflags, err := exec.Command("make", "-s", "--no-print-directory", "-C", filepath.Join("..", ".."), "ldflags").Output(); err == nil {
			args = append(args, "-ldflags", strings.TrimSpace(string(ldflags)))
			built.stamped = true
		}
		if out, err := exec.Command("go", append(args, ".")...).CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path, built.stamped
}

// captureHelp sends what -h prints to a buffer for the test.
func captureHelp(t *testing.T) *bytes.Buffer {
	t.Helper()
	var b bytes.Buffer
	old := helpOut
	helpOut = &b
	t.Cleanup(func() { helpOut = old })
	return &b
}

// Every command and subcommand answers -h, --help and haptex help with
// its usage (every flag and -h itself) and no error, without running.
func TestHelpWalk(t *testing.T) {
	out := captureHelp(t)
	check := func(args []string, want ...string) {
		t.Helper()
		out.Reset()
		if _, err := execute(args); err != nil {
			t.Errorf("haptex %s: %v", strings.Join(args, " "), err)
			return
		}
		for _, w := range want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("haptex %s: the help lacks %q:\n%s", strings.Join(args, " "), w, out.String())
			}
		}
	}
	check([]string{"-h"}, "usage: haptex COMMAND")
	check([]string{"help"}, "usage: haptex COMMAND")
	for _, name := range commandNames() {
		c := commands[name]
		if len(c.subs) == 0 {
			want := []string{"usage: haptex " + name}
			if name != "help" {
				want = append(want, "-h, --help")
			}
			check([]string{name, "-h"}, want...)
			check([]string{name, "--help"}, want...)
			check([]string{"help", name}, want...)
			continue
		}
		check([]string{name, "-h"}, "usage: haptex "+name+" COMMAND")
		check([]string{"help", name}, "usage: haptex "+name+" COMMAND")
		for _, s := range c.subs {
			want := []string{"usage: haptex " + name + " " + s.name, "-h, --help", s.summary}
			check([]string{name, s.name, "-h"}, want...)
			check([]string{name, s.name, "--help"}, want...)
			check([]string{"help", name, s.name}, want...)
			check([]string{name, "help", s.name}, want...)
		}
	}
}

// Every flag a command defines is in its usage, durations named as such.
func TestUsageListsEveryFlag(t *testing.T) {
	fs := newFlags("run", "run [flags]", summaryNotes)
	fs.Duration("duration", 0, "stop after this long")
	fs.String("out", "sessions", "parent folder")
	fs.Bool("json", false, "print JSON")
	out := captureHelp(t)
	if err := parse(fs, []string{"--help"}, 0); err != flag.ErrHelp {
		t.Fatalf("--help: %v", err)
	}
	for _, w := range []string{"-duration duration", "-out string", `(default "sessions")`, "-json", "late p50 µs"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("usage lacks %q:\n%s", w, out.String())
		}
	}
	if strings.Count(out.String(), "usage: haptex run") != 1 {
		t.Errorf("usage printed %d times", strings.Count(out.String(), "usage: haptex run"))
	}
}

// Flags go before or after the positional arguments; "--" ends them.
func TestFlagsEitherSide(t *testing.T) {
	for _, tc := range []struct {
		args []string
		pos  []string
		raw  bool
		lib  string
	}{
		{[]string{"denim", "-raw"}, []string{"denim"}, true, "x"},
		{[]string{"-raw", "denim"}, []string{"denim"}, true, "x"},
		{[]string{"-library", "/l", "denim", "-raw"}, []string{"denim"}, true, "/l"},
		{[]string{"denim", "-library=/l"}, []string{"denim"}, false, "/l"},
		{[]string{"-raw", "--", "-denim"}, []string{"-denim"}, true, "x"},
		{[]string{"a", "--", "-raw"}, []string{"a", "-raw"}, false, "x"},
	} {
		fs := newFlags("fabric show", "fabric show NAME")
		raw := fs.Bool("raw", false, "")
		lib := fs.String("library", "x", "")
		if err := parse(fs, tc.args, 2); err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if strings.Join(fs.Args(), " ") != strings.Join(tc.pos, " ") || *raw != tc.raw || *lib != tc.lib {
			t.Errorf("%q: positional %q raw %v library %q, want %q %v %q", tc.args, fs.Args(), *raw, *lib, tc.pos, tc.raw, tc.lib)
		}
	}
	fs := newFlags("replay", "replay DIR")
	fs.Bool("json", false, "")
	if err := parse(fs, []string{"a", "-json", "b"}, 1); err == nil || !strings.Contains(err.Error(), "unexpected arguments: b") {
		t.Errorf("two folders to a one-folder command: %v", err)
	}
	// An empty argument (a shell variable not set) is a usage error that
	// says so; before, report read it as a folder "" ("stat : no such file
	// or directory").
	fs = newFlags("report", "report DIR")
	fs.String("o", "", "")
	if err := parse(fs, []string{"", "-o", "x"}, 1); !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "argument 1 is empty") {
		t.Errorf("an empty folder: %v", err)
	}
}

// The commands that take positional arguments take flags on either side
// of them, end to end.
func TestCommandsFlagsAfterArguments(t *testing.T) {
	example := filepath.Join("..", "..", "examples", "stiffness-2afc.toml")
	for _, args := range [][]string{
		{"experiment", "check", example, "-no-stimulus"}, // the flags, not the stimulus (TestExperimentCheckExample runs that)
		{"fabric", "show", "cotton-shirting", "-raw"},
		{"fabric", "show", "-raw", "cotton-shirting"},
		{"fabric", "-json", "show", "cotton-shirting"},
	} {
		stdout := os.Stdout
		devnull, _ := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		os.Stdout = devnull
		_, err := execute(args)
		os.Stdout = stdout
		devnull.Close()
		if err != nil {
			t.Errorf("haptex %s: %v", strings.Join(args, " "), err)
		}
	}
}

// A duration without a unit says which unit to add; one with a unit
// parses.
func TestDurationHint(t *testing.T) {
	fs := newFlags("run", "run")
	d := fs.Duration("duration", 0, "")
	err := parse(fs, []string{"-duration", "2"}, 0)
	if err == nil || !strings.Contains(err.Error(), "write 2s for seconds") {
		t.Errorf("-duration 2: %v", err)
	}
	err = parse(fs, []string{"-duration", "two"}, 0)
	if err == nil || !strings.Contains(err.Error(), "a number and a unit") {
		t.Errorf("-duration two: %v", err)
	}
	if err := parse(fs, []string{"-duration", "1.5s"}, 0); err != nil || *d != 1500*time.Millisecond {
		t.Errorf("-duration 1.5s: %v, %v", *d, err)
	}
}

// A build made as the Makefile makes it names the commit it was built
// from.
func TestVersionNamesTheCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the program")
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	bin, stamped := program(t)
	if !stamped {
		t.Skip("make is not at hand: the build has no link flags")
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSpace(string(head))[:12]; !strings.Contains(string(out), "commit "+want) {
		t.Errorf("haptex version: %q, want commit %s", out, want)
	}
}

package testsplit

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const root = "../.."

// commands returns the go test commands make test runs, as make prints
// them without running them (make -n expands its variables and descends
// into the long suites), each split into its arguments.
func commands(t *testing.T) [][]string {
	t.Helper()
	out, err := exec.Command("make", "-n", "--no-print-directory", "-C", root, "test").Output()
	if err != nil {
		t.Fatalf("make -n test: %v", err)
	}
	var cmds [][]string
	for line := range strings.Lines(string(out)) {
		args := fields(strings.TrimSpace(line))
		if i := slices.Index(args, "test"); i > 0 && args[i-1] == "go" {
			cmds = append(cmds, args[i+1:])
		}
	}
	return cmds
}

// suite is one go test command of a long suite: the packages it runs and
// its -run pattern (nil: every test).
type suite struct {
	pkgs []string
	run  *regexp.Regexp
}

// fields splits a shell command on blanks, keeping single-quoted words
// whole and unquoted.
func fields(cmd string) []string {
	var out []string
	var w strings.Builder
	quoted, in := false, false
	for _, r := range cmd {
		switch {
		case r == '\'':
			quoted, in = !quoted, true
		case (r == ' ' || r == '\t') && !quoted:
			if in {
				out = append(out, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, w.String())
	}
	return out
}

// longSuite reads a long suite's go test arguments (those after "test").
func longSuite(t *testing.T, args []string) suite {
	t.Helper()
	var s suite
	for i := 0; i < len(args) && args[i] != "-args"; i++ {
		switch a := args[i]; {
		case a == "-run" && i+1 < len(args):
			i++
			// go test matches the pattern's first part, before any
			// slash, against the top-level test's name.
			top, _, _ := strings.Cut(args[i], "/")
			re, err := regexp.Compile(top)
			if err != nil {
				t.Fatalf("-run %q: %v", args[i], err)
			}
			s.run = re
		case strings.HasPrefix(a, "./"):
			s.pkgs = append(s.pkgs, filepath.Clean(a))
		}
	}
	return s
}

// tests maps each package folder (as ./dir) to its top-level test
// functions.
func tests(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "bin" || n == "sessions") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := filepath.Clean("./" + rel)
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Test") && fn.Name.Name != "TestMain" {
				out[pkg] = append(out[pkg], fn.Name.Name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Every test the race run skips runs in a long suite, and every name the
// skip list holds is a test.
func TestSkippedRunElsewhere(t *testing.T) {
	var skip string
	var suites []suite
	for _, args := range commands(t) {
		if !slices.Contains(args, "-race") {
			suites = append(suites, longSuite(t, args))
		} else if i := slices.Index(args, "-skip"); i >= 0 && i+1 < len(args) {
			skip = args[i+1]
		}
	}
	if !strings.HasPrefix(skip, "^(") || !strings.HasSuffix(skip, ")$") || len(suites) == 0 {
		t.Fatalf("make test runs no race run with -skip '^(A|B|...)$' (%q) or no long suite (%d)", skip, len(suites))
	}
	names := skip[2 : len(skip)-2]
	skipRE := regexp.MustCompile(skip)
	all := tests(t)
	if len(all) < 40 {
		t.Fatalf("found tests in %d packages: the walk missed the module", len(all))
	}
	found := map[string]bool{}
	for pkg, fns := range all {
		for _, name := range fns {
			if !skipRE.MatchString(name) {
				continue
			}
			found[name] = true
			run := slices.ContainsFunc(suites, func(s suite) bool {
				return slices.Contains(s.pkgs, pkg) && (s.run == nil || s.run.MatchString(name))
			})
			if !run {
				t.Errorf("%s in %s: the race run skips it (RACE_SKIP) and no long suite runs it", name, pkg)
			}
		}
	}
	for name := range strings.SplitSeq(names, "|") {
		if !found[name] {
			t.Errorf("RACE_SKIP names %s, which is no test", name)
		}
	}
	t.Logf("%d tests skipped by the race run, each run by a long suite (%d go test commands)", len(found), len(suites))
}

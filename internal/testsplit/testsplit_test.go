package testsplit

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const root = "../.."

// makefile is what the test reads of the Makefile: its variables and
// the recipes of its targets.
type makefile struct {
	vars    map[string]string
	recipes map[string][]string
}

var (
	assignRE = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\s*[:?]?=\s*(.*)$`)
	targetRE = regexp.MustCompile(`^([A-Za-z0-9_.-]+):`)
	refRE    = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)
)

func readMakefile(t *testing.T) *makefile {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := &makefile{vars: map[string]string{}, recipes: map[string][]string{}}
	target := ""
	for line := range strings.Lines(string(src)) {
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "\t"):
			if target != "" {
				m.recipes[target] = append(m.recipes[target], strings.TrimSpace(line))
			}
			continue
		case strings.HasPrefix(line, "#"):
			continue
		}
		target = ""
		if a := assignRE.FindStringSubmatch(line); a != nil {
			m.vars[a[1]] = strings.TrimSpace(a[2])
		} else if g := targetRE.FindStringSubmatch(line); g != nil {
			target = g[1]
		}
	}
	return m
}

// expand replaces $(VAR) with the variable's value, recursively, and
// make's $$ with $.
func (m *makefile) expand(s string) string {
	for range 10 {
		s = refRE.ReplaceAllStringFunc(s, func(ref string) string { return m.vars[ref[2:len(ref)-1]] })
	}
	return strings.ReplaceAll(s, "$$", "$")
}

// suite is one go test command of a long suite: the packages it runs and
// its -run pattern (nil: every test).
type suite struct {
	target string
	pkgs   []string
	run    *regexp.Regexp
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

func (m *makefile) suites(t *testing.T) []suite {
	t.Helper()
	var out []suite
	for _, target := range strings.Fields(m.vars["LONG_SUITES"]) {
		lines := m.recipes[target]
		if len(lines) == 0 {
			t.Fatalf("LONG_SUITES names %s, which has no recipe", target)
		}
		for _, line := range lines {
			args := fields(m.expand(line))
			if len(args) < 2 || args[1] != "test" {
				continue
			}
			s := suite{target: target}
			for i := 2; i < len(args) && args[i] != "-args"; i++ {
				switch a := args[i]; {
				case a == "-run" && i+1 < len(args):
					i++
					// go test matches the pattern's first part, before any
					// slash, against the top-level test's name.
					top, _, _ := strings.Cut(args[i], "/")
					re, err := regexp.Compile(top)
					if err != nil {
						t.Fatalf("%s: -run %q: %v", target, args[i], err)
					}
					s.run = re
				case strings.HasPrefix(a, "./"):
					s.pkgs = append(s.pkgs, filepath.Clean(a))
				}
			}
			out = append(out, s)
		}
	}
	return out
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
	m := readMakefile(t)
	var skip *regexp.Regexp
	for _, line := range m.recipes["test"] {
		args := fields(m.expand(line))
		if i := slices.Index(args, "-skip"); i >= 0 && i+1 < len(args) && slices.Contains(args, "-race") {
			skip = regexp.MustCompile(args[i+1])
		}
	}
	if skip == nil {
		t.Fatal("make test's recipe has no race run with -skip")
	}
	suites := m.suites(t)
	all := tests(t)
	if len(all) < 40 {
		t.Fatalf("found tests in %d packages: the walk missed the module", len(all))
	}
	found := map[string]bool{}
	for pkg, names := range all {
		for _, name := range names {
			if !skip.MatchString(name) {
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
	for name := range strings.SplitSeq(m.expand("$(RACE_SKIP)"), "|") {
		if !found[name] {
			t.Errorf("RACE_SKIP names %s, which is no test", name)
		}
	}
	t.Logf("%d tests skipped by the race run, each run by a long suite (%d go test commands)", len(found), len(suites))
}

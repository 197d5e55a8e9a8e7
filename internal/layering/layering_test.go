package layering

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/haptex/haptex"

// graph maps each package to its transitive non-test dependencies.
type graph map[string][]string

// rule forbids the packages it selects from depending on what it rejects.
type rule struct {
	name    string
	applies func(pkg string) bool
	rejects func(dep string) bool
}

func within(prefixes ...string) func(string) bool {
	return func(p string) bool {
		for _, pre := range prefixes {
			pre = module + "/" + pre
			if p == pre || strings.HasPrefix(p, pre+"/") {
				return true
			}
		}
		return false
	}
}

func exactly(pkgs ...string) func(string) bool {
	return func(p string) bool {
		for _, q := range pkgs {
			if p == module+"/"+q {
				return true
			}
		}
		return false
	}
}

func not(f func(string) bool) func(string) bool { return func(p string) bool { return !f(p) } }

// stdlib reports whether an import path is the standard library's: its
// first element has no dot.
func stdlib(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".")
}

func under(p string, roots ...string) bool {
	for _, r := range roots {
		if p == r || strings.HasPrefix(p, r+"/") {
			return true
		}
	}
	return false
}

func isGL(p string) bool { return under(p, "github.com/go-gl") }

var rules = []rule{
	{
		name:    "numerics import only the standard library, gonum and x/sys",
		applies: exactly("sim", "sim/odetest", "tactile", "haptics/filter"),
		rejects: func(d string) bool {
			return !stdlib(d) && !under(d, "gonum.org/v1/gonum", "golang.org/x/sys")
		},
	},
	{
		name:    "plumbing imports only the standard library, x/sys and other plumbing",
		applies: within("internal"),
		rejects: func(d string) bool {
			return !stdlib(d) && !under(d, "golang.org/x/sys") && !within("internal")(d)
		},
	},
	{
		name:    "only render and cmd reach OpenGL",
		applies: not(within("render", "cmd")),
		rejects: isGL,
	},
	{
		name:    "devices stay below haptics, the cloth and the application",
		applies: within("devices"),
		rejects: within("haptics", "sim", "tactile", "app", "cmd"),
	},
	{
		name:    "only cmd and the application reach the application",
		applies: not(within("app", "cmd")),
		rejects: within("app", "cmd"),
	},
}

// violations lists every dependency that breaks a rule, one line each.
func violations(g graph) []string {
	var out []string
	for pkg, deps := range g {
		if !strings.HasPrefix(pkg, module) || strings.HasSuffix(pkg, ".test") {
			continue
		}
		for _, r := range rules {
			if !r.applies(pkg) {
				continue
			}
			for _, d := range deps {
				if d != pkg && r.rejects(d) {
					out = append(out, fmt.Sprintf("%s imports %s: %s", pkg, d, r.name))
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// moduleGraph asks the go command for every package of the module and its
// transitive dependencies.
func moduleGraph(t *testing.T) graph {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps=false", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	g := graph{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 0 {
			g[f[0]] = f[1:]
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return g
}

func TestImportGraph(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	g := moduleGraph(t)
	for _, must := range []string{"sim", "tactile", "haptics", "devices", "render", "app/rig", "cmd/haptex"} {
		if _, ok := g[module+"/"+must]; !ok {
			t.Fatalf("go list did not list %s: the test would check nothing", must)
		}
	}
	for _, v := range violations(g) {
		t.Error(v)
	}
}

// TestRulesCatchViolations adds one forbidden import of each kind to a
// clean graph and checks that each is reported, and only it.
func TestRulesCatchViolations(t *testing.T) {
	m := func(p string) string { return module + "/" + p }
	clean := graph{
		m("sim"):          {"math", "gonum.org/v1/gonum/mat", "golang.org/x/sys/cpu"},
		m("tactile"):      {"math", "gonum.org/v1/gonum/dsp/fourier"},
		m("devices/twin"): {m("devices"), m("devices/exo"), "github.com/BurntSushi/toml"},
		m("internal/rt"):  {"golang.org/x/sys/unix", "time"},
		m("haptics"):      {m("devices"), m("sim")},
		m("render"):       {"github.com/go-gl/gl/v4.1-core/gl", m("sim")},
		m("app/rig"):      {m("haptics"), m("sim"), m("devices/twin")},
		m("cmd/haptex"):   {m("app/rig"), m("render"), "github.com/go-gl/glfw/v3.3/glfw"},
	}
	if v := violations(clean); len(v) != 0 {
		t.Fatalf("clean graph reported: %v", v)
	}
	cases := []struct {
		pkg, dep, rule string
	}{
		{"sim", m("devices"), rules[0].name},
		{"tactile", "github.com/BurntSushi/toml", rules[0].name},
		{"haptics/filter", m("internal/rt"), rules[0].name},
		{"internal/rt", "gonum.org/v1/gonum/mat", rules[1].name},
		{"internal/sessionlog", m("devices"), rules[1].name},
		{"haptics", "github.com/go-gl/gl/v4.1-core/gl", rules[2].name},
		{"devices/twin", m("haptics"), rules[3].name},
		{"devices/link", m("app/rig"), rules[3].name},
		{"calib/kes", m("app/experiment"), rules[4].name},
	}
	for _, c := range cases {
		t.Run(c.pkg+"->"+c.dep, func(t *testing.T) {
			g := graph{}
			for k, v := range clean {
				g[k] = slices.Clone(v)
			}
			g[m(c.pkg)] = append(g[m(c.pkg)], c.dep)
			v := violations(g)
			if len(v) == 0 {
				t.Fatalf("not reported")
			}
			want := fmt.Sprintf("%s imports %s: %s", m(c.pkg), c.dep, c.rule)
			if !slices.Contains(v, want) {
				t.Errorf("got %v, want %q among them", v, want)
			}
		})
	}
}

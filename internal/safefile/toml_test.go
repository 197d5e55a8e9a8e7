package safefile_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/haptex/haptex/internal/safefile"
	"github.com/haptex/haptex/internal/safefile/safefiletest"
)

// readTOML is a reader as haptex's readers use the package: the file
// within a size limit, then its structure.
func readTOML(path string) error {
	data, err := safefile.ReadFile(path, 4<<20)
	if err != nil {
		return err
	}
	return safefile.CheckTOML(path, data, safefile.TOMLLimits{})
}

// Every hostile class is refused, in little memory, with one line naming
// the file and the limit.
func TestHostileTOMLRefused(t *testing.T) {
	safefiletest.Refused(t, safefiletest.TOML(), readTOML)
}

// Every TOML file haptex ships passes the default limits with room to
// spare.
func TestShippedTOMLPasses(t *testing.T) {
	var paths []string
	for _, g := range []string{"calib/kes/fabrics/*.toml", "calib/kes/testdata/*.toml", "examples/*.toml", "devices/twin/*.toml", "haptics/*.toml"} {
		m, err := filepath.Glob(filepath.Join("..", "..", g))
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, m...)
	}
	if len(paths) < 14 {
		t.Fatalf("found %d TOML files: %v", len(paths), paths)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		c, err := safefile.CountTOML(data)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		d := safefile.DefaultTOML
		if c.Depth > d.Depth/4 || c.Keys > d.Keys/4 || c.Tables > d.Tables/4 || c.Values > d.Values/4 {
			t.Errorf("%s: %+v, within a quarter of the limits %+v", p, c, d)
		}
	}
}

// Each limit lets a file at the limit through and refuses one past it,
// whatever construct reaches it; strings and comments count for nothing.
func TestCheckTOMLLimits(t *testing.T) {
	nest := func(open, close string, n int) string {
		return "x = " + strings.Repeat(open, n) + "1" + strings.Repeat(close, n) + "\n"
	}
	lim := safefile.TOMLLimits{Depth: 6, Keys: 8, KeyLen: 16, Tables: 3, Values: 10}
	tests := []struct {
		name string
		doc  string
		want error // nil: passes
	}{
		{"arrays at the depth", nest("[", "]", 5), nil},
		{"arrays past the depth", nest("[", "]", 6), safefile.ErrTooDeep},
		{"inline tables at the depth", "x.y = {a={b=1}}\n", nil},
		{"inline tables past the depth", "x.y = {a={b={}}}\n", safefile.ErrTooDeep},
		{"dotted key at the depth", "a.b.c.d.e.f = 1\n", nil},
		{"dotted key past the depth", "a.b.c.d.e.f.g = 1\n", safefile.ErrTooDeep},
		{"header and key", "[a.b.c]\nd.e.f = 1\n", nil},
		{"header and key past the depth", "[a.b.c]\nd.e.f = [1]\n", safefile.ErrTooDeep},
		{"header past the depth", "[a.b.c.d.e.f.g]\n", safefile.ErrTooDeep},
		{"array-of-tables header past the depth", "[[a.b.c.d.e.f.g]]\n", safefile.ErrTooDeep},
		{"quoted dots are one part", `"a.b.c.d.e.f.g" = 1` + "\n", nil},
		{"keys at the limit", "a=1\nb=2\nc.d=3\n[t.u]\nv.w=4\n", nil},
		{"keys past the limit", "a=1\nb=2\nc.d=3\n[t.u]\nv.w=4\nx=5\n", safefile.ErrTooManyKeys},
		{"key at its length", "abcdefghijklmnop = 1\n", nil},
		{"key past its length", "abcdefghijklmnopq = 1\n", safefile.ErrKeyTooLong},
		{"quoted key past its length", `"abcdefghijklmno" = 1` + "\n", safefile.ErrKeyTooLong},
		{"header past the key length", "[abcdefghijklmnop]\n", safefile.ErrKeyTooLong},
		{"tables at the limit", "[a]\n[[b]]\nx = {}\n", nil},
		{"tables past the limit", "[a]\n[[b]]\nx = [{}, {}]\n", safefile.ErrTooManyTables},
		{"values at the limit", "x = [1,2,3,4,5,6,7,8,9]\n", nil},
		{"values past the limit", "x = [1,2,3,4,5,6,7,8,9,10]\n", safefile.ErrTooManyValues},
		{"nothing counts in strings", "s = \"[[[[[[[{{{{{a.b.c.d.e.f.g=1,2,3,4,5,6,7,8,9,10,11\"\n", nil},
		{"nor in literal strings", "s = '[[[[[[[ {{{{ \\'\n", nil},
		{"nor in multi-line strings", "s = \"\"\"\n[[[[[[[\n\\\"\"\"\n]]]]\n\"\"\"\"\"\n", nil},
		{"nor in multi-line literal strings", "s = '''\n[[[[[[[ '' ]]'''''\n", nil},
		{"nor in comments", "# [[[[[[[[ a.b.c.d.e.f.g.h = {{{{{\nx = 1\n", nil},
		{"an escaped quote does not end a string", `s = "\"[[[[[[[[[[["` + "\n", nil},
		{"structure after an escaped backslash counts", `s = "\\"` + ", x = " + nest("[", "]", 6), safefile.ErrTooDeep},
		{"a table at a line start inside an array is a value", "x = [\n[[[[[1]]]]]\n]\n", safefile.ErrTooDeep},
		{"after an empty inline table", "x = [{}, {a = {b = {c = {d = 1}}}}]\n", safefile.ErrTooDeep},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := safefile.CheckTOML("t.toml", []byte(tc.doc), lim)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var se *safefile.Error
			if !errors.Is(err, tc.want) || !errors.As(err, &se) || se.Path != "t.toml" || se.Line < 1 {
				t.Fatalf("got %v, want %v with the file and its line", err, tc.want)
			}
		})
	}
}

// gen writes random TOML documents and counts their structure as
// CheckTOML defines it, independently of the scanner.
type gen struct {
	r    *rand.Rand
	b    strings.Builder
	n    int // names used
	true safefile.TOMLCounts
}

func (g *gen) name() string {
	g.n++
	if g.r.IntN(4) == 0 {
		return fmt.Sprintf("%q", fmt.Sprintf("k.%d [x]", g.n)) // a quoted key with a dot and brackets
	}
	return fmt.Sprintf("k%d", g.n)
}

func (g *gen) depth(d int) { g.true.Depth = max(g.true.Depth, d) }

// key writes a dotted key of 1-3 parts at base and returns its depth.
func (g *gen) key(base int) int {
	parts := 1 + g.r.IntN(3)
	for i := range parts {
		if i > 0 {
			g.b.WriteString(".")
		}
		g.b.WriteString(g.name())
	}
	g.true.Keys += parts
	g.depth(base + parts)
	return base + parts
}

var scalars = []string{"1", "-2.5e3", "true", "1979-05-27T07:32:00Z", `"a.b = [{ # }]"`, `'c:\x]'`,
	"\"\"\"\nline [ { .\n\\\"\"\"\"\"", "'''\n]]} '' '''", `"\\"`, "0x1F", "inf"}

// value writes a value in a container at depth c.
func (g *gen) value(c int) {
	switch k := g.r.IntN(6); {
	case k < 3 || c > 12:
		g.b.WriteString(scalars[g.r.IntN(len(scalars))])
	case k < 5:
		g.depth(c + 1)
		g.b.WriteString("[")
		n := g.r.IntN(4)
		for i := range n {
			if i > 0 {
				g.b.WriteString(", ")
			}
			g.true.Values++
			g.value(c + 1)
		}
		g.b.WriteString("]")
	default:
		g.depth(c + 1)
		g.true.Tables++
		g.b.WriteString("{")
		n := g.r.IntN(3)
		for i := range n {
			if i > 0 {
				g.b.WriteString(", ")
			}
			d := g.key(c + 1)
			g.b.WriteString(" = ")
			g.true.Values++
			g.value(d)
		}
		g.b.WriteString("}")
	}
}

func (g *gen) doc() string {
	base := 0
	for range 1 + g.r.IntN(12) {
		switch g.r.IntN(5) {
		case 0, 1:
			open, close := "[", "]"
			if g.r.IntN(2) == 0 {
				open, close = "[[", "]]"
			}
			g.b.WriteString("\n" + open)
			base = g.key(0)
			g.true.Tables++
			g.b.WriteString(close + " # a comment [[[\n")
		default:
			d := g.key(base)
			g.b.WriteString(" = ")
			g.true.Values++
			g.value(d)
			g.b.WriteString("\n")
		}
	}
	return g.b.String()
}

// On random documents the decoder reads, CheckTOML finds the depth, key
// parts and tables exactly and never fewer values than there are (it
// counts an empty array as one).
func TestCheckTOMLCountsRandomDocuments(t *testing.T) {
	for seed := range uint64(500) {
		g := &gen{r: rand.New(rand.NewPCG(seed, 26))}
		doc := g.doc()
		var v map[string]any
		if _, err := toml.Decode(doc, &v); err != nil {
			t.Fatalf("seed %d: the generator wrote a file the decoder refuses: %v\n%s", seed, err, doc)
		}
		got, err := safefile.CountTOML([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		w := g.true
		if got.Depth != w.Depth || got.Keys != w.Keys || got.Tables != w.Tables || got.Values < w.Values {
			t.Fatalf("seed %d: counted %+v, the document has %+v\n%s", seed, got, w, doc)
		}
	}
}

// decodeAlloc decodes data as haptex's readers do and returns the bytes
// allocated.
func decodeAlloc(data []byte) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var v map[string]any
	toml.Decode(string(data), &v)
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// checkDecodeBounded is the property both fuzz targets check: CheckTOML
// does not panic, and whatever it passes decodes within the memory goal.
func checkDecodeBounded(t *testing.T, data []byte) {
	err := safefile.CheckTOML("fuzz.toml", data, safefile.TOMLLimits{})
	if err != nil {
		var se *safefile.Error
		if !errors.As(err, &se) || strings.ContainsAny(err.Error(), "\n\r") {
			t.Fatalf("refusal is not one line from safefile: %q", err)
		}
		return
	}
	if a := decodeAlloc(data); a > safefiletest.MaxAlloc {
		t.Fatalf("passed a %d-byte file that decoding allocates %.1f MB for", len(data), float64(a)/1e6)
	}
}

// FuzzCheckTOML: arbitrary bytes.
func FuzzCheckTOML(f *testing.F) {
	for _, s := range []string{"a = 1", "[a.b]\nc = [1, {d = 2}]", "x = {a={a={a=1}}}", `s = """a"""`, "[[t]]\n[[t]]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(checkDecodeBounded)
}

// shapes builds a document of one hostile shape, n deep or n long, with
// unit as the repeated piece where the shape takes one.
var shapes = []func(n int, unit string) string{
	func(n int, _ string) string { return "x = " + strings.Repeat("{a=", n) + "1" + strings.Repeat("}", n) },
	func(n int, _ string) string { return "x = " + strings.Repeat("[", n) + "1" + strings.Repeat("]", n) },
	func(n int, _ string) string { return strings.Repeat("[{a=", n) },
	func(n int, unit string) string { return strings.Repeat(unit+".", n) + "a = 1" },
	func(n int, unit string) string { return "[" + strings.Repeat(unit+".", n) + "a]\nb = 1" },
	func(n int, unit string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "[%s%d]\n", unit, i)
		}
		return b.String()
	},
	func(n int, unit string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%s%d.x = %d\n", unit, i, i)
		}
		return b.String()
	},
	func(n int, unit string) string { return "x = [" + strings.Repeat(unit+",", n) + "]" },
	func(n int, unit string) string { return strings.Repeat("[[t]]\n"+unit+" = 1\n", n) },
	func(n int, unit string) string { return `"` + strings.Repeat(unit, n) + `" = 1` },
}

// FuzzTOMLShapes: structure-aware inputs, the shapes of the hostile files
// (deep nesting, long dotted keys, many tables, keys and values) at sizes
// and with pieces the fuzzer picks, around a tail of arbitrary bytes.
func FuzzTOMLShapes(f *testing.F) {
	for i := range shapes {
		f.Add(uint8(i), uint32(20_000), "a", []byte("]]}"))
		f.Add(uint8(i), uint32(31), "\"q.q\"", []byte("\n"))
	}
	f.Fuzz(func(t *testing.T, shape uint8, n uint32, unit string, tail []byte) {
		if len(unit) > 16 {
			unit = unit[:16]
		}
		doc := shapes[int(shape)%len(shapes)](int(n%300_000), unit) + "\n" + string(tail)
		checkDecodeBounded(t, []byte(doc))
	})
}

// Files at the limits pass the check, and decoding them stays within the
// memory goal: the limits are tight enough. The shapes that cost the
// decoder most per unit are taken one by one (dotted keys make implicit
// tables, nesting copies key paths, number pairs are three values each),
// the others all at once.
func TestDecodeAtTheLimits(t *testing.T) {
	d := safefile.DefaultTOML
	var keys31, pairs, deep, all strings.Builder
	for i := range d.Keys/31 - 1 {
		fmt.Fprintf(&keys31, "k%d%s = 1\n", i, strings.Repeat(".a", 30))
	}
	pairs.WriteString("x = [" + strings.Repeat("[1.5,2],", d.Values/3-1) + "]\n")
	for i := range d.Tables / 16 {
		fmt.Fprintf(&deep, "[t%d]\nx = %s1%s\n", i, strings.Repeat("{a=", 15), strings.Repeat("}", 15))
	}
	// Values, tables, long keys, and a string filling a fabric's 4 MiB.
	all.WriteString("x = [" + strings.Repeat("1,", d.Values-10_000) + "]\n")
	for i := range d.Tables - 96 {
		fmt.Fprintf(&all, "[t%d]\n", i)
		if i < (d.Keys-d.Tables)/4 {
			for j := range 4 {
				fmt.Fprintf(&all, "%s%d = 1\n", strings.Repeat("k", d.KeyLen-16), j)
			}
		}
	}
	all.WriteString("y = \"" + strings.Repeat("x", 4<<20-all.Len()-100) + "\"\n")
	for _, doc := range []struct{ name, s string }{{"dotted keys", keys31.String()}, {"pairs", pairs.String()},
		{"deep inline tables", deep.String()}, {"all at once", all.String()}} {
		if err := safefile.CheckTOML(doc.name, []byte(doc.s), safefile.TOMLLimits{}); err != nil {
			t.Fatalf("%s: %v", doc.name, err)
		}
		a := decodeAlloc([]byte(doc.s))
		t.Logf("%-18s %8d bytes: decoding allocates %5.1f MB", doc.name, len(doc.s), float64(a)/1e6)
		if a > safefiletest.MaxAlloc {
			t.Errorf("%s: decoding allocates %.1f MB", doc.name, float64(a)/1e6)
		}
	}
}

// BenchmarkCheckTOMLHostile times the refusal of each hostile class (the
// check alone; the file is in memory).
func BenchmarkCheckTOMLHostile(b *testing.B) {
	for _, h := range safefiletest.TOML() {
		if h.Data == nil || h.Name == "oversized" { // refused by the reader's size limit
			continue
		}
		data := h.Data()
		b.Run(h.Name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if safefile.CheckTOML(h.Name, data, safefile.TOMLLimits{}) == nil {
					b.Fatal("passed")
				}
			}
		})
	}
}

// Package safefiletest holds the hostile input files the tests of every
// haptex file reader are run against, and the check that a reader refuses
// each of them quickly, in little memory and with one line naming the file
// and the limit. It is for tests only.
package safefiletest

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/haptex/haptex/internal/safefile"
)

// MaxAlloc is the most a reader may allocate refusing one hostile file:
// the goal is under 100 MB of memory, and everything allocated (TotalAlloc)
// bounds what was in use at once.
const MaxAlloc = 100 << 20

// hangAfter is how long a reader may take before the check calls it hung:
// a FIFO or /dev/zero used to block or read forever. The goal is under a
// second; this bound only catches a hang on a loaded machine, the
// benchmarks measure the time.
const hangAfter = 20 * time.Second

// Hostile is one class of hostile input.
type Hostile struct {
	Name string
	// Data makes the file's content (when Path writes it); nil for the
	// special files below.
	Data func() []byte
	// Special is "fifo", "devzero" or "dir" for a named pipe, /dev/zero or
	// a folder given where a file is read.
	Special string
}

// Path makes h in dir and returns its path (/dev/zero is itself).
func (h Hostile) Path(t testing.TB, dir string) string {
	t.Helper()
	p := filepath.Join(dir, h.Name)
	switch h.Special {
	case "devzero":
		return "/dev/zero"
	case "fifo":
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
	case "dir":
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
	default:
		if err := os.WriteFile(p, h.Data(), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// repeat makes prefix, unit n times, suffix.
func repeat(prefix, unit string, n int, suffix string) func() []byte {
	return func() []byte { return []byte(prefix + strings.Repeat(unit, n) + suffix) }
}

// nest makes prefix, open n times, middle, close n times.
func nest(prefix, open string, n int, middle, close string) func() []byte {
	return func() []byte {
		return []byte(prefix + strings.Repeat(open, n) + middle + strings.Repeat(close, n) + "\n")
	}
}

// numbered makes n lines of before, the line's number, after.
func numbered(before string, n int, after string) func() []byte {
	return func() []byte {
		b := make([]byte, 0, n*(len(before)+len(after)+6))
		for i := range n {
			b = append(b, before...)
			b = strconv.AppendInt(b, int64(i), 10)
			b = append(b, after...)
		}
		return b
	}
}

// TOML returns the hostile TOML files: each class that made a haptex
// reader run out of memory, hang or take minutes, and the neighbours of
// each (every limit of safefile.TOMLLimits, the size limit, and the file
// types that are not regular files).
func TOML() []Hostile {
	return []Hostile{
		// 20,000 nested inline tables: out of memory in 6-9 s before.
		{Name: "nested-inline-tables", Data: nest("x = ", "{a=", 20_000, "1", "}")},
		{Name: "nested-arrays", Data: nest("x = ", "[", 20_000, "1", "]")},
		// A 50,000-part dotted key: out of memory.
		{Name: "dotted-key", Data: repeat("", "a.", 50_000, "a = 1\n")},
		{Name: "dotted-table-header", Data: repeat("[", "a.", 50_000, "a]\nb = 1\n")},
		{Name: "long-key", Data: repeat("", "k", 1<<20, " = 1\n")},
		{Name: "long-quoted-key", Data: repeat("\"", "k", 1<<20, "\" = 1\n")},
		// 200,000 unknown tables in 2.9 MB: over a minute before.
		{Name: "many-tables", Data: numbered("[unknown", 200_000, "]\n")},
		{Name: "many-array-tables", Data: repeat("", "[[t]]\n", 200_000, "")},
		{Name: "many-keys", Data: numbered("k", 200_000, " = 1\n")},
		{Name: "many-inline-tables", Data: repeat("x = [", "{},", 500_000, "]\n")},
		{Name: "many-values", Data: repeat("x = [", "1,", 1_000_000, "]\n")},
		{Name: "oversized", Data: repeat("# ", "x", 8<<20, "\n")},
		{Name: "devzero", Special: "devzero"},
		{Name: "fifo", Special: "fifo"},
		{Name: "dir", Special: "dir"},
	}
}

// JSON returns the hostile JSON files: the same classes for the JSON
// readers (calibrations, session records), sized under their 1 MiB limit
// where the class is about structure.
func JSON() []Hostile {
	return []Hostile{
		{Name: "nested-arrays", Data: nest("", "[", 20_000, "1", "]")},
		{Name: "nested-objects", Data: nest("", `{"a":`, 20_000, "1", "}")},
		{Name: "long-key", Data: repeat(`{"`, "k", 512<<10, `":1}`)},
		{Name: "many-keys", Data: repeat("{", `"k":1,`, 100_000, `"k":1}`)},
		{Name: "many-values", Data: repeat("[", "1,", 400_000, "1]")},
		{Name: "oversized", Data: repeat(`{"a":"`, "x", 8<<20, `"}`)},
		{Name: "devzero", Special: "devzero"},
		{Name: "fifo", Special: "fifo"},
		{Name: "dir", Special: "dir"},
	}
}

// limitErrs are the refusals a hostile file may get.
var limitErrs = []error{safefile.ErrNotRegular, safefile.ErrTooLarge, safefile.ErrTooDeep,
	safefile.ErrTooManyKeys, safefile.ErrKeyTooLong, safefile.ErrTooManyTables, safefile.ErrTooManyValues}

// Result is what refusing one hostile file cost.
type Result struct {
	Name  string
	Alloc uint64        // bytes allocated (runtime.MemStats.TotalAlloc)
	Time  time.Duration // wall time on this machine, for the log
	Err   error
}

// Refused runs load on every hostile file and checks that each is refused
// with an error that is one line, names the file and says which limit,
// matches one of safefile's limit errors with errors.Is, and that
// refusing it allocated at most MaxAlloc and did not hang. It returns what
// each cost.
func Refused(t *testing.T, classes []Hostile, load func(path string) error) []Result {
	t.Helper()
	dir := t.TempDir()
	var out []Result
	for _, h := range classes {
		path := h.Path(t, dir)
		r := measure(t, h.Name, func() error { return load(path) })
		out = append(out, r)
		msg := ""
		if r.Err != nil {
			msg = r.Err.Error()
		}
		switch {
		case r.Err == nil:
			t.Errorf("%s: accepted", h.Name)
		case strings.ContainsAny(msg, "\n\r"):
			t.Errorf("%s: error of more than one line: %q", h.Name, msg)
		case !strings.Contains(msg, path):
			t.Errorf("%s: error does not name the file %s: %s", h.Name, path, msg)
		case !strings.Contains(msg, "limit") && !strings.Contains(msg, "not a regular file"):
			t.Errorf("%s: error does not name the limit: %s", h.Name, msg)
		case !isLimit(r.Err):
			t.Errorf("%s: error is not one of safefile's limits: %v", h.Name, r.Err)
		}
		if r.Alloc > MaxAlloc {
			t.Errorf("%s: refusing it allocated %.1f MB, more than %d MB", h.Name, float64(r.Alloc)/1e6, MaxAlloc>>20)
		}
		t.Logf("%-22s %7.2f MB %10v  %s", h.Name, float64(r.Alloc)/1e6, r.Time.Round(time.Microsecond), msg)
	}
	return out
}

func isLimit(err error) bool {
	for _, e := range limitErrs {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// measure runs load once, with a hang detector, and counts what it
// allocated.
func measure(t *testing.T, name string, load func() error) Result {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- load() }()
	select {
	case err := <-done:
		elapsed := time.Since(start)
		runtime.ReadMemStats(&after)
		return Result{Name: name, Alloc: after.TotalAlloc - before.TotalAlloc, Time: elapsed, Err: err}
	case <-time.After(hangAfter):
		t.Fatalf("%s: still reading after %v: hung", name, hangAfter)
	}
	return Result{}
}

// Plant puts a symbolic link at path (making its folder) to a new victim
// elsewhere, a file holding "precious" or, with folder, an empty folder,
// and returns the victim's path for Untouched.
func Plant(t testing.TB, path string, folder bool) string {
	t.Helper()
	victim := filepath.Join(t.TempDir(), "victim")
	var err error
	if folder {
		err = os.Mkdir(victim, 0o700)
	} else {
		err = os.WriteFile(victim, []byte("precious"), 0o600)
	}
	if err == nil {
		err = os.MkdirAll(filepath.Dir(path), 0o700)
	}
	if err == nil {
		err = os.Symlink(victim, path)
	}
	if err != nil {
		t.Fatal(err)
	}
	return victim
}

// Untouched fails the test when something was written through the link to
// victim (made by Plant): the file's bytes changed or the folder is not
// empty.
func Untouched(t testing.TB, what, victim string) {
	t.Helper()
	st, err := os.Stat(victim)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if st.IsDir() {
		if ents, _ := os.ReadDir(victim); len(ents) != 0 {
			t.Errorf("%s: written into the link's target folder: %v", what, ents)
		}
	} else if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("%s: written through the link: %q", what, b)
	}
}

// Replaced checks that path, where Plant put a link, is now a regular file
// and the link's target untouched.
func Replaced(t testing.TB, path, victim string) {
	t.Helper()
	Untouched(t, path, victim)
	if st, err := os.Lstat(path); err != nil || !st.Mode().IsRegular() {
		t.Errorf("%s: %v, %v", path, st, err)
	}
}

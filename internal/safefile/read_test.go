package safefile_test

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/haptex/haptex/internal/safefile"
)

// What is not a regular file is refused from its stat: a FIFO without a
// writer (which blocked forever), /dev/zero (which read forever), a
// folder, a socket.
func TestReadFileRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, tc := range []struct{ path, kind string }{
		{fifo, "a FIFO"}, {"/dev/zero", "a character device"}, {dir, "a directory"}, {sock, "a socket"},
	} {
		_, err := safefile.ReadFile(tc.path, 1<<20)
		if !errors.Is(err, safefile.ErrNotRegular) || !strings.Contains(err.Error(), tc.path+": "+tc.kind) {
			t.Errorf("%s: %v", tc.path, err)
		}
	}
}

// The size limit holds on what is read, not on what stat says: a /proc
// file's stat size is 0.
func TestReadFileLimitWhileReading(t *testing.T) {
	const proc = "/proc/self/status"
	st, err := os.Stat(proc)
	if err != nil || st.Size() != 0 {
		t.Skipf("%s: size %v, %v", proc, st, err)
	}
	if _, err := safefile.ReadFile(proc, 16); !errors.Is(err, safefile.ErrTooLarge) {
		t.Errorf("16-byte limit on %s: %v", proc, err)
	}
	if b, err := safefile.ReadFile(proc, 1<<20); err != nil || !bytes.Contains(b, []byte("Name:")) {
		t.Errorf("%s read whole: %d bytes, %v", proc, len(b), err)
	}
}

// A file of exactly the limit reads; one byte more does not.
func TestReadFileAtTheLimit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	data := bytes.Repeat([]byte("x"), 1000)
	os.WriteFile(p, data, 0o600)
	if b, err := safefile.ReadFile(p, 1000); err != nil || !bytes.Equal(b, data) {
		t.Errorf("at the limit: %d bytes, %v", len(b), err)
	}
	var se *safefile.Error
	if _, err := safefile.ReadFile(p, 999); !errors.As(err, &se) || se.Err != safefile.ErrTooLarge || se.Path != p {
		t.Errorf("a byte over the limit: %v", err)
	}
	if b, err := safefile.ReadAll(bytes.NewReader(data), "reader", 1000); err != nil || len(b) != 1000 {
		t.Errorf("ReadAll at the limit: %d, %v", len(b), err)
	}
	if _, err := safefile.ReadAll(bytes.NewReader(data), "reader", 999); !errors.Is(err, safefile.ErrTooLarge) {
		t.Errorf("ReadAll over the limit: %v", err)
	}
	r, err := safefile.Open(p, 10)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := io.ReadAll(r); !errors.Is(err, safefile.ErrTooLarge) {
		t.Errorf("streamed read over the limit: %v", err)
	}
}

// A path with a newline still makes a one-line message.
func TestErrorIsOneLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a\nb")
	os.Mkdir(p, 0o700)
	_, err := safefile.ReadFile(p, 10)
	if err == nil || strings.ContainsAny(err.Error(), "\n\r") {
		t.Errorf("%q", err)
	}
}

// A decoder's message that quotes a file's line break, tab or other
// control character stays on one line, and still wraps its cause.
func TestOneLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"invalid escape in string '\\\n'", "invalid escape in string '\\ '"},
		{"a\r\nb\tc\vd\fe", "a  b c d e"},
		{"nul \x00, del \x7f, NEL \u0085, LS \u2028", "nul \uFFFD, del \uFFFD, NEL \uFFFD, LS \uFFFD"},
		{"unchanged: é ✓", "unchanged: é ✓"},
	} {
		if got := safefile.OneLine(c.in); got != c.want {
			t.Errorf("OneLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	cause := errors.New("line 3:\nbad")
	err := safefile.OneLineError(cause)
	if err.Error() != "line 3: bad" || !errors.Is(err, cause) {
		t.Errorf("OneLineError: %q, errors.Is %v", err, errors.Is(err, cause))
	}
	if safefile.OneLineError(nil) != nil {
		t.Error("OneLineError(nil) is not nil")
	}
}

func TestValidName(t *testing.T) {
	for _, s := range []string{"sim01", "S-01_b", "stiffness-2afc", "0", strings.Repeat("a", 64)} {
		if !safefile.ValidName(s) {
			t.Errorf("%q refused", s)
		}
	}
	for _, s := range []string{"", ".", "..", "../x", "a/b", `a\b`, "a\x00b", "-a", "_a", ".hidden", "a b", "a.b", "é", strings.Repeat("a", 65), "a\n"} {
		if safefile.ValidName(s) {
			t.Errorf("%q accepted", s)
		}
		if err := safefile.CheckName("subject", s); !errors.Is(err, safefile.ErrName) || strings.ContainsAny(err.Error(), "\n\x00") {
			t.Errorf("CheckName(%q) = %q", s, err)
		}
	}
}

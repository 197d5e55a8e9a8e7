package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// The limits a file can break, for errors.Is.
var (
	ErrNotRegular    = errors.New("not a regular file")
	ErrTooLarge      = errors.New("file too large")
	ErrTooDeep       = errors.New("nested too deep")
	ErrTooManyKeys   = errors.New("too many keys")
	ErrKeyTooLong    = errors.New("key too long")
	ErrTooManyTables = errors.New("too many tables")
	ErrTooManyValues = errors.New("too many values")
	ErrSymlink       = errors.New("symbolic link not followed")
	ErrName          = errors.New("invalid name")
	ErrLocked        = errors.New("in use by another process")
)

// Error is a file refused by a limit or a policy. Its message is one line:
// "PATH: line N: DETAIL", the line only where it is known.
type Error struct {
	Path   string
	Line   int    // 1-based line of a text file where the limit was crossed; 0 when not known
	Err    error  // one of the Err values above
	Detail string // what was found and the limit, e.g. "nested deeper than the limit of 32 levels"
}

func (e *Error) Error() string { return oneLine(e.Path) + ": " + e.Reason() }

// Reason is the message without the path, for callers that name the file
// in their own format.
func (e *Error) Reason() string {
	if e.Line > 0 {
		return "line " + strconv.Itoa(e.Line) + ": " + e.Detail
	}
	return e.Detail
}

// Unwrap returns the limit's sentinel.
func (e *Error) Unwrap() error { return e.Err }

// oneLine replaces the control characters a path may hold, so that a
// message stays on one line.
func oneLine(s string) string { return strings.Map(printable, s) }

// OneLine keeps a message on one line whatever bytes a file put in it: a
// decoder's message quotes the bytes it failed on. Line breaks and tabs
// become spaces, other control characters U+FFFD.
func OneLine(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '\n', '\r', '\t', '\v', '\f':
			return ' '
		}
		return printable(r)
	}, s)
}

// OneLineError returns err with its message kept on one line (OneLine),
// still matchable with errors.Is and errors.As; nil for nil.
func OneLineError(err error) error {
	if err == nil {
		return nil
	}
	return oneLineError{err}
}

type oneLineError struct{ err error }

func (e oneLineError) Error() string { return OneLine(e.err.Error()) }
func (e oneLineError) Unwrap() error { return e.err }

func printable(r rune) rune {
	if r < 0x20 || r == 0x7f || r == 0x85 || r == 0x2028 || r == 0x2029 {
		return '\uFFFD'
	}
	return r
}

// kindOf names a file type for messages.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}

func notRegular(path string, m fs.FileMode) *Error {
	return &Error{Path: path, Err: ErrNotRegular, Detail: kindOf(m) + ", not a regular file (haptex reads regular files only)"}
}

func tooLarge(path string, max int64) *Error {
	return &Error{Path: path, Err: ErrTooLarge, Detail: fmt.Sprintf("larger than the limit of %d bytes for this file", max)}
}

// Reader reads one regular file and fails with ErrTooLarge once it has
// given max bytes and more follow.
type Reader struct {
	f    *os.File
	path string
	max  int64
	n    int64
}

// Open opens the regular file at path (symbolic links followed: an input
// is where the user says it is) for reading at most max bytes. A FIFO,
// device, socket or directory is refused without being opened.
func Open(path string, max int64) (*Reader, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, notRegular(path, st.Mode())
	}
	// O_NONBLOCK: should the file have been swapped for a FIFO since the
	// stat, the open does not wait for a writer; the fstat below refuses it.
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return newReader(fd, path, max)
}

// newReader checks that fd is a regular file and wraps it; it closes fd
// on error.
func newReader(fd int, path string, max int64) (*Reader, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, notRegular(path, modeOf(st.Mode))
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return &Reader{f: os.NewFile(uintptr(fd), path), path: path, max: max}, nil
}

// modeOf converts a stat mode's type bits to an fs.FileMode.
func modeOf(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	case unix.S_IFLNK:
		return fs.ModeSymlink
	}
	return 0
}

// Read reads from the file; past max bytes it returns an *Error
// (ErrTooLarge) instead of more data.
func (r *Reader) Read(p []byte) (int, error) {
	if r.n >= r.max {
		// One byte more tells a file of exactly max bytes from a longer one.
		var b [1]byte
		if n, _ := r.f.Read(b[:]); n > 0 {
			return 0, tooLarge(r.path, r.max)
		}
		return 0, io.EOF
	}
	if rest := r.max - r.n; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := r.f.Read(p)
	r.n += int64(n)
	return n, err
}

// Close closes the file.
func (r *Reader) Close() error { return r.f.Close() }

// ReadAll reads the rest of the file, at most max bytes in all.
func (r *Reader) ReadAll() ([]byte, error) {
	size := int64(512)
	if st, err := r.f.Stat(); err == nil && st.Size() > 0 {
		// The stat size is only a hint for the buffer: the limit is
		// enforced on what is read.
		size = min(st.Size(), r.max) + 1
	}
	buf := make([]byte, 0, size)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// ReadFile reads the regular file at path, refusing anything else and any
// file of more than max bytes (counted while reading).
func ReadFile(path string, max int64) ([]byte, error) {
	r, err := Open(path, max)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.ReadAll()
}

// ReadAll reads r to its end, failing with an *Error (ErrTooLarge) naming
// name past max bytes: for readers that are not files.
func ReadAll(r io.Reader, name string, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, tooLarge(name, max)
	}
	return b, nil
}

// readChecked reads the regular file path within max bytes and passes it
// through check.
func readChecked(path string, max int64, check func([]byte) error) ([]byte, error) {
	data, err := ReadFile(path, max)
	if err != nil {
		return nil, err
	}
	if err := check(data); err != nil {
		return nil, err
	}
	return data, nil
}

package kes

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/haptex/haptex/internal/safefile"
)

// MaxFileSize bounds what Parse and LoadFile read: a fabric file with raw
// curves is tens of kilobytes; anything past this is not a fabric file.
// Parse also holds every file to safefile.DefaultTOML's structure limits
// before decoding it.
const MaxFileSize = 4 << 20

// FieldError is one problem in one fabric file: which file, which field
// (a dotted TOML path such as "tensile.warp.WT"; empty for the whole file),
// the line when the TOML parser knows it, and what is wrong.
type FieldError struct {
	File  string
	Field string
	Line  int
	Msg   string
	Err   error // the cause, for errors.Is (ErrExists); may be nil
}

// Unwrap returns the cause.
func (e *FieldError) Unwrap() error { return e.Err }

// Error formats the problem on one line:
// "kes: FILE: FIELD: MSG" or "kes: FILE: line N: FIELD: MSG".
func (e *FieldError) Error() string {
	var b strings.Builder
	b.WriteString("kes: ")
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ": line %d", e.Line)
	}
	if e.Field != "" {
		b.WriteString(": ")
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return safefile.OneLine(b.String())
}

// Error is what loading returns for a file with problems: every problem
// found, in file order. Its message is one line: the first problem and how
// many more there are. Problems holds them all.
type Error struct {
	File     string
	Problems []*FieldError
}

func (e *Error) Error() string {
	if len(e.Problems) == 0 {
		return safefile.OneLine("kes: " + e.File + ": invalid fabric file")
	}
	s := e.Problems[0].Error()
	if n := len(e.Problems) - 1; n == 1 {
		s += " (and 1 more problem)"
	} else if n > 1 {
		s += fmt.Sprintf(" (and %d more problems)", n)
	}
	return s
}

// Unwrap gives the individual problems to errors.Is and errors.As.
func (e *Error) Unwrap() []error {
	errs := make([]error, len(e.Problems))
	for i, p := range e.Problems {
		errs[i] = p
	}
	return errs
}

// LoadFile reads, parses and validates one fabric file.
func LoadFile(path string) (*Fabric, error) {
	data, err := readLimited(path)
	if err != nil {
		return nil, err
	}
	return Parse(data, path)
}

// Parse decodes and validates a fabric file held in data. file names it in
// errors. On any problem it returns a nil Fabric and an error whose message
// is one line naming the file and the field; the error is a *FieldError for
// a file that is not TOML, else an *Error listing every problem found.
func Parse(data []byte, file string) (*Fabric, error) {
	if len(data) > MaxFileSize {
		return nil, &FieldError{File: file, Msg: fmt.Sprintf("%d bytes, over the limit of %d bytes for a fabric file", len(data), MaxFileSize), Err: safefile.ErrTooLarge}
	}
	if err := safefile.CheckTOML(file, data, safefile.TOMLLimits{}); err != nil {
		return nil, fileError(file, err)
	}
	f := new(Fabric)
	md, err := toml.Decode(string(data), f)
	if err != nil {
		return nil, tomlError(file, err)
	}
	c := &checker{file: file, f: f, md: md, bad: map[*Value]bool{}}
	// Report a misspelt table once, not every key inside it: a key is
	// skipped when a shorter prefix of it was reported. Undecoded lists a
	// table before its keys; the prefixes of a key are at most
	// safefile.DefaultTOML.Depth, so the check is linear in the keys.
	unknown := map[string]bool{}
	for _, k := range md.Undecoded() {
		reported := false
		for i := 1; i < len(k) && !reported; i++ {
			reported = unknown[k[:i].String()]
		}
		if reported {
			continue
		}
		key := k.String()
		unknown[key] = true
		c.add(key, "unknown field (misspelt key?)")
	}
	c.fabric()
	if len(c.errs) > 0 {
		return nil, &Error{File: file, Problems: c.errs}
	}
	f.File = file
	return f, nil
}

// fileError turns a refusal by safefile into a FieldError naming the file
// (and the line) the way the others do.
func fileError(file string, err error) error {
	var se *safefile.Error
	if errors.As(err, &se) {
		return &FieldError{File: file, Line: se.Line, Msg: se.Detail, Err: err}
	}
	return &FieldError{File: file, Msg: err.Error(), Err: err}
}

// tomlError turns a decoding error into a one-line FieldError that names the
// key the decoder was at.
func tomlError(file string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return &FieldError{File: file, Field: pe.LastKey, Line: pe.Position.Line, Msg: pe.Message}
	}
	// Type mismatches come as plain errors "toml: line N (last key "K"): MSG".
	msg := strings.TrimPrefix(err.Error(), "toml: ")
	fe := &FieldError{File: file, Msg: msg}
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		num, after, _ := strings.Cut(rest, " ")
		if n, err := strconv.Atoi(strings.TrimSuffix(num, ":")); err == nil {
			fe.Line = n
			fe.Msg = after
		}
		if key, tail, ok := strings.Cut(after, "): "); ok && strings.HasPrefix(key, "(last key ") {
			if k, err := strconv.Unquote(strings.TrimPrefix(key, "(last key ")); err == nil {
				fe.Field = k
				fe.Msg = tail
			}
		}
		fe.Msg = strings.TrimPrefix(fe.Msg, ": ")
	}
	return fe
}

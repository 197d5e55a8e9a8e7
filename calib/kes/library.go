package kes

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/haptex/haptex/internal/safefile"
)

// The built-in library: one TOML file per fabric, embedded in the binary.
//
//go:embed fabrics/*.toml
var builtinFS embed.FS

// ErrNotFound is returned (wrapped) when no fabric has the asked name.
var ErrNotFound = errors.New("no such fabric")

// ErrExists is returned (wrapped) by Import when the target name is taken.
var ErrExists = errors.New("fabric already exists")

// List returns the names of the built-in fabrics, sorted.
func List() []string {
	ents, err := fs.ReadDir(builtinFS, "fabrics")
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), ".toml"); ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// Builtin loads and validates the built-in fabric name. Each call returns a
// fresh Fabric the caller may change.
func Builtin(name string) (*Fabric, error) {
	if !safefile.ValidName(name) {
		return nil, fmt.Errorf("kes: built-in fabric %q: %w (built-in: %s)", name, ErrNotFound, strings.Join(List(), ", "))
	}
	data, err := builtinFS.ReadFile("fabrics/" + name + ".toml")
	if err != nil {
		return nil, fmt.Errorf("kes: built-in fabric %q: %w (built-in: %s)", name, ErrNotFound, strings.Join(List(), ", "))
	}
	return Parse(data, "builtin:"+name)
}

// BuiltinSource returns the TOML text of a built-in fabric, as shipped.
func BuiltinSource(name string) ([]byte, error) {
	if !safefile.ValidName(name) {
		return nil, fmt.Errorf("kes: built-in fabric %q: %w", name, ErrNotFound)
	}
	data, err := builtinFS.ReadFile("fabrics/" + name + ".toml")
	if err != nil {
		return nil, fmt.Errorf("kes: built-in fabric %q: %w", name, ErrNotFound)
	}
	return data, nil
}

// Library is the built-in fabrics plus a user library directory holding
// imported files named NAME.toml. Dir may be empty: then only the built-in
// fabrics exist. Names are unique across both: Import refuses a built-in
// name, and Load looks at the built-in library first.
type Library struct {
	Dir string
}

// Summary describes one fabric of a library listing.
type Summary struct {
	Name         string `json:"name"`
	Title        string `json:"title"`
	Class        Class  `json:"class"`
	Fibre        string `json:"fibre"`
	Weave        string `json:"weave"`
	File         string `json:"file"`
	Builtin      bool   `json:"builtin"`
	Measured     int    `json:"measured"`
	ClassTypical int    `json:"class_typical"`
	Derived      int    `json:"derived"`
	// Error is set, and the fields above are mostly empty, for a file in
	// the user directory that does not load.
	Error string `json:"error,omitempty"`
}

// Summary counts the fabric's values by provenance status.
func (f *Fabric) Summary() Summary {
	s := Summary{Name: f.Name, Title: f.Title, Class: f.Class, Fibre: f.Fibre, Weave: f.Weave.Type,
		File: f.File, Builtin: strings.HasPrefix(f.File, "builtin:")}
	for _, e := range f.Entries() {
		switch e.Status {
		case Measured:
			s.Measured++
		case ClassTypical:
			s.ClassTypical++
		case Derived:
			s.Derived++
		}
	}
	return s
}

// List returns every fabric, built-in first, then the user directory's
// files in name order. A user file that does not load is listed with its
// error instead of failing the listing.
func (l Library) List() ([]Summary, error) {
	var out []Summary
	for _, n := range List() {
		f, err := Builtin(n)
		if err != nil {
			out = append(out, Summary{Name: n, Builtin: true, File: "builtin:" + n, Error: err.Error()})
			continue
		}
		out = append(out, f.Summary())
	}
	if l.Dir == "" {
		return out, nil
	}
	ents, err := os.ReadDir(l.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return out, fmt.Errorf("kes: user library: %w", err)
	}
	for _, e := range ents {
		n, ok := strings.CutSuffix(e.Name(), ".toml")
		if !ok || e.IsDir() {
			continue
		}
		path := filepath.Join(l.Dir, e.Name())
		f, err := l.loadUser(n, path)
		if err != nil {
			out = append(out, Summary{Name: n, File: path, Error: err.Error()})
			continue
		}
		out = append(out, f.Summary())
	}
	return out, nil
}

// Load returns the fabric name: built-in if there is one, else the user
// directory's NAME.toml.
func (l Library) Load(name string) (*Fabric, error) {
	if slices.Contains(List(), name) {
		return Builtin(name)
	}
	if l.Dir == "" || !safefile.ValidName(name) {
		return nil, fmt.Errorf("kes: fabric %q: %w (built-in: %s)", name, ErrNotFound, strings.Join(List(), ", "))
	}
	path := filepath.Join(l.Dir, name+".toml")
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("kes: fabric %q: %w in the built-in library or %s", name, ErrNotFound, l.Dir)
	}
	return l.loadUser(name, path)
}

// Source returns the bytes of the fabric name: the built-in file, or the
// user directory's NAME.toml as it is (read as LoadFile reads it).
func (l Library) Source(name string) ([]byte, error) {
	if b, err := BuiltinSource(name); err == nil {
		return b, nil
	}
	if l.Dir == "" || !safefile.ValidName(name) {
		return nil, fmt.Errorf("kes: fabric %q: %w (built-in: %s)", name, ErrNotFound, strings.Join(List(), ", "))
	}
	return readLimited(filepath.Join(l.Dir, name+".toml"))
}

func (l Library) loadUser(name, path string) (*Fabric, error) {
	f, err := LoadFile(path)
	if err != nil {
		return nil, err
	}
	if f.Name != name {
		return nil, &FieldError{File: path, Field: "name", Msg: fmt.Sprintf("%q differs from the file name %q.toml", f.Name, name)}
	}
	return f, nil
}

// Import validates the fabric file at path and copies it, byte for byte,
// into dir as NAME.toml (NAME from the file's name key), creating dir when
// needed. It refuses a file that does not validate, a built-in name, and a
// name already in dir (remove the old file first). It returns the loaded
// fabric and the path of the copy.
func Import(path, dir string) (*Fabric, string, error) {
	data, err := readLimited(path)
	if err != nil {
		return nil, "", err
	}
	f, err := Parse(data, path)
	if err != nil {
		return nil, "", err
	}
	if slices.Contains(List(), f.Name) {
		return nil, "", &FieldError{File: path, Field: "name", Msg: fmt.Sprintf("%q is a built-in fabric: %v; choose another name", f.Name, ErrExists), Err: ErrExists}
	}
	d, err := safefile.MkdirAll(dir)
	if err != nil {
		return nil, "", fmt.Errorf("kes: import %s: %w", path, err)
	}
	defer d.Close()
	dst := d.Join(f.Name + ".toml")
	// The copy appears whole under its name or not at all, and fails if
	// anything (a link included) has the name, so two imports cannot
	// overwrite each other.
	if err := d.WriteNew(f.Name+".toml", data); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, "", &FieldError{File: path, Field: "name", Msg: fmt.Sprintf("%q: %v in %s; remove it first", f.Name, ErrExists, dir), Err: ErrExists}
		}
		return nil, "", fmt.Errorf("kes: import %s: %w", path, err)
	}
	f.File = dst
	return f, dst, nil
}

// readLimited reads a fabric file: a regular file of at most MaxFileSize
// bytes.
func readLimited(path string) ([]byte, error) {
	data, err := safefile.ReadFile(path, MaxFileSize)
	var se *safefile.Error
	switch {
	case errors.As(err, &se):
		return nil, fileError(path, err)
	case err != nil:
		return nil, fmt.Errorf("kes: %w", err)
	}
	return data, nil
}

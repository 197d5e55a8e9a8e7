package safefile_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/haptex/haptex/internal/safefile"
	"github.com/haptex/haptex/internal/safefile/safefiletest"
)

// No way of writing follows a link planted at the name written.
func TestWritesDoNotFollowLinks(t *testing.T) {
	for _, tc := range []struct {
		name  string
		write func(d *safefile.Dir) error
		// replaces: the write succeeds and leaves a regular file where
		// the link was; otherwise it fails.
		replaces bool
	}{
		{"Create", func(d *safefile.Dir) error { _, err := d.Create("f"); return err }, false},
		{"Open append", func(d *safefile.Dir) error { _, err := d.Open("f", os.O_WRONLY|os.O_APPEND); return err }, false},
		{"Open truncate", func(d *safefile.Dir) error { _, err := d.Open("f", os.O_WRONLY|os.O_CREATE|os.O_TRUNC); return err }, false},
		{"ReadFile", func(d *safefile.Dir) error { _, err := d.ReadFile("f", 100); return err }, false},
		{"WriteNew", func(d *safefile.Dir) error { return d.WriteNew("f", []byte("new")) }, false},
		{"WriteFile", func(d *safefile.Dir) error { return d.WriteFile("f", []byte("new")) }, true},
		{"Sub", func(d *safefile.Dir) error { _, err := d.Sub("f", true); return err }, false},
		{"Mkdir", func(d *safefile.Dir) error { _, err := d.Mkdir("f"); return err }, false},
		{"path WriteFile", func(d *safefile.Dir) error { return safefile.WriteFile(d.Join("f"), []byte("new")) }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			victim := safefiletest.Plant(t, filepath.Join(dir, "f"), false)
			d, err := safefile.OpenDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			err = tc.write(d)
			if tc.replaces {
				if err != nil {
					t.Fatal(err)
				}
				safefiletest.Replaced(t, filepath.Join(dir, "f"), victim)
				return
			}
			safefiletest.Untouched(t, "f", victim)
			if err == nil {
				t.Fatal("wrote through the link")
			}
			if !errors.Is(err, safefile.ErrSymlink) && !errors.Is(err, fs.ErrExist) {
				t.Errorf("error neither ErrSymlink nor ErrExist: %v", err)
			}
		})
	}
}

// A hard link planted at the name is replaced, not written through.
func TestWriteFileReplacesHardLink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("precious"), 0o600)
	if err := os.Link(victim, filepath.Join(dir, "f")); err != nil {
		t.Skip(err)
	}
	if err := safefile.WriteFile(filepath.Join(dir, "f"), []byte("new")); err != nil {
		t.Fatal(err)
	}
	safefiletest.Untouched(t, "victim", victim)
	if b, _ := os.ReadFile(filepath.Join(dir, "f")); string(b) != "new" {
		t.Errorf("f holds %q", b)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".*")); len(m) != 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

// A FIFO planted where a file is appended to or read is refused without
// blocking.
func TestOpenRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	syscall.Mkfifo(filepath.Join(dir, "f"), 0o600)
	d, err := safefile.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := d.ReadFile("f", 10); !errors.Is(err, safefile.ErrNotRegular) {
		t.Errorf("read: %v", err)
	}
	if _, err := d.Open("f", os.O_WRONLY|os.O_APPEND); err == nil {
		t.Error("append to a FIFO: no error")
	}
}

// Files are created 0666 and folders 0777, less the umask.
func TestModesFollowTheUmask(t *testing.T) {
	for _, mask := range []int{0o022, 0o077, 0o002} {
		old := syscall.Umask(mask)
		dir := t.TempDir()
		d, err := safefile.OpenDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		f, err := d.Create("created")
		if err == nil {
			f.Close()
			err = d.WriteFile("written", []byte("x"))
		}
		var sub *safefile.Dir
		if err == nil {
			sub, err = d.Sub("sub", true)
		}
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		sub.Close()
		d.Close()
		for name, want := range map[string]fs.FileMode{"created": 0o666, "written": 0o666, "sub": 0o777} {
			st, err := os.Stat(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if got := st.Mode().Perm(); got != want&^fs.FileMode(mask) {
				t.Errorf("umask %03o: %s mode %03o, want %03o", mask, name, got, want&^fs.FileMode(mask))
			}
		}
	}
}

// Names that are not one path element are refused.
func TestDirRefusesPaths(t *testing.T) {
	d, err := safefile.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, n := range []string{"", ".", "..", "a/b", "../x", "a\x00"} {
		if err := d.WriteFile(n, nil); !errors.Is(err, safefile.ErrName) {
			t.Errorf("WriteFile(%q): %v", n, err)
		}
		if _, err := d.Sub(n, true); !errors.Is(err, safefile.ErrName) {
			t.Errorf("Sub(%q): %v", n, err)
		}
	}
}

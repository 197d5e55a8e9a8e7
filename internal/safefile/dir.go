package safefile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Modes of everything haptex creates; the umask decides what is left.
const (
	FileMode = 0o666
	DirMode  = 0o777
)

// Dir is an open folder. Every name given to its methods is one path
// element inside it, reached without following a symbolic link.
type Dir struct {
	fd   int
	path string
}

// OpenDir opens the folder path, resolving it as given: this is the
// folder the user named.
func OpenDir(path string) (*Dir, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return &Dir{fd: fd, path: path}, nil
}

// MkdirAll creates the folder path and its parents where missing (as
// os.MkdirAll, mode DirMode) and opens it. The folder is the user's: path
// is resolved as given.
func MkdirAll(path string) (*Dir, error) {
	if err := os.MkdirAll(path, DirMode); err != nil {
		return nil, err
	}
	return OpenDir(path)
}

// OpenParent opens the folder that holds path (resolved as given) and
// returns it with path's last element, for a file the user named.
func OpenParent(path string) (*Dir, string, error) {
	path = filepath.Clean(path)
	name := filepath.Base(path)
	if err := checkElem(path, name); err != nil {
		return nil, "", err
	}
	d, err := OpenDir(filepath.Dir(path))
	return d, name, err
}

// Path is the folder's path as opened.
func (d *Dir) Path() string { return d.path }

// Join returns the path of name in the folder, for messages and records.
func (d *Dir) Join(name string) string { return filepath.Join(d.path, name) }

// Close closes the folder.
func (d *Dir) Close() error {
	if d == nil || d.fd < 0 {
		return nil
	}
	err := unix.Close(d.fd)
	d.fd = -1
	return err
}

// Sync commits the folder's entries (a rename or a new file) to disk.
func (d *Dir) Sync() error {
	if err := unix.Fsync(d.fd); err != nil {
		return &fs.PathError{Op: "sync", Path: d.path, Err: err}
	}
	return nil
}

// checkElem refuses a name that is not one path element.
func checkElem(path, name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") {
		return &Error{Path: path, Err: ErrName, Detail: "not a file name inside a folder"}
	}
	return nil
}

// pathErr turns an errno from a call on name into an error; a symbolic
// link at name (O_NOFOLLOW gives ELOOP, or ENOTDIR with O_DIRECTORY)
// becomes an *Error (ErrSymlink).
func (d *Dir) pathErr(op, name string, err error) error {
	p := d.Join(name)
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
		var st unix.Stat_t
		if unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return &Error{Path: p, Err: ErrSymlink, Detail: "a symbolic link: haptex does not follow a link where it writes (remove the link)"}
		}
	}
	return &fs.PathError{Op: op, Path: p, Err: err}
}

// Sub opens the folder name inside d without following a symbolic link;
// with create it first makes it (mode DirMode) when it is missing.
func (d *Dir) Sub(name string, create bool) (*Dir, error) {
	if err := checkElem(d.Join(name), name); err != nil {
		return nil, err
	}
	if create {
		if err := unix.Mkdirat(d.fd, name, DirMode); err != nil && !errors.Is(err, unix.EEXIST) {
			return nil, d.pathErr("mkdir", name, err)
		}
	}
	return d.subdir(name)
}

// Mkdir makes the new folder name inside d (fs.ErrExist when the name is
// taken, by anything) and opens it.
func (d *Dir) Mkdir(name string) (*Dir, error) {
	if err := checkElem(d.Join(name), name); err != nil {
		return nil, err
	}
	if err := unix.Mkdirat(d.fd, name, DirMode); err != nil {
		return nil, d.pathErr("mkdir", name, err)
	}
	return d.subdir(name)
}

func (d *Dir) subdir(name string) (*Dir, error) {
	fd, err := unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, d.pathErr("open", name, err)
	}
	return &Dir{fd: fd, path: d.Join(name)}, nil
}

// Open opens the file name inside d without following a symbolic link:
// flag is os.O_RDONLY, os.O_WRONLY or os.O_RDWR with os.O_CREATE,
// os.O_EXCL, os.O_APPEND or os.O_TRUNC; a created file gets mode
// FileMode. Whatever name is, it must turn out a regular file.
func (d *Dir) Open(name string, flag int) (*os.File, error) {
	if err := checkElem(d.Join(name), name); err != nil {
		return nil, err
	}
	trunc := flag&os.O_TRUNC != 0
	flag &^= os.O_TRUNC // truncated only once known to be a regular file
	fd, err := unix.Openat(d.fd, name, flag|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, FileMode)
	if err != nil {
		return nil, d.pathErr("open", name, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, d.pathErr("stat", name, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, notRegular(d.Join(name), modeOf(st.Mode))
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, d.pathErr("open", name, err)
	}
	if trunc {
		if err := unix.Ftruncate(fd, 0); err != nil {
			unix.Close(fd)
			return nil, d.pathErr("truncate", name, err)
		}
	}
	return os.NewFile(uintptr(fd), d.Join(name)), nil
}

// Create creates the new file name inside d for writing; it fails with
// fs.ErrExist when anything, a symbolic link included, has that name.
func (d *Dir) Create(name string) (*os.File, error) {
	return d.Open(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
}

// ReadFile reads the regular file name inside d, without following a
// symbolic link, at most max bytes.
func (d *Dir) ReadFile(name string, max int64) ([]byte, error) {
	f, err := d.Open(name, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	r := &Reader{f: f, path: f.Name(), max: max}
	defer r.Close()
	return r.ReadAll()
}

// Remove removes the file (or empty folder) name inside d; a symbolic
// link is removed, not followed.
func (d *Dir) Remove(name string) error {
	if err := checkElem(d.Join(name), name); err != nil {
		return err
	}
	err := unix.Unlinkat(d.fd, name, 0)
	if errors.Is(err, unix.EISDIR) {
		err = unix.Unlinkat(d.fd, name, unix.AT_REMOVEDIR)
	}
	if err != nil {
		return d.pathErr("remove", name, err)
	}
	return nil
}

// Lock takes an exclusive advisory lock on the folder (flock(2)), held
// until Close or the end of the process, however it ends: a process
// killed with SIGKILL leaves no lock behind. When another open of the
// folder holds it, in this process or another, Lock returns at once with
// an error matching ErrLocked.
func (d *Dir) Lock() error {
	err := unix.Flock(d.fd, unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		err = ErrLocked
	}
	if err != nil {
		return &fs.PathError{Op: "lock", Path: d.path, Err: err}
	}
	return nil
}

// LockWithin is Lock for a writer that may wait its turn: while another
// open of the folder holds the lock it tries again every 10 ms, and
// returns an error matching ErrLocked once limit has passed without it.
// The bound keeps a holder that is stopped (not killed) from hanging
// every writer behind it.
func (d *Dir) LockWithin(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		err := d.Lock()
		if !errors.Is(err, ErrLocked) || !time.Now().Before(deadline) {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// tempName is a fresh hidden name beside name.
func tempName(name string) string {
	var b [6]byte
	rand.Read(b[:])
	return "." + name + "." + hex.EncodeToString(b[:]) + ".tmp"
}

// isTempName reports whether name is one tempName gives.
func isTempName(name string) bool {
	const suffix = 2*6 + len(".tmp")
	if len(name) < len("..")+suffix || name[0] != '.' || !strings.HasSuffix(name, ".tmp") {
		return false
	}
	h := name[len(name)-suffix : len(name)-len(".tmp")]
	if name[len(name)-suffix-1] != '.' {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil
}

// RemoveTemps removes the temporary files a write left in the folder
// when its process was killed between writing and renaming them (the
// hidden names WriteFile and WriteNew use), and returns how many. Call it
// only while holding the folder's Lock: another process's write in
// progress looks the same.
func (d *Dir) RemoveTemps() (int, error) {
	fd, err := unix.Openat(d.fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, &fs.PathError{Op: "open", Path: d.path, Err: err}
	}
	f := os.NewFile(uintptr(fd), d.path)
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return 0, &fs.PathError{Op: "list", Path: d.path, Err: err}
	}
	n := 0
	for _, name := range names {
		if !isTempName(name) {
			continue
		}
		if err := unix.Unlinkat(d.fd, name, 0); err != nil && !errors.Is(err, unix.ENOENT) {
			return n, d.pathErr("remove", name, err)
		}
		n++
	}
	return n, nil
}

// writeTemp writes data to a new temporary file in d, synced, and returns
// its name.
func (d *Dir) writeTemp(name string, data []byte) (string, error) {
	tmp := tempName(name)
	f, err := d.Create(tmp)
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if e := f.Close(); err == nil {
		err = e
	}
	if err != nil {
		unix.Unlinkat(d.fd, tmp, 0)
		return "", err
	}
	return tmp, nil
}

// WriteFile replaces the file name inside d with data: it writes a synced
// temporary file beside it and renames it over name, so a reader sees the
// old file or the new one, never half of one, and a symbolic link or hard
// link planted at name is replaced, not written through.
func (d *Dir) WriteFile(name string, data []byte) error {
	if err := checkElem(d.Join(name), name); err != nil {
		return err
	}
	tmp, err := d.writeTemp(name, data)
	if err != nil {
		return err
	}
	if err := unix.Renameat(d.fd, tmp, d.fd, name); err != nil {
		unix.Unlinkat(d.fd, tmp, 0)
		return d.pathErr("rename", name, err)
	}
	return nil
}

// WriteNew writes data to the new file name inside d, complete or not at
// all: fs.ErrExist when anything has that name already.
func (d *Dir) WriteNew(name string, data []byte) error {
	if err := checkElem(d.Join(name), name); err != nil {
		return err
	}
	tmp, err := d.writeTemp(name, data)
	if err != nil {
		return err
	}
	defer unix.Unlinkat(d.fd, tmp, 0)
	if err := unix.Linkat(d.fd, tmp, d.fd, name, 0); err != nil {
		return d.pathErr("link", name, err)
	}
	return nil
}

// Symlink points the symbolic link name inside d at target, replacing
// whatever had that name in one rename.
func (d *Dir) Symlink(target, name string) error {
	if err := checkElem(d.Join(name), name); err != nil {
		return err
	}
	tmp := tempName(name)
	if err := unix.Symlinkat(target, d.fd, tmp); err != nil {
		return d.pathErr("symlink", tmp, err)
	}
	if err := unix.Renameat(d.fd, tmp, d.fd, name); err != nil {
		unix.Unlinkat(d.fd, tmp, 0)
		return d.pathErr("rename", name, err)
	}
	return nil
}

// WriteFile replaces the file at path with data (Dir.WriteFile) in the
// folder that holds it, which is resolved as given.
func WriteFile(path string, data []byte) error {
	d, name, err := OpenParent(path)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.WriteFile(name, data)
}

package safefile

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A folder's lock excludes a second open of it, in this process or
// another, and a holder killed with SIGKILL leaves none behind.
func TestLock(t *testing.T) {
	if os.Getenv("SAFEFILE_HOLD_LOCK") != "" {
		d, err := OpenDir(os.Getenv("SAFEFILE_HOLD_LOCK"))
		if err == nil {
			err = d.Lock()
		}
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Println("locked")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	path := t.TempDir()
	a, b := lockedAndOther(t, path)
	err := b.Lock()
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), path) {
		t.Fatalf("a second lock: %v, want ErrLocked naming %s", err, path)
	}
	a.Close()
	if err := b.Lock(); err != nil {
		t.Fatalf("after the holder closed the folder: %v", err)
	}
	b.Close()

	cmd := exec.Command(os.Args[0], "-test.run", "^TestLock$")
	cmd.Env = append(os.Environ(), "SAFEFILE_HOLD_LOCK="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "locked\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the other process: %q", line)
	}
	c, err := OpenDir(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Lock(); !errors.Is(err, ErrLocked) {
		t.Errorf("while another process holds it: %v, want ErrLocked", err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if err := c.Lock(); err != nil {
		t.Errorf("after the holder was killed: %v", err)
	}
}

// LockWithin waits for a holder that lets go within its limit, and gives
// up with ErrLocked on one that does not.
func TestLockWithin(t *testing.T) {
	path := t.TempDir()
	a, b := lockedAndOther(t, path)
	start := time.Now()
	if err := b.LockWithin(50 * time.Millisecond); !errors.Is(err, ErrLocked) {
		t.Fatalf("held throughout: %v, want ErrLocked", err)
	}
	if waited := time.Since(start); waited < 50*time.Millisecond {
		t.Errorf("gave up after %v, before its 50 ms", waited)
	}
	var releasing atomic.Bool
	go func() {
		time.Sleep(30 * time.Millisecond)
		releasing.Store(true)
		a.Close()
	}()
	if err := b.LockWithin(time.Minute); err != nil {
		t.Fatalf("released after 30 ms: %v", err)
	}
	if !releasing.Load() {
		t.Fatal("locked while the other open still held it")
	}
}

// lockedAndOther opens the folder path twice, the first holding its
// lock; the second is closed at the end of the test.
func lockedAndOther(t *testing.T, path string) (a, b *Dir) {
	t.Helper()
	a, err := OpenDir(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err = OpenDir(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	if err := a.Lock(); err != nil {
		t.Fatal(err)
	}
	return a, b
}

// RemoveTemps removes what a killed write left and nothing else.
func TestRemoveTemps(t *testing.T) {
	d, err := OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var left []string
	for _, name := range []string{"trials.csv", "0001-i1-haptics.csv.gz"} {
		tmp, err := d.writeTemp(name, []byte("x"))
		if err != nil {
			t.Fatal(err)
		}
		left = append(left, tmp)
	}
	keep := []string{"trials.csv", ".x.tmp", ".a.zzzzzzzzzzzz.tmp", "a.0123456789ab.tmp", ".0123456789ab.tmp", ".a0123456789ab.tmp", ".a.0123456789ab.tmp.gz"}
	for _, name := range keep {
		if err := d.WriteNew(name, []byte("y")); err != nil {
			t.Fatal(err)
		}
	}
	n, err := d.RemoveTemps()
	if err != nil || n != len(left) {
		t.Fatalf("removed %d (%v), want %d", n, err, len(left))
	}
	for _, name := range left {
		if _, err := os.Lstat(d.Join(name)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s left: %v", name, err)
		}
	}
	for _, name := range keep {
		if _, err := os.Lstat(d.Join(name)); err != nil {
			t.Errorf("%s removed: %v", name, err)
		}
	}
}

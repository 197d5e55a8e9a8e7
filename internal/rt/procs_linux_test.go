//go:build linux

package rt

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

func TestLockThreadNiceSetsOnlyThisThread(t *testing.T) {
	type reading struct{ tid, prio int }
	read := func() reading {
		p, err := unix.Getpriority(unix.PRIO_PROCESS, unix.Gettid())
		if err != nil {
			t.Error(err)
		}
		return reading{unix.Gettid(), p}
	}
	// The test may itself run under nice: the other threads keep the
	// process's own.
	base := read().prio
	niced, other := make(chan reading), make(chan reading)
	release := make(chan struct{})
	go func() {
		if err := LockThreadNice(7); err != nil {
			t.Error(err)
		}
		niced <- read()
		<-release
		// The goroutine exits locked: the runtime retires the thread.
	}()
	n := <-niced
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		other <- read()
	}()
	o := <-other
	close(release)
	// The raw system call returns 20 - nice.
	if n.prio != 20-7 {
		t.Errorf("thread nice %d, want 7", 20-n.prio)
	}
	if o.tid == n.tid || o.prio != base {
		t.Errorf("another thread (%d, the niced one %d) has nice %d, want the process's %d", o.tid, n.tid, 20-o.prio, 20-base)
	}
}

func TestReserveProcs(t *testing.T) {
	prev := runtime.GOMAXPROCS(0)
	restore := ReserveProcs(3)
	if got, want := runtime.GOMAXPROCS(0), max(prev, runtime.NumCPU()+4); got != want {
		t.Errorf("GOMAXPROCS %d while reserved, want %d", got, want)
	}
	restore()
	if got := runtime.GOMAXPROCS(0); got != prev {
		t.Errorf("GOMAXPROCS %d after restore, want %d", got, prev)
	}
}

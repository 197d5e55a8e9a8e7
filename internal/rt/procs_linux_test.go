//go:build linux

package rt

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// LockThreadBatch makes the calling thread, and only it, a batch thread at
// the nice value, asking for BatchSlice: the kernel's own record of the
// thread (sched_getattr) says so.
func TestLockThreadBatchSetsOnlyThisThread(t *testing.T) {
	type reading struct {
		tid  int
		attr *unix.SchedAttr
	}
	read := func() reading {
		a, err := unix.SchedGetAttr(0, 0)
		if err != nil {
			t.Fatal(err)
		}
		return reading{unix.Gettid(), a}
	}
	// The test may itself run under nice: the other threads keep the
	// process's own.
	base := read().attr
	batch, other := make(chan reading), make(chan reading)
	release := make(chan struct{})
	go func() {
		if err := LockThreadBatch(7); err != nil {
			t.Error(err)
		}
		batch <- read()
		<-release
		// The goroutine exits locked: the runtime retires the thread.
	}()
	b := <-batch
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		other <- read()
	}()
	o := <-other
	close(release)
	if b.attr.Policy != unix.SCHED_BATCH || b.attr.Nice != 7 {
		t.Errorf("thread policy %d at nice %d, want SCHED_BATCH (%d) at nice 7", b.attr.Policy, b.attr.Nice, unix.SCHED_BATCH)
	}
	// Kernels before 6.12 report no slice for a normal thread (and take
	// none); those after report the one it runs with.
	if base.Runtime != 0 && time.Duration(b.attr.Runtime) != BatchSlice {
		t.Errorf("thread slice %v, want %v", time.Duration(b.attr.Runtime), BatchSlice)
	}
	if o.tid == b.tid || o.attr.Policy != base.Policy || o.attr.Nice != base.Nice || o.attr.Runtime != base.Runtime {
		t.Errorf("another thread (%d, the batch one %d) has policy %d, nice %d, slice %d, want the process's %d, %d, %d",
			o.tid, b.tid, o.attr.Policy, o.attr.Nice, o.attr.Runtime, base.Policy, base.Nice, base.Runtime)
	}
}

// The Ps reserved for loops and added for other threads add up, whatever
// the order, and all go back.
func TestReserveProcs(t *testing.T) {
	prev := runtime.GOMAXPROCS(0)
	base := max(prev, runtime.NumCPU())
	for _, addFirst := range []bool{false, true} {
		var restore, release func()
		if addFirst {
			release = AddProcs(2)
			restore = ReserveProcs(3)
		} else {
			restore = ReserveProcs(3)
			release = AddProcs(2)
		}
		if got, want := runtime.GOMAXPROCS(0), base+4+2; got != want {
			t.Errorf("added first %v: GOMAXPROCS %d while 3 loops are reserved and 2 threads added, want %d", addFirst, got, want)
		}
		restore()
		if got, want := runtime.GOMAXPROCS(0), base+2; got != want {
			t.Errorf("added first %v: GOMAXPROCS %d once the loops are released, want %d", addFirst, got, want)
		}
		release()
		release()
		if got := runtime.GOMAXPROCS(0); got != prev {
			t.Errorf("added first %v: GOMAXPROCS %d after both are released, want %d", addFirst, got, prev)
		}
	}
}

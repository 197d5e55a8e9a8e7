package emu

import (
	"context"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/haptex/haptex/devices/transport/transporttest"
)

// The devices' loop never reads a line the kernel says is empty: such a
// read waits for the kernel's tty worker, a normal-priority thread, and
// held the SCHED_FIFO loop for up to 10 ms at a time on a loaded machine
// (its standby up to 49 ms). work is what the loop and its standby run
// each time they wake; here it runs on the test's own thread, whose read
// calls the kernel counts.
func TestLoopMakesNoEmptyRead(t *testing.T) {
	e, err := Run(context.Background(), Config{NormalPriority: true})
	if err != nil {
		t.Skipf("cannot start the emulator (no pseudo-terminals?): %v", err)
	}
	defer e.Close()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	calls := transporttest.ReadCalls(t)
	clock := func() time.Duration { return time.Since(e.start) }
	before := calls()
	const n = 200
	for range n {
		e.work(clock, 250*time.Microsecond, false)
	}
	if d := calls() - before - 1; d != 0 {
		t.Fatalf("%d passes over %d idle lines made %d read calls, want 0", n, len(e.plugs), d)
	}
}

// A line's master is closed on exec: a child process (the real-time
// watchdog the emulator's loop starts, say) that kept a copy would keep
// the line up after its device unplugs.
func TestLineClosedOnExec(t *testing.T) {
	line, err := OpenLine("cloexec")
	if err != nil {
		t.Skip(err)
	}
	defer line.Close()
	flags, err := unix.FcntlInt(uintptr(line.Fd()), unix.F_GETFD, 0)
	if err != nil {
		t.Fatal(err)
	}
	if flags&unix.FD_CLOEXEC == 0 {
		t.Errorf("line master descriptor %d lacks FD_CLOEXEC", line.Fd())
	}
}

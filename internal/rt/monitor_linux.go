//go:build linux

package rt

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// MonitorPriority is the SCHED_FIFO priority the Go runtime's monitor
// thread (sysmon) is given once a thread of the process is made
// real-time: above every loop (they run at 70-80 by default), below the
// watchdog (watchPriority). A loop configured at MonitorPriority or above
// is not covered by it.
const MonitorPriority = watchPriority - 1

var monitor struct {
	once sync.Once
	tid  int
	err  error
}

// RaiseMonitor puts the Go runtime's monitor thread under SCHED_FIFO at
// MonitorPriority, once per process; later calls wait for the first one
// and return its result. Making a thread real-time (a Loop, LockRealtime)
// starts it. See "The runtime's monitor" in the
// package doc.
//
// The flag SCHED_FLAG_RESET_ON_FORK keeps the threads the monitor
// creates (it starts threads to run the Ps it retakes) at normal
// priority.
func RaiseMonitor() error {
	monitor.once.Do(func() {
		tid, err := findMonitor()
		if err != nil {
			monitor.err = err
			return
		}
		attr := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_FIFO, Priority: MonitorPriority, Flags: unix.SCHED_FLAG_RESET_ON_FORK}
		if err := unix.SchedSetAttr(tid, &attr, 0); err != nil {
			monitor.err = fmt.Errorf("the Go runtime's monitor thread %d: SCHED_FIFO priority %d not permitted: %w", tid, MonitorPriority, err)
			return
		}
		monitor.tid = tid
	})
	return monitor.err
}

// pinMonitor pins the runtime's monitor thread to cpu, once RaiseMonitor
// has raised it, and returns a function that gives it back the cores it
// had. A monitor at normal priority is never pinned: a real-time thread of
// its core would then hold it off for as long as it waited for it.
func pinMonitor(cpu int) (unpin func(), err error) {
	if err := RaiseMonitor(); err != nil {
		return nil, err
	}
	tid := monitor.tid
	var prev, set unix.CPUSet
	if err := unix.SchedGetaffinity(tid, &prev); err != nil {
		return nil, fmt.Errorf("the Go runtime's monitor thread %d: %w", tid, err)
	}
	set.Set(cpu)
	if err := unix.SchedSetaffinity(tid, &set); err != nil {
		return nil, fmt.Errorf("the Go runtime's monitor thread %d: %w", tid, err)
	}
	return func() { _ = unix.SchedSetaffinity(tid, &prev) }, nil
}

// MonitorPasses returns how many times the Go runtime's monitor thread
// has been scheduled in since it started (its schedstat): each is one of
// its passes. The difference of two readings over a run says how often it
// passed, and so whether a sleeper kept it at its shortest interval ("The
// runtime's monitor" in the package doc).
func MonitorPasses() (int64, error) {
	tid, err := findMonitor()
	if err != nil {
		return 0, err
	}
	return schedIns(tid)
}

// schedIns returns how many times thread tid of this process has been
// scheduled in (the third field of its schedstat).
func schedIns(tid int) (int64, error) {
	b, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(tid) + "/schedstat")
	if err != nil {
		return 0, err
	}
	var run, wait, n int64
	if _, err := fmt.Sscan(string(b), &run, &wait, &n); err != nil {
		return 0, fmt.Errorf("thread %d's schedstat %q: %w", tid, b, err)
	}
	return n, nil
}

// findMonitor returns the id of the Go runtime's monitor thread: the
// first thread the process made after its main thread. The runtime starts
// it first thing in runtime.main, before any package is initialised (Go
// 1.26, proc.go), and the kernel hands out thread ids in cyclic order, so
// it is the thread whose id follows the process id most closely. Its start
// time must be the process's own (within monitorStartSkew), which rules
// out a later thread that got a closer id after the ids wrapped. (Looking
// for the thread asleep in nanosleep, the runtime's usleep, lost it on a
// loaded machine: a monitor woken and waiting for a core is in no system
// call.)
func findMonitor() (int, error) {
	pid := os.Getpid()
	pidMax := 1 << 22
	if b, err := os.ReadFile("/proc/sys/kernel/pid_max"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n > 0 {
			pidMax = n
		}
	}
	entries, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return 0, fmt.Errorf("the Go runtime's monitor thread: %w", err)
	}
	best, bestAfter := 0, pidMax
	for _, e := range entries {
		tid, err := strconv.Atoi(e.Name())
		if err != nil || tid == pid {
			continue
		}
		if after := ((tid-pid)%pidMax + pidMax) % pidMax; after < bestAfter {
			best, bestAfter = tid, after
		}
	}
	if best == 0 {
		return 0, errors.New("the Go runtime's monitor thread: the process has no thread but its main one")
	}
	procStart, err := startTime("/proc/self/stat")
	if err != nil {
		return 0, fmt.Errorf("the Go runtime's monitor thread: %w", err)
	}
	start, err := startTime("/proc/self/task/" + strconv.Itoa(best) + "/stat")
	if err != nil {
		return 0, fmt.Errorf("the Go runtime's monitor thread: %w", err)
	}
	if d := time.Duration(start-procStart) * time.Second / clockTicks; d > monitorStartSkew {
		return 0, fmt.Errorf("the Go runtime's monitor thread: thread %d, the first after the main thread by id, started %v after the process", best, d)
	}
	return best, nil
}

// monitorStartSkew bounds how long after the process's start (its fork:
// the exec and the runtime's start-up come between) its first thread may
// start.
const monitorStartSkew = 10 * time.Second

// clockTicks is the unit of a stat file's start time (USER_HZ, 100 on
// every Linux architecture Go supports).
const clockTicks = 100

// startTime reads the start time, in clock ticks after boot, from a
// /proc stat file (field 22; the fields are counted after the command
// name, which may hold spaces and parentheses).
func startTime(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("%s: no command name", path)
	}
	fields := strings.Fields(string(b[i+1:]))
	// fields[0] is field 3 (the state), so field 22 is fields[19].
	if len(fields) < 20 {
		return 0, fmt.Errorf("%s: %d fields after the command name, want at least 20", path, len(fields))
	}
	return strconv.ParseInt(fields[19], 10, 64)
}

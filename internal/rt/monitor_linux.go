//go:build linux

package rt

import (
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
// starts it; it takes 40-120 ms. See "The runtime's monitor" in the
// package doc.
//
// The flag SCHED_FLAG_RESET_ON_FORK keeps the threads the monitor
// creates (it starts threads to run the Ps it retakes) at normal
// priority.
func RaiseMonitor() error {
	monitor.once.Do(func() {
		var tid int
		var err error
		for range monitorTries {
			if tid, err = findMonitor(); err == nil {
				break
			}
		}
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

// Sampling of the threads' system calls: the monitor sleeps in nanosleep
// (the runtime's usleep) between its passes, 20 µs to 10 ms, and runs for
// a few µs; in a process with nothing to run it sleeps in a futex until
// the next timer, and the search's own timers keep it passing. No other
// thread of a Go program sleeps in nanosleep for longer than a few µs (the
// runtime's scheduler, stealing work, naps 3 µs so), and the loops here
// sleep in clock_nanosleep.
const (
	monitorSamples  = 20
	monitorInterval = 2 * time.Millisecond
	monitorTries    = 3
)

// findMonitor returns the id of the thread found sleeping in nanosleep
// most often in monitorSamples looks at /proc/self/task, at least in a
// quarter of them (a busy monitor sleeps about half the time), when it is
// the only thread so found more than twice.
func findMonitor() (int, error) {
	hits := map[int]int{}
	want := strconv.Itoa(unix.SYS_NANOSLEEP)
	for i := range monitorSamples {
		if i > 0 {
			time.Sleep(monitorInterval)
		}
		entries, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return 0, fmt.Errorf("the Go runtime's monitor thread: %w", err)
		}
		for _, e := range entries {
			b, err := os.ReadFile("/proc/self/task/" + e.Name() + "/syscall")
			if err != nil {
				continue // exited, or no permission to read it
			}
			nr, _, _ := strings.Cut(string(b), " ")
			if nr != want {
				continue
			}
			if tid, err := strconv.Atoi(e.Name()); err == nil {
				hits[tid]++
			}
		}
	}
	best, others := 0, 0
	for tid, n := range hits {
		if n > hits[best] {
			best = tid
		}
	}
	for tid, n := range hits {
		if tid != best && n > 2 {
			others++
		}
	}
	if hits[best] < monitorSamples/4 || others > 0 {
		return 0, fmt.Errorf("the Go runtime's monitor thread: not told apart (the likeliest found asleep in nanosleep in %d of %d looks, %d others more than twice)", hits[best], monitorSamples, others)
	}
	return best, nil
}

//go:build linux

package rt

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// monoBase pairs a CLOCK_MONOTONIC reading with a time.Time taken between
// two such readings, so that monoNow can read the clock through the
// runtime's vDSO path (time.Since) instead of a system call. A system call
// here would cost more than the read: every 10 ms the runtime's sysmon
// takes the P from a goroutine it finds in a syscall, and the haptics
// goroutine then waits for a scheduler slice (1-7 ms measured with the
// execution tracer) before its tick can go on.
var monoBase, monoWall = func() (int64, time.Time) {
	var a, b unix.Timespec
	// CLOCK_MONOTONIC cannot fail with a valid pointer; ignore the error as
	// the C library does.
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &a)
	w := time.Now()
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &b)
	return a.Nano() + (b.Nano()-a.Nano())/2, w
}()

// monoNow returns CLOCK_MONOTONIC in ns: the Go runtime's monotonic clock
// is CLOCK_MONOTONIC on Linux, so the two differ only by the sub-
// microsecond uncertainty of the pairing above.
func monoNow() int64 { return monoBase + int64(time.Since(monoWall)) }

// sleepUntilMono sleeps until the monotonic clock reads ns, resuming after
// signals (the Go runtime sends them for preemption).
func sleepUntilMono(ns int64) error {
	ts := unix.NsecToTimespec(ns)
	for {
		err := unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &ts, nil)
		if err == nil {
			return nil
		}
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// Sleep sleeps for d on the monotonic clock, or less if a signal comes
// (the Go runtime sends them for preemption), in a system call the Go
// scheduler is not told of: the goroutine stays running and its thread
// keeps its P. It is for the real-time threads of a process that does not
// collect garbage while they run (the device emulator); see "Sleeping
// without the scheduler" in the package doc.
func Sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	ts := unix.NsecToTimespec(int64(d))
	_, _, _ = unix.RawSyscall6(unix.SYS_CLOCK_NANOSLEEP, unix.CLOCK_MONOTONIC, 0, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
}

// setRealtime puts the calling OS thread (only it) under SCHED_FIFO at the
// given priority, under the watchdog (watchdog_linux.go), which clears
// flag (if not nil) should it put the thread back under normal scheduling.
func setRealtime(priority int, flag *atomic.Bool) error {
	err := unix.SchedSetAttr(0, &unix.SchedAttr{
		Size:     unix.SizeofSchedAttr,
		Policy:   unix.SCHED_FIFO,
		Priority: uint32(priority),
	}, 0)
	if err == nil {
		watch(flag)
		// Not waited for: a link's keeper must send its first heartbeat
		// at once.
		go func() { _ = RaiseMonitor() }()
	}
	return err
}

// BatchSlice is the scheduler slice a thread LockThreadBatch sets up
// asks for (sched_attr.sched_runtime, honoured for normal and batch
// threads since Linux 6.12; earlier kernels ignore it).
const BatchSlice = 20 * time.Millisecond

// LockThreadBatch locks the calling goroutine to its OS thread for good and
// makes that thread (only it) a batch thread: SCHED_BATCH at the given
// nice value, asking for a scheduler slice of BatchSlice. It is for the
// one CPU-bound loop of a run (the cloth simulation), so that the normal
// threads that wake while it computes get their core promptly.
//
// Two kinds of thread wait for it otherwise (docs/safety.md, "Scheduling
// on a shared machine"):
//
//   - The kernel's tty worker (kworker/u*-events_unbound, nice 0) moves
//     every byte written to a terminal (a device's serial line, a
//     pseudo-terminal) to its reader. Under the EEVDF scheduler (Linux
//     6.6 on) a waking thread preempts the running one only if it has
//     the earlier virtual deadline, and a thread whose slice has begun
//     keeps its core for that slice (the kernel's base slice, 0.7 ms ×
//     (1 + log2 cores)), at any nice value: nice weighs a thread only
//     against the threads of its own group (the session's autogroup),
//     and the worker is in the root group. A waking thread whose slice is
//     shorter than the running one's may preempt it at once (the
//     kernel's PREEMPT_SHORT): BatchSlice makes every default slice
//     shorter. It changes nothing in how much CPU the thread gets over
//     time.
//   - The Go runtime hands a goroutine it preempted back to that
//     goroutine's locked thread through a helper thread at normal
//     priority; with a CPU-bound goroutine on each core that helper
//     waited for a slice while the real-time loop waited for it. A
//     positive nice value lets it through within the process's group.
//
// SCHED_BATCH also keeps the thread itself from preempting others when it
// wakes. It needs no privilege (nor does a positive nice value).
func LockThreadBatch(nice int) error {
	runtime.LockOSThread()
	return unix.SchedSetAttr(0, &unix.SchedAttr{
		Size:    unix.SizeofSchedAttr,
		Policy:  unix.SCHED_BATCH,
		Nice:    int32(nice),
		Runtime: uint64(BatchSlice),
	}, 0)
}

// realtimeSupported: this platform sleeps to absolute deadlines with
// clock_nanosleep and has SCHED_FIFO.
const realtimeSupported = true

// twoCPUs returns two cores the calling thread may run on, chosen by
// pickCPUs: one for the loop's own thread and one for its standby.
func twoCPUs() (own, other int, err error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return 0, 0, err
	}
	own, other, ok := pickCPUs(coresOf(&set), threadSiblings)
	if !ok {
		return 0, 0, errors.New("only one core available")
	}
	return own, other, nil
}

// threadSiblings lists the hardware threads of cpu's physical core, nil
// when the kernel does not say.
func threadSiblings(cpu int) []int {
	b, err := os.ReadFile(fmt.Sprintf("/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu))
	if err != nil {
		return nil
	}
	cpus, err := parseCPUList(string(b))
	if err != nil {
		return nil
	}
	return cpus
}

// pinThread keeps the calling OS thread on one core.
func pinThread(cpu int) error {
	var set unix.CPUSet
	set.Set(cpu)
	return unix.SchedSetaffinity(0, &set)
}

// coresOf lists the cores in set, in increasing order.
func coresOf(set *unix.CPUSet) []int {
	var cores []int
	for c := range len(set) * 64 {
		if set.IsSet(c) {
			cores = append(cores, c)
		}
	}
	return cores
}

// cpuMask is a set of cores.
type cpuMask = unix.CPUSet

// keepOff pins the calling thread to the cores of allowed but cpu (all of
// them when cpu < 0). An empty allowed is first filled with the cores the
// thread may run on now.
func keepOff(allowed *cpuMask, cpu int) error {
	if allowed.Count() == 0 {
		if err := unix.SchedGetaffinity(0, allowed); err != nil {
			return err
		}
	}
	set := *allowed
	if cpu >= 0 {
		set.Clear(cpu)
		if set.Count() == 0 {
			return fmt.Errorf("it may run on core %d only", cpu)
		}
	}
	return unix.SchedSetaffinity(0, &set)
}

// HoldIdlePoll asks the kernel, through its PM QoS interface, to keep idle
// cores polling rather than halting until release is called: it writes a
// wake-up latency of 0 to /dev/cpu_dma_latency and keeps the file open.
// A halted core wakes for its timer only when the hardware, or on a
// virtual machine the host, gets round to it; a polling one is awake.
// Only root may open the file.
func HoldIdlePoll() (release func() error, err error) {
	f, err := os.OpenFile("/dev/cpu_dma_latency", os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	var zero [4]byte // an int32 in microseconds
	if _, err := f.Write(zero[:]); err != nil {
		f.Close()
		return nil, err
	}
	return f.Close, nil
}

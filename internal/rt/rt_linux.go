//go:build linux

package rt

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"time"

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
	}
	return err
}

// LockThreadNice locks the calling goroutine to its OS thread for good and
// sets that thread's nice value (only its own: Linux applies
// PRIO_PROCESS to the thread id).
//
// The Go runtime hands a goroutine it preempted back to that goroutine's
// locked thread through a helper thread at normal priority. On a 2-core
// machine with a CPU-bound goroutine on each core, that helper waits for
// a CFS slice (up to milliseconds) while the real-time loop waits for it.
// With the CPU-bound goroutine at nice 10 the helper got its core promptly
// in every measured run (no tick later than 1 ms in 3 × 60 s, against 1-39
// a minute at nice 0), and the goroutine still gets every cycle nothing
// else wants.
func LockThreadNice(nice int) error {
	runtime.LockOSThread()
	return unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), nice)
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
	var allowed []int
	for c := range len(set) * 64 {
		if set.IsSet(c) {
			allowed = append(allowed, c)
		}
	}
	own, other, ok := pickCPUs(allowed, threadSiblings)
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

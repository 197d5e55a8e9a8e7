//go:build linux

package rt

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// The watchdog takes SCHED_FIFO away from a thread that spins.
//
// The Go runtime busy-waits in a few places, yielding with sched_yield
// between tries: a goroutine assisting the garbage collector waits so for
// the goroutine whose stack it scans to stop. A SCHED_FIFO thread that
// yields gives way only to threads of its own priority. When the goroutine
// it waits for runs on a thread of lower real-time priority that cannot
// get a core (pinned to the same one, say), neither ever moves again, and
// the kernel's real-time throttling does not help: it stops every
// real-time thread of a core together, the waited-for one too. The rest
// of the process then stops at the collector's next stop-the-world. A test
// process of the device packages spun so on both cores for 13 minutes,
// and TestWatchdogEndsInversion builds the case in a second.
//
// The threads that real-time code runs sleep for almost all of each
// period, so one that used most of a core for a whole window is in such a
// wait. Nothing inside the process can be trusted to notice: a goroutine
// that wakes needs a P, and the stuck threads hold them. So the first
// thread this package makes real-time starts a watchdog process, the
// program itself run again (init below), which runs at the highest
// priority, looks at the threads of its parent every watchEvery, and puts
// one that ran watchBusy of the last watchWindow looks back under normal
// scheduling, where the thread it waits for gets its turn. It tells the
// parent, whose loop so demoted goes on at normal priority with its
// Telemetry.RealTime false (see Demotions). It exits within watchEvery of
// its parent.
const (
	watchEvery  = 100 * time.Millisecond
	watchWindow = 5 // looks: 500 ms
	// watchBusy is the share of the window a thread must have run. A
	// spinning thread runs 95 % of every second (sched_rt_runtime_us).
	watchBusy     = 0.75
	watchPriority = 99 // above every thread it watches, where permitted
	watchEnv      = "HAPTEX_RT_WATCHDOG"
)

var watchdog struct {
	once    sync.Once
	mu      sync.Mutex
	flags   map[int]*atomic.Bool // by thread id
	demoted atomic.Uint64
}

// Demotions is the number of this process's real-time threads the
// watchdog has put back under normal scheduling.
func Demotions() uint64 { return watchdog.demoted.Load() }

// watch notes flag (if not nil) as the calling thread's, to be cleared if
// the watchdog demotes the thread, and starts the watchdog process if it
// is not running.
func watch(flag *atomic.Bool) {
	if flag != nil {
		tid := unix.Gettid()
		watchdog.mu.Lock()
		if watchdog.flags == nil {
			watchdog.flags = make(map[int]*atomic.Bool)
		}
		watchdog.flags[tid] = flag
		watchdog.mu.Unlock()
	}
	// Started from a goroutine of its own: the caller is a real-time
	// thread, and a child forked from it would start under SCHED_FIFO.
	watchdog.once.Do(func() { go startWatchdog() })
}

func startWatchdog() {
	cmd := exec.Command("/proc/self/exe")
	cmd.Args[0] = filepath.Base(os.Args[0]) + "-rt-watchdog" // as ps shows it
	cmd.Env = append(os.Environ(), watchEnv+"="+strconv.Itoa(os.Getpid()))
	out, err := cmd.StdoutPipe()
	if err != nil {
		return
	}
	if cmd.Start() != nil {
		return
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		tid, err := strconv.Atoi(sc.Text())
		if err != nil {
			continue
		}
		watchdog.demoted.Add(1)
		watchdog.mu.Lock()
		if f := watchdog.flags[tid]; f != nil {
			f.Store(false)
		}
		watchdog.mu.Unlock()
	}
	_ = cmd.Wait()
}

func init() {
	v := os.Getenv(watchEnv)
	if v == "" {
		return
	}
	parent, err := strconv.Atoi(v)
	if err != nil || parent != os.Getppid() {
		os.Exit(2)
	}
	runtime.LockOSThread()
	if unix.SchedSetAttr(0, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_FIFO, Priority: watchPriority}, 0) != nil {
		// Allowed real-time by an rtprio limit: take the highest it allows.
		var lim unix.Rlimit
		if unix.Getrlimit(unix.RLIMIT_RTPRIO, &lim) == nil && lim.Cur > 0 {
			_ = unix.SchedSetAttr(0, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_FIFO, Priority: uint32(min(lim.Cur, watchPriority))}, 0)
		}
	}
	guard(parent, os.Stdout)
	os.Exit(0)
}

// guard watches the real-time threads of process parent until it exits,
// writing the id of each thread it demotes to w.
func guard(parent int, w io.Writer) {
	type samples struct {
		cpu, wall [watchWindow + 1]int64
		n         int
		seen      bool
	}
	threads := map[int]*samples{}
	dir := fmt.Sprintf("/proc/%d/task", parent)
	normal := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_NORMAL}
	ts := unix.NsecToTimespec(int64(watchEvery))
	for os.Getppid() == parent {
		_ = unix.ClockNanosleep(unix.CLOCK_MONOTONIC, 0, &ts, nil)
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		wall := time.Now().UnixNano()
		for _, s := range threads {
			s.seen = false
		}
		for _, e := range entries {
			tid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			policy, _, errno := unix.RawSyscall(unix.SYS_SCHED_GETSCHEDULER, uintptr(tid), 0, 0)
			if errno != 0 || (policy != unix.SCHED_FIFO && policy != unix.SCHED_RR) {
				continue
			}
			cpu, ok := runTime(filepath.Join(dir, e.Name(), "schedstat"))
			if !ok {
				continue
			}
			s := threads[tid]
			if s == nil {
				s = &samples{}
				threads[tid] = s
			}
			s.seen = true
			copy(s.cpu[:], s.cpu[1:])
			copy(s.wall[:], s.wall[1:])
			s.cpu[watchWindow], s.wall[watchWindow] = cpu, wall
			if s.n++; s.n > watchWindow && float64(s.cpu[watchWindow]-s.cpu[0]) >= watchBusy*float64(s.wall[watchWindow]-s.wall[0]) {
				if unix.SchedSetAttr(tid, &normal, 0) == nil {
					fmt.Fprintln(w, tid)
				}
				delete(threads, tid)
			}
		}
		for tid, s := range threads {
			if !s.seen {
				delete(threads, tid) // exited, or no longer real-time
			}
		}
	}
}

// runTime reads the time a thread has run [ns], the first field of its
// schedstat file (the kernel's Documentation/scheduler/sched-stats.rst).
func runTime(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	f, _, _ := bytes.Cut(b, []byte(" "))
	v, err := strconv.ParseInt(string(f), 10, 64)
	return v, err == nil
}

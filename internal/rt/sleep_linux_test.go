//go:build linux

package rt

import (
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Sleep keeps the Go scheduler out of the sleep: a goroutine in Sleep is
// never in a system call as the runtime sees it, so sysmon never locks its
// status to retake its P (the package doc, "Sleeping").
func TestSleepIsNotASyscall(t *testing.T) {
	defer ReserveProcs(1)()
	var stop atomic.Bool
	done := make(chan struct{})
	go rawSleeper(&stop, done)
	defer func() { stop.Store(true); <-done }()
	time.Sleep(20 * time.Millisecond)
	buf := make([]byte, 1<<20)
	for range 20 {
		dump := string(buf[:runtime.Stack(buf, true)])
		for g := range strings.SplitSeq(dump, "\n\n") {
			if !strings.Contains(g, "rt.rawSleeper") {
				continue
			}
			header, _, _ := strings.Cut(g, "\n")
			if strings.Contains(header, "syscall") {
				t.Fatalf("a goroutine in Sleep is in a system call as the Go scheduler sees it:\n%s", g)
			}
		}
		time.Sleep(3 * time.Millisecond)
	}
}

func rawSleeper(stop *atomic.Bool, done chan<- struct{}) {
	defer close(done)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for !stop.Load() {
		Sleep(50 * time.Millisecond)
	}
}

//go:build !linux

package rt

import (
	"errors"
	"runtime"
	"sync/atomic"
	"time"
)

var base = time.Now()

func monoNow() int64 { return int64(time.Since(base)) }

// sleepUntilMono falls back to time.Sleep: about 0.5 ms late on average,
// enough for tests and demos, not for force rendering.
func sleepUntilMono(ns int64) error {
	if d := time.Duration(ns - monoNow()); d > 0 {
		time.Sleep(d)
	}
	return nil
}

// Sleep sleeps for d with time.Sleep.
func Sleep(d time.Duration) { time.Sleep(d) }

func setRealtime(int, *atomic.Bool) error {
	return errors.New("real-time scheduling is implemented on Linux only")
}

// BatchSlice is the slice LockThreadBatch asks for on Linux.
const BatchSlice = 20 * time.Millisecond

// LockThreadBatch locks the calling goroutine to its OS thread; batch
// scheduling and thread nice values are implemented on Linux only.
func LockThreadBatch(int) error {
	runtime.LockOSThread()
	return errors.New("per-thread batch scheduling is implemented on Linux only")
}

func twoCPUs() (own, other int, err error) {
	return 0, 0, errors.New("thread affinity is implemented on Linux only")
}

type cpuMask struct{}

func keepOff(*cpuMask, int) error { return errors.New("thread affinity is implemented on Linux only") }

// MonitorPasses is implemented on Linux only.
func MonitorPasses() (int64, error) {
	return 0, errors.New("the runtime's monitor is found on Linux only")
}

func pinMonitor(int) (func(), error) {
	return nil, errors.New("real-time scheduling is implemented on Linux only")
}

func pinThread(int) error { return errors.New("thread affinity is implemented on Linux only") }

// HoldIdlePoll is implemented on Linux only.
func HoldIdlePoll() (release func() error, err error) {
	return nil, errors.New("idle polling is implemented on Linux only")
}

const realtimeSupported = false

// Demotions is always 0: there is no real-time scheduling to take away.
func Demotions() uint64 { return 0 }

// MonitorPriority is the monitor's priority on Linux.
const MonitorPriority = 98

// RaiseMonitor is implemented on Linux only.
func RaiseMonitor() error {
	return errors.New("real-time scheduling is implemented on Linux only")
}

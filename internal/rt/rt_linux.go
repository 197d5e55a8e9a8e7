//go:build linux

package rt

import (
	"errors"

	"golang.org/x/sys/unix"
)

func monoNow() int64 {
	var ts unix.Timespec
	// CLOCK_MONOTONIC cannot fail with a valid pointer; ignore the error as
	// the C library does.
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return ts.Nano()
}

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
// given priority.
func setRealtime(priority int) error {
	return unix.SchedSetAttr(0, &unix.SchedAttr{
		Size:     unix.SizeofSchedAttr,
		Policy:   unix.SCHED_FIFO,
		Priority: uint32(priority),
	}, 0)
}

const realtimeSupported = true

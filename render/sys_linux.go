//go:build linux

package render

import "golang.org/x/sys/unix"

// setNice gives the calling OS thread niceness n. Threads it creates
// afterwards, such as the rasteriser threads llvmpipe starts with each GL
// context, inherit it. Lowering niceness needs privilege; that failure is
// ignored (the thread stays as nice as it was).
func setNice(n int) {
	unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), n)
}

package transporttest

import (
	"bytes"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// ReadCalls returns a function that tells how many read(2)-family calls
// the calling OS thread has made (syscr in /proc/thread-self/io, the
// kernel's task I/O accounting); each call of it adds one, its own
// pread. Lock the goroutine to its thread first. It skips the test where
// the kernel keeps no such count. Tests use it to prove that a loop makes
// no read of an empty terminal (transport.ReadArrived says why).
func ReadCalls(t testing.TB) func() uint64 {
	t.Helper()
	fd, err := unix.Open("/proc/thread-self/io", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no task I/O accounting: %v", err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	var buf [512]byte
	return func() uint64 {
		n, err := unix.Pread(fd, buf[:], 0)
		if err != nil {
			t.Fatal(err)
		}
		_, rest, ok := bytes.Cut(buf[:max(n, 0)], []byte("syscr: "))
		line, _, _ := bytes.Cut(rest, []byte("\n"))
		v, err := strconv.ParseUint(string(line), 10, 64)
		if !ok || err != nil {
			t.Fatalf("syscr not in %q", buf[:max(n, 0)])
		}
		return v
	}
}

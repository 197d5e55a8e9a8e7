//go:build linux

package transport_test

import (
	"errors"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/haptex/haptex/devices/transport"
	"github.com/haptex/haptex/devices/transport/transporttest"
)

// nonBlocking returns a non-blocking duplicate of f's descriptor (pty.Open
// hands the master back in blocking mode).
func nonBlocking(t *testing.T, f *os.File) *os.File {
	t.Helper()
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err == nil {
		err = unix.SetNonblock(fd, true)
	}
	if err != nil {
		t.Fatal(err)
	}
	nb := os.NewFile(uintptr(fd), f.Name())
	t.Cleanup(func() { nb.Close() })
	return nb
}

// waitArrived waits (at most 10 s, for a loaded machine) until the kernel
// has delivered n bytes to fd.
func waitArrived(t *testing.T, fd, n int) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
		if k, err := unix.IoctlGetInt(fd, unix.TIOCINQ); err == nil && k >= n {
			return
		}
	}
	t.Fatalf("%d bytes written never arrived", n)
}

// A read of an empty terminal waits for the kernel's tty worker (a
// normal-priority kworker) to deliver what is in flight: a real-time loop
// must never make one. ReadArrived reads only what the kernel says has
// arrived.
func TestReadArrivedMakesNoEmptyRead(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	calls := transporttest.ReadCalls(t)
	m, s, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer s.Close()
	defer m.Close()
	fd := int(nonBlocking(t, m).Fd())
	var buf [64]byte

	before := calls()
	for range 1000 {
		if n, err := transport.ReadArrived(fd, buf[:]); n != 0 || !errors.Is(err, unix.EAGAIN) {
			t.Fatalf("empty line: %d bytes, %v; want 0, EAGAIN", n, err)
		}
	}
	if d := calls() - before - 1; d != 0 {
		t.Fatalf("1000 looks at an empty line made %d read calls, want 0", d)
	}

	if _, err := s.Write([]byte("frame")); err != nil {
		t.Fatal(err)
	}
	waitArrived(t, fd, 5)
	n, err := transport.ReadArrived(fd, buf[:])
	if err != nil || string(buf[:n]) != "frame" {
		t.Fatalf("got %q, %v; want \"frame\"", buf[:n], err)
	}
	if n, err := transport.ReadArrived(fd, buf[:]); n != 0 || !errors.Is(err, unix.EAGAIN) {
		t.Fatalf("drained line: %d bytes, %v; want 0, EAGAIN", n, err)
	}
}

// A TryReader still reports a line that is gone, although it no longer
// reads an empty one: the host's end (the slave) when the device's end
// closes, and the device's end when the last host closes.
func TestTryReaderReportsHangUp(t *testing.T) {
	for _, side := range []string{"slave", "master"} {
		t.Run(side, func(t *testing.T) {
			m, s, err := pty.Open()
			if err != nil {
				t.Skipf("no pseudo-terminal: %v", err)
			}
			read, other := s, m
			if side == "master" {
				read, other = nonBlocking(t, m), s
				defer m.Close()
			} else {
				defer s.Close()
			}
			raw, err := read.SyscallConn()
			if err != nil {
				t.Fatal(err)
			}
			r := transport.NewTryReader(raw)
			var buf [64]byte
			if n, err := r.Try(buf[:]); n != 0 || !errors.Is(err, unix.EAGAIN) {
				t.Fatalf("open empty line: %d bytes, %v; want 0, EAGAIN", n, err)
			}
			other.Close()
			done := make(chan error, 1)
			go func() {
				for range 100 {
					if err := r.Wait(); err != nil {
						done <- err
						return
					}
					n, err := r.Try(buf[:])
					if err != nil && !errors.Is(err, unix.EAGAIN) || err == nil && n == 0 {
						done <- nil // read(2) reported the hang-up (an error, or end of file)
						return
					}
				}
				done <- errors.New("100 waits and reads never reported the hang-up")
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the hang-up was never reported")
			}
		})
	}
}

package faulttest

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/haptex/haptex/devices/emu"
	"github.com/haptex/haptex/devices/transport/transporttest"
	"github.com/haptex/haptex/devices/wire"
)

// TestPassMakesNoEmptyRead: the proxy's loop, at SCHED_FIFO, must never
// read (nor poll) a line the kernel says is empty, which would make it
// wait for the kernel's normal-priority tty worker (transport.ReadArrived).
// The thread's read calls are counted in the kernel's own accounting:
// passes over two idle lines make none, and a frame that arrived costs
// the reads that take it and crosses on the first pass.
func TestPassMakesNoEmptyRead(t *testing.T) {
	device, err := emu.OpenLine("device")
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	defer device.Close()
	p, err := openProxy(device.TTY(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		p.host.Close()
		unix.Close(p.devFd)
	}()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	calls := transporttest.ReadCalls(t)
	before := calls()
	const n = 200
	for range n {
		p.pass()
	}
	if d := calls() - before - 1; d != 0 {
		t.Fatalf("%d passes over two idle lines made %d read calls, want 0", n, d)
	}

	var enc wire.Encoder
	frame := enc.EncodeRaw(wire.TypeHeartbeat, nil, 7, 0)
	if _, err := unix.Write(device.Fd(), frame); err != nil {
		t.Fatal(err)
	}
	host, err := unix.Open(p.Port(), unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(host)
	var got []byte
	var buf [64]byte
	// The bytes reach the proxy's line through the kernel's tty worker,
	// which waits for a core: tens of milliseconds on a loaded machine.
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Microsecond) {
		p.pass()
		if p.Stats()[ToHost].Frames == 1 {
			break
		}
	}
	if s := p.Stats()[ToHost]; s.Frames != 1 || s.Overflow != 0 {
		t.Fatalf("the device's frame did not cross: %+v", s)
	}
	for len(got) < len(frame) {
		k, err := unix.Read(host, buf[:])
		if err != nil {
			t.Fatalf("host side: %v after %q", err, got)
		}
		got = append(got, buf[:k]...)
	}
	if string(got) != string(frame) {
		t.Fatalf("host received %q, want %q", got, frame)
	}
}

// TestProxySaysWhenALineHungUp: a direction whose line hangs up is read
// no more, and the stats say so and why, so that a host that cannot reach
// the device through the proxy can tell a dead cable from a silent device.
func TestProxySaysWhenALineHungUp(t *testing.T) {
	device, err := emu.OpenLine("device")
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	p, err := openProxy(device.TTY(), nil, nil)
	if err != nil {
		device.Close()
		t.Fatal(err)
	}
	defer func() {
		p.host.Close()
		unix.Close(p.devFd)
	}()
	p.pass()
	if s := p.Stats(); s[ToHost].HungUp != "" || s[ToDevice].HungUp != "" {
		t.Fatalf("two open lines read as hung up: %+v", s)
	}
	device.Close()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end) && p.Stats()[ToHost].HungUp == ""; time.Sleep(time.Millisecond) {
		p.pass()
	}
	s := p.Stats()
	if s[ToHost].HungUp == "" || s[ToDevice].HungUp != "" {
		t.Fatalf("the device's line hung up: stats %+v, want the direction to the host hung up alone", s)
	}
	t.Logf("to host: %s", s[ToHost].HungUp)
}

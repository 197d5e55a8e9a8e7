package serial

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/transport"
)

// openPTY returns a pseudo-terminal master and the path of its slave, the
// stand-in for a device and its serial port.
func openPTY(t *testing.T) (*os.File, string) {
	t.Helper()
	m, s, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	name := s.Name()
	s.Close()
	t.Cleanup(func() { m.Close() })
	return m, name
}

func TestPortOverPTY(t *testing.T) {
	m, name := openPTY(t)
	p, err := Open(name, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	// Every byte value must pass untouched: raw mode, no CR/LF mapping, no
	// flow-control characters eaten.
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	if _, err := p.Write(all); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 0, 256)
	buf := make([]byte, 256)
	for len(got) < 256 {
		n, err := m.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, buf[:n]...)
	}
	if !bytes.Equal(got, all) {
		t.Fatalf("host to device bytes changed:\n%x", got)
	}
	if _, err := m.Write(all); err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	for len(got) < 256 {
		n, err := p.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, buf[:n]...)
	}
	if !bytes.Equal(got, all) {
		t.Fatalf("device to host bytes changed:\n%x", got)
	}
}

// A second open of a line a session holds is refused as busy, as root
// too (TIOCEXCL does not stop root), and the line opens again once the
// first is closed.
func TestSecondOpenIsBusy(t *testing.T) {
	_, name := openPTY(t)
	p, err := Open(name, Options{})
	if err != nil {
		t.Fatal(err)
	}
	q, err := Open(name, Options{})
	var te *transport.Error
	if err == nil || !errors.As(err, &te) || te.Kind != transport.Busy {
		if q != nil {
			q.Close()
		}
		t.Fatalf("second open: %v, want busy", err)
	}
	t.Log(err)
	p.Close()
	q, err = Open(name, Options{})
	if err != nil {
		t.Fatalf("open after close: %v", err)
	}
	q.Close()
}

func TestPortHangup(t *testing.T) {
	m, name := openPTY(t)
	p, err := Open(name, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	done := make(chan error, 1)
	go func() {
		_, err := p.Read(make([]byte, 16))
		done <- err
	}()
	time.Sleep(10 * time.Millisecond)
	m.Close()
	select {
	case err := <-done:
		if !errors.Is(err, devices.ErrDisconnected) || transport.KindOf(err) != transport.Gone {
			t.Fatalf("Read after hang-up: %v, want kind Gone", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Read did not return after the device side closed")
	}
}

func TestPortCloseUnblocksRead(t *testing.T) {
	_, name := openPTY(t)
	p, err := Open(name, Options{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := p.Read(make([]byte, 16))
		done <- err
	}()
	time.Sleep(10 * time.Millisecond)
	p.Close()
	select {
	case err := <-done:
		if transport.KindOf(err) != transport.Closed {
			t.Fatalf("Read after Close: %v, want kind Closed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not unblock Read")
	}
}

func TestOpenErrors(t *testing.T) {
	_, err := Open("/dev/haptex-no-such-port", Options{})
	if transport.KindOf(err) != transport.NotFound {
		t.Errorf("missing port: %v, want kind NotFound", err)
	}
	f := filepath.Join(t.TempDir(), "plain-file")
	os.WriteFile(f, nil, 0o644)
	_, err = Open(f, Options{})
	if err == nil || transport.KindOf(err) == transport.NotFound {
		t.Errorf("a plain file as a port: %v, want a configuration error", err)
	}
}

func TestLatencyTimer(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "bus", "usb-serial", "devices", "ttyUSB7")
	os.MkdirAll(dir, 0o755)
	path := filepath.Join(dir, "latency_timer")
	os.WriteFile(path, []byte("16\n"), 0o644)
	lt := lowerLatencyTimer(root, "/dev/ttyUSB7")
	if lt.Before != 16 || lt.After != 1 || lt.Err != "" || lt.Path != path {
		t.Errorf("FTDI at 16 ms: %+v, want lowered to 1", lt)
	}
	if b, _ := os.ReadFile(path); string(b) != "1\n" {
		t.Errorf("sysfs holds %q", b)
	}
	if lt := lowerLatencyTimer(root, "/dev/ttyACM0"); lt.Path != "" || lt.Before != -1 {
		t.Errorf("CDC-ACM (no latency timer): %+v", lt)
	}
}

func TestList(t *testing.T) {
	ports, err := List()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ports {
		if p.Path == "" {
			t.Errorf("port without a path: %+v", p)
		}
	}
}

func TestReadAllocs(t *testing.T) {
	m, name := openPTY(t)
	p, err := Open(name, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	buf := make([]byte, 64)
	msg := []byte{1, 2, 3}
	allocs := testing.AllocsPerRun(200, func() {
		m.Write(msg)
		n := 0
		for n < 3 {
			k, err := p.Read(buf[n:])
			if err != nil {
				panic(err)
			}
			n += k
		}
		if _, err := p.Write(msg); err != nil {
			panic(err)
		}
		m.Read(buf)
	})
	t.Logf("allocations per read+write round trip over a pty: %v", allocs)
	if allocs != 0 {
		t.Errorf("%v allocations per round trip", allocs)
	}
}

// TestWriteLimit: a device that stops reading fills the line's output
// buffer; Write must then fail with kind Stalled after the write limit
// instead of holding the caller (before the limit existed it blocked
// until the device read again), and the port must work again once the
// device reads.
func TestWriteLimit(t *testing.T) {
	m, name := openPTY(t)
	p, err := Open(name, Options{WriteLimit: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	frame := make([]byte, 64)
	var werr error
	var wrote int
	var slowest time.Duration
	for wrote < 16<<20 {
		start := time.Now()
		n, err := p.Write(frame)
		slowest = max(slowest, time.Since(start))
		wrote += n
		if err != nil {
			werr = err
			break
		}
	}
	if transport.KindOf(werr) != transport.Stalled {
		t.Fatalf("after %d bytes nobody read: %v, want kind Stalled", wrote, werr)
	}
	t.Logf("stalled after %d bytes; slowest write %v; %v", wrote, slowest, werr)
	// A stalled write waits about the limit; 10 s is far beyond any stall
	// of a loaded CI host (2.4 s seen) and far short of forever.
	if slowest > 10*time.Second {
		t.Errorf("a write took %v with a 20 ms limit", slowest)
	}

	got := make(chan int)
	go func() {
		buf := make([]byte, 4096)
		total := 0
		for total < wrote {
			n, err := m.Read(buf)
			if err != nil {
				break
			}
			total += n
		}
		got <- total
	}()
	p.SetWriteLimit(10 * time.Second)
	if _, err := p.Write(frame); err != nil {
		t.Fatalf("write once the device reads again: %v", err)
	}
	if n := <-got; n < wrote {
		t.Errorf("the device read %d of the %d bytes written", n, wrote)
	}
}

func TestSetWriteLimitDefault(t *testing.T) {
	_, name := openPTY(t)
	p, err := Open(name, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if d := time.Duration(p.limit.Load()); d != DefaultWriteLimit {
		t.Errorf("limit %v, want the default %v", d, DefaultWriteLimit)
	}
	p.SetWriteLimit(time.Second)
	p.SetWriteLimit(0)
	if d := time.Duration(p.limit.Load()); d != DefaultWriteLimit {
		t.Errorf("after SetWriteLimit(0): %v, want the default %v", d, DefaultWriteLimit)
	}
}

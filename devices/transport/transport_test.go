package transport

import (
	"errors"
	"testing"

	"github.com/haptex/haptex/devices"
)

func TestPipe(t *testing.T) {
	a, b := Pipe("a", "b")
	if _, err := a.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 3)
	n, err := b.Read(buf)
	if n != 3 || err != nil || string(buf) != "hel" {
		t.Fatalf("Read = %d %v %q", n, err, buf[:n])
	}
	a.Close()
	n, err = b.Read(buf)
	if n != 2 || err != nil {
		t.Fatalf("Read after peer close = %d %v, want the rest", n, err)
	}
	_, err = b.Read(buf)
	if KindOf(err) != Gone || !errors.Is(err, devices.ErrDisconnected) {
		t.Fatalf("Read after peer close and drain: %v, want Gone", err)
	}
	if _, err := a.Read(buf); KindOf(err) != Closed {
		t.Fatalf("Read on closed end: %v", err)
	}
	if _, err := b.Write([]byte{1}); KindOf(err) != Gone {
		t.Fatalf("Write to a closed peer: %v", err)
	}
}

func TestPipeCloseUnblocksRead(t *testing.T) {
	a, _ := Pipe("a", "b")
	done := make(chan error)
	go func() {
		_, err := a.Read(make([]byte, 1))
		done <- err
	}()
	a.Close()
	if err := <-done; KindOf(err) != Closed {
		t.Fatalf("blocked Read returned %v after Close", err)
	}
}

func TestErrorMessage(t *testing.T) {
	err := &Error{Transport: devices.TransportSerial, Op: "open", Port: "/dev/ttyUSB9", Kind: NotFound, Err: errors.New("no such file")}
	if got, want := err.Error(), "serial: open /dev/ttyUSB9: not found: no such file"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if errors.Is(err, devices.ErrDisconnected) {
		t.Error("NotFound must not count as a disconnect")
	}
}

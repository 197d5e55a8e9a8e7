package transporttest

import (
	"errors"
	"testing"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/transport"
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
	if transport.KindOf(err) != transport.Gone || !errors.Is(err, devices.ErrDisconnected) {
		t.Fatalf("Read after peer close and drain: %v, want Gone", err)
	}
	if _, err := a.Read(buf); transport.KindOf(err) != transport.Closed {
		t.Fatalf("Read on closed end: %v", err)
	}
	if _, err := b.Write([]byte{1}); transport.KindOf(err) != transport.Gone {
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
	if err := <-done; transport.KindOf(err) != transport.Closed {
		t.Fatalf("blocked Read returned %v after Close", err)
	}
}

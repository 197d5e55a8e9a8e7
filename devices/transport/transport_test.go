package transport

import (
	"errors"
	"testing"

	"github.com/haptex/haptex/devices"
)

func TestErrorMessage(t *testing.T) {
	err := &Error{Transport: devices.TransportSerial, Op: "open", Port: "/dev/ttyUSB9", Kind: NotFound, Err: errors.New("no such file")}
	if got, want := err.Error(), "serial: open /dev/ttyUSB9: not found: no such file"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if errors.Is(err, devices.ErrDisconnected) {
		t.Error("NotFound must not count as a disconnect")
	}
}

package emutest

import (
	"github.com/haptex/haptex/devices/emu"
	"github.com/haptex/haptex/devices/transport"
)

// Serve makes conn the device's line and feeds the device what arrives on
// it, from a goroutine of its own, until conn fails or the device is
// connected elsewhere or detached: how a protocol test serves an emulated
// device over any transport.Conn (an in-memory pipe, the HID fake of
// package hid) where the emulator serves pseudo-terminals. It returns at
// once.
func Serve(d *emu.Device, conn transport.Conn) {
	d.Connect(conn)
	go func() {
		var buf [4096]byte
		for {
			n, err := conn.Read(buf[:])
			if !d.Receive(conn, buf[:n], err) {
				return
			}
		}
	}()
}

// Package emu emulates haptex devices behind the real wire protocol: each
// emulated exoskeleton or tactile array is a protocol engine (the device
// side of docs/protocol.md, written from that document) around a backend
// that implements devices.Exoskeleton or devices.TactileArray, served on a
// real pseudo-terminal so that haptex reaches it through its real serial
// driver, byte for byte.
//
// Run starts a set of emulated devices and returns their port paths;
// Plug.Unplug and Plug.Replug make a device vanish and come back like a
// pulled cable. An engine serves any transport.Conn its caller reads
// (Device.Connect, Device.Receive; emutest.Serve reads one for the HID
// fake of package hid and the protocol tests).
//
// The default backends are the physical twins of devices/twin: the
// exoskeleton on the emulated hand, whose fingers follow a handling script
// (Config.Script) that each run plays from its start (hand.go), and the
// piezo pin array (PhysicalExo, PhysicalTactile). Config.Errors gives the
// exoskeletons the calibration twin's known errors and Config.Stand puts
// them on their calibration stands (stand.go); Config.Announce announces
// the emulator to other processes and serves its stands on a socket
// (announce.go). Config.NewExo and Config.NewTactile choose other backends
// (devices/emu/emutest has the small stand-ins whose response protocol
// tests can predict).
//
// It never runs haptex's control loops; it is the other end of the cable.
package emu

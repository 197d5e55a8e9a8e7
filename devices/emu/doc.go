// Package emu emulates haptex devices behind the real wire protocol: each
// emulated exoskeleton or tactile array is a protocol engine (the device
// side of docs/protocol.md, written from that document) around a backend
// that implements devices.Exoskeleton or devices.TactileArray, served on a
// real pseudo-terminal so that haptex reaches it through its real serial
// driver, byte for byte.
//
// Run starts a set of emulated devices and returns their port paths;
// Device.Unplug and Device.Replug make a device vanish and come back like a
// pulled cable. Serve attaches an engine to any transport.Conn (the HID fake
// of package hid uses it).
//
// The default backends are the physical twins of devices/twin (PhysicalExo,
// PhysicalTactile): the exoskeleton with a finger following the default
// handling script, and the piezo pin array. Config.NewExo and
// Config.NewTactile choose others (devices/emu/emutest has the small
// stand-ins whose response protocol tests can predict).
//
// It never runs haptex's control loops; it is the other end of the cable.
package emu

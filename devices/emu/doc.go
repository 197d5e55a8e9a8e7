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
// handling script (RestingExo holds the finger still), and the piezo pin
// array. MassDamperExo and PinArray are small stand-ins (one mass-damper
// per joint held by a visco-elastic finger, a pin array that switches
// frames on the 40 Hz grid) whose response protocol tests can predict;
// Config.NewExo and Config.NewTactile choose.
//
// It never runs haptex's control loops; it is the other end of the cable.
package emu

// Package devices owns the device boundary: the interfaces of a fingertip
// exoskeleton and of a vibrotactile pin array, their capability records,
// and the errors a device returns. Sub-packages provide the physical
// simulated twins (devices/sim), the wire protocol, the transports (USB HID,
// serial), the emulator, and record and replay.
//
// It never runs a control loop and never knows about cloth or tactile
// rendering: it moves samples and commands, nothing else.
package devices

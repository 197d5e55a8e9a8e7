// Package devices owns the device boundary: the interfaces of a fingertip
// exoskeleton and of a vibrotactile pin array, the capabilities a device
// may add to them (StatusReader, Clocked, Kinematic), their capability
// records, and the errors a device returns. Sub-packages provide the rest:
//
//	wire       the protocol (docs/protocol.md): framing, layouts, decoder
//	transport  the byte-stream Conn every link runs over, typed errors
//	serial     serial ports (go.bug.st/serial), FTDI latency timer
//	hid        USB HID (karalabe/hid), 64-byte reports
//	link       host side of the protocol: Exoskeleton and TactileArray drivers
//	reconnect  hot-plug: ErrDisconnected while absent, background reopen
//	fault      loss, corruption, duplication, reordering, latency for tests
//	record     per-device recordings into the session folder
//	replay     recorded devices played back on explicit time
//	setup      the devices file (TOML) and opening the set before a run
//	scan       `haptex devices list`: ports, probes, capabilities
//	emu        emulated devices behind the real protocol on pseudo-terminals
//	soak       the 1 kHz round trip through the real serial path, measured
//	devicetest conformance checks for any implementation
//	exo        the exoskeleton's kinematic model
//	twin       the physical simulated twins
//
// It never runs a control loop and never knows about cloth or tactile
// rendering: it moves samples and commands, nothing else.
package devices

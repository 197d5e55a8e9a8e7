// Package link runs the host side of the haptex device protocol over a
// transport.Conn: the HELLO/CAPS handshake, one reader goroutine per device
// that decodes frames into preallocated latest-value buffers, and the
// drivers that implement devices.Exoskeleton and devices.TactileArray on
// top (Exo, Tactile).
//
// It never opens ports (packages serial and hid do) and never reconnects
// (package reconnect does): a Link that lost its device stays lost and
// returns devices.ErrDisconnected.
//
// # Timing
//
// Read, Status and Delivered copy the newest decoded sample and never
// wait for the port; Write, WriteFrame and Enable encode one frame into a fixed buffer
// and write it. None of them allocates in steady state. Each device's
// command-to-state latency (from writing a COMMAND to decoding the STATE
// that acknowledges it) is measured always, in 5 µs buckets (Stats).
//
// # Invariants
//
// A frame that fails its CRC, its length, its version or its sequence
// check is counted and dropped, never acted on. Sequence gaps are counted
// as lost frames. A pin measurement (TACTILE_MEASURED) is taken only from
// an array that announced it measures its pins, and only when no pin is
// above twice the array's limit; a measurement three frame periods old
// is none.
package link

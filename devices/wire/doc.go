// Package wire is the haptex device protocol: COBS framing with a CRC-32,
// the fixed little-endian message layouts, the stream decoder and the
// 64-byte HID report packing. docs/protocol.md is the specification; its
// layout tables are generated from the tables in layout.go, and the tests
// check that the encoders put every field where those tables say.
//
// It never touches a port, a goroutine or a clock: it turns messages into
// bytes and bytes into messages, nothing else.
//
// # Conventions
//
// Integers on the wire are little-endian and fixed-point in the unit their
// name carries (URad = µrad, UN = µN, UNm = µN·m, Nm = nanometre, Us = µs).
// A frame is header (16 bytes) + body + CRC-32 (4 bytes), at most MaxFrame
// bytes, COBS-encoded and followed by one 0x00 delimiter.
//
// # Invariants
//
// Nothing here allocates per frame: the Decoder and the Encoder own fixed
// buffers of MaxEncoded bytes, whatever the input claims about lengths.
// Bodies and frames returned by the Decoder alias its buffer and are valid
// until the next call.
//
// # References
//
// S. Cheshire, M. Baker, "Consistent Overhead Byte Stuffing", IEEE/ACM
// Transactions on Networking 7(2), 159-172, 1999, doi:10.1109/90.769765.
package wire

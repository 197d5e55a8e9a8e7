// Package record writes everything that passes through a device into a
// session folder: the bytes in and out of its transport (Conn) and what the
// control loop read from and wrote to it (Exo, Tactile), each with its
// timestamp, one file per device. Package replay plays the files back as
// devices; Dump prints them.
//
// Recording never blocks the caller: events are copied into preallocated
// chunks handed to a writer goroutine over a bounded channel. When the
// writer falls behind by more than the pool (2048 events) the event is
// dropped and counted; the count is written at the end of the file and
// returned by Close, so a lossy recording never passes for a complete one.
//
// # File format
//
// A file starts with the 8 bytes "HXREC\x00\x01\x00", a u32 length n and
// n bytes of JSON metadata (Meta). Then events follow, each
//
//	t_ns i64 | kind u8 | reserved u8 | len u16 | payload [len]byte
//
// little-endian, t_ns on the recorder's monotonic clock since the file was
// created. Payload layouts are in events.go. A file cut short by a crash
// is readable up to its last complete event.
package record

package link_test

import (
	"encoding/binary"
	"hash/crc32"
)

// versionTwo rewrites a COBS frame as a protocol-2 device would send it:
// version byte 2, CRC recomputed.
func versionTwo(frame []byte) []byte {
	raw := make([]byte, 0, len(frame))
	for i := 0; i < len(frame)-1; { // COBS decode
		code := int(frame[i])
		raw = append(raw, frame[i+1:i+code]...)
		i += code
		if code < 0xFF && i < len(frame)-1 {
			raw = append(raw, 0)
		}
	}
	raw[1] = 2
	n := len(raw) - 4
	binary.LittleEndian.PutUint32(raw[n:], crc32.ChecksumIEEE(raw[:n]))
	out := []byte{0}
	code := 0
	for _, b := range raw { // COBS encode
		if b == 0 {
			out[code] = byte(len(out) - code)
			code = len(out)
			out = append(out, 0)
			continue
		}
		out = append(out, b)
	}
	out[code] = byte(len(out) - code)
	return append(out, 0)
}

package wire

import (
	"bytes"
	"errors"
)

// errCOBS reports a code byte that points past the end of the frame or a
// zero byte inside it.
var errCOBS = errors.New("wire: malformed COBS encoding")

// cobsEncode writes the COBS encoding of src to dst and returns its length.
// dst must hold len(src) + len(src)/254 + 1 bytes; the result contains no
// zero byte.
func cobsEncode(dst, src []byte) int {
	codeAt, o, code := 0, 1, byte(1)
	for _, b := range src {
		if b == 0 {
			dst[codeAt] = code
			codeAt, o, code = o, o+1, 1
			continue
		}
		dst[o] = b
		o++
		code++
		if code == 0xFF {
			dst[codeAt] = code
			codeAt, o, code = o, o+1, 1
		}
	}
	dst[codeAt] = code
	return o
}

// cobsDecode writes the decoding of src (one frame, delimiter removed) to
// dst and returns its length. dst must hold len(src) bytes; the decoding is
// never longer than its encoding.
func cobsDecode(dst, src []byte) (int, error) {
	o := 0
	for i := 0; i < len(src); {
		code := int(src[i])
		if code == 0 || i+code > len(src) {
			return 0, errCOBS
		}
		if bytes.IndexByte(src[i+1:i+code], 0) >= 0 {
			return 0, errCOBS
		}
		o += copy(dst[o:], src[i+1:i+code])
		i += code
		if code < 0xFF && i < len(src) {
			dst[o] = 0
			o++
		}
	}
	return o, nil
}

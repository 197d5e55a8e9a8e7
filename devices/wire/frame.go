package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
)

// Protocol version. Peers with different major versions do not talk; a
// higher minor version only appends fields to bodies, which older peers
// ignore (see docs/protocol.md, "Versions").
const (
	Major = 1
	Minor = 1
)

// Sizes in bytes.
const (
	HeaderSize = 16
	CRCSize    = 4
	// MaxFrame bounds header + body + CRC, so that COBS adds exactly one
	// byte to every frame.
	MaxFrame = 254
	MaxBody  = MaxFrame - HeaderSize - CRCSize
	// MaxEncoded is the longest frame on the wire: COBS code byte, frame,
	// delimiter.
	MaxEncoded = MaxFrame + 2
)

// Type is a message type, the first byte of every frame.
type Type uint8

// Message types; docs/protocol.md describes each.
const (
	TypeHello           Type = 0x01
	TypeCapsExo         Type = 0x02
	TypeCapsTactile     Type = 0x03
	TypeState           Type = 0x10
	TypeCommand         Type = 0x11
	TypeEnable          Type = 0x12
	TypeTactileFrame    Type = 0x20
	TypeTactileStatus   Type = 0x21
	TypeTactileMeasured Type = 0x22 // since 1.1
	TypeHeartbeat       Type = 0x30
	TypeError           Type = 0x3F
)

// String returns the message's name as docs/protocol.md spells it.
func (t Type) String() string {
	if l := LayoutOf(t); l != nil {
		return l.Name
	}
	return "UNKNOWN"
}

// Header starts every frame.
type Header struct {
	Type    Type
	Version uint8  // protocol major version of the sender
	BodyLen uint16 // bytes between header and CRC
	Seq     uint32 // sender's frame counter: 1 for the first frame, +1 per frame, 0 skipped on wrap
	TimeUs  uint64 // sender's monotonic clock [µs] when the frame was built (device: sample time)
}

func (h *Header) put(b []byte) {
	b[0] = byte(h.Type)
	b[1] = h.Version
	binary.LittleEndian.PutUint16(b[2:], h.BodyLen)
	binary.LittleEndian.PutUint32(b[4:], h.Seq)
	binary.LittleEndian.PutUint64(b[8:], h.TimeUs)
}

func (h *Header) parse(b []byte) {
	h.Type = Type(b[0])
	h.Version = b[1]
	h.BodyLen = binary.LittleEndian.Uint16(b[2:])
	h.Seq = binary.LittleEndian.Uint32(b[4:])
	h.TimeUs = binary.LittleEndian.Uint64(b[8:])
}

// NextSeq returns the sequence number after s: +1, skipping 0 on wrap.
func NextSeq(s uint32) uint32 {
	s++
	if s == 0 {
		s = 1
	}
	return s
}

// SeqAfter reports whether a is later than b in wrapping sequence space
// (within half the range).
func SeqAfter(a, b uint32) bool { return int32(a-b) > 0 }

// crcTable is CRC-32/ISO-HDLC (the zlib and Ethernet CRC, reflected
// polynomial 0xEDB88320, check value 0xCBF43926 for "123456789").
var crcTable = crc32.IEEETable

// Body is a message body that encodes to a fixed little-endian layout.
type Body interface {
	MsgType() Type
	// Size is the body length in bytes for this protocol version.
	Size() int
	// Put writes the body into b[:Size()].
	Put(b []byte)
}

// Encoder builds frames in fixed buffers. The zero value is ready; one
// Encoder serves one goroutine.
type Encoder struct {
	raw [MaxFrame]byte
	out [MaxEncoded]byte
}

// Encode frames body with the given sequence number and time and returns
// the encoded frame, delimiter included. The result aliases the Encoder and
// is valid until the next call.
func (e *Encoder) Encode(body Body, seq uint32, timeUs uint64) []byte {
	n := body.Size()
	body.Put(e.raw[HeaderSize : HeaderSize+n])
	return e.finish(body.MsgType(), n, seq, timeUs)
}

// EncodeRaw frames an arbitrary body of the given type; it exists for
// tests and fuzzing of peers. It panics if len(body) > MaxBody.
func (e *Encoder) EncodeRaw(t Type, body []byte, seq uint32, timeUs uint64) []byte {
	if len(body) > MaxBody {
		panic("wire: EncodeRaw body longer than MaxBody")
	}
	copy(e.raw[HeaderSize:], body)
	return e.finish(t, len(body), seq, timeUs)
}

func (e *Encoder) finish(t Type, n int, seq uint32, timeUs uint64) []byte {
	h := Header{Type: t, Version: Major, BodyLen: uint16(n), Seq: seq, TimeUs: timeUs}
	h.put(e.raw[:HeaderSize])
	end := HeaderSize + n
	binary.LittleEndian.PutUint32(e.raw[end:], crc32.Checksum(e.raw[:end], crcTable))
	end += CRCSize
	k := cobsEncode(e.out[:], e.raw[:end])
	e.out[k] = 0
	return e.out[:k+1]
}

// Frame errors, returned by Decoder.Decode and counted in DecodeStats.
var (
	ErrOversize = errors.New("wire: frame longer than MaxEncoded, discarded")
	ErrFraming  = errors.New("wire: malformed COBS encoding")
	ErrShort    = errors.New("wire: frame shorter than header and CRC")
	ErrCRC      = errors.New("wire: CRC mismatch")
	ErrVersion  = errors.New("wire: unsupported protocol major version")
	ErrLength   = errors.New("wire: header body length disagrees with frame length")
)

// DecodeStats counts what a Decoder saw. Every byte sequence between two
// delimiters lands in exactly one counter.
type DecodeStats struct {
	Frames   uint64 `json:"frames"`   // valid frames
	Empty    uint64 `json:"empty"`    // delimiters with nothing before them (resynchronisation)
	Oversize uint64 `json:"oversize"` // longer than MaxEncoded
	Framing  uint64 `json:"framing"`  // malformed COBS
	Short    uint64 `json:"short"`    // shorter than header + CRC
	CRC      uint64 `json:"crc"`      // CRC mismatch
	Version  uint64 `json:"version"`  // valid CRC, other major version
	Length   uint64 `json:"length"`   // valid CRC, header length disagrees
}

// Corrupt is the number of byte sequences rejected as damaged.
func (s *DecodeStats) Corrupt() uint64 {
	return s.Oversize + s.Framing + s.Short + s.CRC + s.Length
}

// Frame is one decoded, CRC-checked frame. Body aliases the Decoder.
type Frame struct {
	Header
	Body []byte
}

// Decoder splits a byte stream into frames and checks them. The zero value
// is ready. It holds at most MaxEncoded bytes whatever the stream contains.
type Decoder struct {
	enc      [MaxEncoded]byte
	n        int
	overflow bool
	raw      [MaxEncoded]byte
	frame    Frame
	Stats    DecodeStats
	// PeerVersion is the major version of the newest frame rejected with
	// ErrVersion, so that a handshake can say which version the peer speaks.
	PeerVersion uint8
}

// Decode consumes bytes of p up to and including the first delimiter, or
// all of p when it holds none. It returns how many bytes it consumed and,
// when a delimiter ended a frame, that frame or the reason it was rejected.
// f and err are both nil while a frame is still incomplete. f aliases the
// Decoder and is valid until the next call.
func (d *Decoder) Decode(p []byte) (n int, f *Frame, err error) {
	i := bytes.IndexByte(p, 0)
	chunk := p
	if i >= 0 {
		chunk = p[:i]
	}
	k := copy(d.enc[d.n:], chunk)
	d.n += k
	if k < len(chunk) {
		d.overflow = true
	}
	if i < 0 {
		return len(p), nil, nil
	}
	f, err = d.end()
	return i + 1, f, err
}

// Reset drops any partial frame, as after reopening a port.
func (d *Decoder) Reset() { d.n, d.overflow = 0, false }

func (d *Decoder) end() (*Frame, error) {
	n, overflow := d.n, d.overflow
	d.n, d.overflow = 0, false
	switch {
	case overflow || n > MaxFrame+1:
		d.Stats.Oversize++
		return nil, ErrOversize
	case n == 0:
		d.Stats.Empty++
		return nil, nil
	}
	m, err := cobsDecode(d.raw[:], d.enc[:n])
	if err != nil {
		d.Stats.Framing++
		return nil, ErrFraming
	}
	if m < HeaderSize+CRCSize {
		d.Stats.Short++
		return nil, ErrShort
	}
	end := m - CRCSize
	if crc32.Checksum(d.raw[:end], crcTable) != binary.LittleEndian.Uint32(d.raw[end:]) {
		d.Stats.CRC++
		return nil, ErrCRC
	}
	d.frame.Header.parse(d.raw[:HeaderSize])
	if d.frame.Version != Major {
		d.PeerVersion = d.frame.Version
		d.Stats.Version++
		return nil, ErrVersion
	}
	if int(d.frame.BodyLen) != end-HeaderSize {
		d.Stats.Length++
		return nil, ErrLength
	}
	d.frame.Body = d.raw[HeaderSize:end]
	d.Stats.Frames++
	return &d.frame, nil
}

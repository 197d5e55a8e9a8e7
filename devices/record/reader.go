package record

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/haptex/haptex/internal/safefile"
)

// Event is one recorded event. Payload aliases the Reader's buffer and is
// valid until the next call of Next.
type Event struct {
	T       time.Duration // recorder clock
	Kind    Kind
	Payload []byte
}

// Reader reads a recording.
type Reader struct {
	Meta Meta
	r    *bufio.Reader
	off  int64
	hdr  [eventHeader]byte
	buf  [1 << 16]byte
}

// TruncatedError reports a recording cut short (the program stopped
// mid-write); the events before Offset were read.
type TruncatedError struct{ Offset int64 }

func (e *TruncatedError) Error() string {
	return fmt.Sprintf("record: recording truncated after byte %d", e.Offset)
}

// NewReader reads the header of a recording from r.
func NewReader(r io.Reader) (*Reader, error) {
	rd := &Reader{r: bufio.NewReader(r)}
	var hdr [12]byte
	if _, err := io.ReadFull(rd.r, hdr[:]); err != nil {
		return nil, fmt.Errorf("record: not a recording: %w", err)
	}
	if [8]byte(hdr[:8]) != Magic {
		return nil, fmt.Errorf("record: not a recording (magic % x)", hdr[:8])
	}
	n := le.Uint32(hdr[8:])
	if n > maxMeta {
		return nil, fmt.Errorf("record: metadata length %d exceeds %d", n, maxMeta)
	}
	js := rd.buf[:n]
	if _, err := io.ReadFull(rd.r, js); err != nil {
		return nil, fmt.Errorf("record: metadata: %w", err)
	}
	if err := json.Unmarshal(js, &rd.Meta); err != nil {
		return nil, fmt.Errorf("record: metadata: %w", err)
	}
	rd.off = 12 + int64(n)
	return rd, nil
}

// Next returns the next event; io.EOF at the end, *TruncatedError when
// the file ends inside an event.
func (r *Reader) Next() (Event, error) {
	if _, err := io.ReadFull(r.r, r.hdr[:]); err != nil {
		if errors.Is(err, io.EOF) {
			return Event{}, io.EOF
		}
		return Event{}, &TruncatedError{Offset: r.off}
	}
	n := int(le.Uint16(r.hdr[10:]))
	p := r.buf[:n]
	if _, err := io.ReadFull(r.r, p); err != nil {
		return Event{}, &TruncatedError{Offset: r.off}
	}
	r.off += eventHeader + int64(n)
	return Event{T: time.Duration(le.Uint64(r.hdr[0:])), Kind: Kind(r.hdr[8]), Payload: p}, nil
}

// MaxFileSize bounds a recording read back: an hour of an exoskeleton at
// 1 kHz (its calls and its bytes, a few hundred bytes a tick) is of the
// order of a gigabyte. The readers stream it through a fixed buffer.
const MaxFileSize = 4 << 30

// ReadFile calls fn for every event of the recording at path and returns
// its metadata. A truncated file is read up to its last complete event and
// reported with a *TruncatedError.
func ReadFile(path string, fn func(Event) error) (Meta, error) {
	f, err := safefile.Open(path, MaxFileSize)
	if err != nil {
		return Meta{}, fmt.Errorf("record: %w", err)
	}
	defer f.Close()
	r, err := NewReader(f)
	if err != nil {
		return Meta{}, fmt.Errorf("%w (%s)", err, path)
	}
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return r.Meta, nil
		}
		if err != nil {
			return r.Meta, err
		}
		if err := fn(ev); err != nil {
			return r.Meta, err
		}
	}
}

package record

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/internal/safefile"
)

// Magic starts every recording.
var Magic = [8]byte{'H', 'X', 'R', 'E', 'C', 0, 1, 0}

// Meta describes a recording; it is stored as JSON at the head of the file.
type Meta struct {
	Name    string          `json:"name"` // e.g. "thumb-exo"
	Kind    string          `json:"kind"` // "exoskeleton" or "tactile"
	Created time.Time       `json:"created"`
	Spec    json.RawMessage `json:"spec,omitempty"` // the device's ExoSpec or TactileSpec
}

const (
	eventHeader = 12
	// chunkPayload bounds one event's payload; longer RX/TX runs are split.
	chunkPayload = 1024
	poolSize     = 2048
	maxMeta      = 1 << 16
)

type chunk struct {
	t    int64
	kind Kind
	n    int
	buf  [chunkPayload]byte
}

// Recorder writes the events of one device to one file. Its logging
// methods never block and may be called from several goroutines.
type Recorder struct {
	path     string
	start    time.Time
	f        *os.File
	w        *bufio.Writer
	free     chan *chunk
	queue    chan *chunk
	dropped  atomic.Uint64
	written  atomic.Uint64
	done     chan struct{}
	werr     error
	closeMu  sync.Mutex
	closed   bool
	stop     atomic.Bool
	lossless atomic.Bool
	// inflight counts the chunks taken by get and not yet put: Close
	// closes the queue only when it is zero with stop set, so no logging
	// call can send on the closed queue.
	inflight atomic.Int64
}

// Options configure a Recorder.
type Options struct {
	// Lossless makes logging wait for the writer when the pool is empty,
	// instead of dropping the event. Use it only for runs on virtual time
	// (the lockstep runner), which outrun the disk and wait on no clock;
	// a real-time loop must never wait.
	Lossless bool
}

// create creates the new recording name in d and starts its writer.
func create(d *safefile.Dir, name string, meta Meta, opt Options) (*Recorder, error) {
	if meta.Created.IsZero() {
		meta.Created = time.Now()
	}
	js, err := json.Marshal(meta)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	if len(js) > maxMeta {
		return nil, fmt.Errorf("record: metadata of %d bytes", len(js))
	}
	f, err := d.Create(name)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	path := d.Join(name)
	r := &Recorder{path: path, start: time.Now(), f: f, w: bufio.NewWriterSize(f, 1<<16),
		free: make(chan *chunk, poolSize), queue: make(chan *chunk, poolSize), done: make(chan struct{})}
	r.lossless.Store(opt.Lossless)
	for range poolSize {
		r.free <- new(chunk)
	}
	var hdr [12]byte
	copy(hdr[:8], Magic[:])
	le.PutUint32(hdr[8:], uint32(len(js)))
	r.w.Write(hdr[:])
	r.w.Write(js)
	go r.writeLoop()
	return r, nil
}

// SetLossless switches between waiting for the writer (lossless, for runs
// on virtual time) and dropping events (for real-time loops); see
// Options.Lossless.
func (r *Recorder) SetLossless(on bool) { r.lossless.Store(on) }

// Path is the recording's file.
func (r *Recorder) Path() string { return r.path }

// Since is the recorder's clock: time since the file was created.
func (r *Recorder) Since() time.Duration { return time.Since(r.start) }

// Dropped is the number of events dropped so far because the writer fell
// behind.
func (r *Recorder) Dropped() uint64 { return r.dropped.Load() }

// get takes a free chunk, or counts a drop. A chunk it returns must be
// given to put.
func (r *Recorder) get(k Kind) *chunk {
	r.inflight.Add(1)
	if r.stop.Load() {
		r.inflight.Add(-1)
		return nil
	}
	if r.lossless.Load() {
		c := <-r.free
		c.t, c.kind, c.n = int64(time.Since(r.start)), k, 0
		return c
	}
	select {
	case c := <-r.free:
		c.t, c.kind, c.n = int64(time.Since(r.start)), k, 0
		return c
	default:
		r.dropped.Add(1)
		r.inflight.Add(-1)
		return nil
	}
}

// put queues a chunk from get; it never blocks: the queue holds the whole
// pool.
func (r *Recorder) put(c *chunk) {
	r.queue <- c
	r.inflight.Add(-1)
}

// Bytes logs transport bytes (KindRX, KindTX), split into events of at most
// 1024 bytes.
func (r *Recorder) Bytes(k Kind, p []byte) {
	for len(p) > 0 {
		c := r.get(k)
		if c == nil {
			return
		}
		c.n = copy(c.buf[:], p)
		p = p[c.n:]
		r.put(c)
	}
}

// Text logs an OPEN or CLOSE event.
func (r *Recorder) Text(k Kind, s string) {
	if c := r.get(k); c != nil {
		c.n = copy(c.buf[:], s)
		r.put(c)
	}
}

// Spec logs the device's capabilities (an ExoSpec or TactileSpec) once it
// is known, for a recording created before the device was opened.
func (r *Recorder) Spec(spec any) error { return r.json(KindSpec, "spec", spec) }

// json logs v as a JSON event of kind k.
func (r *Recorder) json(k Kind, what string, v any) error {
	js, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	if len(js) > chunkPayload {
		return fmt.Errorf("record: %s of %d bytes exceeds %d", what, len(js), chunkPayload)
	}
	r.Text(k, string(js))
	return nil
}

// Kinematics is what the servo needs to know about an exoskeleton besides
// its capabilities: its kinematic model and where its base sits in the
// world. A recording carries it so that a replay can drive the servo.
type Kinematics struct {
	Params exo.Params `json:"params"`
	Base   exo.Pose   `json:"base"`
}

// Kinematics logs an exoskeleton's kinematic model and base pose.
func (r *Recorder) Kinematics(k Kinematics) error { return r.json(KindKinematics, "kinematics", k) }

// payload is a device-level event that encodes itself.
type payload interface{ put([]byte) int }

// event logs a device-level event.
func (r *Recorder) event(k Kind, e payload) {
	if c := r.get(k); c != nil {
		c.n = e.put(c.buf[:])
		r.put(c)
	}
}

func (r *Recorder) writeLoop() {
	defer close(r.done)
	var hdr [eventHeader]byte
	for c := range r.queue {
		if r.werr == nil {
			le.PutUint64(hdr[0:], uint64(c.t))
			hdr[8], hdr[9] = byte(c.kind), 0
			le.PutUint16(hdr[10:], uint16(c.n))
			r.w.Write(hdr[:])
			if _, err := r.w.Write(c.buf[:c.n]); err != nil {
				r.werr = err
			}
			r.written.Add(1)
		}
		r.free <- c
	}
}

// DroppedError reports a recording that lost events.
type DroppedError struct {
	Path    string
	Dropped uint64
}

func (e *DroppedError) Error() string {
	return fmt.Sprintf("record: %s: %d events dropped (the disk could not keep up)", e.Path, e.Dropped)
}

// Close writes the trailer, flushes and closes the file. It returns a
// *DroppedError when events were dropped.
func (r *Recorder) Close() error {
	r.closeMu.Lock()
	if r.closed {
		r.closeMu.Unlock()
		return nil
	}
	r.closed = true
	r.closeMu.Unlock()
	r.stop.Store(true)
	// Logging calls that took a chunk before stop was set queue it within
	// microseconds; later ones see stop and log nothing.
	for r.inflight.Load() != 0 {
		time.Sleep(50 * time.Microsecond)
	}
	close(r.queue)
	<-r.done
	var hdr [eventHeader + 8]byte
	le.PutUint64(hdr[0:], uint64(time.Since(r.start)))
	hdr[8] = byte(KindDropped)
	le.PutUint16(hdr[10:], 8)
	le.PutUint64(hdr[12:], r.dropped.Load())
	r.w.Write(hdr[:])
	err := errors.Join(r.werr, r.w.Flush(), r.f.Sync(), r.f.Close())
	if err != nil {
		return fmt.Errorf("record: %s: %w", r.path, err)
	}
	if n := r.dropped.Load(); n > 0 {
		return &DroppedError{Path: r.path, Dropped: n}
	}
	return nil
}

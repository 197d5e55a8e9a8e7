// Package faulttest injects link faults into any transport.Conn: frame loss,
// bit corruption, duplication, reordering and latency, independently in
// each direction, from a seeded random source so that a failing test can
// be replayed. Frames are the byte runs between 0x00 delimiters of the
// wire protocol; a fault hits a whole frame (or one bit of it).
//
// It is test equipment: it never repairs anything and never runs in
// production paths unless asked to.
package faulttest

import (
	"bytes"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/haptex/haptex/devices/transport"
	"github.com/haptex/haptex/devices/transport/transporttest"
)

// Config sets the faults of one direction. Probabilities are per frame.
type Config struct {
	Loss      float64       // drop the frame
	Corrupt   float64       // flip one random bit of the frame (delimiter included)
	Duplicate float64       // send the frame twice
	Reorder   float64       // hold the frame back and send it after the next one
	Latency   time.Duration // delay every frame by this much
	Jitter    time.Duration // plus a uniform random delay in [0, Jitter); order is kept
	Seed      uint64
}

func (c Config) delays() bool { return c.Latency > 0 || c.Jitter > 0 }

// Dir is a direction through the wrapped Conn.
type Dir int

// Directions.
const (
	Out Dir = iota // bytes written to the Conn (host to device when the host wraps its port)
	In             // bytes read from the Conn
)

func (d Dir) String() string { return [...]string{"out", "in"}[d] }

// Kind is the kind of an injected fault.
type Kind int

// Fault kinds.
const (
	Drop Kind = iota
	Corruption
	Duplication
	Reordering
)

func (k Kind) String() string { return [...]string{"drop", "corrupt", "duplicate", "reorder"}[k] }

// Event describes one injected fault.
type Event struct {
	Dir   Dir
	Kind  Kind
	Index uint64 // frame index in its direction, from 0
	Frame []byte // the frame as it was before the fault (delimiter included)
	Bit   int    // flipped bit (Corruption): byte Bit/8, bit Bit%8
}

// HitsDelimiter reports whether a corruption flipped the frame's final
// 0x00, merging it with the next frame.
func (e Event) HitsDelimiter() bool { return e.Kind == Corruption && e.Bit/8 == len(e.Frame)-1 }

// Stats counts frames and faults per direction.
type Stats struct {
	Frames, Dropped, Corrupted, Duplicated, Reordered [2]uint64
}

// Conn wraps a transport.Conn with fault injection.
type Conn struct {
	inner   transport.Conn
	mu      sync.Mutex
	shapers [2]*shaper
	onEvent func(Event)
	stats   Stats

	outQ   chan []byte // delayed writes, in order
	in     transport.Conn
	inPeer transport.Conn
	done   chan struct{}
	once   sync.Once
}

var (
	_ transport.Conn         = (*Conn)(nil)
	_ transport.WriteLimiter = (*Conn)(nil)
)

// Wrap returns inner with the out faults applied to what is written and
// the in faults to what is read. onEvent, if not nil, is called for every
// injected fault (from the goroutine that caused it).
func Wrap(inner transport.Conn, out, in Config, onEvent func(Event)) *Conn {
	c := &Conn{inner: inner, onEvent: onEvent, done: make(chan struct{})}
	c.shapers[Out] = newShaper(c, Out, out)
	c.shapers[In] = newShaper(c, In, in)
	if out.delays() {
		c.outQ = make(chan []byte, 4096)
		go c.delayLoop(c.outQ, out, func(f []byte) { _, _ = inner.Write(f) })
	}
	c.in, c.inPeer = transporttest.Pipe(inner.Name(), inner.Name()+" (fault pump)")
	go c.pump(in)
	return c
}

// Name is the wrapped Conn's name.
func (c *Conn) Name() string { return c.inner.Name() }

// Stats returns the counts so far.
func (c *Conn) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

type shaper struct {
	c       *Conn
	dir     Dir
	cfg     Config
	rng     *rand.Rand
	partial []byte
	held    []byte
	index   uint64
	emit    func([]byte)
}

func newShaper(c *Conn, d Dir, cfg Config) *shaper {
	return &shaper{c: c, dir: d, cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, uint64(d)+1))}
}

// feed splits p into frames and shapes each complete one.
func (s *shaper) feed(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, 0)
		if i < 0 {
			s.partial = append(s.partial, p...)
			return
		}
		f := append(s.partial, p[:i+1]...)
		s.partial = nil
		p = p[i+1:]
		s.frame(f)
	}
}

func (s *shaper) event(k Kind, f []byte, bit int) {
	s.c.mu.Lock()
	st := &s.c.stats
	switch k {
	case Drop:
		st.Dropped[s.dir]++
	case Corruption:
		st.Corrupted[s.dir]++
	case Duplication:
		st.Duplicated[s.dir]++
	case Reordering:
		st.Reordered[s.dir]++
	}
	s.c.mu.Unlock()
	if s.c.onEvent != nil {
		s.c.onEvent(Event{Dir: s.dir, Kind: k, Index: s.index, Frame: append([]byte(nil), f...), Bit: bit})
	}
}

func (s *shaper) frame(f []byte) {
	defer func() { s.index++ }()
	s.c.mu.Lock()
	s.c.stats.Frames[s.dir]++
	s.c.mu.Unlock()
	if len(f) == 1 { // a lone delimiter carries nothing
		s.emit(f)
		return
	}
	r := s.rng
	if r.Float64() < s.cfg.Loss {
		s.event(Drop, f, 0)
		return
	}
	if r.Float64() < s.cfg.Corrupt {
		bit := r.IntN(8 * len(f))
		s.event(Corruption, f, bit)
		f = append([]byte(nil), f...)
		f[bit/8] ^= 1 << (bit % 8)
	}
	dup := r.Float64() < s.cfg.Duplicate
	if s.held == nil && r.Float64() < s.cfg.Reorder {
		s.event(Reordering, f, 0)
		s.held = append([]byte(nil), f...)
		return
	}
	s.emit(f)
	if dup {
		s.event(Duplication, f, 0)
		s.emit(f)
	}
	if s.held != nil {
		s.emit(s.held)
		s.held = nil
	}
}

// Write shapes p (one or more frames) and passes it on.
func (c *Conn) Write(p []byte) (int, error) {
	s := c.shapers[Out]
	var err error
	s.emit = func(f []byte) {
		if c.outQ != nil {
			c.outQ <- append([]byte(nil), f...)
			return
		}
		if _, werr := c.inner.Write(f); werr != nil && err == nil {
			err = werr
		}
	}
	s.feed(p)
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// SetWriteLimit passes the limit on to the wrapped Conn when it has one,
// so that a link's write limit holds through the injector as on the port.
func (c *Conn) SetWriteLimit(d time.Duration) {
	if wl, ok := c.inner.(transport.WriteLimiter); ok {
		wl.SetWriteLimit(d)
	}
}

// Read returns shaped bytes read from the wrapped Conn.
func (c *Conn) Read(p []byte) (int, error) { return c.in.Read(p) }

func (c *Conn) pump(cfg Config) {
	s := c.shapers[In]
	if cfg.delays() {
		q := make(chan []byte, 4096)
		go c.delayLoop(q, cfg, func(f []byte) { _, _ = c.inPeer.Write(f) })
		s.emit = func(f []byte) { q <- append([]byte(nil), f...) }
	} else {
		s.emit = func(f []byte) { _, _ = c.inPeer.Write(f) }
	}
	buf := make([]byte, 4096)
	for {
		n, err := c.inner.Read(buf)
		if err != nil {
			c.inPeer.Close()
			return
		}
		s.feed(buf[:n])
	}
}

// delayLoop delivers frames after their latency, in order.
func (c *Conn) delayLoop(q chan []byte, cfg Config, deliver func([]byte)) {
	rng := rand.New(rand.NewPCG(cfg.Seed, 99))
	var last time.Time
	for {
		select {
		case <-c.done:
			return
		case f := <-q:
			due := time.Now().Add(cfg.Latency)
			if cfg.Jitter > 0 {
				due = due.Add(time.Duration(rng.Int64N(int64(cfg.Jitter))))
			}
			if due.Before(last) {
				due = last
			}
			last = due
			time.Sleep(time.Until(due))
			deliver(f)
		}
	}
}

// Close closes the wrapped Conn and the fault machinery.
func (c *Conn) Close() error {
	var err error
	c.once.Do(func() {
		close(c.done)
		err = c.inner.Close()
		c.in.Close()
	})
	return err
}

// Package transporttest provides an in-memory transport.Conn for tests:
// a full-duplex pipe that fails the way a device that goes away does.
package transporttest

import (
	"sync"
	"sync/atomic"

	"github.com/haptex/haptex/devices/transport"
)

// Pipe returns the two ends of an in-memory full-duplex stream. Closing
// either end makes the other end's Read return, after the bytes already
// written, a *transport.Error of kind Gone. Writes never block; Write
// fails once more than 1 MiB is waiting unread.
func Pipe(nameA, nameB string) (transport.Conn, transport.Conn) {
	ab, ba := newQueue(), newQueue()
	return &pipeEnd{name: nameA, in: ba, out: ab}, &pipeEnd{name: nameB, in: ab, out: ba}
}

const pipeLimit = 1 << 20

type queue struct {
	mu     sync.Mutex
	cond   sync.Cond
	buf    []byte
	closed bool
}

func newQueue() *queue {
	q := &queue{buf: make([]byte, 0, 4096)}
	q.cond.L = &q.mu
	return q
}

func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

type pipeEnd struct {
	name      string
	in, out   *queue
	closeOnce sync.Once
	local     atomic.Bool // this end was closed
}

var _ transport.Conn = (*pipeEnd)(nil)

func (p *pipeEnd) closedKind() transport.Kind {
	if p.local.Load() {
		return transport.Closed
	}
	return transport.Gone
}

func (p *pipeEnd) Name() string { return p.name }

func (p *pipeEnd) err(op string, k transport.Kind) error {
	return &transport.Error{Transport: "pipe", Op: op, Port: p.name, Kind: k}
}

func (p *pipeEnd) Read(b []byte) (int, error) {
	q := p.in
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.buf) == 0 {
		if q.closed {
			return 0, p.err("read", p.closedKind())
		}
		q.cond.Wait()
	}
	n := copy(b, q.buf)
	q.buf = q.buf[:copy(q.buf, q.buf[n:])]
	return n, nil
}

func (p *pipeEnd) Write(b []byte) (int, error) {
	q := p.out
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return 0, p.err("write", p.closedKind())
	}
	if len(q.buf)+len(b) > pipeLimit {
		q.mu.Unlock()
		return 0, p.err("write", transport.Other)
	}
	q.buf = append(q.buf, b...)
	q.mu.Unlock()
	q.cond.Broadcast()
	return len(b), nil
}

// Close closes both directions: this end's reads return Closed, the peer's
// reads return Gone once drained.
func (p *pipeEnd) Close() error {
	p.closeOnce.Do(func() {
		p.local.Store(true)
		p.out.close()
		p.in.close()
	})
	return nil
}

package faulttest

import (
	"bytes"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/haptex/haptex/devices/emu"
	"github.com/haptex/haptex/devices/transport"
	"github.com/haptex/haptex/devices/wire"
)

// Verdict is what a proxy rule does with one frame.
type Verdict struct {
	Drop      bool          // the frame never arrives
	Duplicate bool          // it arrives twice
	Delay     time.Duration // it arrives this much later (order is kept)
	// Rewrite sends the frame as the rule left it (its Type, Seq, TimeUs
	// and Body, which the rule may change in place or shorten), with a
	// fresh CRC: a forgery the receiver cannot tell from the real thing.
	Rewrite bool
}

// Rule decides the fate of every valid frame crossing the proxy in one
// direction; f is valid only during the call, which runs on the proxy's
// loop and must not block. Bytes that are not a valid frame pass
// untouched.
type Rule func(f *wire.Frame) Verdict

// ProxyStats counts what crossed a proxy in one direction.
type ProxyStats struct {
	Frames, Dropped, Duplicated, Delayed, Rewritten uint64
	Overflow                                        uint64 // frames the receiving line could not take (dropped, as by a full cable buffer)
	// HungUp is the read error after which the proxy stopped reading this
	// direction's line for good ("" while it reads).
	HungUp string
}

// Directions through a proxy.
const (
	ToDevice = 0
	ToHost   = 1
)

// ProxyPriority is the SCHED_FIFO priority of a proxy's loop: between the
// emulator's devices (70) and haptex's 1 kHz loop (80), so that the cable
// adds no delay of its own on a loaded machine.
const ProxyPriority = 75

// Proxy is a man in the middle between a host and a device on serial
// ports (pseudo-terminals): it opens the device's port, offers a
// pseudo-terminal of its own (Port) for the host to open instead, and
// passes every frame through a rule in each direction. One loop on its
// own thread, under SCHED_FIFO where permitted, carries both directions:
// it wakes every tick, or when a delayed frame is due, and takes what has
// arrived on each line, so a frame no rule touches crosses within a tick.
//
// The loop never polls a line, nor reads one the kernel says is empty
// (transport.ReadArrived): either waits for the kernel's tty worker, a
// normal-priority thread, for as long as a loaded machine keeps it from
// a core, and a proxy at SCHED_FIFO would then hold the cable shut for
// milliseconds (docs/safety.md, "Scheduling on a shared machine").
type Proxy struct {
	host  emu.Line // our end of the host's pseudo-terminal
	devFd int      // the device's port, opened non-blocking
	rules [2]Rule
	dirs  [2]direction
	buf   [4096]byte
	mu    sync.Mutex
	stats [2]ProxyStats
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
	sched emu.Sched
	late  atomic.Int64 // worst lateness of the loop's wake-ups since Lateness [ns]
}

// proxyTick is the proxy's period: a frame waits at most this long in
// the cable (a 115200-baud line carries about 3 bytes in it).
const proxyTick = 250 * time.Microsecond

// NewProxy opens devicePort and starts passing frames: toDevice sees what
// the host sends, toHost what the device sends (nil passes all).
func NewProxy(devicePort string, toDevice, toHost Rule) (*Proxy, error) {
	p, err := openProxy(devicePort, toDevice, toHost)
	if err != nil {
		return nil, err
	}
	started := make(chan emu.Sched)
	go p.run(started)
	p.sched = <-started
	return p, nil
}

// openProxy opens both lines; the loop is not started.
func openProxy(devicePort string, toDevice, toHost Rule) (*Proxy, error) {
	fd, err := unix.Open(devicePort, unix.O_RDWR|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("faulttest: proxy: %s: %w", devicePort, err)
	}
	line, err := emu.OpenLine("proxy for " + devicePort)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("faulttest: proxy: %w", err)
	}
	p := &Proxy{host: line, devFd: fd, rules: [2]Rule{toDevice, toHost}, stop: make(chan struct{}), done: make(chan struct{})}
	p.dirs[ToDevice] = direction{in: line.Fd(), out: fd}
	p.dirs[ToHost] = direction{in: fd, out: line.Fd()}
	return p, nil
}

// Port is the pseudo-terminal the host opens to reach the device through
// the proxy.
func (p *Proxy) Port() string { return p.host.TTY() }

// Sched says how the proxy's loop is scheduled.
func (p *Proxy) Sched() emu.Sched { return p.sched }

// Lateness returns how late the proxy's loop woke at worst since the
// previous call: it wakes every tick (250 µs), so a stop of its thread
// longer than that shows here (frames waited in the cable).
func (p *Proxy) Lateness() time.Duration { return time.Duration(p.late.Swap(0)) }

// Stats returns the counts so far, [ToDevice] and [ToHost].
func (p *Proxy) Stats() [2]ProxyStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats
}

// Close stops the proxy and closes both ports.
func (p *Proxy) Close() error {
	p.once.Do(func() {
		close(p.stop)
		<-p.done
		p.host.Close()
		unix.Close(p.devFd)
	})
	return nil
}

// held is a delayed frame.
type held struct {
	due   time.Time
	frame []byte
}

// direction is one way through the proxy.
type direction struct {
	in, out int  // descriptors
	dead    bool // in failed (a line hung up): no longer read
	partial []byte
	dec     wire.Decoder
	enc     wire.Encoder
	queue   []held // delayed frames, in order
	last    time.Time
}

func (p *Proxy) run(started chan<- emu.Sched) {
	defer close(p.done)
	started <- emu.Realtime(ProxyPriority)
	next := time.Now()
	for {
		select {
		case <-p.stop:
			return
		default:
		}
		next = next.Add(proxyTick)
		now := time.Now()
		if next.Before(now) { // the thread was held: no burst to catch up
			next = now
		}
		wake := next
		for i := range p.dirs {
			if q := p.dirs[i].queue; len(q) > 0 && q[0].due.Before(wake) {
				wake = q[0].due
			}
		}
		if wait := wake.Sub(now); wait > 0 {
			ts := unix.NsecToTimespec(int64(wait))
			// EINTR (the runtime's signals) only wakes it early.
			_ = unix.ClockNanosleep(unix.CLOCK_MONOTONIC, 0, &ts, nil)
		}
		if late := int64(time.Since(wake)); late > p.late.Load() {
			p.late.Store(late)
		}
		p.pass()
	}
}

// pass takes what has arrived on both lines, passes it through the rules
// and sends the delayed frames that are due.
func (p *Proxy) pass() {
	for i := range p.dirs {
		d := &p.dirs[i]
		for !d.dead {
			n, err := transport.ReadArrived(d.in, p.buf[:])
			if n > 0 {
				p.carry(i, d, p.buf[:n])
				continue
			}
			if err != unix.EAGAIN && err != unix.EINTR {
				d.dead = true // hung up (or EOF)
				p.mu.Lock()
				p.stats[i].HungUp = "read: end of file"
				if err != nil {
					p.stats[i].HungUp = "read: " + err.Error()
				}
				p.mu.Unlock()
			}
			break
		}
	}
	now := time.Now()
	for i := range p.dirs {
		d := &p.dirs[i]
		for len(d.queue) > 0 && !d.queue[0].due.After(now) {
			p.write(i, d, d.queue[0].frame)
			d.queue = d.queue[1:]
		}
	}
}

// carry splits bytes into frames and applies the direction's rule.
func (p *Proxy) carry(i int, d *direction, b []byte) {
	for len(b) > 0 {
		k := bytes.IndexByte(b, 0)
		if k < 0 {
			d.partial = append(d.partial, b...)
			return
		}
		raw := append(d.partial, b[:k+1]...)
		d.partial = nil
		b = b[k+1:]
		_, f, _ := d.dec.Decode(raw)
		if f == nil || p.rules[i] == nil {
			if f != nil {
				p.count(i, Verdict{})
			}
			p.send(i, d, raw, 0)
			continue
		}
		v := p.rules[i](f)
		p.count(i, v)
		if v.Drop {
			continue
		}
		out := raw
		if v.Rewrite {
			out = d.enc.EncodeRaw(f.Type, f.Body, f.Seq, f.TimeUs)
		}
		p.send(i, d, out, v.Delay)
		if v.Duplicate {
			p.send(i, d, out, v.Delay)
		}
	}
}

// send writes b now, or queues it behind the frames held back before it.
func (p *Proxy) send(i int, d *direction, b []byte, delay time.Duration) {
	due := time.Now().Add(delay)
	if due.Before(d.last) {
		due = d.last
	}
	d.last = due
	if delay <= 0 && len(d.queue) == 0 {
		p.write(i, d, b)
		return
	}
	d.queue = append(d.queue, held{due, append([]byte(nil), b...)})
}

// write puts one frame on the line; a line that cannot take it whole now
// loses it, as a full cable buffer would.
func (p *Proxy) write(i int, d *direction, b []byte) {
	for len(b) > 0 {
		n, err := unix.Write(d.out, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			p.mu.Lock()
			p.stats[i].Overflow++
			p.mu.Unlock()
			return
		}
		b = b[n:]
	}
}

func (p *Proxy) count(i int, v Verdict) {
	p.mu.Lock()
	s := &p.stats[i]
	s.Frames++
	switch {
	case v.Drop:
		s.Dropped++
	case v.Rewrite:
		s.Rewritten++
	}
	if v.Duplicate && !v.Drop {
		s.Duplicated++
	}
	if v.Delay > 0 && !v.Drop {
		s.Delayed++
	}
	p.mu.Unlock()
}

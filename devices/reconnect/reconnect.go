// Package reconnect keeps a device usable across unplugging: it wraps an
// opener, returns devices.ErrDisconnected while the device is absent (so
// the control loop puts the finger in its safe state) and reopens it in
// the background, handing the fresh device to the next call once its
// handshake has completed. The program never restarts.
//
// It never retries inside a call of the control loop: Read, Write and
// WriteFrame only load the current device (one atomic load) and call it.
package reconnect

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/haptex/haptex/devices"
)

// Options configure a wrapper. The zero value is the default.
type Options struct {
	// Interval between reopen attempts (default 50 ms).
	Interval time.Duration
	// KeepDisabled leaves a reopened exoskeleton disabled. By default the
	// wrapper sends the last Enable the caller asked for, so that the
	// device is back in use without the caller noticing more than the
	// ErrDisconnected it saw while the device was away; the caller's
	// safety envelope ramps the force up again.
	KeepDisabled bool
	// Logf, if set, receives one line per loss and per reconnection.
	Logf func(format string, args ...any)
}

func (o *Options) defaults() {
	if o.Interval <= 0 {
		o.Interval = 50 * time.Millisecond
	}
}

// AbsentError is returned while the device is away. errors.Is(err,
// devices.ErrDisconnected) is true.
type AbsentError struct {
	Name  string
	Since time.Time
	Cause error // why it was lost
}

func (e *AbsentError) Error() string {
	return fmt.Sprintf("reconnect: %s absent since %s: %v", e.Name, e.Since.Format("15:04:05.000"), e.Cause)
}
func (e *AbsentError) Unwrap() error        { return e.Cause }
func (e *AbsentError) Is(target error) bool { return target == devices.ErrDisconnected }

// MismatchError reports a different device found where the lost one was.
type MismatchError struct {
	Name      string
	Want, Got string // "model/serial"
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("reconnect: %s: found %s where %s was; not using it", e.Name, e.Got, e.Want)
}

// Status is a wrapper's account of its device.
type Status struct {
	Name       string `json:"name"`
	Connected  bool   `json:"connected"`
	Losses     uint64 `json:"losses"`
	Reconnects uint64 `json:"reconnects"`
	Attempts   uint64 `json:"attempts"`             // reopen attempts since the last loss
	LastError  string `json:"last_error,omitempty"` // last loss or failed attempt
}

type box[D any] struct{ dev D }

// core is the reconnection machinery shared by Exo and Tactile.
type core[D interface{ Close() error }] struct {
	name     string
	opt      Options
	open     func() (D, error)
	identity func(D) string
	prepare  func(D) error // run on a reopened device before it is used
	want     string        // identity of the first device

	cur    atomic.Pointer[box[D]]
	absent atomic.Pointer[AbsentError]
	stop   chan struct{}
	wg     sync.WaitGroup

	mu                           sync.Mutex
	losses, reconnects, attempts uint64
	lastErr                      string
	closed                       bool
	reopening                    bool
}

func (c *core[D]) init(name string, opt Options, open func() (D, error), identity func(D) string) error {
	opt.defaults()
	c.name, c.opt, c.open, c.identity, c.stop = name, opt, open, identity, make(chan struct{})
	d, err := open()
	if err != nil {
		return err
	}
	c.want = identity(d)
	c.cur.Store(&box[D]{dev: d})
	return nil
}

func (c *core[D]) logf(format string, args ...any) {
	if c.opt.Logf != nil {
		c.opt.Logf(format, args...)
	}
}

// get returns the current device, or the absence error.
func (c *core[D]) get() (*box[D], error) {
	if b := c.cur.Load(); b != nil {
		return b, nil
	}
	return nil, c.absent.Load()
}

// lost retires b after it returned err and starts reopening. It returns
// the error to hand to the caller.
func (c *core[D]) lost(b *box[D], err error) error {
	if !c.cur.CompareAndSwap(b, nil) {
		if a := c.absent.Load(); a != nil {
			return a
		}
		return err
	}
	a := &AbsentError{Name: c.name, Since: time.Now(), Cause: err}
	c.absent.Store(a)
	c.mu.Lock()
	c.losses++
	c.attempts = 0
	c.lastErr = err.Error()
	start := !c.closed && !c.reopening
	c.reopening = start
	c.mu.Unlock()
	c.logf("reconnect: %s lost: %v", c.name, err)
	go b.dev.Close() // closing a vanished port may block
	if start {
		c.wg.Add(1)
		go c.reopen()
	}
	return a
}

func (c *core[D]) reopen() {
	defer c.wg.Done()
	t := time.NewTicker(c.opt.Interval)
	defer t.Stop()
	for {
		d, err := c.open()
		if err == nil {
			if id := c.identity(d); id != c.want {
				err = &MismatchError{Name: c.name, Want: c.want, Got: id}
				d.Close()
			} else if c.prepare != nil {
				if err = c.prepare(d); err != nil {
					d.Close()
				}
			}
		}
		c.mu.Lock()
		if c.closed {
			c.reopening = false
			c.mu.Unlock()
			if err == nil {
				d.Close()
			}
			return
		}
		c.attempts++
		if err == nil {
			c.reconnects++
			c.reopening = false
			n := c.attempts
			c.cur.Store(&box[D]{dev: d})
			c.mu.Unlock()
			c.logf("reconnect: %s back after %d attempts", c.name, n)
			return
		}
		c.lastErr = err.Error()
		c.mu.Unlock()
		select {
		case <-c.stop:
			c.mu.Lock()
			c.reopening = false
			c.mu.Unlock()
			return
		case <-t.C:
		}
	}
}

func (c *core[D]) status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Status{Name: c.name, Connected: c.cur.Load() != nil, Losses: c.losses, Reconnects: c.reconnects, Attempts: c.attempts, LastError: c.lastErr}
}

func (c *core[D]) close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	close(c.stop)
	c.mu.Unlock()
	c.wg.Wait()
	if b := c.cur.Swap(nil); b != nil {
		return b.dev.Close()
	}
	return nil
}

// Exo is a devices.Exoskeleton that survives its device going away.
type Exo struct {
	c       core[devices.Exoskeleton]
	spec    devices.ExoSpec
	enabled atomic.Bool
}

var _ devices.Exoskeleton = (*Exo)(nil)

func exoIdentity(d devices.Exoskeleton) string {
	s := d.Spec()
	return fmt.Sprintf("%s/%s (%d DoF)", s.Model, s.Serial, s.DoF)
}

// NewExo opens the device with open and returns the wrapper; an error from
// the first open is returned as is, so that an absent device is a clear
// error before any loop starts. name names the device in messages.
func NewExo(name string, open func() (devices.Exoskeleton, error), opt Options) (*Exo, error) {
	x := &Exo{}
	x.c.prepare = func(d devices.Exoskeleton) error {
		if x.enabled.Load() && !x.c.opt.KeepDisabled {
			return d.Enable(true)
		}
		return nil
	}
	if err := x.c.init(name, opt, open, exoIdentity); err != nil {
		return nil, err
	}
	x.spec = x.c.cur.Load().dev.Spec()
	return x, nil
}

// Spec returns the capabilities of the device first opened.
func (x *Exo) Spec() devices.ExoSpec { return x.spec }

// Read reads the current device; while it is away it returns an
// *AbsentError (devices.ErrDisconnected) and leaves dst alone.
func (x *Exo) Read(dst *devices.ExoState) error {
	b, err := x.c.get()
	if err != nil {
		return err
	}
	if err := b.dev.Read(dst); err != nil {
		if errors.Is(err, devices.ErrDisconnected) {
			return x.c.lost(b, err)
		}
		return err
	}
	return nil
}

// Write writes to the current device.
func (x *Exo) Write(cmd *devices.ExoCommand) error {
	b, err := x.c.get()
	if err != nil {
		return err
	}
	if err := b.dev.Write(cmd); err != nil {
		if errors.Is(err, devices.ErrDisconnected) {
			return x.c.lost(b, err)
		}
		return err
	}
	return nil
}

// Enable records the wish (a reopened device gets it) and passes it on.
func (x *Exo) Enable(on bool) error {
	x.enabled.Store(on)
	b, err := x.c.get()
	if err != nil {
		return err
	}
	if err := b.dev.Enable(on); err != nil {
		if errors.Is(err, devices.ErrDisconnected) {
			return x.c.lost(b, err)
		}
		return err
	}
	return nil
}

// Connection reports the connection's history.
func (x *Exo) Connection() Status { return x.c.status() }

// Close stops reconnecting and closes the device.
func (x *Exo) Close() error { return x.c.close() }

// Tactile is a devices.TactileArray (and devices.StatusReader) that
// survives its device going away.
type Tactile struct {
	c    core[devices.TactileArray]
	spec devices.TactileSpec
}

var (
	_ devices.TactileArray = (*Tactile)(nil)
	_ devices.StatusReader = (*Tactile)(nil)
)

func tactileIdentity(d devices.TactileArray) string {
	s := d.Spec()
	return fmt.Sprintf("%s/%s (%dx%d)", s.Model, s.Serial, s.Rows, s.Cols)
}

// NewTactile is NewExo for a tactile array.
func NewTactile(name string, open func() (devices.TactileArray, error), opt Options) (*Tactile, error) {
	t := &Tactile{}
	if err := t.c.init(name, opt, open, tactileIdentity); err != nil {
		return nil, err
	}
	t.spec = t.c.cur.Load().dev.Spec()
	return t, nil
}

// Spec returns the capabilities of the device first opened.
func (t *Tactile) Spec() devices.TactileSpec { return t.spec }

// WriteFrame writes to the current device.
func (t *Tactile) WriteFrame(f *devices.TactileFrame) error {
	b, err := t.c.get()
	if err != nil {
		return err
	}
	if err := b.dev.WriteFrame(f); err != nil {
		if errors.Is(err, devices.ErrDisconnected) {
			return t.c.lost(b, err)
		}
		return err
	}
	return nil
}

// Status reads the current device's status when it reports one; a device
// without status reports only its presence.
func (t *Tactile) Status(dst *devices.TactileStatus) error {
	b, err := t.c.get()
	if err != nil {
		return err
	}
	sr, ok := b.dev.(devices.StatusReader)
	if !ok {
		*dst = devices.TactileStatus{Active: true}
		return nil
	}
	if err := sr.Status(dst); err != nil {
		if errors.Is(err, devices.ErrDisconnected) {
			return t.c.lost(b, err)
		}
		return err
	}
	return nil
}

// Delivered reads what the current device measured its pins delivering,
// when it measures them (devices.DeliveryReader); false otherwise, and
// while the device is away.
func (t *Tactile) Delivered(dst *devices.TactileFrame) bool {
	b, err := t.c.get()
	if err != nil {
		return false
	}
	d, ok := b.dev.(devices.DeliveryReader)
	return ok && d.Delivered(dst)
}

// Connection reports the connection's history.
func (t *Tactile) Connection() Status { return t.c.status() }

// Close stops reconnecting and closes the device.
func (t *Tactile) Close() error { return t.c.close() }

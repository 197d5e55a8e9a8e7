package emu

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/wire"
	"github.com/haptex/haptex/internal/safefile"
)

// Config configures Run. The zero value emulates the default rig: two
// exoskeletons and two tactile arrays, the physical twins of devices/twin.
type Config struct {
	// Dir receives one stable symlink per device (Dir/<name> -> /dev/pts/N)
	// and a devices file for haptex run, each replacing whatever had its
	// name (a planted link is replaced, never followed). Empty: a new
	// temporary directory, removed by Close.
	Dir string
	// Devices to emulate; empty means DefaultDevices().
	Devices []DeviceConfig
	// NewExo and NewTactile build the backends; nil means the physical
	// twins (PhysicalExo, PhysicalTactile). StandInExo and StandInTactile
	// are the small stand-ins protocol tests use.
	NewExo     func(DeviceConfig) (devices.Exoskeleton, error)
	NewTactile func(DeviceConfig) (devices.TactileArray, error)
	// TickPeriod is how often devices run their periodic duties (default
	// 250 µs).
	TickPeriod time.Duration
}

// DefaultDevices is the two-finger rig: thumb and index, each with an
// exoskeleton and a tactile array.
func DefaultDevices() []DeviceConfig {
	return []DeviceConfig{
		{Name: "thumb-exo", Kind: wire.KindExo, Model: "haptex-emu-exo", Serial: "EMU-THUMB-EXO"},
		{Name: "index-exo", Kind: wire.KindExo, Model: "haptex-emu-exo", Serial: "EMU-INDEX-EXO"},
		{Name: "thumb-tactile", Kind: wire.KindTactile, Model: "haptex-emu-tactile", Serial: "EMU-THUMB-TAC"},
		{Name: "index-tactile", Kind: wire.KindTactile, Model: "haptex-emu-tactile", Serial: "EMU-INDEX-TAC"},
	}
}

// Port describes one emulated device's serial port.
type Port struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	Path string `json:"path"` // stable symlink; put this in devices files
	TTY  string `json:"tty"`  // the pseudo-terminal it points to now
}

// Emulator is a running set of emulated devices.
type Emulator struct {
	dir     string
	root    *safefile.Dir // dir
	tempDir bool
	start   time.Time
	plugs   []*Plug
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
	file    string
}

// Plug is one emulated device on its pseudo-terminal, with the cable
// under test control.
type Plug struct {
	dev  *Device
	dir  *safefile.Dir
	name string // of the link in dir
	link string
	mu   sync.Mutex
	conn *ptyConn
}

// Run starts the emulated devices, each on its own pseudo-terminal, and
// returns once their ports exist. It stops when ctx is done or Close is
// called.
func Run(ctx context.Context, cfg Config) (*Emulator, error) {
	e := &Emulator{dir: cfg.Dir, start: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	if e.dir == "" {
		d, err := os.MkdirTemp("", "haptex-emu-")
		if err != nil {
			return nil, fmt.Errorf("emu: %w", err)
		}
		e.dir, e.tempDir = d, true
	}
	var err error
	if e.root, err = safefile.MkdirAll(e.dir); err != nil {
		e.cleanup()
		return nil, fmt.Errorf("emu: %w", err)
	}
	specs := cfg.Devices
	if len(specs) == 0 {
		specs = DefaultDevices()
	}
	clock := func() time.Duration { return time.Since(e.start) }
	seen := map[string]bool{}
	for _, dc := range specs {
		if dc.Name == "" || strings.ContainsAny(dc.Name, "/\\") || seen[dc.Name] {
			e.cleanup()
			return nil, fmt.Errorf("emu: device name %q is empty, repeated or holds a path separator", dc.Name)
		}
		seen[dc.Name] = true
		dev, err := newDevice(dc, cfg, clock)
		if err != nil {
			e.cleanup()
			return nil, err
		}
		p := &Plug{dev: dev, dir: e.root, name: dc.Name, link: e.root.Join(dc.Name)}
		if err := p.Replug(); err != nil {
			e.cleanup()
			return nil, err
		}
		e.plugs = append(e.plugs, p)
	}
	if err := e.writeDevicesFile(); err != nil {
		e.cleanup()
		return nil, err
	}
	tick := cfg.TickPeriod
	if tick <= 0 {
		tick = 250 * time.Microsecond
	}
	go e.run(ctx, tick, clock)
	return e, nil
}

func newDevice(dc DeviceConfig, cfg Config, clock func() time.Duration) (*Device, error) {
	switch dc.Kind {
	case wire.KindExo:
		build := cfg.NewExo
		if build == nil {
			build = PhysicalExo
		}
		b, err := build(dc)
		if err != nil {
			return nil, fmt.Errorf("emu: %s: backend: %w", dc.Name, err)
		}
		return NewExoDevice(dc, b, clock), nil
	case wire.KindTactile:
		build := cfg.NewTactile
		if build == nil {
			build = PhysicalTactile
		}
		b, err := build(dc)
		if err != nil {
			return nil, fmt.Errorf("emu: %s: backend: %w", dc.Name, err)
		}
		return NewTactileDevice(dc, b, clock), nil
	}
	return nil, fmt.Errorf("emu: %s: kind %v, want exoskeleton or tactile", dc.Name, dc.Kind)
}

func (e *Emulator) run(ctx context.Context, tick time.Duration, clock func() time.Duration) {
	defer close(e.done)
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			e.Close()
			return
		case <-e.stop:
			return
		case <-t.C:
			now := clock()
			for _, p := range e.plugs {
				p.dev.Tick(now)
			}
		}
	}
}

// Ports lists the emulated devices' ports.
func (e *Emulator) Ports() []Port {
	out := make([]Port, len(e.plugs))
	for i, p := range e.plugs {
		out[i] = Port{Name: p.dev.cfg.Name, Kind: p.dev.cfg.Kind.String(), Path: p.link, TTY: p.TTY()}
	}
	return out
}

// Plug returns the named device's plug, or nil.
func (e *Emulator) Plug(name string) *Plug {
	for _, p := range e.plugs {
		if p.dev.cfg.Name == name {
			return p
		}
	}
	return nil
}

// DevicesFile is the path of a devices file (TOML, see package setup)
// that selects the emulated devices named <finger>-exo and
// <finger>-tactile.
func (e *Emulator) DevicesFile() string { return e.file }

func (e *Emulator) writeDevicesFile() error {
	var b strings.Builder
	b.WriteString("# Written by haptex devices emulate: the emulated devices, reached over their serial ports.\n")
	for _, p := range e.plugs {
		finger, kind, ok := strings.Cut(p.dev.cfg.Name, "-")
		if !ok {
			continue
		}
		section := map[string]string{"exo": "exoskeleton", "tactile": "tactile"}[kind]
		if section == "" {
			continue
		}
		fmt.Fprintf(&b, "\n[%s.%s]\nkind = \"serial\"\nport = %q\n", finger, section, p.link)
		if section == "exoskeleton" {
			// The emulated exoskeleton is haptex's own geometry at the
			// finger's default mount.
			b.WriteString("kinematics = \"builtin\"\n")
		}
	}
	if err := e.root.WriteFile("devices.toml", []byte(b.String())); err != nil {
		return fmt.Errorf("emu: %w", err)
	}
	e.file = e.root.Join("devices.toml")
	return nil
}

// Close stops every device, hangs up their lines and removes the symlinks
// (and the directory, if Run made it).
func (e *Emulator) Close() error {
	e.once.Do(func() {
		close(e.stop)
		e.cleanup()
	})
	return nil
}

// Done is closed when the emulator has stopped.
func (e *Emulator) Done() <-chan struct{} { return e.done }

func (e *Emulator) cleanup() {
	for _, p := range e.plugs {
		p.Unplug()
	}
	if e.file != "" {
		e.root.Remove("devices.toml")
	}
	e.root.Close()
	if e.tempDir {
		os.RemoveAll(e.dir)
	}
}

// Device returns the emulated device's protocol engine.
func (p *Plug) Device() *Device { return p.dev }

// Path is the stable symlink naming the device's port.
func (p *Plug) Path() string { return p.link }

// TTY is the pseudo-terminal the device sits on now ("" while unplugged).
func (p *Plug) TTY() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conn == nil {
		return ""
	}
	return p.conn.TTY()
}

// Unplug pulls the cable: the line hangs up (the host's reads fail) and
// the port's symlink disappears.
func (p *Plug) Unplug() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conn == nil {
		return nil
	}
	p.dev.Detach()
	p.dir.Remove(p.name)
	err := p.conn.Close()
	p.conn = nil
	return err
}

// Replug plugs the device back in on a new pseudo-terminal and points the
// symlink at it. The device starts a new session at the next HELLO.
func (p *Plug) Replug() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conn != nil {
		return nil
	}
	c, err := openPTY(p.dev.cfg.Name)
	if err != nil {
		return fmt.Errorf("emu: %s: pseudo-terminal: %w", p.dev.cfg.Name, err)
	}
	if err := p.dir.Symlink(c.TTY(), p.name); err != nil {
		c.Close()
		return fmt.Errorf("emu: %s: %w", p.dev.cfg.Name, err)
	}
	p.conn = c
	p.dev.Attach(c)
	return nil
}

package emu

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/transport"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/devices/wire"
	"github.com/haptex/haptex/internal/rt"
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
	// twins (PhysicalExo, PhysicalTactile); emutest.StandInExo and
	// emutest.StandInTactile are the small stand-ins protocol tests use.
	NewExo     func(DeviceConfig) (devices.Exoskeleton, error)
	NewTactile func(DeviceConfig) (devices.TactileArray, error)
	// TickPeriod is how often devices run their periodic duties (default
	// 250 µs).
	TickPeriod time.Duration
	// Priority is the SCHED_FIFO priority of the devices' loop, which
	// stands in for the devices' firmware (default 70: below haptex's
	// 1 kHz loop at 80, above every normal thread). NormalPriority keeps
	// normal scheduling. Without the permission (root or CAP_SYS_NICE)
	// the loop runs at normal priority and RealTime says why.
	Priority       int
	NormalPriority bool
	// Script is the handling motion of the emulated hand in the physical
	// exoskeletons (nil: twin.DefaultScript). Each run plays it from its
	// start: a HELLO after the host has sent nothing to any device for
	// HandIdle restarts it.
	Script *twin.Script
	// Errors builds the physical exoskeletons with the calibration twin's
	// known errors (sensor gain and bias, encoder zeros, link lengths; see
	// stand.go); Stand puts them on their calibration stands instead of on
	// the hand.
	Errors, Stand bool
	// Announce makes the emulator announce itself in RunDir(), with a
	// socket for its stands, until Close (see announce.go).
	Announce bool
}

// DefaultPriority is the devices' loop's SCHED_FIFO priority.
const DefaultPriority = 70

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
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	Path   string `json:"path"` // stable symlink; put this in devices files
	TTY    string `json:"tty"`  // the pseudo-terminal it points to now
	Model  string `json:"model"`
	Serial string `json:"serial"`
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

	// lineMu is held by the devices' loop while it reads the lines, and
	// by Unplug and Replug while they change one, so that the loop never
	// touches a closed descriptor.
	lineMu sync.Mutex
	sched  chan Sched
	got    Sched
	late   atomic.Int64 // worst lateness of the periodic duties since Lateness [ns]
	// Under lineMu: the next tick, and the buffer work reads into.
	next time.Duration
	buf  [4096]byte
	// worked is the clock time the loop (or its standby) last worked.
	worked       atomic.Int64
	takeovers    atomic.Uint64
	restoreProcs func()

	hand     *hand
	handIdle time.Duration
	lastHost atomic.Int64 // clock time of the newest host frame to any device, +1 [ns]; 0 before any
	announce *announcement
}

// Sched is how the devices' loop is scheduled.
type Sched struct {
	RealTime bool   `json:"realtime"`
	Priority int    `json:"priority,omitempty"`
	Standby  bool   `json:"standby,omitempty"` // a standby thread on another core
	Note     string `json:"note,omitempty"`    // why not real time
	// Monitor says why the Go runtime's monitor thread was not made
	// real-time with the loop (rt.RaiseMonitor), when it was not.
	Monitor string `json:"monitor,omitempty"`
}

func (s Sched) String() string {
	if !s.RealTime {
		return "normal priority (" + s.Note + ")"
	}
	out := fmt.Sprintf("SCHED_FIFO priority %d", s.Priority)
	if s.Standby {
		out += ", with a standby thread on another core"
	}
	if s.Monitor != "" {
		out += "; " + s.Monitor
	}
	return out
}

// Stalls sums its devices' physics stalls (Device.Stalls): the times the
// devices' loop was held so long that a device skipped time rather than
// integrate more than MaxCatchUp at once.
func (e *Emulator) Stalls() Stalls {
	var s Stalls
	for _, p := range e.plugs {
		d := p.dev.Stalls()
		s.Count += d.Count
		s.Longest = max(s.Longest, d.Longest)
	}
	return s
}

// Takeovers counts the times the standby thread did the loop's work.
func (e *Emulator) Takeovers() uint64 { return e.takeovers.Load() }

// Plug is one emulated device on its pseudo-terminal, with the cable
// under test control.
type Plug struct {
	dev   *Device
	dir   *safefile.Dir
	name  string // of the link in dir
	link  string
	lines *sync.Mutex // the emulator's lineMu
	mu    sync.Mutex
	conn  Line
}

// Run starts the emulated devices, each on its own pseudo-terminal, and
// returns once their ports exist. It stops when ctx is done or Close is
// called.
func Run(ctx context.Context, cfg Config) (*Emulator, error) {
	e := &Emulator{dir: cfg.Dir, start: time.Now(), stop: make(chan struct{}), done: make(chan struct{}), sched: make(chan Sched, 1)}
	script := cfg.Script
	if script == nil {
		script = twin.DefaultScript(twin.DefaultScene())
	}
	e.hand = newHand(script)
	if e.dir == "" {
		d, err := os.MkdirTemp("", "haptex-emu-")
		if err != nil {
			return nil, fmt.Errorf("emu: %w", err)
		}
		e.dir, e.tempDir = d, true
	}
	// Absolute, so that the devices file and the announcement name the
	// ports for a process in any folder.
	abs, err := filepath.Abs(e.dir)
	if err != nil {
		e.cleanup()
		return nil, fmt.Errorf("emu: %w", err)
	}
	e.dir = abs
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
		dev, err := e.newDevice(dc, cfg, clock)
		if err != nil {
			e.cleanup()
			return nil, err
		}
		dev.onHost = e.hostFrame
		e.handIdle = max(e.handIdle, HandIdle, time.Duration(dev.cfg.WatchdogMs)*time.Millisecond/2)
		p := &Plug{dev: dev, dir: e.root, name: dc.Name, link: e.root.Join(dc.Name), lines: &e.lineMu}
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
	if cfg.Announce {
		if err := e.startAnnounce(cfg); err != nil {
			e.cleanup()
			return nil, err
		}
	}
	tick := cfg.TickPeriod
	if tick <= 0 {
		tick = 250 * time.Microsecond
	}
	prio := cfg.Priority
	if prio == 0 {
		prio = DefaultPriority
	}
	if cfg.NormalPriority {
		prio = 0
	} else if prio < 1 || prio > 99 {
		e.cleanup()
		return nil, fmt.Errorf("emu: SCHED_FIFO priority %d outside 1..99", prio)
	}
	// A P for each of the loop's two threads, so that a thread coming
	// back from its wait never queues behind another goroutine for one
	// (rt.ReserveProcs).
	e.restoreProcs = rt.ReserveProcs(2)
	go e.run(ctx, tick, prio, clock)
	e.got = <-e.sched
	return e, nil
}

// Lateness returns how late the devices' loop ran their periodic duties
// (the watchdog, the frames they owe) at worst since the previous call:
// firmware is never late, so this is how far the emulation fell short of
// it (a stop of the machine shows here).
func (e *Emulator) Lateness() time.Duration { return time.Duration(e.late.Swap(0)) }

// RealTime says how the devices' loop is scheduled: under SCHED_FIFO, as
// firmware runs on its own processor, or at normal priority, where a
// loaded machine can hold it for milliseconds (the host then sees its
// devices fall silent).
func (e *Emulator) RealTime() Sched { return e.got }

// hostFrame is told of every frame the host sends any device. A HELLO
// after HandIdle() of silence to every device begins a new run: the hand
// plays its script from the start.
func (e *Emulator) hostFrame(now time.Duration, hello bool) {
	prev := e.lastHost.Swap(int64(now) + 1)
	if hello && (prev == 0 || now-time.Duration(prev-1) >= e.handIdle) {
		e.hand.restart(now)
	}
}

// HandIdle is how long the host must have sent nothing to any device for
// the next HELLO to begin a new run: HandIdle, or half the longest
// watchdog of the emulator's devices.
func (e *Emulator) HandIdle() time.Duration { return e.handIdle }

// Runs counts the runs the emulated hand has started: the HELLOs that
// came after HandIdle() of silence.
func (e *Emulator) Runs() int { return e.hand.runs() }

func (e *Emulator) newDevice(dc DeviceConfig, cfg Config, clock func() time.Duration) (*Device, error) {
	switch dc.Kind {
	case wire.KindExo:
		build := cfg.NewExo
		if build == nil {
			build = func(dc DeviceConfig) (devices.Exoskeleton, error) {
				if cfg.Stand {
					s, err := newStandExo(dc, cfg.Errors)
					if err != nil {
						return nil, err
					}
					return s, nil
				}
				return handExo(dc, e.hand, cfg.Errors)
			}
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

// run is the devices' loop, the emulated firmware: on one OS thread,
// under SCHED_FIFO where permitted, it wakes on a grid of tick, takes the
// bytes that arrived on every line and runs every device's periodic
// duties, as firmware polls its UART. It never polls a line, nor reads
// one the kernel says is empty (transport.ReadArrived): either waits for
// the kernel's tty worker, a normal-priority thread, for as long as the
// loaded machine keeps it from a core (up to 10 ms each, 22 % of the
// loop's time, measured with perf; docs/safety.md). A standby thread on
// another core does the same work when the loop has not for
// standbyAfter: this virtual machine stops one CPU at a time for
// milliseconds (README, "Real-time timing"), which firmware on its own
// processor never sees.
func (e *Emulator) run(ctx context.Context, tick time.Duration, prio int, clock func() time.Duration) {
	defer close(e.done)
	sched := Realtime(prio)
	e.next = clock() + tick
	own, other, two := twoCPUs()
	if sched.RealTime && two {
		pin(own)
		sched.Standby = true
		go e.standby(tick, prio, other, clock)
	}
	e.sched <- sched
	stop := context.AfterFunc(ctx, func() { e.Close() })
	defer stop()
	for {
		select {
		case <-e.stop:
			return
		default:
		}
		// A signal (the runtime's) only wakes it early: work runs no
		// duty before it is due.
		rt.Sleep(e.nextTick() - clock())
		e.work(clock, tick, false)
	}
}

// standbyAfter is how long the devices' loop may go without working
// before the standby thread does its work.
const standbyAfter = 1500 * time.Microsecond

func (e *Emulator) standby(tick time.Duration, prio, cpu int, clock func() time.Duration) {
	Realtime(prio)
	pin(cpu)
	for {
		select {
		case <-e.stop:
			return
		default:
		}
		rt.Sleep(time.Millisecond)
		if clock()-time.Duration(e.worked.Load()) > standbyAfter {
			e.work(clock, tick, true)
		}
	}
}

func (e *Emulator) nextTick() time.Duration {
	e.lineMu.Lock()
	defer e.lineMu.Unlock()
	return e.next
}

// work takes every byte that arrived on the lines and runs the periodic
// duties that are due. The standby only tries: if the loop is at work,
// there is nothing to stand in for.
func (e *Emulator) work(clock func() time.Duration, tick time.Duration, standby bool) {
	if standby {
		if !e.lineMu.TryLock() {
			return
		}
		e.takeovers.Add(1)
	} else {
		e.lineMu.Lock()
	}
	defer e.lineMu.Unlock()
	for _, p := range e.plugs {
		c := p.conn
		if c == nil || !p.dev.attachedTo(c) {
			continue
		}
		for {
			k, rerr := transport.ReadArrived(c.Fd(), e.buf[:])
			if k > 0 {
				p.dev.Receive(c, e.buf[:k], nil)
				continue
			}
			if rerr != unix.EAGAIN && rerr != unix.EINTR { // hung up, or EOF: the line is gone
				var cause error = io.EOF
				if rerr != nil {
					cause = rerr
				}
				p.dev.Receive(c, nil, &transport.Error{Transport: "pty", Op: "read", Port: c.Name(), Kind: transport.Gone, Err: cause})
			}
			break
		}
	}
	now := clock()
	if now >= e.next {
		if late := int64(now - e.next); late > e.late.Load() {
			e.late.Store(late)
		}
		for _, p := range e.plugs {
			p.dev.Tick(now)
		}
		e.next += tick
		if e.next <= now { // the loop was held: no burst to catch up
			e.next = now + tick
		}
	}
	e.worked.Store(int64(clock()))
}

// twoCPUs returns two CPUs this thread may run on, or false.
func twoCPUs() (own, other int, ok bool) {
	var set unix.CPUSet
	if unix.SchedGetaffinity(0, &set) != nil {
		return 0, 0, false
	}
	var cpus []int
	for c := 0; c < 1024 && len(cpus) < 2; c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	if len(cpus) < 2 {
		return 0, 0, false
	}
	return cpus[0], cpus[1], true
}

func pin(cpu int) {
	var set unix.CPUSet
	set.Set(cpu)
	_ = unix.SchedSetaffinity(0, &set)
}

// Realtime locks the calling goroutine to its thread for good and puts
// the thread under SCHED_FIFO at prio (0: leaves it at normal priority);
// it says what it got. For the emulator's devices' loop, or equipment
// that stands in the cable.
func Realtime(prio int) Sched {
	if prio == 0 {
		runtime.LockOSThread()
		return Sched{Note: "asked for"}
	}
	if err := rt.LockRealtime(prio); err != nil {
		return Sched{Note: fmt.Sprintf("SCHED_FIFO priority %d not permitted: %v; it needs root or CAP_SYS_NICE", prio, err)}
	}
	s := Sched{RealTime: true, Priority: prio}
	if err := rt.RaiseMonitor(); err != nil {
		s.Monitor = err.Error()
	}
	return s
}

// Ports lists the emulated devices' ports.
func (e *Emulator) Ports() []Port {
	out := make([]Port, len(e.plugs))
	for i, p := range e.plugs {
		c := &p.dev.cfg
		out[i] = Port{Name: c.Name, Kind: c.Kind.String(), Path: p.Path(), TTY: p.TTY(), Model: c.Model, Serial: c.Serial}
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
		fmt.Fprintf(&b, "\n[%s.%s]\nkind = \"serial\"\nport = %q\n", finger, section, p.Path())
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
		if e.restoreProcs != nil {
			e.restoreProcs()
		}
	})
	return nil
}

// Done is closed when the emulator has stopped.
func (e *Emulator) Done() <-chan struct{} { return e.done }

func (e *Emulator) cleanup() {
	e.stopAnnounce()
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
	p.lines.Lock()
	defer p.lines.Unlock()
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
	p.lines.Lock()
	defer p.lines.Unlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conn != nil {
		return nil
	}
	c, err := OpenLine(p.dev.cfg.Name)
	if err != nil {
		return fmt.Errorf("emu: %s: pseudo-terminal: %w", p.dev.cfg.Name, err)
	}
	if err := p.dir.Symlink(c.TTY(), p.name); err != nil {
		c.Close()
		return fmt.Errorf("emu: %s: %w", p.dev.cfg.Name, err)
	}
	p.conn = c
	p.dev.Connect(c) // the devices' loop reads the line
	return nil
}

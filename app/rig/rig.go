// Package rig wires a running haptex system: the devices, the three loops
// (haptics at 1 kHz, the cloth simulation at its own rate, the tactile
// renderer every 25 ms), the lock-free buffers between them and the session
// recorder. It runs them in real time (one locked OS thread per loop, the
// haptics thread under SCHED_FIFO when permitted) or in virtual time under
// the lockstep runner, with the same step functions. In virtual time the
// sim's step runs beside the other loops and its output appears one sim
// period after its input (Rig.Lockstep).
//
// The rig is the application layer: it imports the components it wires,
// and only cmd/haptex and the rest of app/ import it. It never reads flags
// or the environment: cmd/haptex builds a Config.
package rig

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/haptex/haptex/calib/kes"
	"github.com/haptex/haptex/devices"
	devrecord "github.com/haptex/haptex/devices/record"
	"github.com/haptex/haptex/devices/setup"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/haptics"
	"github.com/haptex/haptex/internal/buildinfo"
	"github.com/haptex/haptex/internal/rt"
	"github.com/haptex/haptex/internal/sessionlog"
	"github.com/haptex/haptex/internal/snakejson"
	"github.com/haptex/haptex/internal/statebuf"
	"github.com/haptex/haptex/sim"
	"github.com/haptex/haptex/tactile"
)

// Config configures a rig.
type Config struct {
	// OutDir is the parent folder of session folders; empty records nothing.
	OutDir string `json:"out_dir"`
	// Duration stops the run after this much run time; 0 runs until the
	// context is done.
	Duration      time.Duration `json:"duration_ns"`
	HapticsPeriod time.Duration `json:"haptics_period_ns"` // default 1 ms
	SimPeriod     time.Duration `json:"sim_period_ns"`     // default 5 ms
	TactilePeriod time.Duration `json:"tactile_period_ns"` // default 25 ms
	// Priority is the SCHED_FIFO priority of the haptics thread, 1..99
	// (0: DefaultPriority). NormalPriority keeps normal scheduling instead.
	Priority       int  `json:"priority"`
	NormalPriority bool `json:"normal_priority"`
	// Standby is how long after each deadline the haptics loop's standby
	// thread, on the other core, runs a tick its own thread has not begun
	// (rt.Config.Standby; 0: DefaultStandby). NoStandby runs none. Only a
	// SCHED_FIFO haptics loop has one.
	Standby   time.Duration `json:"standby_ns"`
	NoStandby bool          `json:"no_standby"`
	// IdleSleep lets idle cores halt during a real-time run. By default,
	// while a SCHED_FIFO haptics loop runs, the rig keeps them polling
	// (rt.HoldIdlePoll; root only), so that a core wakes for the loop's
	// deadline at once: it costs an idle core's power.
	IdleSleep bool `json:"idle_sleep"`
	// SimNice is the nice value of the simulation's thread, 1..19 (0:
	// DefaultSimNice), which runs as a batch thread with a long slice
	// (rt.LockThreadBatch): the cloth is the one CPU-bound loop, and
	// nothing the haptics thread may wait for (the runtime's helper
	// threads, the recorder, the kernel's tty worker carrying the
	// devices' bytes) should queue behind it. It then also yields to any
	// other CPU-bound process on the machine; ProcessNice leaves the
	// thread at the process's nice value and policy instead.
	SimNice     int  `json:"sim_nice"`
	ProcessNice bool `json:"process_nice"`
	// Scene and Script give the fingers' intended motion: the scripted
	// fingertips follow it exactly, the simulated fingers inside the
	// simulated exoskeletons try to. Zero values take the showcase scene and
	// its default handling script.
	Scene  twin.Scene   `json:"scene"`
	Script *twin.Script `json:"-"`
	// Handling names the handling script a nil Script takes (Handlings;
	// empty: "showcase").
	Handling string `json:"handling,omitempty"`
	// Intent, when set, replaces Script as the motion the fingers follow
	// (the mouse finger pair of the view, for one).
	Intent twin.Intent `json:"-"`
	// Scripted drives the fingertips straight from the script with no
	// device and no force rendering (a kinematic motion source).
	Scripted bool `json:"kinematic"`
	// Exos are the thumb and index exoskeletons; a nil entry gets the
	// simulated exoskeleton-and-finger twin (ExoParams) following Script.
	Exos      [sim.NumFingers]devices.Exoskeleton `json:"-"`
	ExoParams twin.ExoParams                      `json:"exo_params"`
	// Servo configures the force-feedback servo; the zero value takes
	// haptics.DefaultConfig().
	Servo haptics.Config `json:"servo"`
	// Tactile are the thumb and index pin arrays; a nil entry gets the
	// simulated array (TactileParams; zero value: the defaults).
	Tactile       [sim.NumFingers]devices.TactileArray `json:"-"`
	TactileParams twin.TactileParams                   `json:"tactile_params"`
	// TactileCal is each finger's tactile calibration (the user's
	// channel thresholds, per-pin corrections); nil takes
	// tactile.DefaultCalibration(). Calibrations names the files they
	// came from, with their hashes, for the session record.
	TactileCal   [sim.NumFingers]*tactile.Calibration `json:"-"`
	Calibrations []CalibrationFile                    `json:"calibrations,omitempty"`
	// OpenDevices, when set, opens the run's devices once the session
	// folder exists (devices/setup.Open); rec is where they record
	// themselves, nil when not recording devices. The devices it returns
	// fill the nil entries of Exos and Tactile; the caller closes them
	// after the run.
	OpenDevices func(rec *devrecord.Session) (*setup.Set, error) `json:"-"`
	// DevicesFile names the devices file OpenDevices opens, with its
	// hash, for the session record (kind "devices"); the calibration
	// files it names are among Calibrations.
	DevicesFile *CalibrationFile `json:"devices_file,omitempty"`
	// RecordDevices records every call the loops make on every device (and
	// the bytes of the devices OpenDevices opens) into the session folder's
	// devices/ folder, for haptex replay. It needs OutDir.
	RecordDevices bool `json:"record_devices"`
	// Fabric is the fabric handled; the simulation's material and the
	// tactile renderer's surface come from it through calib/kes, and from
	// nothing else. Nil takes the built-in DefaultFabric.
	Fabric *kes.Fabric `json:"-"`
	// Sim configures the cloth: a caller sets only what differs (the
	// side, the grading); every zero field takes sim's default, the side
	// DefaultSide. Its step is SimPeriod, its pads the scene's and its
	// material the fabric's, whatever Sim says (see simConfig).
	Sim sim.Config `json:"sim"`
	// Clamps are further edges of the cloth held where they lie in a
	// clamp of two node lines (sim.Cloth.Grip), besides Sim's pinning: a
	// swatch clamped along two edges, say.
	Clamps []sim.Edge           `json:"clamps,omitempty"`
	Logf   func(string, ...any) `json:"-"`
}

func (c *Config) setDefaults() error {
	if c.HapticsPeriod == 0 {
		c.HapticsPeriod = time.Millisecond
	}
	if c.SimPeriod == 0 {
		c.SimPeriod = 5 * time.Millisecond
	}
	if c.TactilePeriod == 0 {
		c.TactilePeriod = 25 * time.Millisecond
	}
	// A value whose "off" field is set is left as it is: it is not used.
	if !c.NormalPriority && c.Priority == 0 {
		c.Priority = DefaultPriority
	}
	if !c.NoStandby && c.Standby == 0 {
		c.Standby = DefaultStandby
	}
	if !c.ProcessNice && c.SimNice == 0 {
		c.SimNice = DefaultSimNice
	}
	if c.Scene == (twin.Scene{}) {
		c.Scene = twin.DefaultScene()
	}
	if !knownHandling(c.Handling) {
		_, err := HandlingScript(c.Handling, c.Scene, c.Sim)
		return err
	}
	if c.ExoParams == (twin.ExoParams{}) {
		c.ExoParams = twin.DefaultExoParams()
	}
	if c.Servo == (haptics.Config{}) {
		c.Servo = haptics.DefaultConfig()
	}
	// The servo's filters are designed for the rate it actually runs at.
	c.Servo.Period = c.HapticsPeriod
	if c.Fabric == nil {
		f, err := kes.Builtin(DefaultFabric)
		if err != nil {
			return fmt.Errorf("rig: default fabric: %w", err)
		}
		c.Fabric = f
	}
	m, err := c.Fabric.Material()
	if err != nil {
		return fmt.Errorf("rig: fabric %s: %w", c.Fabric.Name, err)
	}
	c.Sim = c.simConfig(m)
	if c.Script == nil {
		if c.Script, err = HandlingScript(c.Handling, c.Scene, c.Sim); err != nil {
			return err
		}
	}
	if c.TactileParams == (twin.TactileParams{}) {
		c.TactileParams = twin.DefaultTactileParams()
	}
	for _, p := range []struct {
		name string
		d    time.Duration
	}{{"haptics", c.HapticsPeriod}, {"sim", c.SimPeriod}, {"tactile", c.TactilePeriod}} {
		if p.d < 0 {
			return fmt.Errorf("rig: negative %s period %v", p.name, p.d)
		}
	}
	if c.SimPeriod < time.Millisecond || c.SimPeriod > 20*time.Millisecond {
		// Shorter, a lockstep run never gets through its steps (1 ns
		// hung); longer, the cloth's contact loses what it holds.
		return fmt.Errorf("rig: sim period %v outside 1 ms..20 ms", c.SimPeriod)
	}
	if c.TactilePeriod < 5*time.Millisecond || c.TactilePeriod > 100*time.Millisecond {
		return fmt.Errorf("rig: tactile period %v outside 5 ms..100 ms", c.TactilePeriod)
	}
	if c.HapticsPeriod > 10*time.Millisecond {
		return fmt.Errorf("rig: haptics period %v longer than 10 ms", c.HapticsPeriod)
	}
	if !c.NormalPriority && (c.Priority < 0 || c.Priority > 99) {
		return fmt.Errorf("rig: SCHED_FIFO priority %d outside 1..99 (NormalPriority keeps normal scheduling)", c.Priority)
	}
	if !c.NoStandby && c.Standby < 0 {
		return fmt.Errorf("rig: negative standby %v (NoStandby runs none)", c.Standby)
	}
	if !c.NoStandby && c.Standby > c.HapticsPeriod/2 {
		// Later, a tick the standby runs would end after the next deadline.
		return fmt.Errorf("rig: standby %v longer than half the haptics period %v", c.Standby, c.HapticsPeriod)
	}
	if !c.ProcessNice && c.SimNice < 0 {
		return fmt.Errorf("rig: negative sim nice value %d (ProcessNice keeps the process's)", c.SimNice)
	}
	if c.Duration < 0 {
		return fmt.Errorf("rig: negative duration %v", c.Duration)
	}
	return nil
}

// simConfig returns the cloth's configuration: Sim as the caller set it,
// with DefaultSide nodes per side unless it sets them, the step
// SimPeriod, the scene's pads, the material m, and sim's defaults for
// every other zero field. haptex run, experiments, replays and the
// benches all build their cloth through it, each setting only the fields
// it changes.
func (c *Config) simConfig(m sim.Material) sim.Config {
	s := c.Sim
	if s.NodesU == 0 {
		s.NodesU = DefaultSide
	}
	if s.NodesV == 0 {
		s.NodesV = DefaultSide
	}
	s.Dt = c.SimPeriod
	s.PadRadius = [sim.NumFingers]float64{c.Scene.PadRadius, c.Scene.PadRadius}
	s.Material = m
	return s.WithDefaults()
}

// DefaultFabric is the built-in fabric a rig handles when none is given.
const DefaultFabric = "cotton-shirting"

// DefaultSide is the cloth's default resolution, nodes per side: the
// finest at which a 5 ms step leaves the lockstep runner clearly faster
// than real time on a two-core machine (README.md, "Measured on this
// machine"). On a uniform mesh its pinch-and-pull force stays within 11 %
// of the 64-node curve's peak, 32 nodes within 13 %; graded round the
// pinch point (sim.Config.Refine, haptex run -refine) within 2.0 % and
// 1.7 % (sim's TestPinchPullResolution).
const DefaultSide = 24

// PinchRefinement grades cfg's mesh round the point where sc's scripts
// pinch (sim.RefineRadius and sim.RefineRatio): the grading with which the
// pinch force does not depend on the mesh (sim's TestPinchPullResolution).
// It assumes the cloth hangs flat in the x-y plane, as sim places it.
func PinchRefinement(sc twin.Scene, cfg *sim.Config) sim.Refinement {
	p, o := sc.Pinch, cfg.Corner()
	return sim.Refinement{
		Centre: [2]float64{p[0] - o[0], p[1] - o[1]},
		Radius: sim.RefineRadius,
		Ratio:  sim.RefineRatio,
	}
}

// loop is one of the rig's loops: its step and, in real time, its runner.
type loop struct {
	name     string
	period   time.Duration
	priority int
	nice     int // for a loop at normal priority; see rt.Config.Nice
	standby  time.Duration
	step     func(t time.Duration)
	// begin, work and commit are step's parts for a loop the lockstep
	// runner pipelines (lockstep.Task), and assist lends the runner's
	// goroutine to work when the step is split (lockstep.Task.Assist);
	// nil for the others.
	begin  func(t time.Duration)
	work   func()
	commit func()
	assist func() bool
	// rt is nil until a real-time run builds it; atomic because the
	// status line and the view read it while Run starts.
	rt   atomic.Pointer[rt.Loop]
	cmds chan command
}

// The defaults of Config's zero values. DefaultStandby is 60 µs so that a
// tick the standby runs, late by this plus its own wake-up, is still
// within the haptics loop's 100 µs p99 goal.
const (
	DefaultPriority = 80
	DefaultStandby  = 60 * time.Microsecond
	DefaultSimNice  = 10
)

// EffectivePriority is the haptics loop's SCHED_FIFO priority, 0 for normal
// scheduling (rt.Config.Priority).
func (c *Config) EffectivePriority() int {
	if c.NormalPriority {
		return 0
	}
	return c.Priority
}

// EffectiveStandby is the haptics loop's standby delay, 0 for none
// (rt.Config.Standby).
func (c *Config) EffectiveStandby() time.Duration {
	if c.NoStandby {
		return 0
	}
	return c.Standby
}

// EffectiveSimNice is the simulation thread's nice value, 0 to leave the process's
// (rt.Config.Nice).
func (c *Config) EffectiveSimNice() int {
	if c.ProcessNice {
		return 0
	}
	return c.SimNice
}

func newLoop(name string, period time.Duration, priority int, step func(time.Duration)) *loop {
	return &loop{name: name, period: period, priority: priority, step: step, cmds: make(chan command, commandQueue)}
}

// Rig is a wired system, ready to run once.
type Rig struct {
	cfg   Config
	loops []*loop
	ran   bool

	fingers *statebuf.Buffer[sim.FingerState]
	simOut  *statebuf.Buffer[sim.Output]
	// The status line's readers (Status is called from one goroutine).
	status    *statebuf.Reader[sim.FingerState]
	statusSim *statebuf.Reader[sim.Output]

	session     *sessionlog.Session
	hapticsRows *sessionlog.Table[hapticsRow]

	haptics     *hapticsLoop
	hapticsLoop *loop
	sim         *simLoop
	simLoop     *loop
	topology    sim.Topology
	snapshots   *statebuf.Buffer[sim.Snapshot]
	viewing     atomic.Bool // a View reads the snapshots: the sim fills them
	simRows     *sessionlog.Table[simRow]
	tactile     *tactileLoop
	tactileLoop *loop
	intent      *replayIntent             // what the fingers try to do
	settled     settle                    // what Settled reads
	ownedExos   [sim.NumFingers]*twin.Exo // simulated exoskeletons the rig made

	tactileOut   *statebuf.Buffer[TactileOut]
	tactileRows  *sessionlog.Table[tactileRow]
	ownedTactile [sim.NumFingers]*twin.Tactile

	// Device recordings, and which devices record themselves (opened by
	// OpenDevices with the recording session).
	devRec                       *devrecord.Session
	exoRecorded, tactileRecorded [sim.NumFingers]bool
}

// New wires a rig. It creates the session folder when cfg.OutDir is set.
func New(cfg Config) (*Rig, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	r := &Rig{cfg: cfg}
	// Readers of FingerState: the simulation loop, the tactile loop, the
	// status line, the view.
	r.fingers = statebuf.New[sim.FingerState](4, nil)
	// Readers of the simulation's output: haptics, tactile, status, view.
	r.simOut = statebuf.New[sim.Output](4, nil)
	r.status = r.fingers.NewReader()
	r.statusSim = r.simOut.NewReader()
	// Reader of the tactile frames: the view.
	r.tactileOut = statebuf.New[TactileOut](1, nil)

	if cfg.OutDir != "" {
		s, err := sessionlog.Create(cfg.OutDir, "session-")
		if err != nil {
			return nil, err
		}
		r.session = s
		r.hapticsRows, err = sessionlog.NewTable(s, "haptics.csv", hapticsHeader(), 1<<15, appendHapticsRow)
		if err == nil {
			r.tactileRows, err = sessionlog.NewTable(s, "tactile.csv", tactileHeader(), 1<<11, appendTactileRow)
		}
		if err == nil {
			r.simRows, err = sessionlog.NewTable(s, "sim.csv", simHeader(), 1<<13, appendSimRow)
		}
		if err != nil {
			r.closeSession()
			return nil, err
		}
	}
	if err := r.openDevices(); err != nil {
		r.closeSession()
		return nil, err
	}

	inner := cfg.Intent
	if inner == nil {
		inner = cfg.Script
	}
	r.intent = &replayIntent{inner: inner}
	r.settled.init()
	h, err := newHapticsLoop(r)
	if err != nil {
		r.closeSession()
		return nil, err
	}
	r.haptics = h
	r.hapticsLoop = newLoop("haptics", cfg.HapticsPeriod, cfg.EffectivePriority(), r.haptics.step)
	r.hapticsLoop.standby = cfg.EffectiveStandby()
	r.loops = append(r.loops, r.hapticsLoop)
	sl, err := newSimLoop(r)
	if err != nil {
		r.closeSession()
		return nil, err
	}
	r.sim = sl
	r.topology = sl.cloth.Topology()
	r.snapshots = statebuf.New[sim.Snapshot](1, func(s *sim.Snapshot) { *s = sim.NewSnapshot(r.topology.Nodes) })
	r.simLoop = newLoop("sim", cfg.SimPeriod, 0, sl.step)
	r.simLoop.begin, r.simLoop.work, r.simLoop.commit = sl.begin, sl.work, sl.commit
	r.simLoop.assist = sl.cloth.Assist
	r.simLoop.nice = cfg.EffectiveSimNice()
	r.loops = append(r.loops, r.simLoop)
	tl, err := newTactileLoop(r)
	if err != nil {
		r.closeSession()
		return nil, err
	}
	r.tactile = tl
	r.tactileLoop = newLoop("tactile", cfg.TactilePeriod, 0, tl.step)
	r.loops = append(r.loops, r.tactileLoop)
	// session.json goes in now, with no summary, so that a run killed or
	// stopped by a full disk before it ends still says what it ran; a
	// disk that refuses it refuses the run.
	if err := r.writeMeta(nil); err != nil {
		r.closeSession()
		return nil, err
	}
	return r, nil
}

// closeSession closes and removes the session folder of a rig that failed
// to build: it holds table headers and nothing else.
func (r *Rig) closeSession() {
	if r.devRec != nil {
		r.devRec.Close()
	}
	if r.session != nil {
		r.session.Close()
		r.session.Release()
		os.RemoveAll(r.session.Dir)
	}
}

// Config returns the rig's configuration with its defaults filled in.
func (r *Rig) Config() Config { return r.cfg }

// SessionDir returns the session folder, or "" when not recording.
func (r *Rig) SessionDir() string {
	if r.session == nil {
		return ""
	}
	return r.session.Dir
}

// Run runs the rig in real time until ctx is done or cfg.Duration has
// passed, then stops every loop, closes the session and returns the summary.
func (r *Rig) Run(ctx context.Context) (*Summary, error) {
	if r.ran {
		return nil, errors.New("rig: already ran")
	}
	r.ran = true
	if r.session != nil {
		r.session.Start()
	}
	// One P per loop, so that a loop waking from its sleep never waits
	// behind the simulation for a scheduler slice (see rt.ReserveProcs).
	defer rt.ReserveProcs(r.threads())()
	// Setup allocated the buffers and rings; collect now so that the first
	// GC cycle (whose stop-the-world waits for every thread of the process,
	// normal-priority ones included) does not land in the first seconds of
	// the run. The loops themselves allocate nothing.
	runtime.GC()
	idlePoll := false
	if !r.cfg.NormalPriority && !r.cfg.IdleSleep {
		if release, err := rt.HoldIdlePoll(); err != nil {
			r.logf("rig: idle cores may halt and wake late (%v)", err)
		} else {
			idlePoll = true
			defer release()
		}
	}
	gc0 := readGC()
	cpu0, _ := rt.ReadCPUTimes()
	passes0, passesErr := rt.MonitorPasses()
	clock := rt.NewClock()
	start := time.Now()
	if r.cfg.Duration > 0 {
		// Duration counts from the loops' start: the setup above (the
		// collection most of all) takes none of it. Counted from the call,
		// a 0.5 s test run under -race once ran 0.485 s.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.cfg.Duration)
		defer cancel()
	}
	// The loops run on their own context: when the run is over they go
	// on until the exoskeletons have confirmed their power stages off.
	loopCtx, stop := context.WithCancel(context.Background())
	defer stop()
	failed, hapticsFailed := make(chan struct{}), make(chan struct{})
	var failOnce sync.Once
	var wg sync.WaitGroup
	errs := make(chan error, len(r.loops))
	for _, l := range r.loops {
		// On the simulated twins the cloth keeps off the haptics standby's
		// core, where the runtime's monitor runs (rt.Config.OffStandby).
		// Devices on lines leave it free: their bytes pass through the
		// kernel's tty worker, and with the cloth held to one core the
		// emulated devices fell silent more often (README, design
		// decisions).
		off := l == r.simLoop && r.cfg.OpenDevices == nil
		lr := rt.New(rt.Config{Name: l.name, Period: l.period, Priority: l.priority, Nice: l.nice, Standby: l.standby, OffStandby: off, Logf: r.cfg.Logf}, clock, l.tick)
		if l == r.hapticsLoop {
			r.haptics.rt = lr
		}
		l.rt.Store(lr)
		wg.Add(1)
		go func(l *loop) {
			defer wg.Done()
			if err := l.rt.Load().Run(loopCtx); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
				errs <- err
				failOnce.Do(func() { close(failed) })
				if l == r.hapticsLoop {
					close(hapticsFailed)
				}
			}
		}(l)
	}
	r.runFor(ctx, failed, hapticsFailed)
	stop()
	wg.Wait()
	var pinsSilent [sim.NumFingers]time.Duration
	if r.haptics.end.stopping {
		pinsSilent = r.tactile.silenced(r.tactile.silence(), endWait)
	}
	close(errs)
	runErr := <-errs
	sum := r.summary("realtime", clock.Now(), time.Since(start))
	var endErr error
	sum.EndOfRun, endErr = r.haptics.end.summary()
	if sum.EndOfRun != nil {
		sum.StopTick = &r.haptics.end.tick
		for f, d := range pinsSilent {
			if d >= 0 {
				ms := float64(d) / 1e6
				sum.EndOfRun[f].PinsSilentMs = &ms
			}
		}
	}
	if runErr == nil {
		runErr = endErr
	}
	sum.GC = readGC().since(gc0)
	sum.Clock = &ClockOrigin{UTC: clock.Wall().UTC(), MonotonicNs: clock.Origin()}
	cpu1, _ := rt.ReadCPUTimes()
	sum.HostStealPct = rt.StealPercent(cpu0, cpu1)
	if passes1, err := rt.MonitorPasses(); passesErr == nil && err == nil && sum.WallS > 0 {
		sum.MonitorPassesPerS = float64(passes1-passes0) / sum.WallS
	}
	sum.IdlePoll = idlePoll
	if err := r.finish(sum); err != nil && runErr == nil {
		runErr = err
	}
	return sum, runErr
}

// threads counts the loops' threads, standbys included.
func (r *Rig) threads() int {
	n := len(r.loops)
	for _, l := range r.loops {
		if l.standby > 0 && l.priority > 0 {
			n++
		}
	}
	return n
}

// RunLockstep runs the rig in virtual time for cfg.Duration (which must be
// set) with the lockstep runner, as fast as the machine computes it.
func (r *Rig) RunLockstep() (*Summary, error) {
	if r.cfg.Duration <= 0 {
		return nil, errors.New("rig: a lockstep run needs a duration")
	}
	s, err := r.Lockstep()
	if err != nil {
		return nil, err
	}
	s.Advance(r.cfg.Duration)
	return s.Finish()
}

// finish closes the session and writes session.json.
func (r *Rig) finish(sum *Summary) error {
	if r.session == nil {
		return nil
	}
	r.tactile.flush()
	err := r.session.Close()
	if r.devRec != nil {
		err = errors.Join(err, r.devRec.Close())
	}
	sum.Tables = r.session.Stats()
	if e := r.writeMeta(sum); e != nil && err == nil {
		err = e
	}
	if e := r.session.Release(); e != nil && err == nil {
		err = e
	}
	return err
}

// writeMeta writes session.json whole (a temporary file renamed), with
// the run's summary, or a null one before the run has ended.
func (r *Rig) writeMeta(sum *Summary) error {
	if r.session == nil {
		return nil
	}
	b, err := snakejson.MarshalIndent(sessionMeta{
		Software: buildinfo.Read().Map(),
		Scripted: r.followsScript(),
		Fabric:   r.cfg.Fabric.Name,
		Config:   r.cfg,
		Summary:  sum,
		Units:    sessionUnits,
	}, "", "  ")
	if err != nil {
		return err
	}
	return r.session.WriteFile("session.json", append(b, '\n'))
}

// followsScript reports whether the fingers' intended motion came from
// a handling script: no live intent, and every exoskeleton a simulated
// twin following the script (or no device at all).
func (r *Rig) followsScript() bool {
	if r.cfg.Intent != nil {
		return false
	}
	if r.cfg.Scripted {
		return true
	}
	for _, e := range r.ownedExos {
		if e == nil {
			return false
		}
	}
	return true
}

// sessionMeta is session.json. Every key is snake_case (internal/snakejson);
// a key without its unit in its name has it in docs/session.md.
type sessionMeta struct {
	Software map[string]string `json:"software"`
	// Scripted is true when the fingers' intended motion was a handling
	// script (Config.Script), false when something live led them (the
	// view's mouse pair, a person in the exoskeletons).
	Scripted bool `json:"scripted"`
	// Fabric names the fabric handled (the configuration holds its
	// material, not its name).
	Fabric string `json:"fabric"`
	Config Config `json:"config"`
	// Summary is null until the run has ended, and stays null if it never
	// did (the process killed, the disk full at its end).
	Summary *Summary `json:"summary"`
	// Units gives the unit of every number whose key does not end in it.
	Units map[string]string `json:"units"`
}

// fabricSize is the size of the piece of fabric on the stand [m].
func (r *Rig) fabricSize() (widthU, heightV float64) { return r.cfg.Sim.Width, r.cfg.Sim.Height }

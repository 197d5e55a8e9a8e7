// Package soak drives emulated devices through haptex's real serial path
// (pseudo-terminal, go.bug.st/serial, the protocol, the link drivers) at
// the haptics rate and reports what arrived, what was acted on and how long
// a command took to come back as a state. It backs the device round-trip
// test (TestRoundTrip) and `haptex bench devices` (-duration 60s is the
// acceptance run).
//
// It never hides a problem: every lost, corrupt, duplicated or altered
// frame, on either side, is counted in the Result and named in Problems.
package soak

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/emu"
	"github.com/haptex/haptex/devices/link"
	"github.com/haptex/haptex/devices/serial"
	"github.com/haptex/haptex/devices/wire"
	"github.com/haptex/haptex/internal/rt"
)

// Config configures Run. The zero value is the acceptance run: 60 s at
// 1 kHz, tactile frames every 25 ms, on the default emulated rig.
//
// Unless told otherwise, the run relaxes the timeouts that turn a stall
// into a disconnect (device watchdog 1 s, link silence limit 2 s): the
// emulator shares the process and the machine with the host, so a
// scheduling stall of the machine must show up as latency in the report,
// not as a lost device. Disconnect handling has its own tests.
type Config struct {
	Duration      time.Duration // default 60 s
	Period        time.Duration // haptics period, default 1 ms
	TactilePeriod time.Duration // default 25 ms
	Emulator      emu.Config
	Link          link.Options
	// Priority is the SCHED_FIFO priority of the host loop's thread
	// (0: 80, as the rig's haptics loop); NormalPriority keeps normal
	// scheduling instead.
	Priority       int
	NormalPriority bool
	Logf           func(format string, args ...any)
}

// DeviceResult is one device's account of the run.
type DeviceResult struct {
	Name         string          `json:"name"`
	Port         string          `json:"port"`
	Sent         uint64          `json:"sent"`          // commands (or frames) the host wrote
	Applied      uint64          `json:"applied"`       // of those, acted on by the device
	Altered      uint64          `json:"altered"`       // acted on with other content than sent (must be 0)
	LastAck      uint32          `json:"last_ack"`      // Seq of the newest command the host saw acknowledged
	ReadTimeouts uint64          `json:"read_timeouts"` // Reads or Status calls that returned ErrTimeout
	Host         link.Stats      `json:"host"`
	Device       emu.DeviceStats `json:"device"`
}

// Result is the report of a run. Latencies are in microseconds.
type Result struct {
	Bench     string  `json:"bench"`
	Go        string  `json:"go"`
	CPUs      int     `json:"cpus"`
	DurationS float64 `json:"duration_s"`
	Ticks     uint64  `json:"ticks"`
	// CommandToStateUs is, per percentile, the worst exoskeleton's
	// distribution of the time from writing a COMMAND to decoding the
	// STATE that acknowledges it, measured in process.
	CommandToStateUs link.Latency `json:"command_to_state_us"`
	TickLatenessUs   link.Latency `json:"tick_lateness_us"`
	// IOUs is the time the loop spent per tick in Read + Write of both
	// exoskeletons.
	IOUs link.Latency `json:"io_us"`
	// Overruns counts the host loop's skipped deadlines; RealTime says
	// whether it ran under SCHED_FIFO.
	Overruns uint64         `json:"overruns"`
	RealTime bool           `json:"rt"`
	Exo      []DeviceResult `json:"exoskeletons"`
	Tactile  []DeviceResult `json:"tactile"`
	Clean    bool           `json:"clean"`
	// ProblemCount is len(Problems): the number a goal of no lost,
	// corrupt, altered or unanswered frame is checked against.
	ProblemCount int      `json:"problem_count"`
	Problems     []string `json:"problems,omitempty"`
}

// torque is the command sent at tick k: slow sinusoids within the stand-in's
// torque limits, different per joint.
func torque(k uint32) [3]float64 {
	t := float64(k) * 1e-3
	return [3]float64{0.05 * math.Sin(2*math.Pi*1.3*t), 0.04 * math.Sin(2*math.Pi*0.7*t+1), -0.03 * math.Sin(2*math.Pi*2.1*t)}
}

func amplitudes(k uint32, f *devices.TactileFrame) {
	for i := range devices.Pins {
		f.A40Um[i] = float64((int(k)*7+i*13)%300) + 0.25
		f.A320Um[i] = float64((int(k)*3+i*5)%50) + 0.125
	}
}

func um(x float64) int32 { return int32(math.Round(x * 1e6)) }

type exoRig struct {
	name    string
	exo     *link.Exo
	sent    uint64
	applied atomic.Uint64
	altered atomic.Uint64
	tmo     uint64
	lastAck uint32
}

type tacRig struct {
	name    string
	tac     *link.Tactile
	sent    uint64
	applied atomic.Uint64
	altered atomic.Uint64
	tmo     uint64
	lastAck uint32
}

// Run starts the emulator, opens every device through the serial driver,
// runs the loop for cfg.Duration and returns the report. The error is
// non-nil only when the run could not start (the report then has no
// ticks) or a device was lost (the report says so in Problems, with the
// figures up to the loss).
func Run(ctx context.Context, cfg Config) (Result, error) {
	if cfg.Duration <= 0 {
		cfg.Duration = 60 * time.Second
	}
	if cfg.Period <= 0 {
		cfg.Period = time.Millisecond
	}
	if cfg.TactilePeriod <= 0 {
		cfg.TactilePeriod = 25 * time.Millisecond
	}
	if cfg.Duration < cfg.Period {
		// Not one tick: the loop, counting ticks to the end, never ended.
		return Result{}, fmt.Errorf("soak: duration %v shorter than one period %v", cfg.Duration, cfg.Period)
	}
	if !cfg.NormalPriority && cfg.Priority == 0 {
		cfg.Priority = 80
	}
	if !cfg.NormalPriority && (cfg.Priority < 1 || cfg.Priority > 99) {
		return Result{}, fmt.Errorf("soak: SCHED_FIFO priority %d outside 1..99 (NormalPriority keeps normal scheduling)", cfg.Priority)
	}
	if cfg.Link.Transport == "" {
		cfg.Link.Transport = devices.TransportSerial
	}
	if cfg.Link.SilenceTimeout <= 0 {
		cfg.Link.SilenceTimeout = 2 * time.Second
	}
	if len(cfg.Emulator.Devices) == 0 {
		cfg.Emulator.Devices = emu.DefaultDevices()
		for i := range cfg.Emulator.Devices {
			cfg.Emulator.Devices[i].WatchdogMs = 1000
		}
	}
	for _, d := range cfg.Emulator.Devices {
		// The host refuses a watchdog longer than its limit; a soak that
		// lengthens the emulated devices' watchdogs lengthens the limit.
		w := time.Duration(d.WatchdogMs) * time.Millisecond
		cfg.Link.Limits.MaxExoWatchdog = max(cfg.Link.Limits.MaxExoWatchdog, w)
		cfg.Link.Limits.MaxTactileWatchdog = max(cfg.Link.Limits.MaxTactileWatchdog, w)
	}
	res := Result{Bench: "devices", Go: runtime.Version(), CPUs: runtime.NumCPU()}
	ectx, cancel := context.WithCancel(ctx)
	defer cancel()
	em, err := emu.Run(ectx, cfg.Emulator)
	if err != nil {
		return res, err
	}
	defer em.Close()
	var exos []*exoRig
	var tacs []*tacRig
	defer func() {
		for _, r := range exos {
			r.exo.Close()
		}
		for _, r := range tacs {
			r.tac.Close()
		}
	}()
	for _, p := range em.Ports() {
		plug := em.Plug(p.Name)
		port, err := serial.Open(p.Path, serial.Options{})
		if err != nil {
			return res, err
		}
		switch p.Kind {
		case wire.KindExo.String():
			x, err := link.DialExo(port, cfg.Link)
			if err != nil {
				return res, err
			}
			r := &exoRig{name: p.Name, exo: x}
			plug.Device().OnCommand(func(seq uint32, c *wire.Command) {
				r.applied.Add(1)
				want := torque(c.Tag)
				if c.TorqueUNm != [3]int32{um(want[0]), um(want[1]), um(want[2])} {
					r.altered.Add(1)
				}
			})
			exos = append(exos, r)
		case wire.KindTactile.String():
			t, err := link.DialTactile(port, cfg.Link)
			if err != nil {
				return res, err
			}
			r := &tacRig{name: p.Name, tac: t}
			var want devices.TactileFrame
			plug.Device().OnFrame(func(seq uint32, f *wire.TactileFrame) {
				r.applied.Add(1)
				amplitudes(f.Tag, &want)
				for i := range devices.Pins {
					if f.A40Nm[i] != uint32(math.Round(want.A40Um[i]*1e3)) || f.A320Nm[i] != uint32(math.Round(want.A320Um[i]*1e3)) {
						r.altered.Add(1)
						return
					}
				}
			})
			tacs = append(tacs, r)
		}
	}
	for _, r := range exos {
		if err := r.exo.Enable(true); err != nil && !errors.Is(err, devices.ErrTimeout) {
			return res, err
		}
	}
	lossErr := loop(ctx, cfg, exos, tacs, &res)
	drain(exos, tacs)
	for _, r := range exos {
		_ = r.exo.Enable(false)
		dr := DeviceResult{Name: r.name, Port: r.exo.Stats().Port, Sent: r.sent, Applied: r.applied.Load(), Altered: r.altered.Load(),
			LastAck: r.lastAck, ReadTimeouts: r.tmo, Host: r.exo.Stats(), Device: em.Plug(r.name).Device().Stats()}
		res.Exo = append(res.Exo, dr)
		l := dr.Host.CommandLatency
		w := &res.CommandToStateUs
		w.Count += l.Count
		w.P50, w.P99, w.P999, w.Max = max(w.P50, l.P50), max(w.P99, l.P99), max(w.P999, l.P999), max(w.Max, l.Max)
	}
	for _, r := range tacs {
		res.Tactile = append(res.Tactile, DeviceResult{Name: r.name, Port: r.tac.Stats().Port, Sent: r.sent, Applied: r.applied.Load(),
			Altered: r.altered.Load(), LastAck: r.lastAck, ReadTimeouts: r.tmo, Host: r.tac.Stats(), Device: em.Plug(r.name).Device().Stats()})
	}
	res.Problems = problems(&res)
	if lossErr != nil {
		res.Problems = append(res.Problems, "run stopped: "+lossErr.Error())
	}
	res.ProblemCount = len(res.Problems)
	res.Clean = res.ProblemCount == 0
	return res, lossErr
}

// drainLimit bounds how long the run waits, after its last tick, for the
// devices to acknowledge everything sent: the stalls of a loaded machine
// (a few hundred ms) and no more, so a device that lost commands is
// reported, not waited for.
const drainLimit = 2 * time.Second

// drain waits until every device has acknowledged what was sent to it, or
// drainLimit passed, reading the newest acknowledgements.
func drain(exos []*exoRig, tacs []*tacRig) {
	var st devices.ExoState
	var ts devices.TactileStatus
	for end := time.Now().Add(drainLimit); ; time.Sleep(5 * time.Millisecond) {
		done := true
		for _, r := range exos {
			if r.exo.Read(&st) == nil && st.AckSeq != 0 {
				r.lastAck = st.AckSeq
			}
			done = done && r.applied.Load() == r.sent && uint64(r.lastAck) == r.sent
		}
		for _, r := range tacs {
			if r.tac.Status(&ts) == nil && ts.AckSeq != 0 {
				r.lastAck = ts.AckSeq
			}
			done = done && r.applied.Load() == r.sent && uint64(r.lastAck) == r.sent
		}
		if done || time.Now().After(end) {
			return
		}
	}
}

// loop runs the host side at cfg.Period on an internal/rt loop (locked
// thread, absolute deadlines, SCHED_FIFO when permitted, as the rig's
// haptics loop) until cfg.Duration's worth of ticks ran or a device failed.
func loop(ctx context.Context, cfg Config, exos []*exoRig, tacs []*tacRig, res *Result) error {
	n := int(cfg.Duration / cfg.Period)
	every := max(1, int(cfg.TactilePeriod/cfg.Period))
	var io rt.Histogram
	var st devices.ExoState
	var ts devices.TactileStatus
	var cmd devices.ExoCommand
	var fr devices.TactileFrame
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	var failed error
	k := 0
	tick := func(time.Duration) {
		k++
		t0 := time.Now()
		cmd.Seq = uint32(k)
		cmd.Torque = torque(cmd.Seq)
		for _, r := range exos {
			err := r.exo.Read(&st)
			switch {
			case errors.Is(err, devices.ErrTimeout):
				r.tmo++
			case err != nil:
				failed = fmt.Errorf("soak: %s at tick %d: %w", r.name, k, err)
				stop()
				return
			}
			if st.AckSeq != 0 {
				r.lastAck = st.AckSeq
			}
			if err := r.exo.Write(&cmd); err != nil {
				failed = fmt.Errorf("soak: %s at tick %d: %w", r.name, k, err)
				stop()
				return
			}
			r.sent++
		}
		io.Record(time.Since(t0))
		if k%every == 0 {
			fr.Seq = uint32(k / every)
			amplitudes(fr.Seq, &fr)
			for _, r := range tacs {
				if err := r.tac.Status(&ts); errors.Is(err, devices.ErrTimeout) {
					r.tmo++
				} else if err != nil {
					failed = fmt.Errorf("soak: %s at tick %d: %w", r.name, k, err)
					stop()
					return
				}
				if ts.AckSeq != 0 {
					r.lastAck = ts.AckSeq
				}
				if err := r.tac.WriteFrame(&fr); err != nil {
					failed = fmt.Errorf("soak: %s at tick %d: %w", r.name, k, err)
					stop()
					return
				}
				r.sent++
			}
		}
		res.Ticks++
		if k == n {
			stop()
		}
	}
	prio := cfg.Priority
	if cfg.NormalPriority {
		prio = 0
	}
	l := rt.New(rt.Config{Name: "soak", Period: cfg.Period, Priority: prio, Logf: cfg.Logf}, rt.NewClock(), tick)
	defer rt.ReserveProcs(1)()
	start := time.Now()
	done := make(chan struct{})
	// rt.Loop.Run keeps its thread locked for good (it may be real-time):
	// it gets a goroutine of its own.
	go func() {
		defer close(done)
		l.Run(ctx)
	}()
	<-done
	res.DurationS = time.Since(start).Seconds()
	res.TickLatenessUs = link.LatencyOf(&l.Tel.Lateness)
	res.IOUs = link.LatencyOf(&io)
	res.Overruns = l.Tel.Overruns.Load()
	res.RealTime = l.Tel.RealTime.Load()
	return failed
}

func problems(r *Result) []string {
	var out []string
	check := func(d *DeviceResult, what string) {
		add := func(format string, a ...any) { out = append(out, d.Name+": "+fmt.Sprintf(format, a...)) }
		if d.Applied != d.Sent {
			add("host sent %d %s, device acted on %d", d.Sent, what, d.Applied)
		}
		if d.Altered != 0 {
			add("%d %s acted on with altered content", d.Altered, what)
		}
		if uint64(d.LastAck) != d.Sent {
			add("newest acknowledged %s is %d of %d", what, d.LastAck, d.Sent)
		}
		h, v := &d.Host, &d.Device
		if c := h.Decode.Corrupt(); c != 0 {
			add("host received %d corrupt frames", c)
		}
		if h.SeqLost+h.SeqDropped+h.BadBody+h.Unexpected != 0 {
			add("host: %d lost, %d duplicate/out-of-order, %d bad, %d unexpected frames", h.SeqLost, h.SeqDropped, h.BadBody, h.Unexpected)
		}
		if c := v.Decode.Corrupt(); c != 0 {
			add("device received %d corrupt frames", c)
		}
		if v.SeqLost+v.SeqDropped+v.SendDropped != 0 {
			add("device: %d lost, %d duplicate/out-of-order host frames, %d frames it could not send", v.SeqLost, v.SeqDropped, v.SendDropped)
		}
		if len(v.Errors) != 0 {
			add("device reported errors %v", v.Errors)
		}
		if h.Lost != "" {
			add("%s", h.Lost)
		}
	}
	for i := range r.Exo {
		check(&r.Exo[i], "commands")
	}
	for i := range r.Tactile {
		check(&r.Tactile[i], "frames")
	}
	return out
}

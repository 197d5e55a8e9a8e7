// Package rigbench measures the assembled system: the rig's 1 kHz
// haptics loop in real time beside a cloth-like load (with an empty-tick
// baseline of the host), and how much faster than real time the default
// session runs in lockstep. `haptex bench loop` and `haptex bench
// lockstep` print its results. It runs the rig through its exported API.
package rigbench

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/internal/latency"
	"github.com/haptex/haptex/internal/rt"
)

// LoopResult is the result of Loop, the JSON of `haptex bench loop`.
type LoopResult struct {
	Bench       string              `json:"bench"`
	RT          bool                `json:"rt"`
	DurationS   float64             `json:"duration_s"`
	Ticks       uint64              `json:"ticks"`
	RateHz      float64             `json:"rate_hz"`
	LatenessUs  latency.Percentiles `json:"lateness_us"`
	ComputeUs   latency.Percentiles `json:"compute_us"`
	LateOver1ms uint64              `json:"late_over_1ms"`
	// LateTicks lists the first of them, and Clock when the run's clock
	// read zero: together they say when each came, to be matched with a
	// record of the host's pauses (scripts/wakeups.c).
	LateTicks []rig.LateTick   `json:"late_ticks"`
	Clock     *rig.ClockOrigin `json:"clock"`
	Overruns  uint64           `json:"overruns"`
	// StandbyUs is when the loop's standby thread runs a tick its own
	// thread has not begun [µs after the deadline]; 0: no standby ran.
	// Takeovers counts those ticks.
	StandbyUs float64 `json:"standby_us"`
	Takeovers uint64  `json:"takeovers"`
	// IdlePoll reports whether idle cores polled (rig.Config.IdleSleep).
	IdlePoll   bool         `json:"idle_poll"`
	Load       string       `json:"load"`
	LoadRounds uint64       `json:"load_rounds"`
	GC         *rig.GCStats `json:"gc"`
	// HostStealPct is the share of the machine's CPU time a hypervisor
	// took from it during the run (/proc/stat): on a shared virtual
	// machine, lateness that no scheduling policy inside it can prevent.
	HostStealPct float64 `json:"host_steal_pct"`
	// Baseline is the same loop without its tick's work, measured after
	// the run when asked for (nil otherwise).
	Baseline *HostBaseline `json:"baseline,omitempty"`
}

// HostBaseline is the same loop at the same priority beside the same load,
// with an empty tick: the lateness of waking to a 1 ms grid on this
// machine, without the haptics tick's work. Late ticks that appear here
// too do not come from the tick (they come from the host, the kernel or
// the Go runtime; a C real-time thread such as cyclictest separates the
// last). The load stays on because it changes the host's behaviour: an
// idle virtual CPU sleeps deeper and wakes later.
type HostBaseline struct {
	DurationS    float64             `json:"duration_s"`
	RT           bool                `json:"rt"`
	Ticks        uint64              `json:"ticks"`
	LatenessUs   latency.Percentiles `json:"lateness_us"`
	LateOver1ms  uint64              `json:"late_over_1ms"`
	Takeovers    uint64              `json:"takeovers"`
	HostStealPct float64             `json:"host_steal_pct"`
}

// LoopConfig configures Loop.
type LoopConfig struct {
	Duration time.Duration
	// Priority, NormalPriority, Standby, NoStandby and IdleSleep are the
	// rig's (rig.Config): the zero values take the defaults, SCHED_FIFO at
	// rig.DefaultPriority, a standby thread and polling idle cores.
	Priority       int
	NormalPriority bool
	Standby        time.Duration
	NoStandby      bool
	IdleSleep      bool
	// Baseline, when positive, measures the HostBaseline for that long
	// after the run.
	Baseline time.Duration
	Logf     func(string, ...any)
}

// Loop runs the rig's 1 kHz haptics loop in real time while another
// goroutine keeps the other core busy with a cloth-like numeric load, and
// reports the loop's timing. The load runs at the simulation's nice value.
// A baseline runs next, load still on.
func Loop(ctx context.Context, c LoopConfig) (*LoopResult, error) {
	r, err := rig.New(rig.Config{Duration: c.Duration, Priority: c.Priority, NormalPriority: c.NormalPriority,
		Standby: c.Standby, NoStandby: c.NoStandby, IdleSleep: c.IdleSleep, Logf: c.Logf})
	if err != nil {
		return nil, err
	}
	cfg := r.Config()
	var stop atomic.Bool
	var rounds atomic.Uint64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		// The load stands for the simulation, so it runs as the rig runs
		// the simulation: on a thread of its own, a batch thread at its
		// nice value (rt.Config.Nice). The thread dies with the goroutine.
		if n := cfg.EffectiveSimNice(); n != 0 {
			_ = rt.LockThreadBatch(n)
		} else {
			runtime.LockOSThread()
		}
		clothLikeLoad(&stop, &rounds)
	}()
	cpu0, _ := rt.ReadCPUTimes()
	sum, err := r.Run(ctx)
	cpu1, _ := rt.ReadCPUTimes()
	loadRounds := rounds.Load()
	var base *HostBaseline
	if err == nil && c.Baseline > 0 && ctx.Err() == nil {
		base, err = hostBaseline(ctx, c.Baseline, cfg.EffectivePriority(), cfg.EffectiveStandby(), sum.IdlePoll, c.Logf)
	}
	stop.Store(true)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	h := sum.Loops[0]
	if h.LateTicks == nil {
		h.LateTicks = []rig.LateTick{} // [] in the JSON, not null
	}
	var standbyUs float64
	if h.Standby {
		standbyUs = float64(cfg.EffectiveStandby()) / 1e3
	}
	return &LoopResult{
		Bench: "loop", RT: h.RealTime, DurationS: sum.RunS, Ticks: h.Ticks, RateHz: h.RateHz,
		LatenessUs: h.LatenessUs, ComputeUs: h.ComputeUs, LateOver1ms: h.LateOver1ms, LateTicks: h.LateTicks, Clock: sum.Clock, Overruns: h.Overruns,
		StandbyUs: standbyUs, Takeovers: h.Takeovers,
		Load:       "3x3-block sparse matrix-vector products and vector updates over a 64x64-node cloth grid (CG-like), one goroutine on a thread at the simulation's nice value",
		LoadRounds: loadRounds, GC: sum.GC, HostStealPct: rt.StealPercent(cpu0, cpu1), IdlePoll: sum.IdlePoll, Baseline: base,
	}, nil
}

// hostBaseline runs an empty 1 ms loop for d (less if ctx ends first),
// with the same standby as the loop measured and, if idlePoll, with idle
// cores polling as they did.
func hostBaseline(ctx context.Context, d time.Duration, priority int, standby time.Duration, idlePoll bool, logf func(string, ...any)) (*HostBaseline, error) {
	// A P for each of the loop's threads, as the rig reserves them.
	defer rt.ReserveProcs(2)()
	if idlePoll {
		release, err := rt.HoldIdlePoll()
		if err != nil {
			return nil, fmt.Errorf("host baseline: %w", err)
		}
		defer release()
	}
	l := rt.New(rt.Config{Name: "baseline", Period: time.Millisecond, Priority: priority, Standby: standby, Logf: logf}, rt.NewClock(), func(time.Duration) {})
	cpu0, _ := rt.ReadCPUTimes()
	start := time.Now()
	// The time counts from here: the setup above (GOMAXPROCS stops the
	// world) takes none of it.
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	errc := make(chan error, 1)
	// Run locks its goroutine to a thread for good, so it gets one of its own.
	go func() { errc <- l.Run(ctx) }()
	if err := <-errc; ctx.Err() == nil {
		return nil, fmt.Errorf("host baseline: %w", err)
	}
	cpu1, _ := rt.ReadCPUTimes()
	tel := &l.Tel
	late := tel.Lateness.Summary()
	return &HostBaseline{
		DurationS: time.Since(start).Seconds(), RT: tel.RealTime.Load(), Ticks: tel.Ticks.Load(),
		LatenessUs: latency.Durations(time.Microsecond, late.P50, late.P99, late.P999, late.Max), LateOver1ms: tel.LateOver1ms.Load(),
		Takeovers: tel.Takeovers.Load(), HostStealPct: rt.StealPercent(cpu0, cpu1),
	}, nil
}

// clothLikeLoad runs the arithmetic of a cloth solver's conjugate gradient
// iteration on a 64x64-node grid until stopped: a 3x3-block product over
// each node's 8 neighbours, a dot product and two vector updates. It
// allocates only its arrays, once.
func clothLikeLoad(stop *atomic.Bool, rounds *atomic.Uint64) {
	const g = 64
	const n = g * g
	x := make([]float64, 3*n)
	y := make([]float64, 3*n)
	blocks := make([][9]float64, 9) // one block per stencil offset
	for i := range blocks {
		for k := range blocks[i] {
			blocks[i][k] = 0.01 * float64((i*9+k)%7-3)
		}
	}
	blocks[4] = [9]float64{4, 0.1, 0, 0.1, 4, 0.1, 0, 0.1, 4}
	for i := range x {
		x[i] = float64(i%13) * 0.1
	}
	for !stop.Load() {
		for r := 1; r < g-1; r++ {
			for c := 1; c < g-1; c++ {
				i := r*g + c
				var a0, a1, a2 float64
				b := 0
				for dr := -1; dr <= 1; dr++ {
					for dc := -1; dc <= 1; dc++ {
						j := 3 * (i + dr*g + dc)
						m := &blocks[b]
						a0 += m[0]*x[j] + m[1]*x[j+1] + m[2]*x[j+2]
						a1 += m[3]*x[j] + m[4]*x[j+1] + m[5]*x[j+2]
						a2 += m[6]*x[j] + m[7]*x[j+1] + m[8]*x[j+2]
						b++
					}
				}
				y[3*i], y[3*i+1], y[3*i+2] = a0, a1, a2
			}
		}
		var dot, norm float64
		for i := range y {
			dot += x[i] * y[i]
			norm += y[i] * y[i]
		}
		alpha := dot / (norm + 1e-30)
		for i := range x {
			x[i] = 0.5*x[i] + 0.5*alpha*y[i]
		}
		rounds.Add(1)
	}
	runtime.KeepAlive(x)
}

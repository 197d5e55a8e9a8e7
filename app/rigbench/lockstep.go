package rigbench

import (
	"context"
	"errors"
	"os"
	"runtime"
	"slices"
	"time"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/internal/rt"
)

// LockstepResult is the result of Lockstep, the JSON of `haptex bench
// lockstep`.
type LockstepResult struct {
	Bench    string  `json:"bench"`
	Side     int     `json:"side"` // nodes per side of the square cloth, as in the sim bench
	VirtualS float64 `json:"virtual_s"`
	// WallS is each run's wall time (the summary's, without the rig's
	// setup), in order. SpeedP50 and SpeedMax are the virtual time over
	// the median (the longer middle one of an even count) and the
	// shortest.
	WallS    []float64 `json:"wall_s"`
	SpeedP50 float64   `json:"speed_p50"`
	SpeedMax float64   `json:"speed_max"`
	// Split reports whether the cloth's step ran on two cores.
	Split bool `json:"split"`
	// OneCoreWallS is one more run after them with GOMAXPROCS = 1: all of
	// the run's work on one core, as a baseline from the same minutes.
	// OneCoreSpeed is its speed, and TwoCoreBound twice that: no split of
	// the same work over two cores can run faster.
	OneCoreWallS float64 `json:"one_core_wall_s"`
	OneCoreSpeed float64 `json:"one_core_speed"`
	TwoCoreBound float64 `json:"two_core_bound"`
	// Rows and Dropped count the recorded rows of every table over all
	// runs; Dropped must be 0.
	Rows    uint64 `json:"rows"`
	Dropped uint64 `json:"dropped"`
	// HostStealPct is the share of the machine's CPU time a hypervisor
	// took during the runs: on a shared virtual machine the runs vary
	// with it, so compare figures measured in the same minutes.
	HostStealPct float64 `json:"host_steal_pct"`
}

// Lockstep runs the default handling session (the one `haptex run
// -lockstep` runs) in virtual time, runs times for d each, recording to a
// temporary folder it removes, and reports how much faster than real time
// the runs went; then once more on one core (see OneCoreWallS). It sets
// GOMAXPROCS for that run, so nothing else should run in the process.
func Lockstep(ctx context.Context, d time.Duration, runs int) (*LockstepResult, error) {
	if d <= 0 || runs < 1 {
		return nil, errors.New("rigbench: lockstep: the duration and the number of runs must be positive")
	}
	tmp, err := os.MkdirTemp("", "haptex-bench-lockstep-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	b := &LockstepResult{Bench: "lockstep", VirtualS: d.Seconds()}
	cpu0, _ := rt.ReadCPUTimes()
	for i := range runs + 1 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r, err := rig.New(rig.Config{OutDir: tmp, Duration: d})
		if err != nil {
			return nil, err
		}
		oneCore := i == runs
		procs := runtime.GOMAXPROCS(0)
		if oneCore {
			runtime.GOMAXPROCS(1)
		}
		sum, err := r.RunLockstep()
		runtime.GOMAXPROCS(procs)
		if err != nil {
			return nil, err
		}
		for _, t := range sum.Tables {
			b.Rows += t.Rows
			b.Dropped += t.Dropped
		}
		if oneCore {
			b.OneCoreWallS = sum.WallS
			continue
		}
		b.Side = r.Config().Sim.NodesU
		b.Split = r.SplitsStep()
		b.WallS = append(b.WallS, sum.WallS)
	}
	cpu1, _ := rt.ReadCPUTimes()
	b.HostStealPct = rt.StealPercent(cpu0, cpu1)
	w := slices.Sorted(slices.Values(b.WallS))
	b.SpeedP50 = b.VirtualS / w[len(w)/2]
	b.SpeedMax = b.VirtualS / w[0]
	b.OneCoreSpeed = b.VirtualS / b.OneCoreWallS
	b.TwoCoreBound = 2 * b.OneCoreSpeed
	return b, nil
}

package main

import (
	"context"

	"github.com/haptex/haptex/devices/soak"
)

// benchDevices is the device round-trip acceptance run: the emulated rig
// (two exoskeletons and two tactile arrays, the physical twins behind the
// protocol) on pseudo-terminals, driven through the serial driver and the
// link at 1 kHz for -duration (60 s is the acceptance run). Everything
// the run saw go wrong (lost, corrupt, altered or unanswered frames, a
// device lost on the way, which ends the run) is in "problems" and against
// its goal, with the figures up to then; only a run that cannot start
// fails the bench.
func benchDevices(ctx context.Context, o benchOpts) (any, error) {
	res, err := soak.Run(ctx, soak.Config{Duration: o.duration,
		Priority: o.priority, NormalPriority: o.priority <= 0, Logf: o.logf})
	if err != nil && res.Ticks == 0 {
		return nil, err
	}
	return &res, nil
}

// devicesGoals are the device round trip's goals in the README.
var devicesGoals = []benchGoal{
	{"problem_count", "<=", 0, "problems", "frames lost, corrupt, altered or unanswered"},
	{"command_to_state_us.p99", "<=", 1000, "µs", "command to state, p99"},
}

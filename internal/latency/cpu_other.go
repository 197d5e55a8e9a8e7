//go:build !linux

package latency

import "time"

// ThreadCPU is not measured here: benches then report wall time only.
func ThreadCPU() (time.Duration, bool) { return 0, false }

// ProcessCPU is not measured here.
func ProcessCPU() (time.Duration, bool) { return 0, false }

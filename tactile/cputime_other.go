//go:build !linux

package tactile

// threadCPU is not available here; Bench then reports wall time only.
func threadCPU() (int64, bool) { return 0, false }

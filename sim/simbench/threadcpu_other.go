//go:build !linux

package simbench

// threadCPU is unavailable off Linux: step_cpu_ms stays zero.
func threadCPU() (float64, bool) { return 0, false }

//go:build !linux

package render

import "time"

// setNice does nothing where niceness is not per thread.
func setNice(int) {}

// processCPU is not measured here.
func processCPU() (time.Duration, bool) { return 0, false }

package rt

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// maxCPU bounds the core numbers parseCPUList accepts: the kernel's
// CONFIG_NR_CPUS is at most 8192.
const maxCPU = 8192

// parseCPUList parses the kernel's CPU list format ("0-3,8,10-11", as in
// /sys/devices/system/cpu/cpuN/topology/thread_siblings_list), trailing
// newline allowed, into the listed core numbers in the order given.
func parseCPUList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var cpus []int
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 || a >= maxCPU {
			return nil, fmt.Errorf("cpu list %q: bad core %q", s, lo)
		}
		b := a
		if isRange {
			b, err = strconv.Atoi(hi)
			if err != nil || b < a || b >= maxCPU {
				return nil, fmt.Errorf("cpu list %q: bad range %q", s, part)
			}
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}

// pickCPUs chooses, from the allowed cores, one for a loop's thread (the
// highest) and one for its standby: the highest of the others that is not
// a hardware thread of the same physical core, since siblings stall
// together, or any other when all are. siblings(c) lists the hardware
// threads of c's core, c included; nil when unknown. ok is false with
// fewer than two cores.
func pickCPUs(allowed []int, siblings func(int) []int) (own, other int, ok bool) {
	own, other = -1, -1
	for _, c := range allowed {
		own = max(own, c)
	}
	sib := siblings(own)
	fallback := -1
	for _, c := range allowed {
		switch {
		case c == own:
		case !slices.Contains(sib, c):
			other = max(other, c)
		default:
			fallback = max(fallback, c)
		}
	}
	if other < 0 {
		other = fallback
	}
	return own, other, other >= 0
}

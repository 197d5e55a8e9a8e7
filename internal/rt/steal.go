package rt

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
)

// CPUTimes is the machine's aggregate CPU time counters from /proc/stat
// (clock ticks), of which Steal is the time a hypervisor ran something
// else while this machine's virtual CPUs wanted to run.
type CPUTimes struct {
	Total, Steal uint64
}

// ReadCPUTimes reads the counters; ok is false where /proc/stat is missing
// or unreadable (not Linux).
func ReadCPUTimes() (c CPUTimes, ok bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return c, false
	}
	line, _, _ := bytes.Cut(b, []byte{'\n'})
	sc := bufio.NewScanner(bytes.NewReader(line))
	sc.Split(bufio.ScanWords)
	if !sc.Scan() || sc.Text() != "cpu" {
		return c, false
	}
	// user nice system idle iowait irq softirq steal [guest guest_nice]:
	// guest time is already inside user and nice.
	for i := 0; i < 8 && sc.Scan(); i++ {
		v, err := strconv.ParseUint(sc.Text(), 10, 64)
		if err != nil {
			return CPUTimes{}, false
		}
		c.Total += v
		if i == 7 {
			c.Steal = v
			return c, true
		}
	}
	return CPUTimes{}, false
}

// StealPercent is the share of CPU time stolen between two readings [%].
func StealPercent(before, after CPUTimes) float64 {
	d := after.Total - before.Total
	if after.Total <= before.Total || after.Steal < before.Steal {
		return 0
	}
	return 100 * float64(after.Steal-before.Steal) / float64(d)
}

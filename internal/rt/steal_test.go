package rt

import (
	"runtime"
	"testing"
	"time"
)

func TestReadCPUTimes(t *testing.T) {
	a, ok := ReadCPUTimes()
	if !ok {
		if runtime.GOOS == "linux" {
			t.Fatal("no /proc/stat counters on Linux")
		}
		t.Skip("no /proc/stat")
	}
	// The counters advance in clock ticks (USER_HZ, usually 100 a second),
	// and an idle CPU's may be brought up to date late: wait for them to
	// move rather than for a fixed amount of work, which the compiler may
	// shrink and a fast or idle machine may finish within one tick.
	var b CPUTimes
	for deadline := time.Now().Add(5 * time.Second); ; {
		time.Sleep(20 * time.Millisecond)
		b, _ = ReadCPUTimes()
		if b.Total > a.Total || time.Now().After(deadline) {
			break
		}
	}
	if b.Total <= a.Total || b.Steal < a.Steal || a.Steal > a.Total {
		t.Fatalf("counters %+v then %+v", a, b)
	}
	if p := StealPercent(a, b); p < 0 || p > 100 {
		t.Fatalf("steal %v %%", p)
	}
	if p := StealPercent(CPUTimes{Total: 100, Steal: 10}, CPUTimes{Total: 200, Steal: 35}); p != 25 {
		t.Fatalf("steal of 25 ticks in 100: %v %%", p)
	}
}

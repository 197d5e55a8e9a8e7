package rt

import (
	"runtime"
	"testing"
)

func TestReadCPUTimes(t *testing.T) {
	a, ok := ReadCPUTimes()
	if !ok {
		if runtime.GOOS == "linux" {
			t.Fatal("no /proc/stat counters on Linux")
		}
		t.Skip("no /proc/stat")
	}
	x := 0.0
	for i := range 20_000_000 {
		x += float64(i)
	}
	_ = x
	b, _ := ReadCPUTimes()
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

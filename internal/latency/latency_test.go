package latency

import (
	"encoding/json"
	"runtime"
	"testing"
	"time"
)

func TestOf(t *testing.T) {
	x := make([]float64, 1000)
	for i := range x {
		x[i] = float64(1000 - i) // 1..1000, reversed
	}
	if p := Of(x); p != (Percentiles{P50: 500, P99: 990, P999: 999, Max: 1000}) {
		t.Errorf("1..1000: %+v", p)
	}
	// Nearest rank on a small sample: p50 of 1..4 is 2, every tail the
	// largest.
	if p := Of([]float64{4, 1, 3, 2}); p != (Percentiles{P50: 2, P99: 4, P999: 4, Max: 4}) {
		t.Errorf("1..4: %+v", p)
	}
	if p := Of([]float64{7}); p != (Percentiles{P50: 7, P99: 7, P999: 7, Max: 7}) {
		t.Errorf("one sample: %+v", p)
	}
	if p := Of(nil); p != (Percentiles{}) {
		t.Errorf("no samples: %+v", p)
	}
	buf := make([]float64, 2000)
	if n := testing.AllocsPerRun(10, func() {
		for i := range buf {
			buf[i] = float64((i * 7919) % 2000)
		}
		Of(buf)
	}); n != 0 {
		t.Errorf("Of allocates %v times", n)
	}
}

// Durations reports each percentile in the unit asked for.
func TestDurations(t *testing.T) {
	us := Durations(time.Microsecond, 1500*time.Nanosecond, 2*time.Microsecond, 3*time.Millisecond, time.Second)
	if us != (Percentiles{P50: 1.5, P99: 2, P999: 3000, Max: 1e6}) {
		t.Errorf("in µs: %+v", us)
	}
	if ms := Durations(time.Millisecond, 0, time.Millisecond, 3*time.Millisecond, time.Second); ms != (Percentiles{P99: 1, P999: 3, Max: 1000}) {
		t.Errorf("in ms: %+v", ms)
	}
}

// The JSON keys are what the benches' readers parse.
func TestJSON(t *testing.T) {
	b, err := json.Marshal(Percentiles{P50: 1, P99: 2, P999: 3, Max: 4})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"p50":1,"p99":2,"p999":3,"max":4}`; got != want {
		t.Errorf("%s, want %s", got, want)
	}
}

// A thread's clock counts the work done on it; the process's clock counts
// at least as much.
func TestCPUClocks(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0, ok := ThreadCPU()
	p0, pok := ProcessCPU()
	if !ok || !pok {
		if runtime.GOOS == "linux" {
			t.Fatalf("clocks unreadable on Linux: thread %v, process %v", ok, pok)
		}
		t.Skip("no CPU clocks here")
	}
	x := 1.0
	for start := time.Now(); time.Since(start) < 20*time.Millisecond; {
		x = x*1.0000001 + 1e-9
	}
	t1, _ := ThreadCPU()
	p1, _ := ProcessCPU()
	if !(t1 > t0) || !(p1 >= p0) || x == 0 {
		t.Errorf("thread %v -> %v, process %v -> %v", t0, t1, p0, p1)
	}
}

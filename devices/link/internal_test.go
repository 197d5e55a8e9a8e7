package link

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/internal/rt"
)

// LatencyOf reports microseconds, each percentile within one log
// bucket (3.1 %) above the true value and the maximum exactly.
func TestLatencyOf(t *testing.T) {
	var h rt.Histogram
	for i := 1; i <= 1000; i++ {
		h.Record(time.Duration(i) * time.Microsecond)
	}
	p := LatencyOf(&h)
	within := func(got, want float64) bool { return got >= want && got <= want*1.032 }
	if p.Count != 1000 || !within(p.P50, 500) || !within(p.P99, 990) || !within(p.P999, 999) || p.Max != 1000 {
		t.Errorf("%+v", p)
	}
	h.Record(time.Second)
	if p := LatencyOf(&h); p.Max != 1e6 || !within(p.P50, 501) {
		t.Errorf("with an outlier: %+v", p)
	}
	// The JSON is one flat object, the count first, as the soak report and
	// the device stats have always printed it.
	b, err := json.Marshal(LatencyOf(&h))
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); !strings.HasPrefix(s, `{"count":1001,"p50":`) || !strings.Contains(s, `,"p99":`) || !strings.Contains(s, `,"p999":`) || !strings.HasSuffix(s, `,"max":1000000}`) {
		t.Errorf("JSON %s", s)
	}
}

// A Read never reports the stage confirmed off beside a sample that
// reports it on: the reader publishes a STATE before it confirms on it,
// so an older sample can meet a newer confirmation. Such a pair reads as
// what the sample says (asked off, not confirmed), and nothing else
// changes.
func TestSampleConfirm(t *testing.T) {
	all := []devices.Confirm{devices.ConfirmNone, devices.ConfirmPending, devices.ConfirmDevice, devices.ConfirmSilenced, devices.ConfirmWatchdog}
	for _, c := range all {
		for _, enabled := range []bool{false, true} {
			got := sampleConfirm(enabled, c)
			want := c
			if enabled && c == devices.ConfirmDevice {
				want = devices.ConfirmPending
			}
			if enabled && c == devices.ConfirmWatchdog {
				want = devices.ConfirmSilenced
			}
			if got != want || enabled && got.Confirmed() {
				t.Errorf("stage on %v, %v: reads %v, want %v", enabled, c, got, want)
			}
		}
	}
}

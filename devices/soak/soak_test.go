package soak

import (
	"context"
	"encoding/json"
	"flag"
	"testing"
	"time"
)

var soakFor = flag.Duration("soak", 0, "run the device round-trip soak for this long (the acceptance run is -soak 60s)")

// TestRoundTrip runs two exoskeletons and two tactile arrays over the
// emulator's pseudo-terminals at 1 kHz: a few seconds in the normal suite,
// -soak 60s for the acceptance run. Every command and frame must arrive
// intact and be acted on exactly once.
func TestRoundTrip(t *testing.T) {
	d := 3 * time.Second
	if *soakFor > 0 {
		d = *soakFor
	}
	res, err := Run(context.Background(), Config{Duration: d})
	js, _ := json.MarshalIndent(res, "", "  ")
	if err != nil {
		t.Fatalf("%v\n%s", err, js)
	}
	if *soakFor > 0 || testing.Verbose() {
		t.Logf("%s", js)
	}
	if !res.Clean {
		t.Errorf("round trip not clean: %v", res.Problems)
	}
	if len(res.Exo) != 2 || len(res.Tactile) != 2 {
		t.Fatalf("%d exoskeletons and %d tactile arrays, want 2 and 2", len(res.Exo), len(res.Tactile))
	}
	for _, x := range res.Exo {
		if x.Sent < uint64(d/time.Millisecond)*9/10 {
			t.Errorf("%s: only %d commands in %v", x.Name, x.Sent, d)
		}
	}
	t.Logf("%d ticks in %.1f s; command-to-state latency µs: p50 %.0f p99 %.0f p99.9 %.0f max %.0f (n=%d)",
		res.Ticks, res.DurationS, res.CommandToStateUs.P50, res.CommandToStateUs.P99, res.CommandToStateUs.P999, res.CommandToStateUs.Max, res.CommandToStateUs.Count)
}

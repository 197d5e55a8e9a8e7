package soak

import (
	"context"
	"encoding/json"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/haptex/haptex/devices/emu"
	"github.com/haptex/haptex/devices/emu/emutest"
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
	cfg := Config{Duration: d}
	if *soakFor == 0 {
		// The short run shares a loaded CI host, which has frozen the
		// emulator for 2.4 s: its watchdogs and the link's silence and
		// write limits are far above that (the acceptance run keeps the
		// defaults; devices/faulttest tests the silence detector, devices/emu
		// the write limit).
		cfg.Link.SilenceTimeout = 10 * time.Second
		cfg.Link.WriteLimit = 10 * time.Second
		cfg.Emulator.Devices = emu.DefaultDevices()
		for i := range cfg.Emulator.Devices {
			cfg.Emulator.Devices[i].WatchdogMs = 10_000
		}
	}
	if raceEnabled && *soakFor == 0 {
		// The protocol path is the same; the devices behind it are the
		// small stand-ins instead of the physical twins.
		cfg.Emulator.NewExo, cfg.Emulator.NewTactile = emutest.StandInExo, emutest.StandInTactile
	}
	res, err := Run(context.Background(), cfg)
	js, _ := json.MarshalIndent(res, "", "  ")
	if err != nil {
		t.Fatalf("%v\n%s", err, js)
	}
	if *soakFor > 0 || testing.Verbose() {
		t.Logf("%s", js)
	}
	if !res.Clean {
		if *soakFor == 0 && starved(&res) {
			// The short run shares the machine with the rest of the suite:
			// when the host process does not get the CPU to drain the
			// pseudo-terminal, the emulator cannot send and the host
			// misses those frames. Everything that reached the line must
			// still be intact, and everything the host sent acted on.
			t.Logf("host starved of CPU (the device could not send some frames): %v", res.Problems)
		} else {
			t.Errorf("round trip not clean: %v", res.Problems)
		}
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

// starved reports whether every problem of a run is explained by the host
// not reading its lines: host-to-device traffic perfect, and the frames the
// host missed or saw cut no more than those the device could not send.
func starved(r *Result) bool {
	any := false
	for _, d := range append(append([]DeviceResult(nil), r.Exo...), r.Tactile...) {
		h, v := &d.Host, &d.Device
		if d.Applied != d.Sent || d.Altered != 0 || uint64(d.LastAck) != d.Sent || v.Decode.Corrupt() != 0 || v.SeqLost+v.SeqDropped != 0 || len(v.Errors) != 0 || h.Lost != "" {
			return false
		}
		// A write the pseudo-terminal took only in part leaves a frame
		// without its delimiter, and the next intact frame is decoded with
		// it as one corrupt frame: each cut frame may cost one more.
		if h.SeqLost > v.SendDropped+h.Decode.Corrupt() || h.Decode.Corrupt() > v.SendDropped {
			return false
		}
		any = any || v.SendDropped > 0
	}
	return any
}

// A run shorter than one period is refused: the loop counts whole ticks
// to its end, and with none it never ended.
func TestRunRefusesLessThanATick(t *testing.T) {
	_, err := Run(context.Background(), Config{Duration: 999 * time.Microsecond, NormalPriority: true})
	if err == nil || !strings.Contains(err.Error(), "shorter than one period") {
		t.Errorf("%v", err)
	}
}

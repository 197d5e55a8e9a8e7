package emu_test

import (
	"testing"
	"time"

	"github.com/haptex/haptex/devices/emu"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/devices/wire"
)

// An emulated array that measures its pins says so in its CAPS and
// follows each TACTILE_STATUS answering a frame with a TACTILE_MEASURED of
// the frame that played before it, to a host of protocol 1.1; a host of
// 1.0, which does not know the message, is not sent it, and an array
// configured unmeasured announces and sends none.
func TestMeasuredOnlyWhereAnnouncedAndKnown(t *testing.T) {
	for _, tc := range []struct {
		name       string
		minor      uint8
		unmeasured bool
		want       bool
	}{
		{"host 1.1", 1, false, true},
		{"host 1.0", 0, false, false},
		{"unmeasured array", 1, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHostOf(t, func(clock func() time.Duration) *emu.Device {
				a, err := twin.NewTactile(twin.DefaultTactileParams(), 1)
				if err != nil {
					t.Fatal(err)
				}
				return emu.NewTactileDevice(emu.DeviceConfig{Name: "tac", WatchdogMs: 1000, Unmeasured: tc.unmeasured}, a, clock)
			})
			h.send(&wire.Hello{Major: 1, Minor: tc.minor, Nonce: 7})
			var caps wire.CapsTactile
			if len(h.got) == 0 || h.got[0].Type != wire.TypeCapsTactile || caps.Parse(h.got[0].Body) != nil {
				t.Fatalf("no CAPS_TACTILE: %v", h.got)
			}
			if (caps.Measures == 1) != !tc.unmeasured {
				t.Errorf("CAPS_TACTILE measures = %d", caps.Measures)
			}
			var fr wire.TactileFrame
			for k := range 4 {
				h.now += 25 * time.Millisecond
				fr.Tag = uint32(100 + k)
				for p := range wire.Pins {
					fr.A40Nm[p] = 20_000
				}
				h.got = h.got[:0]
				h.send(&fr)
				var status, measured int
				for _, f := range h.got {
					switch f.Type {
					case wire.TypeTactileStatus:
						status++
					case wire.TypeTactileMeasured:
						if status == 0 {
							t.Errorf("frame %d: TACTILE_MEASURED before the TACTILE_STATUS", k)
						}
						measured++
						var m wire.TactileMeasured
						if err := m.Parse(f.Body); err != nil {
							t.Fatal(err)
						}
						// Of the frame before: none before the first, then
						// 20 µm, the mean over the pins within 1 dB (their
						// sensitivities spread by 1 dB about nominal).
						var sum float64
						for _, a := range m.A40Nm {
							sum += float64(a)
						}
						mean := sum / wire.Pins
						wantTag, lo, hi := uint32(100+k-1), 20_000/1.122, 20_000*1.122
						if k == 0 {
							wantTag, lo, hi = 0, 0, 0
						}
						if m.AckTag != wantTag || mean < lo || mean > hi {
							t.Errorf("frame %d: measured frame tag %d, mean %.0f nm; want tag %d, %.0f-%.0f nm", k, m.AckTag, mean, wantTag, lo, hi)
						}
					}
				}
				if status == 0 || (measured == 1) != tc.want || measured > 1 {
					t.Errorf("frame %d: %d TACTILE_STATUS, %d TACTILE_MEASURED; want one measurement %v", k, status, measured, tc.want)
				}
			}
		})
	}
}

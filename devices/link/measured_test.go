package link_test

import (
	"math"
	"sync"
	"testing"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/emu"
	"github.com/haptex/haptex/devices/link"
	"github.com/haptex/haptex/devices/transport/transporttest"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/devices/wire"
)

var measuredOpt = link.Options{SilenceTimeout: 2 * time.Second, Limits: link.Limits{MaxExoWatchdog: 10 * time.Second, MaxTactileWatchdog: 10 * time.Second}}

// dialMeasured serves the simulated array behind an emulated device and
// records, for every frame the device took, what the array's own
// vibrometer read at that moment: the window TACTILE_MEASURED reports, by
// the tag of the frame that played over it.
func dialMeasured(t *testing.T, cfg emu.DeviceConfig) (*link.Tactile, *emu.Device, func(tag uint32) (devices.TactileFrame, bool)) {
	t.Helper()
	backend, err := twin.NewTactile(twin.DefaultTactileParams(), 1)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	dev := emu.NewTactileDevice(cfg, backend, func() time.Duration { return time.Since(start) })
	var mu sync.Mutex
	read := map[uint32]devices.TactileFrame{}
	var prev uint32
	dev.OnFrame(func(_ uint32, f *wire.TactileFrame) {
		var d devices.TactileFrame
		backend.Delivered(&d)
		mu.Lock()
		read[prev] = d
		prev = f.Tag
		mu.Unlock()
	})
	a, err := link.DialTactile(pipeDevice(t, dev), measuredOpt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a, dev, func(tag uint32) (devices.TactileFrame, bool) {
		mu.Lock()
		defer mu.Unlock()
		d, ok := read[tag]
		return d, ok
	}
}

// play writes n frames of a40 and a320 µm on every pin, one every 25 ms,
// from tag first on, and returns the newest measurement the link holds
// once it names the last frame but one (the last is still playing).
func play(t *testing.T, a *link.Tactile, first uint32, n int, a40, a320 float64) devices.TactileFrame {
	t.Helper()
	f := devices.TactileFrame{}
	for i := range devices.Pins {
		f.A40Um[i], f.A320Um[i] = a40, a320
	}
	for k := range n {
		f.Seq = first + uint32(k)
		if err := a.WriteFrame(&f); err != nil {
			t.Fatal(err)
		}
		time.Sleep(25 * time.Millisecond)
	}
	var m devices.TactileFrame
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
		if a.Delivered(&m) && m.Seq == f.Seq-1 {
			return m
		}
	}
	t.Fatalf("no measurement of frame %d within 2 s (newest: frame %d)", f.Seq-1, m.Seq)
	return m
}

func meanPins(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// TestMeasuredOverTheWire: an array that measures its pins reports what
// they vibrated with, and the host takes exactly that: the array's own
// vibrometer reading, to the wire's nanometre; a worn drive's clipped
// amplitude; nothing once the measurements stop while its status goes on.
func TestMeasuredOverTheWire(t *testing.T) {
	a, dev, vibrometer := dialMeasured(t, emu.DeviceConfig{Name: "tac", WatchdogMs: 2000})
	if !a.Spec().Measures {
		t.Fatal("the emulated array does not announce that it measures its pins")
	}
	var m devices.TactileFrame
	if a.Delivered(&m) {
		t.Fatalf("a measurement before the first frame: %+v", m)
	}
	check := func(what string, m devices.TactileFrame, want40, want320 float64) {
		t.Helper()
		v, ok := vibrometer(m.Seq)
		if !ok {
			t.Fatalf("%s: the device took no frame after frame %d", what, m.Seq)
		}
		worst := 0.0
		for i := range devices.Pins {
			worst = max(worst, math.Abs(m.A40Um[i]-v.A40Um[i]), math.Abs(m.A320Um[i]-v.A320Um[i]))
		}
		// The wire carries whole nanometres.
		if worst > 0.5e-3 {
			t.Errorf("%s: the host's measurement differs from the array's vibrometer by up to %.4f µm", what, worst)
		}
		// The pins' sensitivities spread by 1 dB about nominal: the mean
		// over 24 pins lies within 1 dB of what the drive reached.
		g40, g320 := meanPins(m.A40Um[:])/want40, meanPins(m.A320Um[:])/want320
		t.Logf("%s: frame %d measured mean %.3f µm at 40 Hz, %.3f µm at 320 Hz (drive %g, %g)", what, m.Seq, meanPins(m.A40Um[:]), meanPins(m.A320Um[:]), want40, want320)
		if math.Abs(20*math.Log10(g40)) > 1 || math.Abs(20*math.Log10(g320)) > 1 {
			t.Errorf("%s: measured means %.2f and %.2f of the drive's %g and %g µm", what, g40, g320, want40, want320)
		}
	}
	check("as new", play(t, a, 1, 6, 20, 5), 20, 5)

	// Worn to 5 % of its limits (10 µm at 40 Hz, 1.5 µm at 320 Hz), the
	// array clips the same frames: the measurement shows it.
	if err := dev.SetWear(0.05); err != nil {
		t.Fatal(err)
	}
	check("worn", play(t, a, 7, 6, 20, 5), 10, 1.5)

	// No frames, no measurements, while the array goes on reporting its
	// status: three frame periods on, the newest is stale and the host has
	// none, as when a pickup stops.
	last := time.Now()
	for end := last.Add(2 * time.Second); a.Delivered(&m) && time.Now().Before(end); time.Sleep(time.Millisecond) {
	}
	if a.Delivered(&m) {
		t.Errorf("a measurement 2 s after the array's last: frame %d", m.Seq)
	}
	t.Logf("no measurement %v after the newest was read", time.Since(last).Round(time.Millisecond))
	if st := a.Stats(); st.Measurements < 10 || st.Implausible != 0 || st.Unexpected != 0 {
		t.Errorf("stats: %d measurements, %d implausible, %d unexpected; want at least 10, 0, 0", st.Measurements, st.Implausible, st.Unexpected)
	}
}

// TestUnmeasuredArray: an array that does not measure its pins says so,
// sends nothing, and the host has no measurement to give.
func TestUnmeasuredArray(t *testing.T) {
	a, _, _ := dialMeasured(t, emu.DeviceConfig{Name: "tac", WatchdogMs: 2000, Unmeasured: true})
	if a.Spec().Measures {
		t.Fatal("an unmeasured array announces that it measures")
	}
	f := devices.TactileFrame{}
	f.A40Um[0] = 20
	for k := range 4 {
		f.Seq = uint32(k + 1)
		if err := a.WriteFrame(&f); err != nil {
			t.Fatal(err)
		}
		time.Sleep(25 * time.Millisecond)
	}
	var m devices.TactileFrame
	if a.Delivered(&m) || a.Stats().Measurements != 0 {
		t.Errorf("a measurement from an array that does not measure: %+v (%d taken)", m, a.Stats().Measurements)
	}
}

// TestLyingMeasurements: a device that sends measurements it did not
// announce, or amplitudes no pin delivers, gives the host none.
func TestLyingMeasurements(t *testing.T) {
	for _, tc := range []struct {
		name     string
		measures uint8
		a40Nm    uint32
	}{
		{"unannounced", 0, 20_000},
		{"above twice the limit", 1, 2*200_000 + 1},
		{"honest", 1, 20_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			host, dev := transporttest.Pipe("liar", "dev")
			t.Cleanup(func() { dev.Close() })
			go serveFake(dev, func(f *wire.Frame, send func(wire.Body)) {
				switch f.Type {
				case wire.TypeHello:
					var h wire.Hello
					if h.Parse(f.Body) == nil {
						send(&wire.CapsTactile{Caps: wire.Caps{Major: 1, Minor: 1, Kind: wire.KindTactile, Nonce: h.Nonce, PeriodUs: 2000, WatchdogMs: 100},
							Rows: 6, Cols: 4, PitchUm: 2000, MaxA40Nm: 200_000, MaxA320Nm: 30_000, FramePeriodUs: 25_000, Measures: tc.measures})
					}
				case wire.TypeTactileFrame:
					var fr wire.TactileFrame
					if fr.Parse(f.Body) == nil {
						send(&wire.TactileStatus{Status: wire.TactileActive, AckSeq: f.Seq, AckTag: fr.Tag})
						m := wire.TactileMeasured{AckSeq: f.Seq, AckTag: fr.Tag}
						m.A40Nm[3] = tc.a40Nm
						send(&m)
					}
				}
			})
			a, err := link.DialTactile(host, measuredOpt)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { a.Close() })
			f := devices.TactileFrame{Seq: 9}
			f.A40Um[3] = 20
			if err := a.WriteFrame(&f); err != nil {
				t.Fatal(err)
			}
			// Until the device's measurement has come, taken or not.
			var m devices.TactileFrame
			got := false
			for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
				got = a.Delivered(&m)
				if st := a.Stats(); got || st.Implausible+st.Unexpected > 0 {
					break
				}
			}
			st := a.Stats()
			t.Logf("measurement %v (pin 3: %g µm), stats: %d taken, %d implausible, %d unexpected", got, m.A40Um[3], st.Measurements, st.Implausible, st.Unexpected)
			switch tc.name {
			case "honest":
				if !got || m.Seq != 9 || m.A40Um[3] != 20 {
					t.Errorf("an honest measurement not taken: %v %+v", got, m)
				}
			case "unannounced":
				if got || st.Unexpected == 0 {
					t.Errorf("an unannounced measurement taken (%v), or not counted unexpected (%d)", got, st.Unexpected)
				}
			default:
				if got || st.Implausible == 0 {
					t.Errorf("an implausible measurement taken (%v), or not counted (%d)", got, st.Implausible)
				}
			}
		})
	}
}

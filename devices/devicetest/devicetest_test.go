package devicetest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/devicetest"
	"github.com/haptex/haptex/devices/emu"
	"github.com/haptex/haptex/devices/emu/emutest"
	"github.com/haptex/haptex/devices/link"
	"github.com/haptex/haptex/devices/reconnect"
	"github.com/haptex/haptex/devices/record"
	"github.com/haptex/haptex/devices/serial"
	"github.com/haptex/haptex/devices/twin"
)

func emulator(t *testing.T) *emu.Emulator {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	devs := emu.DefaultDevices()
	for i := range devs {
		devs[i].WatchdogMs = 10_000 // as lopt's silence limit
	}
	// The physical twins, the finger at rest: with the default handling
	// script the finger's own motion can outweigh the test's torque,
	// depending on when in the script a subtest runs.
	e, err := emu.Run(ctx, emu.Config{Devices: devs, NewExo: restingExo})
	if err != nil {
		cancel()
		t.Skipf("emulator: %v", err)
	}
	t.Cleanup(func() { cancel(); e.Close() })
	return e
}

// lopt's silence, write and handshake limits are far above any stall of a
// loaded CI host (one stalled this process's emulator for 2.4 s): these
// checks are of the contracts; the silence detector and the write limit
// have their own tests (devices/faulttest, devices/emu).
var lopt = link.Options{Transport: devices.TransportSerial, SilenceTimeout: 10 * time.Second, WriteLimit: 10 * time.Second, HandshakeTimeout: 10 * time.Second, Limits: link.Limits{MaxExoWatchdog: 10 * time.Second, MaxTactileWatchdog: 10 * time.Second}}

func serialExo(t *testing.T, path string) func() (devices.Exoskeleton, error) {
	return func() (devices.Exoskeleton, error) {
		p, err := serial.Open(path, serial.Options{})
		if err != nil {
			return nil, err
		}
		return link.DialExo(p, lopt)
	}
}

func serialTactile(t *testing.T, path string) func() (devices.TactileArray, error) {
	return func() (devices.TactileArray, error) {
		p, err := serial.Open(path, serial.Options{})
		if err != nil {
			return nil, err
		}
		return link.DialTactile(p, lopt)
	}
}

func TestExoskeletons(t *testing.T) {
	e := emulator(t)
	impls := []struct {
		name string
		open func(t *testing.T) devices.Exoskeleton
	}{
		{"sim-standin", func(t *testing.T) devices.Exoskeleton { return emutest.NewMassDamperExo("m", "s") }},
		{"serial", func(t *testing.T) devices.Exoskeleton {
			x, err := serialExo(t, e.Plug("thumb-exo").Path())()
			if err != nil {
				t.Fatal(err)
			}
			return x
		}},
		{"reconnect", func(t *testing.T) devices.Exoskeleton {
			x, err := reconnect.NewExo("index", serialExo(t, e.Plug("index-exo").Path()), reconnect.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return x
		}},
		{"record", func(t *testing.T) devices.Exoskeleton {
			s, err := record.NewSession(t.TempDir(), record.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			rec, err := s.Recorder("x", "exoskeleton", nil)
			if err != nil {
				t.Fatal(err)
			}
			return record.WrapExo(emutest.NewMassDamperExo("m", "s"), rec)
		}},
	}
	for _, im := range impls {
		t.Run("impl="+im.name, func(t *testing.T) {
			devicetest.Exoskeleton(t, im.open(t), devicetest.Options{Responds: true})
		})
	}
}

func TestTactileArrays(t *testing.T) {
	e := emulator(t)
	impls := []struct {
		name string
		open func(t *testing.T) devices.TactileArray
	}{
		{"sim-standin", func(t *testing.T) devices.TactileArray { return emutest.NewPinArray("m", "s") }},
		{"serial", func(t *testing.T) devices.TactileArray {
			a, err := serialTactile(t, e.Plug("thumb-tactile").Path())()
			if err != nil {
				t.Fatal(err)
			}
			return a
		}},
		{"reconnect", func(t *testing.T) devices.TactileArray {
			a, err := reconnect.NewTactile("index", serialTactile(t, e.Plug("index-tactile").Path()), reconnect.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return a
		}},
	}
	for _, im := range impls {
		t.Run("impl="+im.name, func(t *testing.T) {
			devicetest.TactileArray(t, im.open(t), devicetest.Options{})
		})
	}
}

// restingExo is the emulator's physical twin with the finger held still
// (twin.RestScript): the joints answer a torque the same way whenever it
// comes, so that the checks see the response whatever the timing.
func restingExo(dc emu.DeviceConfig) (devices.Exoskeleton, error) {
	f := 1 // the index finger (sim.IndexFinger), as the emulator's names say
	if strings.HasPrefix(dc.Name, "thumb") {
		f = 0 // sim.Thumb
	}
	p := twin.DefaultExoParams()
	p.Transport = twin.TransportParams{} // the emulated device's transport is the real one
	return twin.NewExo(p, twin.DefaultBase(f), twin.RestScript(twin.DefaultScene()), f)
}

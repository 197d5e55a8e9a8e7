package emu_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/haptex/haptex/calib/device"
	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/emu"
	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/devices/link"
	"github.com/haptex/haptex/devices/serial"
	"github.com/haptex/haptex/devices/wire"
	"github.com/haptex/haptex/internal/vec3"
)

// waitExo reads x until ok holds for a fresh sample, or fails after 10 s.
func waitExo(t *testing.T, x devices.Exoskeleton, what string, ok func(*devices.ExoState) bool) devices.ExoState {
	t.Helper()
	var st devices.ExoState
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(2 * time.Millisecond) {
		if err := x.Read(&st); err == nil && !st.Stale && ok(&st) {
			return st
		}
	}
	t.Fatalf("%s: never seen; last sample %+v", what, st)
	return st
}

// An emulator on its stands, found through its announcement: a load hung
// on the pad reaches the host through the serial link as the sensor with
// the calibration twin's errors reads it, the jig carries the pad to a
// point the true kinematics confirm, and the vibrometer reads what a pin
// delivers. On a hand, a stand operation is refused.
func TestStandOverSocket(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	devs := []emu.DeviceConfig{
		{Name: "index-exo", Kind: wire.KindExo, WatchdogMs: 10_000},
		{Name: "index-tactile", Kind: wire.KindTactile, WatchdogMs: 10_000},
	}
	e := startEmu(t, emu.Config{Devices: devs, Stand: true, Errors: true, Announce: true})
	ann, port, ok := emu.FindPort(e.Plug("index-exo").Path())
	if !ok || port.Name != "index-exo" || !ann.Stand || !ann.Errors {
		t.Fatalf("FindPort: %+v %+v %v", ann, port, ok)
	}
	st, err := emu.DialStand(ann.Socket)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	x := dialExo(t, e.Plug("index-exo").Path())

	load := [3]float64{0.05 * device.StandardGravity, 0, -0.02}
	if err := st.Load("index-exo", load); err != nil {
		t.Fatal(err)
	}
	gain, bias := device.TwinSensorError()
	var want [3]float64
	for i := range 3 {
		want[i] = gain[i]*load[i] + bias[i]
	}
	// The load reaches the device's loop at its next tick: wait for a
	// sample that carries it, then average a hundred (sensor noise is a
	// few mN).
	waitExo(t, x, "the load", func(s *devices.ExoState) bool { return s.Force[0] > want[0]/2 })
	var sum [3]float64
	for range 100 {
		s := waitExo(t, x, "a fresh sample", func(*devices.ExoState) bool { return true })
		sum = vec3.Add(sum, s.Force)
	}
	got := vec3.Scale(0.01, sum)
	if d := vec3.Norm(vec3.Sub(got, want)); d > 3e-3 {
		t.Errorf("sensor reads %v N under the load, want %v N (the twin's gain and bias)", got, want)
	}

	plan, err := device.PlanPoses(exo.DefaultParams(), device.DefaultKinParams(), 15)
	if err != nil {
		t.Fatal(err)
	}
	point := plan.Points[3] // device base frame
	nom, _ := exo.New(exo.DefaultParams())
	if err := st.Jig("index-exo", point); err != nil {
		t.Fatal(err)
	}
	truth, _ := exo.New(device.TwinKinematics())
	time.Sleep(400 * time.Millisecond)
	s := waitExo(t, x, "the pad at the jig point", func(s *devices.ExoState) bool {
		return vec3.Norm(vec3.Sub(truth.Forward(s.Joint), point)) < 20e-6
	})
	if d := vec3.Norm(vec3.Sub(nom.Forward(s.Joint), point)); d < 200e-6 {
		t.Errorf("the nominal kinematics put the pad %.0f µm from the jig point: the twin's errors are missing", d*1e6)
	}

	p, err := serial.Open(e.Plug("index-tactile").Path(), serial.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := link.DialTactile(p, link.Options{Transport: devices.TransportSerial, SilenceTimeout: 10 * time.Second, WriteLimit: 10 * time.Second, Limits: link.Limits{MaxTactileWatchdog: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	f := devices.TactileFrame{Seq: 1}
	f.A40Um[5] = 30
	if err := a.WriteFrame(&f); err != nil {
		t.Fatal(err)
	}
	// Wait for the pin to play the frame, then for its envelope to settle
	// (the reading stops changing).
	var on, prev float64
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end) && !(on > 0 && math.Abs(on-prev) < 1e-3*on); time.Sleep(50 * time.Millisecond) {
		prev = on
		if on, err = st.Vibrometer("index-tactile", 5, 40); err != nil {
			t.Fatal(err)
		}
	}
	// The pins' sensitivities spread by 1 dB (3 SD: 0.7..1.4).
	if on < 0.7*30 || on > 1.42*30 {
		t.Errorf("pin 5 delivers %.3g µm for 30 µm asked", on)
	}
	if off, err := st.Vibrometer("index-tactile", 4, 40); err != nil || off != 0 {
		t.Errorf("pin 4, not driven, delivers %v µm (%v)", off, err)
	}
	for _, bad := range []func() error{
		func() error { return st.Load("index-tactile", load) },
		func() error { return st.Load("nobody", load) },
		func() error { return st.Load("index-exo", [3]float64{math.NaN()}) },
		func() error { _, err := st.Vibrometer("index-tactile", 24, 40); return err },
		func() error { _, err := st.Vibrometer("index-exo", 1, 40); return err },
	} {
		if err := bad(); err == nil {
			t.Error("a bad stand request was carried out")
		}
	}

	h := startEmu(t, emu.Config{Devices: devs[:1]})
	if err := h.StandLoad("index-exo", load); !errors.Is(err, emu.ErrNoStand) || !strings.Contains(err.Error(), "-stand") {
		t.Errorf("a load on a device on the hand: %v", err)
	}
}

// A HELLO after HandIdle of silence to every device begins a run: the
// hand starts its script again; a device that reconnects within a run, or
// the second device of the same run, does not restart it.
func TestHandRestartsEachRun(t *testing.T) {
	t.Run("within a run", func(t *testing.T) {
		// Watchdogs of 10 s: heartbeats every 2.5 s, and a new run only
		// after 5 s of silence, far above a loaded CI host's stalls (2.4 s
		// seen), which are silences of the host as real as a pause between
		// runs (with 1 s watchdogs a stall once began a second run here).
		devs := []emu.DeviceConfig{
			{Name: "thumb-exo", Kind: wire.KindExo, WatchdogMs: 10_000},
			{Name: "index-exo", Kind: wire.KindExo, WatchdogMs: 10_000},
		}
		e := startEmu(t, emu.Config{Devices: devs})
		if e.HandIdle() != 5*time.Second {
			t.Errorf("HandIdle %v with 10 s watchdogs, want 5 s", e.HandIdle())
		}
		if e.Runs() != 0 {
			t.Fatalf("%d runs before any host", e.Runs())
		}
		a, b := dialExo(t, e.Plug("thumb-exo").Path()), dialExo(t, e.Plug("index-exo").Path())
		defer a.Close()
		if e.Runs() != 1 {
			t.Errorf("%d runs after the first run opened both devices, want 1", e.Runs())
		}
		b.Close()
		dialExo(t, e.Plug("index-exo").Path()) // reconnected while the thumb's session goes on
		if e.Runs() != 1 {
			t.Errorf("%d runs after a reconnection within the run, want 1", e.Runs())
		}
	})
	t.Run("after a pause", func(t *testing.T) {
		// One device, so that only the pause can begin a run. The pause is
		// HandIdle and a second: the emulator times the silence when it
		// handles the frames, and a stall that delays the host's last
		// frames shortens it.
		e := startEmu(t, emu.Config{Devices: []emu.DeviceConfig{{Name: "thumb-exo", Kind: wire.KindExo, WatchdogMs: 1000}}})
		if e.HandIdle() != 500*time.Millisecond {
			t.Errorf("HandIdle %v with a 1 s watchdog, want 500 ms", e.HandIdle())
		}
		dialExo(t, e.Plug("thumb-exo").Path()).Close()
		if e.Runs() != 1 {
			t.Errorf("%d runs after the first run, want 1", e.Runs())
		}
		time.Sleep(e.HandIdle() + time.Second)
		dialExo(t, e.Plug("thumb-exo").Path())
		if e.Runs() != 2 {
			t.Errorf("%d runs after a second run, want 2", e.Runs())
		}
	})
}

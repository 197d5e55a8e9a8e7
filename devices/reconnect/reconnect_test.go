package reconnect_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/emu"
	"github.com/haptex/haptex/devices/emu/emutest"
	"github.com/haptex/haptex/devices/link"
	"github.com/haptex/haptex/devices/reconnect"
	"github.com/haptex/haptex/devices/serial"
	"github.com/haptex/haptex/devices/wire"
)

func emulator(t *testing.T) *emu.Emulator {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	em, err := emu.Run(ctx, emu.Config{NewExo: emutest.StandInExo, NewTactile: emutest.StandInTactile, Devices: []emu.DeviceConfig{
		{Name: "exo", Kind: wire.KindExo, WatchdogMs: 10_000},
		{Name: "tac", Kind: wire.KindTactile, WatchdogMs: 10_000},
	}})
	if err != nil {
		cancel()
		t.Skipf("emulator: %v", err)
	}
	t.Cleanup(func() { cancel(); em.Close() })
	return em
}

func openExo(path string) func() (devices.Exoskeleton, error) {
	return func() (devices.Exoskeleton, error) {
		p, err := serial.Open(path, serial.Options{})
		if err != nil {
			return nil, err
		}
		return link.DialExo(p, link.Options{Transport: devices.TransportSerial, HandshakeTimeout: 300 * time.Millisecond, SilenceTimeout: 10 * time.Second, WriteLimit: 10 * time.Second, Limits: link.Limits{MaxExoWatchdog: 10 * time.Second, MaxTactileWatchdog: 10 * time.Second}})
	}
}

// The tests set generous silence, write and watchdog limits (10 s):
// detection of an unplugged device comes from its transport, and the
// emulator shares a loaded machine (a CI host has frozen it for 2.4 s).

// TestUnplugReplug pulls the emulated exoskeleton's cable while the loop
// runs: Read must report ErrDisconnected promptly, and the device must be
// back (enabled, fresh samples) soon after it reappears.
func TestUnplugReplug(t *testing.T) {
	em := emulator(t)
	plug := em.Plug("exo")
	x, err := reconnect.NewExo("thumb exoskeleton", openExo(plug.Path()), reconnect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if err := x.Enable(true); err != nil && !errors.Is(err, devices.ErrTimeout) {
		t.Fatal(err)
	}
	var st devices.ExoState
	cmd := devices.ExoCommand{Torque: [3]float64{0.01, 0, 0}}
	tick := func() error {
		err := x.Read(&st)
		if err == nil || errors.Is(err, devices.ErrTimeout) {
			cmd.Seq++
			if werr := x.Write(&cmd); werr != nil {
				return werr
			}
		}
		return err
	}
	for range 100 {
		if err := tick(); err != nil && !errors.Is(err, devices.ErrTimeout) {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
	}
	unplugged := time.Now()
	plug.Unplug()
	var detect time.Duration
	for time.Since(unplugged) < 5*time.Second {
		if err := tick(); errors.Is(err, devices.ErrDisconnected) {
			detect = time.Since(unplugged)
			break
		}
		time.Sleep(time.Millisecond)
	}
	if detect == 0 {
		t.Fatal("unplugged device never reported ErrDisconnected")
	}
	for range 200 { // stays away: every call says so
		if err := tick(); !errors.Is(err, devices.ErrDisconnected) {
			t.Fatalf("while unplugged: %v", err)
		}
		time.Sleep(time.Millisecond)
	}
	if err := plug.Replug(); err != nil {
		t.Fatal(err)
	}
	replugged := time.Now()
	var back time.Duration
	for time.Since(replugged) < 5*time.Second {
		if err := tick(); err == nil && !st.Stale && st.Enabled && st.AckSeq != 0 {
			back = time.Since(replugged)
			break
		}
		time.Sleep(time.Millisecond)
	}
	if back == 0 {
		t.Fatalf("device not back in use 5 s after replugging: %+v", x.Connection())
	}
	t.Logf("unplug detected after %v (limit 10 ms); back in use (enabled, acknowledging commands) %v after replugging (limit 1 s)", detect, back)
	// Qualitative bounds only: the figures are reported by
	// BenchmarkUnplugReplug, the machine is shared.
	if detect > 250*time.Millisecond || back > time.Second {
		t.Errorf("detection %v or return %v far outside the limits", detect, back)
	}
	if c := x.Connection(); c.Losses != 1 || c.Reconnects != 1 || !c.Connected {
		t.Errorf("connection %+v", c)
	}
}

// TestTactileUnplug does the same for a tactile array.
func TestTactileUnplug(t *testing.T) {
	em := emulator(t)
	plug := em.Plug("tac")
	open := func() (devices.TactileArray, error) {
		p, err := serial.Open(plug.Path(), serial.Options{})
		if err != nil {
			return nil, err
		}
		return link.DialTactile(p, link.Options{HandshakeTimeout: 300 * time.Millisecond, SilenceTimeout: 10 * time.Second, WriteLimit: 10 * time.Second, Limits: link.Limits{MaxExoWatchdog: 10 * time.Second, MaxTactileWatchdog: 10 * time.Second}})
	}
	a, err := reconnect.NewTactile("thumb tactile", open, reconnect.Options{Interval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var f devices.TactileFrame
	if err := a.WriteFrame(&f); err != nil {
		t.Fatal(err)
	}
	plug.Unplug()
	deadline := time.Now().Add(5 * time.Second)
	for !errors.Is(a.WriteFrame(&f), devices.ErrDisconnected) {
		if time.Now().After(deadline) {
			t.Fatal("no ErrDisconnected")
		}
		time.Sleep(time.Millisecond)
	}
	plug.Replug()
	for a.WriteFrame(&f) != nil {
		if time.Now().After(deadline) {
			t.Fatal("not back")
		}
		time.Sleep(time.Millisecond)
	}
	var st devices.TactileStatus
	time.Sleep(10 * time.Millisecond)
	if err := a.Status(&st); err != nil || !st.Active {
		t.Errorf("status after reconnect: %+v %v", st, err)
	}
}

// fakeExo is a scripted device for the wrapper's own logic.
type fakeExo struct {
	mu     sync.Mutex
	spec   devices.ExoSpec
	gone   bool
	on     bool
	closed bool
}

func (f *fakeExo) Spec() devices.ExoSpec { return f.spec }
func (f *fakeExo) Read(dst *devices.ExoState) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.gone {
		return devices.ErrDisconnected
	}
	dst.Enabled = f.on
	return nil
}
func (f *fakeExo) Write(*devices.ExoCommand) error { return nil }
func (f *fakeExo) Enable(on bool) error {
	f.mu.Lock()
	f.on = on
	f.mu.Unlock()
	return nil
}
func (f *fakeExo) Close() error {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	return nil
}

// TestMismatchRefused: a different device on the same port is not used.
func TestMismatchRefused(t *testing.T) {
	var mu sync.Mutex
	serialNo := "A"
	var opened []*fakeExo
	open := func() (devices.Exoskeleton, error) {
		mu.Lock()
		defer mu.Unlock()
		d := &fakeExo{spec: devices.ExoSpec{Model: "m", Serial: serialNo, DoF: 3}}
		opened = append(opened, d)
		return d, nil
	}
	x, err := reconnect.NewExo("exo", open, reconnect.Options{Interval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	x.Enable(true)
	mu.Lock()
	opened[0].mu.Lock()
	opened[0].gone = true
	opened[0].mu.Unlock()
	serialNo = "B"
	mu.Unlock()
	var st devices.ExoState
	if err := x.Read(&st); !errors.Is(err, devices.ErrDisconnected) {
		t.Fatalf("Read: %v", err)
	}
	time.Sleep(50 * time.Millisecond)
	if err := x.Read(&st); !errors.Is(err, devices.ErrDisconnected) {
		t.Fatalf("a different device was used: %v", err)
	}
	if c := x.Connection(); c.Connected || c.Attempts < 2 || !strings.Contains(c.LastError, "found m/B") {
		t.Fatalf("connection %+v", c)
	}
	mu.Lock()
	serialNo = "A"
	mu.Unlock()
	deadline := time.Now().Add(5 * time.Second)
	for x.Read(&st) != nil {
		if time.Now().After(deadline) {
			t.Fatal("the right device was not taken back")
		}
		time.Sleep(time.Millisecond)
	}
	if !st.Enabled {
		t.Error("the reopened device was not re-enabled")
	}
}

package emu_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/emu"
	"github.com/haptex/haptex/devices/emu/emutest"
	"github.com/haptex/haptex/devices/link"
	"github.com/haptex/haptex/devices/serial"
	"github.com/haptex/haptex/devices/transport"
)

func startEmu(t *testing.T, cfg emu.Config) *emu.Emulator {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	e, err := emu.Run(ctx, cfg)
	if err != nil {
		cancel()
		t.Skipf("cannot start the emulator (no pseudo-terminals?): %v", err)
	}
	t.Cleanup(func() { cancel(); e.Close() })
	return e
}

func dialExo(t *testing.T, path string) *link.Exo {
	t.Helper()
	p, err := serial.Open(path, serial.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The silence and write limits are far above a loaded CI host's stalls
	// (2.4 s seen); the silence detector has its own test (devices/faulttest),
	// the write limit TestExoThatStopsReading.
	x, err := link.DialExo(p, link.Options{Transport: devices.TransportSerial, SilenceTimeout: 10 * time.Second, WriteLimit: 10 * time.Second, Limits: link.Limits{MaxExoWatchdog: 10 * time.Second, MaxTactileWatchdog: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

func TestExoOverPTY(t *testing.T) {
	// The test is of the link, not of the watchdog: under make test's load
	// a 0.3 s stall of this goroutine once tripped the default 50 ms one
	// and disabled the device, and a 2.4 s one tripped the link's default
	// 250 ms silence limit (see dialExo).
	devs := emu.DefaultDevices()
	devs[0].WatchdogMs = 10_000
	e := startEmu(t, emu.Config{NewExo: emutest.StandInExo, Devices: devs})
	x := dialExo(t, e.Plug("thumb-exo").Path())
	sp := x.Spec()
	if sp.Model != "haptex-emu-exo" || sp.Serial != "EMU-THUMB-EXO" || sp.DoF != 3 || sp.SamplePeriod != time.Millisecond {
		t.Fatalf("spec %+v", sp)
	}
	var st devices.ExoState
	cmd := devices.ExoCommand{Torque: [3]float64{0.05, 0, -0.05}}
	if err := x.Write(&cmd); err != devices.ErrDisabled {
		t.Fatalf("Write before Enable: %v, want ErrDisabled", err)
	}
	if err := x.Enable(true); err != nil && !errors.Is(err, devices.ErrTimeout) {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for i := 1; i <= 300; i++ {
		cmd.Seq = uint32(i)
		if err := x.Write(&cmd); err != nil {
			t.Fatalf("command %d: %v\nlink %+v\ndevice %+v", i, err, x.Stats(), e.Plug("thumb-exo").Device().Stats())
		}
		time.Sleep(time.Millisecond)
		_ = x.Read(&st)
		if time.Now().After(deadline) {
			t.Fatal("too slow")
		}
	}
	for end := time.Now().Add(10 * time.Second); st.AckSeq != 300 && time.Now().Before(end); {
		time.Sleep(time.Millisecond)
		_ = x.Read(&st)
	}
	if !st.Enabled {
		t.Errorf("device not enabled: %+v", st)
	}
	if st.AckSeq != 300 {
		t.Errorf("device acknowledged command %d of 300", st.AckSeq)
	}
	// Positive torque on joint 0 pushes it past its rest position; the
	// finger's reaction shows on the force sensor.
	if st.Joint[0] <= 0.4 || st.Joint[2] >= 0.3 || st.Force[0] <= 0 || st.Force[2] >= 0 {
		t.Errorf("joints %v forces %v do not follow the torques", st.Joint, st.Force)
	}
	s := x.Stats()
	// A frame the device could not write (the line full because this
	// loaded machine kept the host's reader from it: a 221 ms silence
	// once) is lost, and one cut short by the write limit runs into the
	// next, which arrives corrupt with it; the device counts each such
	// frame. The link may lose or corrupt no other.
	dropped := e.Plug("thumb-exo").Device().Stats().SendDropped
	corrupt := s.Decode.Corrupt()
	if corrupt > dropped || s.SeqLost > dropped+corrupt || s.SeqDropped != 0 {
		t.Errorf("clean link lost or corrupted frames the device sent whole (%d it could not send): %+v", dropped, s)
	}
	t.Logf("command-to-state latency: %+v", s.CommandLatency)
}

// TestExoThatStopsReading: an exoskeleton whose firmware stops reading
// commands (here it is detached: it neither reads nor sends, and the
// silence limit is a minute) fills the serial line's output buffer. The host's Write must
// then report the device lost, kind Stalled, after about the link's write
// limit, instead of blocking the control loop until the device reads
// again; every Write after that returns the loss without writing.
func TestExoThatStopsReading(t *testing.T) {
	devs := emu.DefaultDevices()
	devs[0].WatchdogMs = 10_000
	e := startEmu(t, emu.Config{NewExo: emutest.StandInExo, Devices: devs})
	p, err := serial.Open(e.Plug("thumb-exo").Path(), serial.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const limit = 20 * time.Millisecond
	x, err := link.DialExo(p, link.Options{Transport: devices.TransportSerial, SilenceTimeout: time.Minute, WriteLimit: limit, Limits: link.Limits{MaxExoWatchdog: 10 * time.Second, MaxTactileWatchdog: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if err := x.Enable(true); err != nil && !errors.Is(err, devices.ErrTimeout) {
		t.Fatal(err)
	}
	e.Plug("thumb-exo").Device().Detach()
	cmd := devices.ExoCommand{Torque: [3]float64{0.01, 0, 0}}
	var werr error
	var slowest time.Duration
	start := time.Now()
	for i := 1; werr == nil && time.Since(start) < 30*time.Second; i++ {
		cmd.Seq = uint32(i)
		t0 := time.Now()
		werr = x.Write(&cmd)
		slowest = max(slowest, time.Since(t0))
	}
	if !errors.Is(werr, devices.ErrDisconnected) || transport.KindOf(werr) != transport.Stalled {
		t.Fatalf("after %v of commands nobody read: %v, want a lost device of kind Stalled", time.Since(start), werr)
	}
	t.Logf("lost after %v of commands, slowest Write %v: %v", time.Since(start), slowest, werr)
	// Before the limit, Write blocked until the device read again (here:
	// never). The bound is the other device tests' 10 s, far beyond the
	// 20 ms limit plus any stall of a loaded CI host (2.4 s seen).
	if slowest > 10*time.Second {
		t.Errorf("a Write took %v with a %v limit", slowest, limit)
	}
	// Later Writes return the loss without touching the line.
	before := x.Stats().FramesOut
	if err := x.Write(&cmd); !errors.Is(err, devices.ErrDisconnected) {
		t.Errorf("Write after the loss: %v, want ErrDisconnected", err)
	}
	if after := x.Stats().FramesOut; after != before {
		t.Errorf("Write after the loss sent a frame (%d, then %d)", before, after)
	}
}
